"""Issue 41, items 5, 7 and 9: the command line prints the user's text as written (brackets
included), refuses numbers outside an option's bounds before any model loads, says each warning
once, says what a garbled cache store holds, and says when ``embed`` exports a repeated word once.
Real commands (typer's CliRunner on ``wordlens.cli.app``) on real files and models."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import wordlens
from tests.conftest import REPO
from tests.models.test_cache import worker_env
from wordlens.cli import app
from wordlens.options import OptionError

runner = CliRunner()
WORDLENS = [sys.executable, "-c", "from wordlens.cli import app; app(prog_name='wordlens')"]
TITLE = "Instruments [replication] vs weapons [red]"
SETS = {
    "targets": {"instruments [v2]": ["guitar", "piano", "violin"], "weapons": ["gun", "sword"]},
    "attributes": {"pleasant": ["love", "peace", "happy"], "unpleasant": ["hate", "war", "ugly"]},
}


def write_query(path: Path, query: dict[str, object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(query))
    return path


def test_an_error_prints_bracketed_text_as_written(tmp_path: Path) -> None:
    targets = {"a": ["guitar"], "b": ["gun"], "c": ["sword"]}
    query = write_query(tmp_path / "q" / "[v2]" / "dup.yaml", {**SETS, "targets": targets})
    args = ["weat", "-m", "glove-6b-50d", "--query", str(query), "--out", str(tmp_path / "out")]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    expected = (
        f"error: {query}: 'targets' must name exactly two word sets ({{name: [words], name: "
        "[words]}), not 3 set(s)"
    )
    assert expected in result.output.splitlines(), result.output


def test_a_title_in_brackets_is_printed_as_written(tmp_path: Path) -> None:
    query = write_query(tmp_path / "[v2]" / "query.yaml", {"title": TITLE, **SETS})
    out = tmp_path / "[red]" / "out"
    args = ["weat", "-m", "glove-6b-50d", "--query", str(query), "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert f"T0: {TITLE}" in result.output, result.output
    assert f"report: {out / 'report.html'}" in result.output, result.output
    [note] = json.loads((out / "weat.json").read_text())["notes"]["0"]
    assert " ".join(result.output.split()).count(note) == 1, result.output  # wrapped at 200


def test_a_warning_is_said_once(tmp_path: Path) -> None:
    # a real process: pytest records the Python warnings of a command run in-process
    query = write_query(tmp_path / "query.yaml", {"title": TITLE, **SETS})
    args = ["weat", "-m", "glove-6b-50d", "--query", str(query), "--out", str(tmp_path / "out")]
    result = subprocess.run(
        [*WORDLENS, *args], cwd=REPO, env=worker_env(), capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    # 3 + 2 target words: 10 partitions, a FewPartitionsWarning, noted under the table
    [note] = json.loads((tmp_path / "out" / "weat.json").read_text())["notes"]["0"]
    assert note.startswith(f"WEAT test 0 ({TITLE}): ") and "only 10 distinct partitions" in note
    printed = " ".join(f"{result.stdout} {result.stderr}".split())  # lines wrapped at 200
    assert printed.count(note) == 1, (result.stdout, result.stderr)
    assert "FewPartitionsWarning" not in result.stderr and ".py:" not in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["weat", "--permutations", "1000000000000"],
            "error: --permutations: must be <= 10,000,000, not 1,000,000,000,000",
        ),
        (["weat", "--permutations", "0"], "error: --permutations: must be >= 1, not 0"),
        (["rnd", "--permutations", "-3"], "error: --permutations: must be >= 0, not -3"),
        (["weat", "--token-budget", "-5"], "error: --token-budget: must be >= 1, not -5"),
        (["embed", "--token-budget", "0", "good"], "error: --token-budget: must be >= 1, not 0"),
        (["weat", "--ddof", "-1"], "error: --ddof: must be >= 0, not -1"),
        (["vast", "--max-pcs", "-2"], "error: --max-pcs: must be >= 0, not -2"),
        (["intersectional", "--max-iter", "0"], "error: --max-iter: must be >= 1, not 0"),
    ],
)
def test_numbers_out_of_bounds_are_refused_before_the_model_loads(
    tmp_path: Path, args: list[str], message: str
) -> None:
    out = tmp_path / ("v.npy" if args[0] == "embed" else "out")
    # the model does not exist: the bound is what stops the command, before any load
    result = runner.invoke(app, [*args, "-m", "no-such-model", "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert result.output.splitlines() == [message], result.output
    assert not out.exists()


def test_bounds_hold_in_python_calls_and_study_files(tmp_path: Path) -> None:
    with pytest.raises(OptionError, match=r"^permutations: must be <= 10,000,000, not 10,000,001$"):
        wordlens.weat("glove-6b-50d", tests=[7], permutations=10_000_001)
    study = tmp_path / "study.yaml"
    study.write_text(
        yaml.safe_dump(
            {
                "name": "bounds",
                "models": ["glove-6b-50d"],
                "methods": {"weat": {"tests": [7], "permutations": 10**12}},
                "out": str(tmp_path / "out"),
            }
        )
    )
    result = runner.invoke(app, ["study", "run", str(study)])
    assert result.exit_code == 2, result.output
    assert "permutations: must be <= 10,000,000, not 1,000,000,000,000" in result.output


def test_cache_info_says_what_a_garbled_store_holds(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    embed = ["embed", "-m", "minilm-l6", "--layers", "0", "--cache-dir", str(cache), "happy"]
    assert runner.invoke(app, [*embed, "--out", str(tmp_path / "v.npy")]).exit_code == 0
    [store_json] = cache.glob("*/*/store.json")
    store_json.write_text("{garbled")
    fingerprint = store_json.parent.parent.name
    shards = list(store_json.parent.glob("shard-*.safetensors"))
    size = sum(path.stat().st_size for path in store_json.parent.rglob("*") if path.is_file())
    result = runner.invoke(app, ["cache", "info", "--cache-dir", str(cache)])
    assert result.exit_code == 0, result.output
    assert "empty" not in result.output.split()
    line = " ".join(result.output.split())  # one line, wrapped by the console
    assert (
        f"unreadable store: {store_json.parent}: its store.json cannot be read (Expecting "
        f"property name enclosed in double quotes: line 1 column 2 (char 1)); it holds "
        f"{len(shards)} shard(s), {size / 2**20:.1f} MiB. The next run with this model, pooling "
        "and layers writes store.json again; or free the space with: wordlens cache clear "
        f"--fingerprint {fingerprint}"
    ) in line, result.output
    listed = runner.invoke(app, ["cache", "info", "--cache-dir", str(cache), "--json"])
    [unreadable] = json.loads(listed.output)["unreadable"]
    assert unreadable["shards"] == len(shards) and unreadable["bytes"] == size
    # the next run of that store writes its store.json again, and reads its shards
    assert runner.invoke(app, [*embed, "--out", str(tmp_path / "w.npy")]).exit_code == 0
    listed = runner.invoke(app, ["cache", "info", "--cache-dir", str(cache), "--json"])
    document = json.loads(listed.output)
    assert document["unreadable"] == [] and document["stores"][0]["items"] == 1


def test_embed_exports_a_repeated_word_once_and_says_so(tmp_path: Path) -> None:
    words = tmp_path / "words.txt"
    words.write_text("bad\ngood\nbad\n")
    out = tmp_path / "v.npy"
    args = ["embed", "-m", "glove-6b-50d", "--context", "none", "--words-file", str(words)]
    result = runner.invoke(app, [*args, "--out", str(out), "good", "happy"])
    assert result.exit_code == 0, result.output
    sidecar = json.loads(out.with_suffix(".json").read_text())
    assert [target["word"] for target in sidecar["targets"]] == ["good", "happy", "bad"]
    assert sidecar["repeated_words"] == {"good": 2, "bad": 2}
    assert (
        "note: 2 word(s) listed more than once, exported once each (repeated_words in the "
        "metadata): 'good' (2 times), 'bad' (2 times)"
    ) in result.output.splitlines(), result.output
    assert result.output.startswith("3 words x 1 layer x 50 d"), result.output


def test_study_lines_print_a_bracketed_path_as_written(tmp_path: Path) -> None:
    study = tmp_path / "[v2]" / "study.yaml"
    study.parent.mkdir()
    methods = {"weat": {"tests": [7], "permutations": 1000}}
    study.write_text(
        yaml.safe_dump({"name": "s", "models": ["glove-6b-50d"], "methods": methods, "out": "out"})
    )
    result = runner.invoke(app, ["study", "run", str(study)])
    assert result.exit_code == 0, result.output
    assert "run glove-6b-50d / weat" in result.output.splitlines(), result.output
    title = " ".join(result.output.split())  # the table's title, wrapped to the table's width
    assert f"Study s: {study.parent / 'out'} " in title, result.output
    assert f"report: {study.parent / 'out' / 'index.html'}" in result.output, result.output
