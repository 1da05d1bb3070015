"""Which torch device a model runs on: ``auto`` (the default) or one named.

``auto`` is CUDA when torch sees a GPU, else Apple's MPS, else the CPU. It is resolved once, when
a model loads (:func:`resolve_device`); the device used is what the model's
``info.details["device"]`` records, and so every result's metadata. The device is no part of a
model's fingerprint: vectors agree across devices to float rounding, so runs on a CPU and on a GPU
share the activation cache.
"""

from __future__ import annotations

from wordlens.errors import DeviceError

#: The device types a model can be loaded onto (``TYPE`` or ``TYPE:INDEX``).
DEVICE_TYPES = ("cpu", "cuda", "mps", "xpu")
#: What ``--device`` takes, in words (help texts and error messages).
DEVICE_CHOICES = "auto (CUDA, else MPS, else CPU), cpu, cuda, cuda:1, mps"


def check_device(device: str) -> str:
    """``device`` itself, when it is ``auto`` or ``TYPE[:INDEX]`` of :data:`DEVICE_TYPES`
    (imports no torch: options are checked before anything loads).

    Raises
    ------
    DeviceError
        If it is neither.
    """
    kind, colon, index = device.partition(":")
    if device == "auto" or (kind in DEVICE_TYPES and (not colon or index.isdigit())):
        return device
    raise DeviceError(f"unknown device {device!r}: use {DEVICE_CHOICES}")


def resolve_device(device: str) -> str:
    """The device a model loads onto: ``auto`` resolved (``cuda``, ``mps`` or ``cpu``), any other
    device as it is named once torch says it is available.

    Raises
    ------
    DeviceError
        If ``device`` is unknown (:func:`check_device`), or names an accelerator (or an index of
        one) that torch does not see here.
    """
    import torch

    kind, _, index = check_device(device).partition(":")
    if kind == "auto":
        if torch.cuda.is_available():
            return "cuda"
        return "mps" if torch.backends.mps.is_available() else "cpu"
    if kind == "cpu":
        return device
    backend = {"cuda": torch.cuda, "xpu": torch.xpu}.get(kind)
    count = int(torch.backends.mps.is_available()) if backend is None else backend.device_count()
    if count == 0:
        raise DeviceError(
            f"device {device!r} is not available: torch {torch.__version__} sees no {kind} "
            "device on this machine; use auto (the best one found) or cpu instead"
        )
    if index and int(index) >= count:
        raise DeviceError(
            f"device {device!r} is not available: torch sees {count} {kind} device(s), "
            f"{kind}:0 to {kind}:{count - 1}"
        )
    return device
