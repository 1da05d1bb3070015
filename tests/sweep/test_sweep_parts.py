"""The parts a sweep stands on, one at a time: the peak memory of a block, the tokenizer key that
decides sharing, inputs read once, the options that refuse a sweep, cell records and digests of
studies written before sweeps existed, and the headline figure's panels."""

from __future__ import annotations

import hashlib
import json
import mmap
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from wordlens.cli import app
from wordlens.errors import UnknownModelError, WordlensError
from wordlens.methods.base import Method, read_once_when_shared, sharing_inputs
from wordlens.models.loading import ALIASES, _tokenizer_key, load_model
from wordlens.models.options import ModelOptions
from wordlens.study.peak_memory import peak_memory
from wordlens.study.records import read_cell_record
from wordlens.study.spec import load_study
from wordlens.sweep.figures import headline_lines

runner = CliRunner()


@pytest.mark.skipif(sys.platform != "linux", reason="the block's own peak needs Linux's clear_refs")
def _touched(mib: int) -> None:
    """Map ``mib`` MiB of fresh pages, write every one, unmap them (an anonymous map, not the
    allocator's: a process that ran models holds freed memory a large array would reuse)."""
    page = mmap.PAGESIZE
    block = mmap.mmap(-1, mib * 2**20)
    block[::page] = b"\1" * (mib * 2**20 // page)  # one byte in every page: all resident
    block.close()


def test_the_peak_memory_is_the_blocks_own() -> None:
    with peak_memory() as big:
        _touched(300)
    with peak_memory() as small:
        _touched(20)
    assert big.block_only and small.block_only
    assert big.rss_mib - small.rss_mib > 200  # the first block's peak did not carry over
    assert big.gpu_mib is None  # no CUDA here


def test_tokenizers_are_shared_only_between_identical_files(tmp_path: Path) -> None:
    source = ALIASES["minilm-l6"].package_dir() / "model"
    same, other = tmp_path / "same", tmp_path / "other"
    for folder in (same, other):
        shutil.copytree(source, folder)
    (other / "vocab.txt").write_text((source / "vocab.txt").read_text() + "newtoken\n")
    key = _tokenizer_key(str(source), None, False)
    assert key is not None and key == _tokenizer_key(str(same), None, False)
    assert key != _tokenizer_key(str(other), None, False)
    assert key != _tokenizer_key(str(source), None, True)  # remote code: never mixed
    assert _tokenizer_key(str(tmp_path / "none"), None, False) is None  # not on disk: not shared


class _Counting(Method[ModelOptions]):
    """A method whose inputs count their reads (what ``read_inputs`` of a real method does is
    tested through the sweeps; this pins the memo's keys)."""

    name = "counting"
    title = "counting"
    citation = ""
    config_type = ModelOptions
    needs = ""
    reads = 0

    @read_once_when_shared
    def read_inputs(self, config: ModelOptions) -> object:
        type(self).reads += 1
        return object()

    def run(self, model: ModelOptions, config: ModelOptions, context: object) -> object:  # type: ignore[override]
        raise NotImplementedError

    def summary(self, run: object) -> object:  # type: ignore[override]
        raise NotImplementedError


def test_inputs_are_read_once_per_method_and_config_while_shared() -> None:
    method, other = _Counting(), _Counting()
    first, second = ModelOptions(model="a"), ModelOptions(model="b")
    assert method.read_inputs(first) is not method.read_inputs(first)  # not shared: read again
    with sharing_inputs():
        kept = method.read_inputs(first)
        assert method.read_inputs(ModelOptions(model="a")) is kept  # an equal config
        assert method.read_inputs(second) is not kept
        assert other.read_inputs(first) is not kept  # another method object (its own query)
    assert _Counting.reads == 2 + 3
    assert method.read_inputs(first) is not kept  # the block is over


def test_what_loads_one_model_refuses_revisions() -> None:
    with pytest.raises(UnknownModelError, match="revision 'step1000': minilm-l6 is a local model"):
        load_model("minilm-l6", revision="step1000")
    with pytest.raises(WordlensError, match="--revisions runs a method once per checkpoint"):
        ModelOptions(model="minilm-l6", revisions=("all",)).embedder()
    result = runner.invoke(app, ["embed", "-m", "minilm-l6", "--revisions", "all", "happy",
                                 "--out", "x.npy"])  # fmt: skip
    assert result.exit_code == 2 and "once per checkpoint" in result.output
    with pytest.raises(WordlensError, match="unknown backend 'spark'"):
        ModelOptions(model="minilm-l6", backend="spark")  # type: ignore[arg-type]


def test_records_and_digests_of_studies_before_sweeps_stay_valid(tmp_path: Path) -> None:
    record = {
        "model": "glove-6b-50d", "model_slug": "glove-6b-50d", "method": "weat",
        "status": "done", "out_dir": "cells/glove-6b-50d/weat", "headline": {"weat7_d_top": 1.5},
        "seconds": 2.0, "error": None, "config_digest": "x", "finished": None, "pid": None,
        "host": None,
    }  # fmt: skip
    (tmp_path / "cell.json").write_text(json.dumps(record))
    read = read_cell_record(tmp_path / "cell.json")
    assert read.peak_memory_mib is None and read.peak_gpu_memory_mib is None
    study_file = tmp_path / "study.yaml"
    study_file.write_text("name: s\nmodels: [glove-6b-50d]\nmethods:\n  weat: {tests: [7]}\n")
    [cell] = load_study(study_file, check_inputs=False).cells
    # the digest as it was computed before revision, revisions existed
    model = {"model": "glove-6b-50d", "dtype": "float32", "bos": "auto", "token_budget": None,
             "trust_remote_code": False, "unicode": "NFC"}  # fmt: skip
    content = {"model": model, "method": "weat", "options": cell.options}
    before = hashlib.sha256(json.dumps(content, sort_keys=True, default=str).encode()).hexdigest()
    assert cell.digest() == before


def test_the_headline_figure_has_one_panel_per_number() -> None:
    table = pd.DataFrame(
        {
            "revision": ["a", "b", "c"] * 2,
            "step": pd.array([0, 10, 20] * 2, dtype="Int64"),
            "layer": pd.array([pd.NA] * 6, dtype="Int64"),
            "depth": np.nan,
            "quantity": ["aul"] * 3 + ["cam"] * 3,
            "value": [1.0, 2.0, 3.0, -1.0, 0.5, 0.25],
            "low": [0.5, 1.5, 2.5, np.nan, np.nan, np.nan],
            "high": [1.5, 2.5, 3.5, np.nan, np.nan, np.nan],
        }
    )
    figure = headline_lines(table, ["aul", "cam"])
    panels = [axis for axis in figure.drawing.axes if axis.get_visible()]
    assert [axis.get_title() for axis in panels] == ["aul", "cam"]
    for axis, values in zip(panels, ([1.0, 2.0, 3.0], [-1.0, 0.5, 0.25]), strict=True):
        [line] = axis.get_lines()[:1]
        np.testing.assert_array_equal(line.get_xdata(), [0, 10, 20])
        np.testing.assert_array_equal(line.get_ydata(), values)
    assert len(panels[0].collections) == 1 and not panels[1].collections  # band: aul only
    assert "shaded: the run's interval" in figure.caption
