"""Adding a method is one class and one registration: a tiny real method runs through the
generated command line, a study and the Python API, with the same numbers."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from wordlens.methods.base import Method, RunContext, Summary, run_method
from wordlens.methods.registry import get_method, register, registered_methods, unregister
from wordlens.models.options import ModelOptions
from wordlens.options import option
from wordlens.results import Run

runner = CliRunner()


@dataclass(frozen=True)
class PairCosineConfig:
    pairs: tuple[str, ...] = option(("happy:sad",), "Word pairs, each 'a:b'.")
    layers: tuple[int, ...] | None = option(None, "Layers, or 'all'.", none="all", parse="layers")


class PairCosine(Method[PairCosineConfig]):
    """Cosine of word pairs, each word alone, at every layer (a test method)."""

    name = "pair-cosine"
    title = "Pair cosine"
    citation = "a test"
    config_type = PairCosineConfig
    needs = "any model"

    def run(self, model: ModelOptions, config: PairCosineConfig, context: RunContext) -> Run:
        from wordlens.contexts import decontextualized_targets

        pairs = [tuple(pair.split(":")) for pair in config.pairs]
        words = sorted({word for pair in pairs for word in pair})
        embedder = model.embedder(status=context.status)
        embeddings = embedder.embed(decontextualized_targets(words), config.layers, "mean")
        row = {word: index for index, word in enumerate(words)}
        records = [
            {"a": a, "b": b, "layer": layer, "cosine": _cosine(vectors[row[a]], vectors[row[b]])}
            for a, b in pairs
            for layer, vectors in zip(
                embeddings.layers, embeddings.vectors.transpose(1, 0, 2), strict=True
            )
        ]
        return Run(
            self.name, {"cosines": pd.DataFrame(records)}, {"model": embedder.info.as_dict()}
        )

    def summary(self, run: Run) -> Summary:
        table = run.tables["cosines"]
        top = table[table["layer"] == table["layer"].max()]
        return Summary({f"cos_{r.a}_{r.b}": float(r.cosine) for r in top.itertuples()})


def _cosine(x: np.ndarray, y: np.ndarray) -> float:
    return float(x @ y / np.linalg.norm(x) / np.linalg.norm(y))


@pytest.fixture
def pair_cosine() -> Iterator[Method[PairCosineConfig]]:
    register(PairCosine)
    yield get_method("pair-cosine")
    unregister("pair-cosine")


def _glove_cosine(a: str, b: str) -> float:
    from wordlens.models.static import load_glove_6b_50d

    glove = load_glove_6b_50d()
    vectors = glove.matrix[glove.rows([a, b])]  # [2, 50], straight from the vector file
    return _cosine(vectors[0], vectors[1])


def test_a_registered_method_runs_through_the_cli_a_study_and_the_api(
    pair_cosine: Method[PairCosineConfig], tmp_path: Path
) -> None:
    from wordlens.cli import build_app
    from wordlens.study.runner import run_study
    from wordlens.study.spec import load_study

    expected = _glove_cosine("king", "queen")
    assert 0.5 < expected < 0.95  # a real GloVe similarity
    app = build_app()
    listed = runner.invoke(app, ["methods"])
    assert "pair-cosine" in listed.output and "Pair cosine" in listed.output
    out = tmp_path / "cli"
    result = runner.invoke(
        app,
        ["pair-cosine", "-m", "glove-6b-50d", "--pairs", "king:queen,happy:sad", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    assert "cos_king_queen" in result.output  # the default console: the headline
    table = pd.read_parquet(out / "pair_cosine_cosines.parquet")
    assert table["cosine"].iloc[0] == pytest.approx(expected, abs=1e-6)
    assert Run.read(out).tables["cosines"].equals(table)
    helped = runner.invoke(app, ["pair-cosine", "--help"])
    assert "Word pairs" in helped.output and "--layers" in helped.output

    study_file = tmp_path / "study.yaml"
    study_file.write_text(
        "name: tiny\nmodels: [glove-6b-50d]\nmethods:\n  pair-cosine: {pairs: ['king:queen']}\n"
    )
    [record] = run_study(load_study(study_file))
    assert record.status == "done", record.error
    assert record.headline["cos_king_queen"] == pytest.approx(expected, abs=1e-6)

    config = PairCosineConfig(pairs=("king:queen",))
    run, written = run_method(pair_cosine, ModelOptions("glove-6b-50d"), config, tmp_path / "api")
    assert pair_cosine.summary(run).headline["cos_king_queen"] == pytest.approx(expected, abs=1e-6)
    assert tmp_path / "api" / "run.json" in written


def test_unregistering_removes_the_command(pair_cosine: Method[PairCosineConfig]) -> None:
    assert "pair-cosine" in registered_methods()
    unregister("pair-cosine")
    assert "pair-cosine" not in registered_methods()
    register(PairCosine)  # the fixture unregisters it again


def test_run_method_builds_the_report_once_and_writes_its_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The report's figures written beside the tables are those of the one report built (a
    report drawn twice doubled the time of the figures)."""
    from wordlens.methods.weat import WeatConfig

    weat = get_method("weat")
    built = []
    report = type(weat).report

    def counted(self: Method[WeatConfig], run: Run) -> object:
        built.append(run)
        return report(self, run)

    monkeypatch.setattr(type(weat), "report", counted)
    config = WeatConfig(tests=(7, 8), permutations=100)
    _, written = run_method(weat, ModelOptions("glove-6b-50d"), config, tmp_path / "out")
    assert len(built) == 1
    names = {path.name for path in written}
    assert {"report.html", "figure_1_weat_effect_size_per_test.pdf"} <= names, names
    assert (tmp_path / "out" / "figure_1_weat_effect_size_per_test.png").stat().st_size > 1000
