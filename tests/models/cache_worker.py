"""Subprocess of the cache tests: embed targets into a cache until done or killed.

``python -m tests.models.cache_worker CACHE [--model M] [--token-budget N] [--targets NAME]
[--layers 0,3,6] [--slow] [--ready FILE --go FILE] [--out FILE.npz]``: with ``--slow`` it sleeps
0.1 s after each shard (time for the parent to kill it between shards); with ``--ready``/``--go``
it writes FILE once the model is loaded and waits for the go file (two workers start together);
``--out`` saves the vectors and the number of targets this process computed.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from tests.models.cache_targets import named_targets
from wordlens.models.cache import ActivationCache, CacheStore
from wordlens.models.hf import HFEmbedder
from wordlens.models.loading import load_model


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("cache", type=Path)
    parser.add_argument("--model", default="minilm-l6")
    parser.add_argument("--token-budget", type=int, default=None)
    parser.add_argument("--targets", default="cache")
    parser.add_argument("--layers", default="0,3,6")
    parser.add_argument("--slow", action="store_true")
    parser.add_argument("--ready", type=Path)
    parser.add_argument("--go", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    torch.set_num_threads(1)  # two workers share the test machine's cores
    if args.slow:
        original_write = CacheStore.write

        def slow_write(self: CacheStore, *inner: Any, **kwargs: Any) -> None:
            original_write(self, *inner, **kwargs)
            time.sleep(0.1)

        CacheStore.write = slow_write  # type: ignore[method-assign]
    model = load_model(args.model, token_budget=args.token_budget)
    assert isinstance(model, HFEmbedder)
    computed = [0]
    forward = model.forward

    def counted(items: Any, layers: Any, poolings: Any) -> Any:
        computed[0] += len(items)
        return forward(items, layers, poolings)

    model.forward = counted  # type: ignore[method-assign]
    targets = named_targets(args.targets)
    if args.ready is not None and args.go is not None:
        args.ready.touch()
        while not args.go.exists():
            time.sleep(0.01)
    layers = [int(layer) for layer in args.layers.split(",")]
    result = model.embed(targets, layers=layers, cache=ActivationCache(args.cache))
    if args.out is not None:
        np.savez(args.out, vectors=result.vectors, computed=computed[0])


if __name__ == "__main__":
    main()
