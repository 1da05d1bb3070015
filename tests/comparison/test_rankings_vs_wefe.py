"""Rankings of several models on several queries equal WEFE's (Badilla et al. 2020):
``run_queries`` with ``aggregate_results``, ``create_ranking`` and
``calculate_ranking_correlations`` run by WEFE itself on the same vectors and queries.

The models are three copies of GloVe 6B 50d that rank differently: the vectors themselves and
their projections on the first 10 and 25 principal components of the queries' words (computed
here with numpy, written as word2vec text files that wordlens loads as any static model; WEFE
gets the very float32 values written). The queries are Caliskan et al.'s WEAT 1 and 7.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml

import wordlens
from tests.comparison.vector_files import write_word2vec
from tests.peer_data import caliskan_query, glove_vectors, query_words

TESTS = (1, 7)


@pytest.fixture(scope="module")
def setting(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The three models' files and float32 vectors, and the queries' files and mappings."""
    folder = tmp_path_factory.mktemp("glove-copies")
    queries = {f"weat{test}": caliskan_query(test) for test in TESTS}
    words = sorted({word for query in queries.values() for word in query_words(query)})
    raw = glove_vectors(words)
    centred = raw - raw.mean(axis=0)
    _, _, components = np.linalg.svd(centred, full_matrices=False)
    copies = {
        "glove-50d": raw,
        "glove-pca10": centred @ components[:10].T,
        "glove-pca25": centred @ components[:25].T,
    }
    models = {}
    for name, vectors in copies.items():
        path = folder / f"{name}.txt"
        write_word2vec(path, words, vectors.astype(np.float32))
        models[name] = (str(path), vectors.astype(np.float32).astype(np.float64))
    files = []
    for name, query in queries.items():
        path = folder / f"{name}.yaml"
        path.write_text(yaml.safe_dump(query), encoding="utf-8")
        files.append(str(path))
    return {"words": words, "models": models, "queries": queries, "files": files}


def _wefe_models(setting: dict[str, Any]) -> list[Any]:
    from gensim.models import KeyedVectors
    from wefe.word_embedding_model import WordEmbeddingModel

    built = []
    for name, (_, vectors) in setting["models"].items():
        keyed = KeyedVectors(vector_size=vectors.shape[1], count=0, dtype=np.float64)
        keyed.add_vectors(setting["words"], vectors)
        built.append(WordEmbeddingModel(keyed, name))
    return built


def _wefe_queries(setting: dict[str, Any]) -> list[Any]:
    from wefe.query import Query

    return [
        Query(
            list(query["targets"].values()),
            list(query["attributes"].values()),
            list(query["targets"]),
            list(query["attributes"]),
        )
        for query in setting["queries"].values()
    ]


def _wefe_results(metric: Any, setting: dict[str, Any], aggregation: str, **params: Any) -> Any:
    from wefe.utils import run_queries

    return run_queries(
        metric,
        _wefe_queries(setting),
        _wefe_models(setting),
        metric_params={"preprocessors": [{}], **params},
        generate_subqueries=True,
        aggregate_results=True,
        aggregation_function=aggregation,
        warn_not_found_words=False,
    )


def _ours(method: str, setting: dict[str, Any], **options: Any) -> Any:
    paths = [path for path, _ in setting["models"].values()]
    comparison = wordlens.compare(method, paths, queries=setting["files"], **options)
    names = dict(zip(paths, setting["models"], strict=True))
    for table in ("scores", "rankings"):
        comparison.tables[table]["model"] = comparison.tables[table]["model"].map(names)
    return comparison


def _wide(ranked: pd.DataFrame, column: str) -> pd.DataFrame:
    return ranked.pivot(index="model", columns="metric", values=column)


@pytest.fixture(scope="module")
def ours(setting: dict[str, Any]) -> dict[str, Any]:
    """wordlens' comparisons: WEAT's effect size (WEFE's population std: ddof 0), RND as WEFE
    computes it (the mean over the attribute words of unit-length vectors) and ECT."""
    fast = {"permutations": 0, "bootstrap": 0}
    return {
        "weat": _ours("weat", setting, ddof=0, permutations=10),
        "rnd": _ours("rnd", setting, average=True, **fast),
        "ect": _ours("ect", setting, **fast),
    }


