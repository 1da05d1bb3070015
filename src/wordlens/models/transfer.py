"""Results from an accelerator to the host without stalling the pipeline.

A batch's pooled vectors ``[targets, layers, dim]`` are the only tensors that cross to the host.
On CUDA they are copied into page-locked (pinned) host memory with a non-blocking copy and an
event, so the host goes on preparing the next batch while the copy runs behind the batch's
kernels; :func:`to_host` returns the function that waits for that event. Elsewhere (CPU, MPS) the
copy is the ordinary one.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import torch


def to_host(tensor: torch.Tensor) -> Callable[[], npt.NDArray[np.float32]]:
    """Start copying a float32 ``tensor`` to the host; the returned function waits for the copy
    and returns it as an array (on the CPU, the tensor's own memory)."""
    if tensor.device.type != "cuda":
        array: npt.NDArray[np.float32] = tensor.cpu().numpy()
        return lambda: array
    pinned = torch.empty(tensor.shape, dtype=tensor.dtype, pin_memory=True)
    pinned.copy_(tensor, non_blocking=True)
    copied = torch.cuda.Event()  # type: ignore[no-untyped-call]
    copied.record()

    def wait() -> npt.NDArray[np.float32]:
        copied.synchronize()
        result: npt.NDArray[np.float32] = pinned.numpy()
        return result

    return wait
