"""``wordlens <method>`` with ``--model`` or ``--query`` repeated: one comparison, its tables,
rankings and figures, the layer each model is ranked at, and what a run that fails leaves."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy.stats import spearmanr
from typer.testing import CliRunner

import wordlens
from tests.comparison.vector_files import write_word2vec
from wordlens.cli import app
from wordlens.comparison import read_comparison

runner = CliRunner()
FLOWERS = {
    "targets": {
        "flowers": ["rose", "tulip", "lily", "daisy", "orchid"],
        "insects": ["ant", "wasp", "beetle", "moth", "flea"],
    },
    "attributes": {
        "pleasant": ["love", "peace", "joy", "gift", "happy"],
        "unpleasant": ["hate", "war", "filth", "agony", "sick"],
    },
}
CAREER = {
    "targets": {
        "male": ["john", "paul", "mike", "kevin", "greg"],
        "female": ["amy", "joan", "lisa", "sarah", "diana"],
    },
    "attributes": {
        "career": ["salary", "office", "business", "career", "management"],
        "family": ["home", "parents", "children", "family", "wedding"],
    },
}


@pytest.fixture(scope="module")
def queries(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    folder = tmp_path_factory.mktemp("queries")
    paths = []
    for name, query in (("flowers", FLOWERS), ("career", CAREER)):
        (folder / f"{name}.yaml").write_text(yaml.safe_dump(query), encoding="utf-8")
        paths.append(str(folder / f"{name}.yaml"))
    return paths


@pytest.fixture(scope="module")
def halved_glove(tmp_path_factory: pytest.TempPathFactory) -> str:
    """GloVe's vectors of the queries' words, their first 25 dimensions: a second static model
    that ranks otherwise."""
    from tests.peer_data import glove_vectors, query_words

    words = sorted({w for query in (FLOWERS, CAREER) for w in query_words(query)})
    vectors = glove_vectors(words)[:, :25]
    path = tmp_path_factory.mktemp("models") / "glove-25.txt"
    write_word2vec(path, words, vectors.astype(np.float32))
    return str(path)


def _invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_associations_ranks_two_models_on_two_queries_with_every_metric(
    queries: list[str], halved_glove: str, tmp_path: Path
) -> None:
    out = tmp_path / "compared"
    models = ["-m", "glove-6b-50d", "-m", halved_glove]
    fast = ["--bootstrap", "0", "--permutations", "0"]
    args = ["associations", *models, "--query", queries[0], "--query", queries[1], *fast]
    code, stdout, stderr = _invoke(*args, "--out", str(out))
    assert code == 0, stderr
    comparison = read_comparison(out)
    assert repr(wordlens.read_run(out)) == repr(comparison)
    cells = comparison.tables["cells"]
    assert cells[["model", "query"]].values.tolist() == [
        ["glove-6b-50d", "flowers"],
        ["glove-6b-50d", "career"],
        [halved_glove, "flowers"],
        [halved_glove, "career"],
    ]
    assert set(cells["status"]) == {"done"} and len(comparison.runs) == 4
    scores = comparison.tables["scores"]
    assert list(scores.columns) == ["model", "query", "metric", "part", "layer", "value"]
    # each cell's scores are its own run's, unchanged
    own = comparison.runs["glove-6b-50d / career"].tables["scores"]
    mine = scores[(scores["model"] == "glove-6b-50d") & (scores["query"] == "career")]
    np.testing.assert_array_equal(mine["value"].to_numpy(), own["value"].to_numpy())
    ranked = comparison.tables["rankings"]
    metrics = ["rnd", "rnsb", "mac", "ect", "ripa", "semaxis"]
    assert list(dict.fromkeys(ranked["metric"])) == metrics
    # the aggregation, recomputed from the scores: mean |value| (mean value for MAC and ECT)
    for metric in metrics:
        for model in ("glove-6b-50d", halved_glove):
            values = scores[(scores["metric"] == metric) & (scores["model"] == model)]["value"]
            expected = values.mean() if metric in ("mac", "ect") else values.abs().mean()
            row = ranked[(ranked["metric"] == metric) & (ranked["model"] == model)].iloc[0]
            assert row["score"] == pytest.approx(expected, rel=1e-12)
            assert row["n_values"] == len(values)
    # the correlations: scipy's Spearman rho of every two metrics' ranks
    wide = ranked.pivot(index="model", columns="metric", values="rank")
    correlations = comparison.tables["ranking_correlations"]
    for row in correlations.itertuples():
        a, b = wide[row.metric_a], wide[row.metric_b]
        expected = spearmanr(a, b).statistic if a.nunique() > 1 and b.nunique() > 1 else np.nan
        assert row.spearman_rho == pytest.approx(expected, nan_ok=True)
    written = {path.name for path in out.iterdir()}
    for stem in ("scores", "rankings", "ranking_correlations", "cells"):
        assert {f"{stem}.csv", f"{stem}.parquet"} <= written
    assert {"report.html", "run.json", "cells"} <= written
    assert len([name for name in written if name.startswith("figure_")]) == 6  # 2 x png/svg/pdf
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "Rank correlation between the metrics" in report
    assert "cells/glove-6b-50d/career/report.html" in report
    assert "rank (score), 1 = least association" in " ".join(stdout.split())
    assert "cells/glove-6b-50d/flowers: done in" in stderr
    manifest = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert manifest["metadata"]["invocation"]["argv"][-2:] == ["--out", str(out)]
    # a rerun finds every cell done and runs none
    code, _, stderr = _invoke(*args, "--out", str(out))
    assert code == 0 and stderr.count("done already") == 4


def test_json_prints_the_rankings(queries: list[str], tmp_path: Path) -> None:
    args = ["weat", "-m", "glove-6b-50d", "--query", queries[0], "--query", queries[1]]
    code, stdout, stderr = _invoke(*args, "--permutations", "10", "--json", "--out", str(tmp_path))
    assert code == 0, stderr
    document = json.loads(stdout)
    assert document["method"] == "comparison"
    ranked = pd.DataFrame(document["tables"]["rankings"])
    scores = pd.DataFrame(document["tables"]["scores"])
    assert ranked["rank"].tolist() == [1.0] and ranked["n_values"].tolist() == [2]
    assert ranked["score"].item() == pytest.approx(scores["value"].abs().mean())
    # each run writes its figures as PNG only (its report embeds them)
    cell_files = {
        path.suffix for path in (tmp_path / "cells" / "glove-6b-50d" / "career").iterdir()
    }
    assert ".png" in cell_files and not {".pdf", ".svg"} & cell_files


def test_the_layer_each_model_is_ranked_at(queries: list[str], tmp_path: Path) -> None:
    """A static model has layer 0 only, used with a note; MiniLM is ranked at the layer asked
    for, and with ``best`` at the layer whose mean |d| over the queries is largest."""
    base = ["weat", "-m", "glove-6b-50d", "-m", "minilm-l6", "--query", queries[0]]
    args = [*base, "--query", queries[1], "--permutations", "10"]
    code, stdout, stderr = _invoke(*args, "--layer-choice", "3", "--out", str(tmp_path / "a"))
    assert code == 0, stderr
    comparison = read_comparison(tmp_path / "a")
    ranked = comparison.tables["rankings"].set_index("model")
    assert ranked.loc["glove-6b-50d", "layer"] == 0 and ranked.loc["minilm-l6", "layer"] == 3
    assert comparison.metadata["layer_notes"] == [
        "glove-6b-50d has one layer (0: static vectors), used for --layer-choice 3"
    ]
    assert "glove-6b-50d has one layer" in " ".join(stdout.split())
    scores = comparison.tables["scores"]
    minilm = scores[scores["model"] == "minilm-l6"]
    at_3 = minilm[minilm["layer"] == 3]["value"].abs().mean()
    assert ranked.loc["minilm-l6", "score"] == pytest.approx(at_3)
    assert set(ranked["layer_choice"]) == {"3"}
    # best: recomputed from the scores with numpy (cells done already: nothing runs again)
    code, _, stderr = _invoke(*args, "--layer-choice", "best", "--out", str(tmp_path / "a"))
    assert code == 0 and stderr.count("done already") == 4
    best = read_comparison(tmp_path / "a").tables["rankings"].set_index("model")
    layers = np.sort(minilm["layer"].unique())
    means = [minilm[minilm["layer"] == layer]["value"].abs().mean() for layer in layers]
    assert best.loc["minilm-l6", "layer"] == layers[int(np.argmax(means))]
    assert best.loc["minilm-l6", "score"] == pytest.approx(max(means))
    # a layer MiniLM lacks leaves it out of the rankings, saying why
    code, stdout, _ = _invoke(*args, "--layer-choice", "12", "--out", str(tmp_path / "a"))
    assert code == 0
    assert "minilm-l6 is not ranked: it has no layer 12 (layers 0-6)" in " ".join(stdout.split())


def test_a_run_that_fails_is_named_and_the_others_are_ranked(
    queries: list[str], tmp_path: Path
) -> None:
    broken = tmp_path / "broken.txt"
    broken.write_text("2 3\nrose 0.1 0.2\n", encoding="utf-8")
    args = ["rnd", "-m", "glove-6b-50d", "-m", str(broken), "--query", queries[0]]
    code, _, stderr = _invoke(*args, "--query", queries[1], "--out", str(tmp_path / "out"))
    assert code == 1
    assert "2 of 4 runs failed" in stderr
    comparison = read_comparison(tmp_path / "out")
    assert set(comparison.failed) == {f"{broken} / flowers", f"{broken} / career"}
    ranked = comparison.tables["rankings"].set_index("model")
    assert ranked.loc["glove-6b-50d", "rank"] == 1 and pd.isna(ranked.loc[str(broken), "rank"])
    assert "rnd: least association" in comparison._repr_html_()  # the Jupyter view


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--layer-choice", "top"], "'last', 'best' or a layer number, not 'top'"),
        (["--query", "{first}"], "two queries named 'flowers'"),
        (["--revisions", "all"], "--revisions sweeps the checkpoints of one model"),
    ],
)
def test_bad_comparisons_are_refused_before_any_model_loads(
    queries: list[str], tmp_path: Path, extra: list[str], message: str
) -> None:
    extra = [item.format(first=queries[0]) for item in extra]
    args = ["weat", "-m", "glove-6b-50d", "-m", "minilm-l6", "--query", queries[0], *extra]
    code, _, stderr = _invoke(*args, "--out", str(tmp_path / "out"))
    assert code == 2
    assert message in " ".join(stderr.split())
    assert not (tmp_path / "out").exists()


def test_a_method_without_bias_scores_is_listed_not_ranked(tmp_path: Path) -> None:
    """Projection ValNorm's correlations (a method's per-layer curves) go into the scores as
    its summary gives them; nothing is ranked, and the report and console say why."""
    from wordlens.methods.registry import get_method

    args = ["intersectional", "-m", "glove-6b-50d", "-m", "glove-6b-50d", "--experiments"]
    code, _, stderr = _invoke(*args, "valnorm", "--out", str(tmp_path / "out"))
    assert code == 2 and "would share the folder 'glove-6b-50d'" in stderr
    compared = wordlens.compare(
        "intersectional", ["glove-6b-50d"], experiments="valnorm", out=tmp_path / "one"
    )
    alone = get_method("intersectional").summary(compared.runs["glove-6b-50d / default"])
    assert alone.curves is not None
    scores = compared.tables["scores"]
    assert scores["metric"].tolist() == alone.curves["metric"].tolist()
    np.testing.assert_array_equal(scores["value"], alone.curves["value"])
    assert compared.tables["rankings"].empty
    assert compared.metadata["not_ranked"].startswith("intersectional's values are not bias")
    report = (tmp_path / "one" / "report.html").read_text(encoding="utf-8")
    assert "are not bias scores, so the models are listed, not ranked" in report


def test_each_model_loads_once_for_all_its_queries(
    queries: list[str], halved_glove: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two models × two queries: two loads (the real loader, counted), and outside a
    comparison every run loads its model again."""
    from wordlens.models import loading

    loads: list[str] = []
    resolve = loading._resolve

    def counted(spec: str, *args: object) -> object:
        loads.append(spec)
        return resolve(spec, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(loading, "_resolve", counted)
    fast = {"permutations": 0, "bootstrap": 0}
    compared = wordlens.compare("rnd", ["glove-6b-50d", halved_glove], queries=queries, **fast)
    assert loads == ["glove-6b-50d", halved_glove]
    assert set(compared.tables["cells"]["status"]) == {"done"}
    fingerprints = {key: run.metadata["model"]["fingerprint"] for key, run in compared.runs.items()}
    assert fingerprints["glove-6b-50d / flowers"] == fingerprints["glove-6b-50d / career"]
    assert fingerprints["glove-6b-50d / career"] != fingerprints[f"{halved_glove} / career"]
    wordlens.run("rnd", "glove-6b-50d", query=queries[0], **fast)
    wordlens.run("rnd", "glove-6b-50d", query=queries[1], **fast)
    assert loads[2:] == ["glove-6b-50d", "glove-6b-50d"]
