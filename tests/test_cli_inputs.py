"""Issue 29, item 6: every input is checked before any model loads. Real ``wordlens`` processes
and real files.

The model each command is given is an existing folder that holds no model: loading it fails with
"... is not a model directory". A command that prints its input's error instead, and exits 2,
refused the input before it loaded the model (before this change a bad lexicon failed only after
the model had loaded, 16 s in on a real one).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.test_cli_edges import run_wordlens
from wordlens.models.loading import model_spec_problem

NOT_LOADED = "is not a model directory"


@pytest.fixture
def not_a_model(tmp_path: Path) -> Path:
    """A local path that is not a model (see the module notes)."""
    folder = tmp_path / "not-a-model"
    folder.mkdir()
    return folder


def unreadable(tmp_path: Path) -> Path:
    """A file that exists but cannot be read: mode 000, or where the user reads any file
    (root), a process's memory file, which gives an I/O error."""
    path = tmp_path / "unreadable.csv"
    path.write_text("word,valence\ngood,8\n")
    path.chmod(0)
    return path if not os.access(path, os.R_OK) else Path("/proc/self/mem")


def refused(*args: str) -> str:
    """Run ``wordlens *args``; check it exits 2 with one error line, before the model loads, and
    return that line."""
    result = run_wordlens(*args)
    assert result.returncode == 2, result.stderr
    assert NOT_LOADED not in result.stderr and "Traceback" not in result.stderr, result.stderr
    message = " ".join(result.stderr.split())
    assert message.startswith("error: "), result.stderr
    return message


LEXICA = {
    "missing": (None, "{path}: no such lexicon file"),
    "empty": ("", "{path}: the file is empty"),
    "header only": ("word,valence\n", "{path}: the lexicon has no entries"),
    "no valence column": (
        "word,rating\ngood,8\n",
        "{path}, line 1: no column 'valence' (the header has 'word', 'rating')",
    ),
    "not a number": (
        "word,valence\ngood,8\nbad,low\nugly,\n",
        "{path}: line 3: 'valence' is 'low', not a number; line 4: 'valence' is '', not a number",
    ),
    "fields": ("word,valence\ngood,8,9\n", "{path}, line 2: expected 2 fields"),
}


@pytest.mark.parametrize("case", list(LEXICA))
def test_a_bad_lexicon_file_fails_before_the_model_loads(
    tmp_path: Path, not_a_model: Path, case: str
) -> None:
    content, expected = LEXICA[case]
    path = tmp_path / "lexicon.csv"
    if content is not None:
        path.write_text(content)
    out = tmp_path / "out"
    message = refused("vast", "-m", str(not_a_model), "--lexica", str(path), "--out", str(out))
    assert expected.format(path=path) in message
    assert not out.exists()


def test_an_unreadable_lexicon_and_an_unknown_name(tmp_path: Path, not_a_model: Path) -> None:
    path = unreadable(tmp_path)
    message = refused("vast", "-m", str(not_a_model), "--lexica", str(path))
    assert f"error: cannot read the lexicon file {path}: " in message
    message = refused("vast", "-m", str(not_a_model), "--lexica", "bellezza,belleza")
    assert "unknown lexicon resource 'belleza'. Did you mean 'bellezza'?" in message


OTHER_INPUTS = {
    "vast template file": (
        ("vast", "--templates", "{templates}"),
        "{templates}: every template must contain '{{word}}' exactly once",
    ),
    "vast similarity file": (
        ("vast", "--similarity", "{absent}"),
        "cannot read the similarity file {absent}: No such file or directory",
    ),
    "vast multilingual lexicon": (
        ("vast", "--multilingual", "anew-german"),
        "no polar words for language 'de'",
    ),
    "intersectional lexicon": (
        ("intersectional", "--lexicon", "{lexicon}"),
        "{lexicon}: line 2: 'valence' is 'high', not a number",
    ),
    "asymmetry swow file": (
        ("asymmetry", "--norms", "eat,swow", "--swow-file", "{swow}"),
        "{swow}: not a SWOW-EN file",
    ),
}


@pytest.mark.parametrize("case", list(OTHER_INPUTS))
def test_the_other_inputs_fail_before_the_model_loads(
    tmp_path: Path, not_a_model: Path, case: str
) -> None:
    """Each of these was read only after the model had loaded."""
    files = {name: tmp_path / name for name in ("templates", "absent", "lexicon", "swow")}
    files["templates"].write_text(
        json.dumps({"edges": [1, 3, 5, 7, 8, 9], "templates": ["no word"] * 5})
    )
    files["lexicon"].write_text("word,valence\ngood,high\n")
    files["swow"].write_text("cue,response\ncat,dog\n")
    (command, *options), expected = OTHER_INPUTS[case]
    given = [option.format(**files) for option in options]
    assert expected.format(**files) in refused(command, "-m", str(not_a_model), *given)


