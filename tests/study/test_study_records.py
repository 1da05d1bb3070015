"""Cell records: atomic JSON round trips and clear errors on malformed files."""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from pathlib import Path

import pytest

from wordlens.errors import OutputError
from wordlens.study.records import CellRecord, CellRecordError, read_cell_record, write_cell_record

DONE = CellRecord(
    model="../shared/models/minilm-l6-mlm",
    model_slug="minilm-l6-mlm",
    method="likelihood-bias",
    status="done",
    out_dir="cells/minilm-l6-mlm/likelihood-bias",
    headline={"aul_sssb_race": -46.2962962962963, "aul_crows_pairs": -4.774535809018566},
    seconds=12.25,
    config_digest="ab" * 32,
    finished="2026-11-21T17:50:00+00:00",
)


def test_records_round_trip_exactly(tmp_path: Path) -> None:
    running = CellRecord(
        "glove-6b-50d", "glove-6b-50d", "weat", "running", "cells/glove-6b-50d/weat", pid=4242
    )
    for record in (DONE, running):
        path = write_cell_record(tmp_path / record.model_slug / "cell.json", record)
        assert read_cell_record(path) == record
        assert list(read_cell_record(path).headline) == list(record.headline)  # order kept
    assert not list(tmp_path.rglob("*.tmp"))  # the atomic writer left no temporary file


def test_nan_headlines_survive_and_integers_read_as_floats(tmp_path: Path) -> None:
    record = CellRecord(
        "m", "m", "vast", "done", "cells/m/vast", {"vast_best_r": math.nan, "vast_best_layer": 3}
    )
    back = read_cell_record(write_cell_record(tmp_path / "cell.json", record))
    assert math.isnan(back.headline["vast_best_r"])
    assert back.headline["vast_best_layer"] == 3.0
    assert isinstance(back.headline["vast_best_layer"], float)


def _written(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "cells" / "m" / "weat" / "cell.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_malformed_json_names_the_file_line_and_column(tmp_path: Path) -> None:
    path = _written(tmp_path, '{\n  "model": "m",\n  "status": done\n}\n')
    with pytest.raises(CellRecordError, match=r"cell\.json:3:13: not a cell record"):
        read_cell_record(path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"status": "finished"}, r"status: Input should be 'done', 'failed', 'running'"),
        ({"headline": {"aul": "high"}}, r"headline\.aul: Input should be a valid number"),
        ({"pid": "one"}, r"pid: Input should be a valid integer"),
        ({"colour": "red"}, r"colour: Unexpected keyword argument"),
    ],
)
def test_a_bad_field_is_named(tmp_path: Path, change: dict[str, object], message: str) -> None:
    path = _written(tmp_path, json.dumps({**asdict(DONE), **change}))
    with pytest.raises(CellRecordError, match=message) as raised:
        read_cell_record(path)
    assert str(path) in str(raised.value)


def test_missing_fields_a_non_mapping_and_a_missing_file(tmp_path: Path) -> None:
    fields = asdict(DONE)
    del fields["method"], fields["out_dir"]
    with pytest.raises(CellRecordError, match="method: Field required; out_dir: Field required"):
        read_cell_record(_written(tmp_path, json.dumps(fields)))
    with pytest.raises(CellRecordError, match=r"\(top level\): Input should be a dictionary"):
        read_cell_record(_written(tmp_path, "[1, 2]"))
    with pytest.raises(CellRecordError, match=r"cannot read cell record .*nowhere"):
        read_cell_record(tmp_path / "nowhere" / "cell.json")


def test_an_unwritable_place_is_an_output_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(OutputError, match="cannot write cell record"):
        write_cell_record(blocker / "cell.json", DONE)
