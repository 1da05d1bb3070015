"""BOS conventions: what each paper's authors did, the ``paper`` preset, and the headline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wordlens.cli import app
from wordlens.conventions import bos_convention, bos_policy, describe_bos
from wordlens.errors import WordlensError
from wordlens.models.base import WordEmbedder
from wordlens.resources import load_lexicon

runner = CliRunner()


def test_paper_preset_gives_each_papers_bos_policy() -> None:
    assert bos_policy("vast", "paper", "auto") == "never"  # GPT-2 without BOS
    assert bos_policy("intersectional", "paper", "auto") == "auto"  # BOS before causal LMs
    assert bos_policy("vast", "wordlens", "always") == "always"
    assert bos_policy("vast", "paper", "never") == "never"
    with pytest.raises(WordlensError, match="--conventions paper sets --bos never"):
        bos_policy("vast", "paper", "always")
    with pytest.raises(WordlensError, match="unknown conventions 'mine'"):
        bos_policy("vast", "mine", "auto")  # type: ignore[arg-type]


def test_convention_of_loaded_models(
    smollm2: WordEmbedder, minilm: WordEmbedder, glove: WordEmbedder
) -> None:
    """smollm2's GGUF tokenizer adds no BOS, so ``auto`` prepends ``<|im_start|>``: the
    intersectional authors' choice, not the VAST authors'."""
    vast = bos_convention(smollm2.info, "vast")
    assert vast["bos_token"] == "<|im_start|>" and vast["policy"] == "auto"
    assert not vast["as_paper"] and vast["paper_policy"] == "never"
    line = describe_bos(vast, "causal")
    assert line.startswith("BOS token '<|im_start|>' prepended (--bos auto); the paper differs")
    assert "helper_functions.py:66" in line and "--conventions paper" in line
    assert bos_convention(smollm2.info, "intersectional")["as_paper"]
    encoder = bos_convention(minilm.info, "vast")  # [CLS] ... [SEP] from the tokenizer itself
    assert encoder["bos_token"] is None and encoder["as_paper"]
    assert describe_bos(bos_convention(glove.info, "vast"), "static").startswith("static")


def test_vast_paper_conventions_on_smollm2(tmp_path: Path) -> None:
    """``--conventions paper`` loads smollm2 without BOS; the console and the report state it, and
    the random setting's words without a corpus sentence are counted in the headline."""
    lexicon = tmp_path / "bellezza-sample.csv"
    load_lexicon("bellezza").data.iloc[::10].to_csv(lexicon, index=False)  # 40 words
    out = tmp_path / "out"
    args = ["vast", "-m", "smollm2-135m", "--lexica", str(lexicon), "--layers", "0,30"]
    args += ["--settings", "random,bleached", "--pooling", "last", "--no-tokenization"]
    args += ["--similarity", "none", "--no-probes", "--no-weat", "--max-pcs", "2"]
    args += ["--pc-population", "lexicon", "--no-cache", "--out", str(out)]
    result = runner.invoke(app, [*args, "--conventions", "paper"])
    assert result.exit_code == 0, result.output
    assert "texts start with: no BOS token added" in result.output
    assert "as the paper" in result.output
    meta = json.loads((out / "vast_layers.json").read_text())
    assert meta["model"]["bos_policy"] == "never" and meta["model"]["bos_token"] is None
    assert meta["conventions"]["bos"]["as_paper"] is True
    drawn = meta["contexts"]["random_contexts"]
    n_missing = len(drawn["without_corpus_context"])
    summary = meta["conventions"]["random_setting"]
    assert summary.startswith(f"{n_missing:,} of {drawn['n_words']:,} words had no corpus")
    assert "bleached context" in summary
    page = (out / "report.html").read_text()
    assert "texts start with" in page and "no BOS token added" in page
    assert "random setting" in page and "PCs fitted on" in page
    conflict = runner.invoke(app, [*args, "--conventions", "paper", "--bos", "always"])
    assert conflict.exit_code == 2 and "--conventions paper sets --bos never" in conflict.output
