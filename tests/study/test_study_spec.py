"""Study files: schema validation with line numbers, cells, option aliases and digests."""

from __future__ import annotations

from pathlib import Path

import pytest

from wordlens.study.spec import (
    METHODS,
    StudyFileError,
    load_study,
    method_schema,
    slugify,
    study_json_schema,
    validate_options,
)

VALID = """\
name: tiny
models:
  - glove-6b-50d
  - name: mini
    model: ../shared/models/minilm-l6-mlm
    dtype: float16
methods:
  weat: {context: none, tests: [1, 2], n-samples: 100}
  probe:
    task: pos
    repr: [mix, lex]
    max_steps: 50
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "study.yaml"
    path.write_text(text)
    return path


def test_a_valid_study_has_a_cell_per_model_and_method(tmp_path: Path) -> None:
    study = load_study(_write(tmp_path, VALID))
    assert study.name == "tiny" and study.out_dir == tmp_path / "wordlens-results" / "tiny"
    assert [m.display_name for m in study.models] == ["glove-6b-50d", "mini"]
    assert [(c.model.slug, c.method) for c in study.cells] == [
        ("glove-6b-50d", "weat"),
        ("mini", "weat"),
        ("glove-6b-50d", "probe"),
        ("mini", "probe"),
    ]
    weat, probe = study.cells[0], study.cells[2]
    # lists become the commands' comma lists; dashed option names and flags are accepted
    assert dict(weat.options) == {"context": "none", "tests": "1,2", "n_samples": 100}
    assert dict(probe.options) == {"task": "pos", "representations": "mix,lex", "max_steps": 50}
    assert weat.out_dir == study.out_dir / "cells" / "glove-6b-50d" / "weat"
    assert study.cells[1].model.dtype == "float16" and study.cells[0].model.dtype == "float32"
    # the digest follows the options and the loading options, not the display name
    assert len({cell.digest() for cell in study.cells}) == 4
    changed = load_study(_write(tmp_path, VALID.replace("n-samples: 100", "n-samples: 200")))
    assert changed.cells[0].digest() != weat.digest()
    assert changed.cells[2].digest() == probe.digest()
    renamed = load_study(_write(tmp_path, VALID.replace("name: mini", "name: other")))
    assert renamed.cells[1].digest() == study.cells[1].digest()


def test_schema_errors_name_the_file_and_line_of_each_value(tmp_path: Path) -> None:
    text = """\
name: bad
models:
  - glove-6b-50d
  - model: minilm-l6
    dtype: float64
methods:
  weat:
    tests: [1, 2]
    n_samples: many
    colour: blue
  vast: {max_pcs: 3}
  dance: {}
"""
    with pytest.raises(StudyFileError) as caught:
        load_study(_write(tmp_path, text))
    message = str(caught.value)
    assert f"{tmp_path / 'study.yaml'}:5: models.1.dtype: Input should be 'float32'" in message
    assert ":12: methods.dance: Input should be 'weat'" in message
    with pytest.raises(StudyFileError) as caught:
        load_study(
            _write(tmp_path, text.replace("float64", "float32").replace("  dance: {}\n", ""))
        )
    lines = str(caught.value).splitlines()
    assert lines[0] == "invalid study file:"
    assert lines[1].endswith(
        ":9: methods.weat.n_samples: Input should be a valid integer, "
        "unable to parse string as an integer"
    )
    assert lines[2].endswith(":10: methods.weat.colour: Extra inputs are not permitted")
    assert len(lines) == 3  # vast's options are valid


def test_structural_errors(tmp_path: Path) -> None:
    cases = {
        "name: x\nmodels: [a]\nmethods: {weat: {}}\nextra: 1\n": ":4: extra: Extra inputs",
        "name: x\nmodels: []\nmethods: {weat: {}}\n": ":2: models: List should have at least 1",
        "name: x\nmethods: {weat: {}}\n": ":1: models: Field required",
        "name: x y\nmodels: [a]\nmethods: {weat: {}}\n": ":1: name: String should match",
        "- just\n- a list\n": "a study file is a mapping",
        "name: [unclosed\n": "not valid YAML",
        "name: x\nmodels: [a, ./a]\nmethods: {weat: {}}\n": "model 2 has the same directory",
    }
    for text, expected in cases.items():
        with pytest.raises(StudyFileError, match=expected.replace("[", r"\[")):
            load_study(_write(tmp_path, text))
    with pytest.raises(StudyFileError, match="cannot read study file"):
        load_study(tmp_path / "absent.yaml")


def test_method_schemas_follow_the_commands() -> None:
    for method in METHODS:
        fields = method_schema(method).model_fields
        assert "model" not in fields and "out" not in fields and "device" not in fields
    assert method_schema("probe").model_fields["max_steps"].default is None
    assert validate_options("vast", {}) == {}  # the command's defaults apply
    with pytest.raises(StudyFileError, match="unknown method 'dance'"):
        method_schema("dance")
    with pytest.raises(StudyFileError, match="shard: Extra inputs"):
        validate_options("asymmetry", {"shard": 1})  # would stop a cell half-way
    schema = study_json_schema()
    assert set(schema["properties"]["methods"]["properties"]) == set(METHODS)


def test_slugs_are_filesystem_safe() -> None:
    assert slugify("../shared/models/minilm-l6-mlm") == "minilm-l6-mlm"
    assert slugify("/abs/path/model dir") == "model-dir"
    assert slugify("openai-community/gpt2") == "openai-community--gpt2"
    assert slugify("???") == "model"
