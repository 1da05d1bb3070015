"""The Python API at the package root (:mod:`wordlens.api`): its pinned names, their docstrings
and doctests (run here on the offline models), models passed already loaded, ``out``, and how a
run shows itself in Jupyter."""

from __future__ import annotations

import doctest
import inspect
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import wordlens
from tests.conftest import REPO, shared_dir
from tests.methods.test_registry import PairCosine
from tests.models.test_cache import worker_env
from tests.test_startup import COMPUTATION
from wordlens import api
from wordlens.cli import app
from wordlens.errors import DeviceError, WordlensError
from wordlens.methods.registry import (
    BUILTIN,
    UnknownMethodError,
    register,
    registered_methods,
    unregister,
)
from wordlens.models import loading
from wordlens.models.base import WordEmbedder
from wordlens.models.cache import ActivationCache
from wordlens.models.options import LoadedModel
from wordlens.options import OptionError
from wordlens.results import Figure, Run

PUBLIC = [
    "__version__",
    "associations",
    "asymmetry",
    "compare",
    "ect",
    "intersectional",
    "likelihood_bias",
    "list_methods",
    "load_model",
    "mac",
    "probe",
    "read_run",
    "ripa",
    "rnd",
    "rnsb",
    "run",
    "semaxis",
    "sense_bias",
    "vast",
    "weat",
]
"""The package root's public names: changing this list is changing the public API."""
METHOD_FUNCTIONS = {
    "weat": "weat",
    "vast": "vast",
    "intersectional": "intersectional",
    "likelihood_bias": "likelihood-bias",
    "sense_bias": "sense-bias",
    "asymmetry": "asymmetry",
    "probe": "probe",
    "rnd": "rnd",
    "rnsb": "rnsb",
    "mac": "mac",
    "ect": "ect",
    "ripa": "ripa",
    "semaxis": "semaxis",
    "associations": "associations",
}
"""One function per built-in method → the method it runs."""
SLOW_DOCTESTS = {"likelihood_bias", "probe"}
"""Doctests that load a transformer."""
MLM = shared_dir() / "models" / "minilm-l6-mlm"
WEAT_7 = {"tests": [7], "permutations": 1000}


# --- the names -----------------------------------------------------------------------------


def test_the_public_names_are_pinned_and_importable() -> None:
    assert wordlens.__all__ == PUBLIC
    for name in PUBLIC:
        assert getattr(wordlens, name) is not None
        exec(f"from wordlens import {name}", {})
    assert set(PUBLIC) <= set(dir(wordlens))
    assert set(api.__all__) == set(PUBLIC) - {"__version__", "load_model"}
    with pytest.raises(AttributeError, match="no attribute 'nonesuch'"):
        _ = wordlens.nonesuch  # type: ignore[attr-defined]


def test_no_public_name_is_also_a_submodule() -> None:
    """A submodule, once imported, replaces a root function of its name (``wordlens.methods``,
    ``wordlens.probing`` would), so none may share one."""
    submodules = {module.name for module in pkgutil.iter_modules(wordlens.__path__)}
    assert {"methods", "probing"} <= submodules  # the names the API must avoid
    assert not submodules & set(PUBLIC)


def test_one_function_per_built_in_method() -> None:
    builtin = [name for name, method in registered_methods().items() if _is_builtin(method)]
    assert sorted(METHOD_FUNCTIONS.values()) == sorted(builtin)
    for function_name, method_name in METHOD_FUNCTIONS.items():
        function = getattr(wordlens, function_name)
        config = registered_methods()[method_name].config_type.__name__
        assert config in (function.__doc__ or ""), f"{function_name} does not name {config}"
        source = inspect.getsource(function).split('"""')[-1].strip()
        assert source.startswith(f'return run("{method_name}", model'), function_name


@pytest.mark.parametrize("name", [name for name in PUBLIC if name != "__version__"])
def test_each_public_function_has_a_numpydoc_docstring(name: str) -> None:
    function = getattr(wordlens, name)
    docstring = inspect.getdoc(function) or ""
    sections = ["Returns", "Examples"]
    if inspect.signature(function).parameters:
        sections.insert(0, "Parameters")
    for section in sections:
        assert f"\n{section}\n{'-' * len(section)}\n" in docstring, f"{name}: no {section}"
    documented = docstring.split("\nParameters\n")[-1].split("\nReturns\n")[0]
    for parameter in inspect.signature(function).parameters.values():
        shown = ("**" if parameter.kind is parameter.VAR_KEYWORD else "") + parameter.name
        assert f"\n{shown}\n" in f"\n{documented}", f"{name}: {shown} undocumented"


