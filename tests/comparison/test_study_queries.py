"""A study whose method lists several queries: one cell per model and query, and a comparison
of the models per method beside the cells, linked from the study's page."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

import wordlens
from tests.comparison.test_compare_cli import CAREER, FLOWERS
from wordlens.cli import app
from wordlens.comparison import read_comparison
from wordlens.study.spec import StudyFileError, load_study, study_json_schema

runner = CliRunner()


def _study(folder: Path, queries: list[str]) -> Path:
    for name, query in (("flowers", FLOWERS), ("career", CAREER)):
        (folder / f"{name}.yaml").write_text(yaml.safe_dump(query), encoding="utf-8")
    study = {
        "name": "compared",
        "out": str(folder / "out"),
        "models": ["glove-6b-50d", {"model": "glove-6b-50d", "name": "glove-again"}],
        "methods": {"weat": {"query": queries, "permutations": 10}},
    }
    path = folder / "study.yaml"
    path.write_text(yaml.safe_dump(study), encoding="utf-8")
    return path


def test_a_study_runs_each_query_and_ranks_the_models(tmp_path: Path) -> None:
    path = _study(tmp_path, [str(tmp_path / "flowers.yaml"), str(tmp_path / "career.yaml")])
    result = runner.invoke(app, ["study", "run", str(path)])
    assert result.exit_code == 0, result.output
    assert "glove-again / weat (career)" in result.output
    cells = {cell.relative_dir: cell.query for cell in load_study(path).cells}
    assert cells == {
        "cells/glove-6b-50d/weat/flowers": "flowers",
        "cells/glove-6b-50d/weat/career": "career",
        "cells/glove-again/weat/flowers": "flowers",
        "cells/glove-again/weat/career": "career",
    }
    status = json.loads(runner.invoke(app, ["study", "status", str(path), "--json"]).stdout)
    assert {(row["method"], row["query"]) for row in status["cells"]} == {
        ("weat", "flowers"),
        ("weat", "career"),
    }
    out = tmp_path / "out"
    comparison = read_comparison(out / "comparisons" / "weat")
    ranked = comparison.tables["rankings"].set_index("model")
    # each model's score: mean |d| over the two queries, from its cells' own runs
    for model in ("glove-6b-50d", "glove-again"):
        sizes = [
            wordlens.read_run(out / "cells" / model / "weat" / query).tables["weat"]["effect_size"]
            for query in ("flowers", "career")
        ]
        expected = np.mean([abs(float(size.item())) for size in sizes])
        assert ranked.loc[model, "score"] == pytest.approx(expected, rel=1e-12)
    # the same vectors twice: a tie, ranked in the models' order (WEFE's "first")
    assert ranked["rank"].tolist() == [1.0, 2.0]
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "Models compared and ranked by bias" in index
    assert 'href="comparisons/weat/report.html"' in index
    assert "weat (career)" in index


def test_two_queries_with_one_name_are_refused(tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    path = _study(
        tmp_path, [str(tmp_path / "flowers.yaml"), str(tmp_path / "other" / "flowers.yaml")]
    )
    with pytest.raises(StudyFileError, match="two queries with the same file name"):
        load_study(path)


def test_the_schema_takes_one_query_or_several() -> None:
    import jsonschema

    schema = study_json_schema()
    study = {"name": "s", "models": ["glove-6b-50d"], "methods": {"weat": {"query": "a.yaml"}}}
    jsonschema.validate(study, schema)
    study["methods"]["weat"]["query"] = ["a.yaml", "b.yaml"]
    jsonschema.validate(study, schema)
    study["methods"]["weat"]["query"] = []
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(study, schema)