@pytest.fixture(scope="module")
def wefe(setting: dict[str, Any]) -> dict[str, Any]:
    from wefe.metrics import ECT, RND, WEAT

    return {
        "weat": _wefe_results(WEAT, setting, "abs_avg", return_effect_size=True),
        "rnd": _wefe_results(RND, setting, "abs_avg", normalize=True),
        "ect": _wefe_results(ECT, setting, "avg"),
    }


def test_every_model_and_query_ran_in_one_call(ours: dict[str, Any]) -> None:
    cells = ours["weat"].tables["cells"]
    assert len(cells) == 6 and set(cells["status"]) == {"done"}
    scores = ours["rnd"].tables["scores"]
    # RND scores each attribute set on its own: 3 models x 2 queries x 2 parts, one layer
    assert len(scores) == 12 and set(scores["layer"]) == {0}
    assert list(scores.columns) == ["model", "query", "metric", "part", "layer", "value"]


@pytest.mark.parametrize("metric", ["weat", "rnd"])
def test_rankings_equal_wefe_create_ranking(
    metric: str, ours: dict[str, Any], wefe: dict[str, Any]
) -> None:
    """Mean |value| over the queries' parts, ranked ascending with ties in the models' order:
    WEFE's scores (its last column) and ``create_ranking`` exactly."""
    from wefe.utils import create_ranking

    peer = wefe[metric]
    ranked = ours[metric].tables["rankings"]
    scores = _wide(ranked, "score")[metric]
    np.testing.assert_allclose(scores.loc[peer.index], peer.iloc[:, -1], rtol=1e-5)
    expected = create_ranking([peer]).iloc[:, 0]
    assert _wide(ranked, "rank")[metric].loc[peer.index].tolist() == expected.tolist()
    # the three copies are ranked apart: the test could tell a wrong order
    assert sorted(expected) == [1.0, 2.0, 3.0]


def test_ect_ranks_descending_where_wefe_ranks_ascending(
    ours: dict[str, Any], wefe: dict[str, Any]
) -> None:
    """ECT's value is a rank correlation, 1 where the targets relate alike to the attribute
    words (no association): the model ranked 1 has the largest mean value, WEFE's
    ``create_ranking(..., ascending=False)`` on its ``avg`` aggregation, the reverse of what
    WEFE's default would rank."""
    from wefe.utils import create_ranking

    peer = wefe["ect"]
    ranked = ours["ect"].tables["rankings"]
    np.testing.assert_allclose(
        _wide(ranked, "score")["ect"].loc[peer.index], peer.iloc[:, -1], rtol=1e-5
    )
    expected = create_ranking([peer], ascending=False).iloc[:, 0]
    assert _wide(ranked, "rank")["ect"].loc[peer.index].tolist() == expected.tolist()
    assert set(ranked["order"]) == {"descending (larger: less association)"}


def test_ranking_correlations_equal_wefe(ours: dict[str, Any], wefe: dict[str, Any]) -> None:
    """Every metric's ranks side by side, Spearman's rho between them: WEFE's
    ``calculate_ranking_correlations`` of its own rankings."""
    from wefe.utils import calculate_ranking_correlations, create_ranking

    from wordlens.comparison.rankings import ranking_correlations

    peer_ranks = pd.concat(
        [
            create_ranking([wefe["weat"], wefe["rnd"]]),
            create_ranking([wefe["ect"]], ascending=False),
        ],
        axis=1,
    )
    peer = calculate_ranking_correlations(peer_ranks).to_numpy()
    ranked = pd.concat([ours[name].tables["rankings"] for name in ("weat", "rnd", "ect")])
    mine = ranking_correlations(ranked)
    matrix = mine.pivot(index="metric_a", columns="metric_b", values="spearman_rho")
    order = ["weat", "rnd", "ect"]
    np.testing.assert_allclose(matrix.loc[order, order].to_numpy(), peer, atol=1e-12)