def test_import_wordlens_and_the_api_load_no_computation_package() -> None:
    script = (
        "import json, sys, wordlens\n"
        "wordlens.weat, wordlens.list_methods, dir(wordlens)\n"
        f"print(json.dumps([name for name in {COMPUTATION!r} if name in sys.modules]))\n"
    )
    process = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=worker_env(), capture_output=True, text=True
    )
    assert process.returncode == 0, process.stderr
    assert json.loads(process.stdout) == []


# --- the doctests ----------------------------------------------------------------------------


DOCTESTS = {
    test.name.split(".")[-1]: test
    for test in [
        *doctest.DocTestFinder().find(api),
        *doctest.DocTestFinder().find(loading.load_model, "load_model", module=loading),
    ]
    if test.examples
}
"""The public functions' doctests by function name."""


@pytest.mark.parametrize(
    "test",
    [
        pytest.param(test, id=name, marks=[pytest.mark.slow] if name in SLOW_DOCTESTS else [])
        for name, test in sorted(DOCTESTS.items())
    ],
)
def test_doctest(test: doctest.DocTest, shared: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORDLENS_SHARED", str(shared))
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    lines: list[str] = []
    result = runner.run(test, out=lines.append)
    assert result.failed == 0, "".join(lines)


def test_every_public_function_has_a_doctest() -> None:
    assert set(DOCTESTS) >= set(PUBLIC) - {"__version__"}


# --- options and errors, as the command line's ---------------------------------------------


def test_options_are_read_as_the_command_line_reads_them() -> None:
    by_list = wordlens.weat("glove-6b-50d", tests=[1, 7], permutations=1000)
    by_text = wordlens.weat("glove-6b-50d", tests="1,7", permutations="1000")
    pd.testing.assert_frame_equal(by_list.tables["weat"], by_text.tables["weat"])
    assert by_list.metadata["options"]["tests"] == [1, 7]


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: wordlens.run("nonesuch", "glove-6b-50d"), UnknownMethodError, "known: weat"),
        (lambda: wordlens.weat("glove-6b-50d", tests="1,x"), OptionError, "^tests: not an int"),
        (lambda: wordlens.weat("glove-6b-50d", bogus=1), OptionError, "bogus: not an option"),
        (
            lambda: wordlens.vast("glove-6b-50d", settings=["aligned"]),
            WordlensError,
            "the bleached setting is required",
        ),
        (
            lambda: wordlens.likelihood_bias("glove-6b-50d", nosuch="never"),
            OptionError,
            "nosuch: not an option",
        ),
        (lambda: wordlens.weat(None), WordlensError, "weat needs a model"),
        (lambda: wordlens.weat(3.5), WordlensError, "got float"),  # type: ignore[arg-type]
        (lambda: wordlens.weat("glove-6b-50d", dtype="int8"), OptionError, "unknown dtype"),
        (lambda: wordlens.weat("glove-6b-50d", device="gpu"), DeviceError, "unknown device"),
    ],
)
def test_errors_name_the_option(call: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        call()  # type: ignore[operator]


@pytest.mark.slow
def test_results_record_the_device_used(minilm: WordEmbedder, tmp_path: Path) -> None:
    """``device="auto"`` (the default) is resolved when the model loads and the result records
    the device used; the fingerprint, and so the activation cache, is the same on every device."""
    auto = wordlens.weat("minilm-l6", layers=[6], cache_dir=tmp_path, **WEAT_7)
    cpu = wordlens.weat("minilm-l6", layers=[6], device="cpu", cache_dir=tmp_path, **WEAT_7)
    assert auto.metadata["model"]["device"] == minilm.info.details["device"]
    assert cpu.metadata["model"]["device"] == "cpu"
    assert auto.metadata["model"]["fingerprint"] == cpu.metadata["model"]["fingerprint"]
    assert len(ActivationCache(tmp_path).stores()) == 1
    pd.testing.assert_frame_equal(auto.tables["weat"], cpu.tables["weat"])
    assert wordlens.weat("glove-6b-50d", **WEAT_7).metadata["model"]["device"] == "cpu"


# --- out: the command's files, or none --------------------------------------------------------


def test_out_writes_the_files_the_command_writes(tmp_path: Path) -> None:
    cli, ours = tmp_path / "cli", tmp_path / "api"
    arguments = ["weat", "-m", "glove-6b-50d", "--tests", "7", "--permutations", "1000"]
    assert CliRunner().invoke(app, [*arguments, "--out", str(cli)]).exit_code == 0
    result = wordlens.weat("glove-6b-50d", out=ours, **WEAT_7)
    assert sorted(path.name for path in ours.iterdir()) == sorted(p.name for p in cli.iterdir())
    pd.testing.assert_frame_equal(pd.read_parquet(ours / "weat.parquet"), result.tables["weat"])
    pd.testing.assert_frame_equal(
        pd.read_parquet(ours / "weat.parquet"), pd.read_parquet(cli / "weat.parquet")
    )


def test_without_out_nothing_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not even the paper figures a method writes beside its tables (sense-bias's Figure 1)."""
    monkeypatch.chdir(tmp_path)
    result = wordlens.sense_bias(
        "glove-6b-50d", baseline=None, experiments=["dimensions"], weat_tests=[9],
        permutations=100, dimensions=[10, 50], no_cache=True,
    )  # fmt: skip
    assert list(tmp_path.iterdir()) == []
    assert "dimensions" in result.tables
    assert [figure.title for figure in result.figures()][:1] == ["WEAT effect size by dimension"]


# --- a model passed already loaded -------------------------------------------------------------


def test_a_loaded_model_is_used_as_it_is(
    glove: WordEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    by_name = wordlens.weat("glove-6b-50d", **WEAT_7)

    monkeypatch.setattr("wordlens.models.loading.load_model", _no_loading)
    given = wordlens.weat(glove, **WEAT_7)
    pd.testing.assert_frame_equal(given.tables["weat"], by_name.tables["weat"])
    assert given.metadata["model"]["fingerprint"] == glove.info.fingerprint
    with pytest.raises(WordlensError, match="device: loading options apply"):
        wordlens.weat(glove, device="cpu", **WEAT_7)
    with pytest.raises(WordlensError, match="loaded as word vectors"):
        wordlens.likelihood_bias(glove)


@pytest.mark.slow
def test_a_loaded_scorer_is_used_as_it_is(shared: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from wordlens.models.scoring import load_scorer

    options = {"benchmark": ["crows"], "methods": ["aul"], "sample": 12, "bootstrap": 0}
    by_name = wordlens.likelihood_bias(MLM, **options)
    scorer = load_scorer(str(MLM))
    monkeypatch.setattr("wordlens.models.scoring.load_scorer", _no_loading)
    given = wordlens.likelihood_bias(scorer, **options)
    pd.testing.assert_frame_equal(given.tables["pair_scores"], by_name.tables["pair_scores"])
    with pytest.raises(WordlensError, match="loaded as a sentence scorer"):
        wordlens.weat(scorer, **WEAT_7)


@pytest.mark.slow
def test_a_loaded_transformer_keeps_its_bos_and_is_never_changed(minilm: WordEmbedder) -> None:
    """Paper conventions that need another BOS policy are refused, not silently ignored; a copy
    to change (edge probing's randomized encoder) is loaded again, never the model given."""
    loaded = LoadedModel.around(minilm)
    assert (loaded.model, loaded.bos) == ("minilm-l6", "auto")
    with pytest.raises(WordlensError, match="loaded with bos='auto' and this run needs"):
        loaded.embedder(bos="never")
    assert loaded.embedder(bos="auto") is minilm
    fresh = loaded.fresh_embedder()
    assert fresh is not minilm and fresh.info.fingerprint == minilm.info.fingerprint
    baseline = loaded.replace(model="glove-6b-50d")
    assert baseline.loaded() is None and baseline.embedder().info.kind == "static"


@pytest.mark.slow
def test_probing_a_loaded_model_randomizes_a_copy_not_the_model() -> None:
    """``random-*`` representations randomize a model in place: a model passed already loaded
    must come back unchanged (its own copy, not the session's fixture, in case it does not)."""
    import torch

    model = wordlens.load_model("minilm-l6")
    before = [parameter.clone() for parameter in model.model.parameters()]  # type: ignore[attr-defined]
    result = wordlens.probe(
        model, task="pos", representations=["top", "random-top"], train_sentences=8,
        eval_sentences=4, max_steps=2, validate_every=2, no_cache=True,
    )  # fmt: skip
    assert list(result.tables["scores"]["representation"]) == ["top", "random-top", "majority"]
    after = list(model.model.parameters())  # type: ignore[attr-defined]
    assert all(torch.equal(old, new) for old, new in zip(before, after, strict=True))


# --- Jupyter display ----------------------------------------------------------------------------


def test_a_run_shows_itself_in_jupyter(tmp_path: Path) -> None:
    result = wordlens.weat("glove-6b-50d", tests=[1, 7], permutations=1000, out=tmp_path)
    page = result._repr_html_()
    assert "<h3>WEAT bias tests by layer — glove-6b-50d</h3>" in page
    assert "Caliskan, Bryson &amp; Narayanan (2017)" in page  # escaped
    assert "fingerprint 98f4f97fc10e3727" in page
    d_top = result.tables["weat"].set_index("test").loc[7, "effect_size"]
    assert f"<td>weat7_d_top</td><td>{d_top:.4g}</td>" in page
    assert "Left out: 1 item(s)." in page and "dropped_words › 1: 1 (gladiola)" in page
    assert "<summary>weat: 2 rows × 14 columns</summary>" in page
    n_words = len(result.tables["words"])  # every target word of tests 1 and 7, one layer
    assert n_words == result.tables["weat"][["n_x", "n_y"]].to_numpy().sum()
    assert f"<summary>words: {n_words} rows × 6 columns</summary>" in page
    assert page.count('<table class="dataframe">') == 2
    assert wordlens.read_run(tmp_path)._repr_html_() == page
    assert repr(result) == (
        f"Run(method='weat', model='glove-6b-50d', tables={{'weat': 2×14, 'words': {n_words}×6}})"
    )


def test_a_run_without_a_registered_method_still_shows_its_tables() -> None:
    table = pd.DataFrame({"x": range(8)})
    page = Run("unregistered", {"t": table}, {"missing_words": []})._repr_html_()
    assert "<h3>unregistered</h3>" in page and "Left out: nothing" in page
    assert "t: 8 rows × 1 columns" in page and page.count("<tr>") == 5  # the body rows
    assert Run("unregistered", {"t": table})._repr_html_().count("headline") == 0
    assert Run("unregistered", {}).figures() == []


def test_figures_show_inline_as_png() -> None:
    result = wordlens.vast(
        "glove-6b-50d", lexica=["bellezza"], settings=["bleached"], tokenization=False,
        similarity=[], weat=False, probes=False, max_pcs=2,
    )  # fmt: skip
    figures = result.figures()
    assert [figure.title for figure in figures] == [
        "VAST per lexicon",  # a static model: one bar per lexicon (issue 30)
        "VAST by PCs nullified",
    ]
    assert all(isinstance(figure, Figure) for figure in figures)
    assert figures[0]._repr_png_().startswith(b"\x89PNG\r\n\x1a\n")


def test_report_figures_leave_the_plotting_backend_alone(tmp_path: Path) -> None:
    """A Jupyter session's inline backend must survive a report (it used to be set to Agg)."""
    script = (
        "import matplotlib, pandas as pd\n"
        "from wordlens.report.figures import Panel, figure_bytes, line_figure\n"
        "panel = Panel('t', pd.DataFrame({'x': [0, 1], 'y': [1, 2]}), 'x', 'y')\n"
        "png = figure_bytes(line_figure([panel]))\n"
        "print(matplotlib.get_backend(), png[:4] == b'\\x89PNG')\n"
    )
    env = {**worker_env(), "MPLBACKEND": "svg", "MPLCONFIGDIR": str(tmp_path)}
    process = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert process.returncode == 0, process.stderr
    assert process.stdout.split() == ["svg", "True"]


def test_a_method_registered_at_run_time_runs_and_shows_its_headline() -> None:
    register(PairCosine)
    try:
        result = wordlens.run("pair-cosine", "glove-6b-50d", pairs=["king:queen"], layers=None)
        assert "<td>cos_king_queen</td>" in result._repr_html_()
    finally:
        unregister("pair-cosine")
    assert "cos_king_queen" not in result._repr_html_()  # its view went with it
    assert "<h3>pair-cosine — glove-6b-50d</h3>" in result._repr_html_()


def test_methods_show_their_name_and_title() -> None:
    assert repr(wordlens.list_methods()["vast"]) == (
        "<method vast: VAST: valence by layer, PC nullification>"
    )


def _no_loading(*args: object, **kwargs: object) -> None:
    raise AssertionError("the model was loaded again")


def _is_builtin(method: object) -> bool:
    module = type(method).__module__
    return any(module == name or module.startswith(f"{name}.") for name in BUILTIN)


def test_methods_is_callable_before_and_after_its_submodules_load() -> None:
    """``wordlens.methods()`` (the issue's name) lists the methods whether or not a submodule of
    the ``wordlens.methods`` package has replaced the root attribute."""
    code = (
        "import wordlens; first = list(wordlens.methods()); "
        "import wordlens.methods.registry; "
        "assert list(wordlens.methods()) == first == list(wordlens.list_methods()), first; "
        "print(first)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "'weat', 'vast'" in done.stdout