@pytest.mark.parametrize(
    ("template", "count"), [("This is", "none"), ("{word} and {word}", "2"), ("", "none")]
)
def test_a_weat_template_without_one_placeholder(
    tmp_path: Path, not_a_model: Path, template: str, count: str
) -> None:
    message = refused("weat", "-m", str(not_a_model), "--template", template)
    assert (
        "error: template must contain '{word}' exactly once, where each word goes "
        f"(e.g. 'This is {{word}}'); {template!r} has {count}"
    ) in message


STUDY = """\
name: checked
models:
  - glove-6b-5od
  - NOT_A_MODEL
  - ./models/absent
  - name: spaced
    model: my model
  - smollm2
methods:
  weat: {tests: [1, 11, 12]}
  vast: {lexica: [bellezza, LEXICON]}
"""


def test_a_study_names_every_bad_entry_before_any_model_loads(
    tmp_path: Path, not_a_model: Path
) -> None:
    lexicon = tmp_path / "lexicon.csv"
    lexicon.write_text("word,valence\ngood,high\n")
    study = tmp_path / "study.yaml"
    study.write_text(
        STUDY.replace("NOT_A_MODEL", str(not_a_model)).replace("LEXICON", str(lexicon))
    )
    result = run_wordlens("study", "run", str(study))
    assert result.returncode == 2, result.stderr
    assert NOT_LOADED not in result.stderr and "Traceback" not in result.stderr
    lines = [" ".join(line.split()) for line in result.stderr.split(f"\n  {study}:")[1:]]
    assert lines == [
        "3: models.0.model: 'glove-6b-5od' is not a model alias. Did you mean 'glove-6b-50d'? "
        "(A Hugging Face model of that name: write it as owner/name.)",
        "5: models.2.model: no such file or directory: ./models/absent (a model is a model "
        "alias, a local path or a Hugging Face hub id (owner/name))",
        "7: models.3.model: 'my model' is not a model alias, a local path or a Hugging Face hub "
        "id (owner/name): Repo id must use alphanumeric chars, '-', '_' or '.'. The name cannot "
        "start or end with '-' or '.' and the maximum length is 96: 'my model'.",
        "8: models.4.model: 'smollm2' is not a model alias. Did you mean 'smollm2-135m'? "
        "(A Hugging Face model of that name: write it as owner/name.)",
        "10: methods.weat: no WEAT test [11, 12]; the tests are numbered 1-10",
        f"11: methods.vast: {lexicon}: line 2: 'valence' is 'high', not a number",
    ]
    assert result.stderr.startswith("error: invalid study file:")
    assert not (tmp_path / "wordlens-results").exists()


def test_a_failed_study_run_leaves_no_empty_out_folder(tmp_path: Path) -> None:
    study = tmp_path / "study.yaml"
    study.write_text("name: s\nout: new/results\nmodels: [glove-6b-50d]\nmethods: {weat: {}}\n")
    result = run_wordlens("study", "run", str(study), "--only", "nothing")
    assert result.returncode == 2, result.stderr
    assert "no cell of study 's' matches nothing" in result.stderr
    assert not (tmp_path / "new").exists()


def test_what_may_name_a_model() -> None:
    for spec in ("glove-6b-50d", "gpt2", "bert-base-uncased", "openai-community/gpt2", "."):
        assert model_spec_problem(spec) is None, spec
    assert model_spec_problem("someone/minilm") is None  # an owner: the hub decides
    assert "Did you mean 'minilm-l6'?" in str(model_spec_problem("minilm"))
    assert "no such file or directory: a/b/c" in str(model_spec_problem("a/b/c"))
    assert "Cannot have -- or .. in repo_id" in str(model_spec_problem("org--name"))


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("weat", "--seed", "-1"), "error: --seed: must be >= 0, not -1"),
        (
            ("vast", "--seed", "4294967296"),
            "error: --seed: must be <= 4,294,967,295, not 4,294,967,296",
        ),
        (
            ("reproduce", "vast", "--set", "seed=abc"),
            "error: --set seed=abc: not an integer: 'abc' (experiment ",
        ),
        (("reproduce", "vast", "--set", "seed=-1"), "error: --set seed=-1: must be >= 0, not -1"),
    ],
)
def test_a_seed_that_cannot_seed_fails_before_the_model_loads(
    not_a_model: Path, tmp_path: Path, args: tuple[str, ...], expected: str
) -> None:
    """Issue 41, items 3 and 4: ``--seed -1`` gave numpy's traceback after the model loaded, and
    ``reproduce --set seed=abc`` failed every experiment and exited 0; both are now one line and
    exit 2 before the model loads."""
    command, *options = args
    out = tmp_path / "out"
    finished = run_wordlens(command, "-m", str(not_a_model), *options, "--out", str(out))
    assert finished.returncode == 2, finished.stderr
    assert finished.stderr.strip().splitlines() == [finished.stderr.strip()], finished.stderr
    assert finished.stderr.startswith(expected), finished.stderr  # not NOT_LOADED, no traceback
    assert not out.exists()
