"""Study files: schema validation with line numbers, cells, option aliases and digests."""

from __future__ import annotations

from pathlib import Path

import pytest

from wordlens.methods.registry import registered_methods
from wordlens.methods.weat import WeatConfig
from wordlens.models.revisions import LeftOut
from wordlens.study.spec import (
    StudyFileError,
    load_study,
    method_options,
    slugify,
    study_json_schema,
)

VALID = """\
name: tiny
models:
  - glove-6b-50d
  - name: mini
    model: sentence-transformers/all-MiniLM-L6-v2
    dtype: float16
methods:
  weat: {context: none, tests: [1, 2], permutations: 100}
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
    # lists and comma lists are read as the config's tuples; dashed names and flags are accepted
    assert weat.config == WeatConfig(context="none", tests=(1, 2), permutations=100)
    assert weat.options["tests"] == [1, 2] and weat.options["seed"] == 0  # defaults included
    assert probe.config.representations == ("mix", "lex") and probe.config.max_steps == 50
    assert weat.out_dir == study.out_dir / "cells" / "glove-6b-50d" / "weat"
    assert study.cells[1].model.options.dtype == "float16"
    assert study.cells[0].model.options.dtype == "float32"
    # the digest follows the options and the loading options, not the display name
    assert len({cell.digest() for cell in study.cells}) == 4
    changed = load_study(_write(tmp_path, VALID.replace("permutations: 100", "permutations: 200")))
    assert changed.cells[0].digest() != weat.digest()
    assert changed.cells[2].digest() == probe.digest()
    renamed = load_study(_write(tmp_path, VALID.replace("name: mini", "name: other")))
    assert renamed.cells[1].digest() == study.cells[1].digest()
    # nor the device: the vectors agree across devices, so a cell done on a CPU stays done
    assert study.cells[1].model.options.device == "auto"
    on_cpu = load_study(_write(tmp_path, VALID.replace("dtype: float16", "device: cpu")))
    halved = load_study(_write(tmp_path, VALID.replace("dtype: float16", "dtype: float32")))
    assert on_cpu.cells[1].model.options.device == "cpu"
    assert on_cpu.cells[1].digest() == halved.cells[1].digest() != study.cells[1].digest()


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
    permutations: many
    colour: blue
  vast: {max_pcs: 3}
  dance: {}
"""
    with pytest.raises(StudyFileError) as caught:
        load_study(_write(tmp_path, text))
    message = str(caught.value)
    assert f"{tmp_path / 'study.yaml'}:5: models.1.dtype: unknown dtype 'float64'" in message
    assert ":12: methods.dance: unknown method; known: weat," in message
    with pytest.raises(StudyFileError) as caught:
        load_study(
            _write(tmp_path, text.replace("float64", "float32").replace("  dance: {}\n", ""))
        )
    lines = str(caught.value).splitlines()
    assert lines[0] == "invalid study file:"
    assert lines[1].endswith(":9: methods.weat.permutations: not an integer: 'many'")
    assert ":10: methods.weat.colour: not an option of a study (layers, context," in lines[2]
    assert len(lines) == 3  # vast's options are valid


def test_an_unknown_device_names_its_model_entry(tmp_path: Path) -> None:
    text = "name: x\nmodels:\n  - glove-6b-50d\n  - model: minilm-l6\n    device: gpu\n"
    with pytest.raises(StudyFileError, match=r":4: models.1: unknown device 'gpu': use auto \("):
        load_study(_write(tmp_path, text + "methods: {weat: {}}\n"))


def test_structural_errors(tmp_path: Path) -> None:
    cases = {
        "name: x\nmodels: [a]\nmethods: {weat: {}}\nextra: 1\n": ":4: extra: Extra inputs",
        "name: x\nmodels: []\nmethods: {weat: {}}\n": ":2: models: List should have at least 1",
        "name: x\nmethods: {weat: {}}\n": ":1: models: Field required",
        "name: x y\nmodels: [a]\nmethods: {weat: {}}\n": ":1: name: String should match",
        "- just\n- a list\n": "a study file is a mapping",
        "name: [unclosed\n": "not valid YAML",
        "name: x\nmodels: [a, a]\nmethods: {weat: {}}\n": "model 2 has the same directory",
    }
    for text, expected in cases.items():
        with pytest.raises(StudyFileError, match=expected.replace("[", r"\[")):
            load_study(_write(tmp_path, text))
    with pytest.raises(StudyFileError, match="cannot read study file"):
        load_study(tmp_path / "absent.yaml")


def test_method_options_follow_the_configs() -> None:
    schema = study_json_schema()
    methods = schema["properties"]["methods"]["properties"]
    assert set(methods) == set(registered_methods())
    for properties in (method["properties"] for method in methods.values()):
        assert "model" not in properties and "out" not in properties
        assert "device" not in properties
    assert methods["probe"]["properties"]["max_steps"]["default"] is None
    assert "shard" not in methods["asymmetry"]["properties"]  # command line only
    assert method_options("weat", {}) == WeatConfig()  # the config's defaults apply
    with pytest.raises(StudyFileError, match="dance: unknown method"):
        method_options("dance", {})
    with pytest.raises(StudyFileError, match="shard: not an option of a study"):
        method_options("asymmetry", {"shard": 1})  # would stop a cell half-way
    entry = schema["properties"]["models"]["items"]["anyOf"][0]
    assert set(entry["properties"]) == {
        "model",
        "name",
        "revision",
        "revisions",
        "device",
        "dtype",
        "bos",
        "token_budget",
        "trust_remote_code",
        "allow_pickle",
        "unicode",
    }


def test_slugs_are_filesystem_safe() -> None:
    assert slugify("../shared/models/minilm-l6-mlm") == "minilm-l6-mlm"
    assert slugify("/abs/path/model dir") == "model-dir"
    assert slugify("openai-community/gpt2") == "openai-community--gpt2"
    assert slugify("???") == "model"


def test_a_swept_entry_names_the_folders_all_leaves_out(tmp_path: Path) -> None:
    run = tmp_path / "run"
    for name in ("step-0", "step-10"):
        (run / name).mkdir(parents=True)
        (run / name / "config.json").write_text("{}")
    (run / "step-20").mkdir()  # saved without its config.json
    text = f"name: x\nmodels:\n  - {{name: run, model: {run}, revisions: all}}\n"
    study = load_study(_write(tmp_path, text + "methods: {weat: {}}\n"), check_inputs=False)
    assert [entry.display_name for entry in study.models] == ["run@step-0", "run@step-10"]
    reason = "no config.json, so not a checkpoint folder"
    assert {entry.left_out for entry in study.models} == {(LeftOut("step-20", reason),)}
    both = f"name: x\nmodels:\n  - {{model: {run}, revision: main, revisions: all}}\n"
    with pytest.raises(StudyFileError, match=r":3: models.0: revision 'main' with revisions: "):
        load_study(_write(tmp_path, both + "methods: {weat: {}}\n"), check_inputs=False)
