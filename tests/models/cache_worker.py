"""Subprocess for the kill test: embed many targets into a cache, slowly, until killed."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tests.models.cache_targets import cache_targets
from wordlens.models.cache import ActivationCache, CacheStore
from wordlens.models.loading import load_model

if __name__ == "__main__":
    original_write = CacheStore.write

    def slow_write(self: CacheStore, *args: object, **kwargs: object) -> None:
        original_write(self, *args, **kwargs)  # type: ignore[arg-type]
        time.sleep(0.1)  # give the parent time to kill us between shards

    CacheStore.write = slow_write  # type: ignore[method-assign]
    model = load_model("minilm-l6", token_budget=96)
    model.embed(cache_targets(), layers=[0, 3, 6], cache=ActivationCache(Path(sys.argv[1])))
