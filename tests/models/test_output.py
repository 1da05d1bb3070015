"""The extraction's output rows: a large result goes to a temporary file as its rows finish (not
held in RAM), and the vectors are the same wherever they were kept — computed, read from the
activation cache, or copied for a duplicate target."""

from __future__ import annotations

import mmap
import sys
from pathlib import Path

import numpy as np
import pytest

from wordlens.contexts import targets_from_template
from wordlens.models import output
from wordlens.models.cache import ActivationCache
from wordlens.models.hf import HFEmbedder
from wordlens.models.output import OutputRows, row_blocks


@pytest.mark.parametrize("in_memory_bytes", [None, 0])
def test_rows_written_in_any_order_read_back(in_memory_bytes: int | None) -> None:
    rows = OutputRows((5, 2, 3), in_memory_bytes)
    assert rows.spilled == (in_memory_bytes == 0)
    values = np.arange(5 * 6, dtype=np.float32).reshape(5, 2, 3) - 7.5
    rows.write([3, 0], values[[3, 0]])
    rows.write(np.array([4]), values[[4]])
    np.testing.assert_array_equal(rows.read(3), values[3])
    array = rows.array()
    np.testing.assert_array_equal(array[[0, 3, 4]], values[[0, 3, 4]])
    np.testing.assert_array_equal(array[[1, 2]], 0.0)  # never written: zeros
    assert array.dtype == np.float32 and array.shape == (5, 2, 3)


def test_spilled_array_is_a_writable_map_of_a_file() -> None:
    rows = OutputRows((3, 4), in_memory_bytes=0)
    rows.write([1], np.ones((1, 4)))
    array = rows.array()
    assert isinstance(array, np.memmap)
    array[2] = 5.0  # writable, like a RAM result
    assert array[2].sum() == 20.0 and array[1].sum() == 4.0


def test_spilled_extraction_equals_in_memory(
    smollm2: HFEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every path that fills the output: computed batches, cached batches, duplicates."""
    words = ["pleasant", "unpleasantness", "cat", "pleasant", "Ukrainian", "cat"]
    targets = targets_from_template(words)
    in_memory = smollm2.embed_poolings(targets, [0, 5, 30], ["mean", "last"])
    monkeypatch.setattr(output, "IN_MEMORY_BYTES", 0)
    cache = ActivationCache(tmp_path)
    smollm2.embed(targets[:3], layers=[0, 5, 30], pooling="mean", cache=cache)
    spilled = smollm2.embed_poolings(targets, [0, 5, 30], ["mean", "last"], cache=cache)
    rerun = smollm2.embed(targets, layers=[0, 5, 30], pooling="mean", cache=cache)
    for pooling in ("mean", "last"):
        assert isinstance(spilled[pooling].vectors, np.memmap)
        np.testing.assert_allclose(
            spilled[pooling].vectors, in_memory[pooling].vectors, rtol=1e-5, atol=1e-5
        )
        np.testing.assert_array_equal(spilled[pooling].n_subtokens, in_memory[pooling].n_subtokens)
    np.testing.assert_array_equal(rerun.vectors, spilled["mean"].vectors)
    np.testing.assert_array_equal(spilled["mean"].vectors[3], spilled["mean"].vectors[0])


@pytest.mark.parametrize("in_memory_bytes", [None, 0])
def test_row_blocks_cover_the_rows_in_order(in_memory_bytes: int | None) -> None:
    rows = OutputRows((10, 2, 3), in_memory_bytes)
    values = np.arange(10 * 6, dtype=np.float32).reshape(10, 2, 3)
    rows.write(range(10), values)
    array = rows.array()
    blocks = list(row_blocks(array, max_bytes=4 * 6 * 4))  # 4 rows a block: 4, 4, 2
    assert [(first, len(block)) for first, block in blocks] == [(0, 4), (4, 4), (8, 2)]
    np.testing.assert_array_equal(np.concatenate([block for _, block in blocks]), values)
    np.testing.assert_array_equal(array, values)  # dropped pages read back from the file
    assert [len(block) for _, block in row_blocks(array, max_bytes=1)] == [1] * 10


def _resident_bytes() -> int:
    """This process's resident set now (Linux)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * mmap.PAGESIZE


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/statm")
def test_row_blocks_of_a_spilled_result_hold_one_block_in_memory() -> None:
    """Going through a 64 MiB mapped result in 4 MiB blocks leaves its pages out of the resident
    set (a read of the whole map would add 64 MiB)."""
    rows = OutputRows((64, 1 << 18), in_memory_bytes=0)  # 64 rows of 1 MiB
    rows.write(range(64), np.ones((64, 1 << 18), dtype=np.float32))
    array = rows.array()
    before = _resident_bytes()
    total = sum(float(block.sum()) for _, block in row_blocks(array, max_bytes=4 << 20))
    assert total == 64 * (1 << 18)
    assert _resident_bytes() - before < 16 << 20


@pytest.mark.parametrize("mode", ["r+", "c"])
def test_row_blocks_of_a_mapped_npy_file_keep_its_values(tmp_path: Path, mode: str) -> None:
    """A map that starts after a header (a page-unaligned offset), shared or copy-on-write:
    dropping pages keeps every value written through it."""
    path = tmp_path / "a.npy"
    np.save(path, np.zeros((8, 1000), dtype=np.float32))
    array = np.load(path, mmap_mode=mode)
    assert isinstance(array, np.memmap) and array.offset % mmap.PAGESIZE != 0
    array[:] = np.arange(8, dtype=np.float32)[:, None]
    blocks = [block.copy() for _, block in row_blocks(array, max_bytes=3 * 4000)]
    np.testing.assert_array_equal(np.concatenate(blocks), np.arange(8)[:, None].repeat(1000, 1))
    np.testing.assert_array_equal(array, np.arange(8)[:, None].repeat(1000, 1))
