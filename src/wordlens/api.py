"""The Python API: one function per method, at the package root (``wordlens.weat(...)``).

Each method function is one call of :func:`run`, which does what ``wordlens <method>`` does:
options are the method config's fields by their Python names, read and checked by
:func:`wordlens.options.config_from_values` (the same reading and the same errors as the
command line and the study file), the model is loaded through
:class:`~wordlens.models.options.ModelOptions` (or used as it is when already loaded:
:class:`~wordlens.models.options.LoadedModel`), and :func:`wordlens.methods.base.run_method` runs
it, writing the command's files only when ``out`` is given.

``import wordlens`` stays light: this module is imported on first use of one of its names
(``wordlens.__getattr__``), and it imports no computation package itself. It is an entry point,
as the command line: no module of the package imports it (``tools/import_graph.py``).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

from wordlens._files import as_path
from wordlens.errors import WordlensError
from wordlens.methods.base import Method, invoked_as
from wordlens.methods.registry import get_method, registered_methods
from wordlens.models.base import WordEmbedder
from wordlens.models.options import LoadedModel, ModelOptions
from wordlens.options import OptionError, config_from_values, keywords_in_errors, read_values
from wordlens.results import Run

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from wordlens.comparison import Comparison
    from wordlens.models.scoring import LMScorer
    from wordlens.resources import Query

    ModelLike = str | os.PathLike[str] | WordEmbedder | LMScorer | None
    OutPath = str | os.PathLike[str] | None

__all__ = [
    "associations",
    "asymmetry",
    "compare",
    "ect",
    "intersectional",
    "likelihood_bias",
    "list_methods",
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


def list_methods() -> dict[str, Method[Any]]:
    """The registered methods: the built-in ones, then any a package registers.

    Returns
    -------
    dict
        Name (the ``wordlens <name>`` command, :func:`run`'s ``method``) → the method, with its
        ``title``, ``citation``, ``needs`` (what it needs from a model) and ``config_type`` (the
        dataclass of its options).

    Examples
    --------
    >>> import wordlens
    >>> methods = wordlens.list_methods()
    >>> list(methods)[:7]
    ['weat', 'vast', 'intersectional', 'likelihood-bias', 'sense-bias', 'asymmetry', 'probe']
    >>> methods["weat"]
    <method weat: WEAT bias tests by layer>
    >>> methods["weat"].config_type.__name__
    'WeatConfig'
    """
    return registered_methods()


def run(
    method: str,
    model: ModelLike = None,
    *,
    out: OutPath = None,
    progress: bool = False,
    **options: Any,
) -> Run:
    """Run a registered method on a model, as ``wordlens <method>`` does.

    Parameters
    ----------
    method
        The method's name (:func:`list_methods`), e.g. ``"weat"`` or ``"likelihood-bias"``.
    model
        A model name (alias, local path or hub id), or a model already loaded: a word embedder
        from :func:`wordlens.load_model`, or (for ``likelihood-bias`` and ``asymmetry``) a
        sentence scorer from :func:`wordlens.models.scoring.load_scorer`; it is used as it is,
        nothing loads it again. None only for a method that runs without one (``sense-bias``
        with ``senses``).
    out
        Directory to write the tables (Parquet, CSV, JSON), ``run.json`` and ``report.html``
        into, the same files as the command's ``--out``; None (default) writes nothing.
    progress
        Show progress bars.
    **options
        The fields of the method's config (``list_methods()[method].config_type``) by their
        Python names, as Python values (``tests=[1, 7]``, ``layers=[0, -1]``) or as the command
        line writes them (``layers="2-5"``; WEAT's ``query`` also as a mapping or a
        :class:`~wordlens.resources.Query`); when ``model`` is a name, also its loading options
        (``revision``, ``device``, ``dtype``, ``bos``, ``token_budget``, ``trust_remote_code``,
        ``allow_pickle``), the activation cache's (``no_cache``, ``cache_dir``), ``backend``
        (``"local"`` or ``"ray"``) and ``revisions``: the checkpoints to run it on (``"all"``, or
        names, steps or hub revisions; :mod:`wordlens.models.revisions`), as far as the method
        takes them.

    Returns
    -------
    Run
        The method's tables (``run.tables``, tidy DataFrames) and metadata (model fingerprint,
        options, what was left out); in Jupyter it shows a summary, and ``run.figures()`` its
        report's figures. With ``revisions``, a sweep across the checkpoints
        (:class:`wordlens.sweep.runner.Sweep`, method ``"sweep"``): ``tables["table"]`` (one row
        per checkpoint, quantity and layer), ``tables["revisions"]`` (each checkpoint's status,
        time and peak memory) and ``runs`` (each checkpoint's run).

    Raises
    ------
    wordlens.methods.registry.UnknownMethodError
        If no method has that name (the message lists them).
    wordlens.options.OptionError
        If an option is unknown (suggesting the closest one) or its value cannot be read,
        naming the option by its Python keyword (``tests``, not ``--tests``).
    wordlens.errors.WordlensError
        If the options break a method's rule or the model cannot be loaded or used.

    Examples
    --------
    >>> import wordlens
    >>> result = wordlens.run("weat", "glove-6b-50d", tests=[7], permutations=1000)
    >>> result.tables["weat"][["test", "title", "effect_size"]].round(2)
       test                                 title  effect_size
    0     7  Math vs. arts, male vs. female terms          1.5
    >>> wordlens.run("weat", "glove-6b-50d", tests=[7], permutatons=10)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    wordlens.options.OptionError: permutatons: not an option (...); did you mean permutations?
    """
    given = [repr(method), repr(model), f"out={out!r}", f"progress={progress!r}"]
    call = f"wordlens.run({', '.join([*given, *(f'{k}={v!r}' for k, v in options.items())])})"
    chosen = get_method(method)
    # WEAT's own word sets given as a Python object (a mapping or a Query, not a file's path) go
    # to the method (``with_query``) instead of its config, whose fields are command-line values
    query = options.get("query")
    with_query = getattr(chosen, "with_query", None)
    tests = options.get("tests")
    if (
        with_query is not None
        and isinstance(tests, list | tuple)
        and any(not isinstance(test, int | str) for test in tests)
    ):
        raise OptionError(
            "tests",
            "Caliskan et al.'s test numbers (1-10); give your own word sets as query="
            "{'targets': {name: [words], name: [words]}, 'attributes': {...}}",
        )
    if query is not None and with_query is not None:
        if isinstance(query, str | os.PathLike):
            options["query"] = os.fspath(query)
        else:
            from wordlens.resources import Query

            chosen = with_query(Query.coerce(options.pop("query")))
    loading = {name: options.pop(name) for name in list(options) if name in chosen.model_options}
    with keywords_in_errors(chosen.config_type, ModelOptions):
        config = config_from_values(chosen.config_type, options, python=True)
        model_options = _model_options(chosen, model, loading)
        from wordlens.sweep.runner import run_or_sweep  # pandas: imported when a method runs

        with invoked_as({"python": call}):
            result, _ = run_or_sweep(
                chosen,
                model_options,
                config,
                None if out is None else as_path(out),
                progress=progress,
            )
    return result


def compare(
    method: str,
    models: Sequence[str | os.PathLike[str]],
    *,
    queries: Sequence[str | os.PathLike[str] | Mapping[str, Any] | Query] | None = None,
    layer_choice: str | int = "last",
    out: OutPath = None,
    progress: bool = False,
    **options: Any,
) -> Comparison:
    """Run a method on every model with every query and rank the models by bias, as WEFE's
    ``run_queries`` and ``create_ranking`` do; ``wordlens <method> -m A -m B --query q1 --query
    q2`` (:mod:`wordlens.comparison`).

    Parameters
    ----------
    method
        The method's name (:func:`list_methods`): ``weat`` or an association metric rank the
        models; any other method's values are listed, not ranked.
    models
        Model names (aliases, local paths or hub ids), in the order ties rank in.
    queries
        The queries (files, mappings or :class:`~wordlens.resources.Query`), each named by its
        file's name or, given in Python, by its title; None: the method's own inputs (WEAT's
        Caliskan et al. tests).
    layer_choice
        Where each model with layers is ranked: ``"last"``, ``"best"`` or a layer number.
    out
        The comparison's directory (each run in ``cells/<model>/<query>/``; a rerun resumes);
        None writes nothing.
    progress
        Show progress bars.
    **options
        The method's options and the models' loading options, as :func:`run` takes them.

    Returns
    -------
    wordlens.comparison.Comparison
        ``tables``: ``scores`` (model, query, metric, part, layer, value), ``rankings``,
        ``ranking_correlations`` and ``cells``; ``runs``: each model and query's run.

    Raises
    ------
    wordlens.errors.WordlensError
        As :func:`run`, and for a model given loaded (a comparison loads each by name) or two
        queries or models with the same name.

    Examples
    --------
    >>> import wordlens
    >>> flowers = {
    ...     "targets": {"flowers": ["rose", "tulip", "lily"], "insects": ["ant", "wasp", "moth"]},
    ...     "attributes": {"good": ["love", "peace", "joy"], "bad": ["hate", "war", "agony"]},
    ... }
    >>> compared = wordlens.compare(
    ...     "weat", ["glove-6b-50d", "minilm-l6"], queries=[flowers], permutations=10
    ... )
    >>> compared.tables["rankings"][["model", "layer", "score", "rank"]].round(2)
              model  layer  score  rank
    0  glove-6b-50d      0   1.55     2
    1     minilm-l6      6   1.22     1
    """
    from pathlib import Path

    from wordlens.comparison import parse_layer_choice, run_comparison

    given = [repr(method), repr(models), f"queries={queries!r}", f"out={out!r}"]
    call = f"wordlens.compare({', '.join([*given, *(f'{k}={v!r}' for k, v in options.items())])})"
    chosen = get_method(method)
    names = []
    for model in models:
        if not isinstance(model, str | os.PathLike):
            raise WordlensError(
                f"compare loads each model by name: give names or paths, not a loaded "
                f"{type(model).__name__}"
            )
        names.append(os.fspath(model))
    if not names:
        raise WordlensError("compare needs at least one model")
    loading = {name: options.pop(name) for name in list(options) if name in chosen.model_options}
    out_dir = None if out is None else as_path(out)
    with keywords_in_errors(chosen.config_type, ModelOptions):
        config = config_from_values(chosen.config_type, options, python=True)
        model_options = _model_options(chosen, names[0], loading)
        try:
            choice = parse_layer_choice(layer_choice)
        except ValueError as error:
            raise OptionError("layer_choice", str(error)) from None
        import tempfile

        with tempfile.TemporaryDirectory(prefix="wordlens-queries-") as scratch:
            files = (
                [_query_file(query, out_dir or Path(scratch)) for query in queries]
                if queries
                else [None]
            )
            with invoked_as({"python": call}):
                comparison, _ = run_comparison(
                    chosen, model_options, names, files, config, out_dir,
                    layer_choice=choice, progress=progress,
                )  # fmt: skip
    return comparison


def _query_file(query: str | os.PathLike[str] | Mapping[str, Any] | Query, folder: Path) -> Path:
    """A query's file: its own, or (a query given in Python) ``queries/<title>.json`` in
    ``folder``, written there."""
    import json
    from pathlib import Path

    from wordlens.methods.summaries import identifier
    from wordlens.resources import Query

    if isinstance(query, str | os.PathLike):
        return Path(query)
    read = Query.coerce(query)
    path = folder / "queries" / f"{identifier(read.name)}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(read.as_dict(), indent=2) + "\n", encoding="utf-8")
    return path


def read_run(directory: str | os.PathLike[str]) -> Run:
    """Read a run that the command line, a study or :func:`run` with ``out`` wrote.

    Parameters
    ----------
    directory
        The run's output directory (it holds ``run.json``), a sweep's (the folder of a run
        with ``revisions``, holding ``revisions/<checkpoint>/``) or a comparison's (holding
        ``cells/<model>/<query>/``).

    Returns
    -------
    Run
        Its tables and metadata; in Jupyter it shows the same summary as a run made here. A
        sweep's folder gives a :class:`wordlens.sweep.runner.Sweep`, as :func:`run` returns
        it: its tables, its metadata (``metadata["model"]``: the model swept) and ``runs``
        (each checkpoint's run that finished, read from its folder). A comparison's folder
        gives a :class:`wordlens.comparison.Comparison`, with ``runs`` (each model and query's
        run that finished).

    Raises
    ------
    wordlens.errors.OutputError
        If the directory holds no complete run (naming the file).

    Examples
    --------
    >>> import tempfile, wordlens
    >>> with tempfile.TemporaryDirectory() as out:
    ...     written = wordlens.weat("glove-6b-50d", tests=[7], permutations=1000, out=out)
    ...     again = wordlens.read_run(out)
    >>> again.method, list(again.tables)
    ('weat', ['weat', 'words'])
    """
    registered_methods()  # the run's method shows its headline numbers and figures
    run = Run.read(as_path(directory))
    if run.method == "comparison":
        from wordlens.comparison import read_comparison

        return read_comparison(as_path(directory))
    if run.method != "sweep":
        return run
    from wordlens.sweep.runner import Sweep

    return Sweep.of(run, directory)


def weat(
    model: ModelLike,
    *,
    query: Query | Mapping[str, Any] | str | os.PathLike[str] | None = None,
    out: OutPath = None,
    progress: bool = False,
    **options: Any,
) -> Run:
    """WEAT bias tests at every layer of a model.

    Caliskan, Bryson & Narayanan (2017, *Science* 356(6334)) measured human-like biases in word
    vectors as the effect size of the differential association of two target word sets with two
    attribute word sets (e.g. flowers vs insects with pleasant vs unpleasant), with a
    permutation test; wordlens runs the ten tests at every layer.

    Parameters
    ----------
    model
        A model name (alias, local path or hub id) or a word embedder from
        :func:`wordlens.load_model` (used as it is).
    query
        Your own word sets, run instead of Caliskan et al.'s tests (not with ``tests``): a
        mapping ``{"targets": {name: [words], name: [words]}, "attributes": {name: [words],
        name: [words]}}`` (optionally with ``"title"``), a :class:`~wordlens.resources.Query`,
        or the path of a YAML or JSON file of that form (as ``wordlens weat --query FILE``).
        The table's ``test`` is 0 and its ``title`` the query's; ``metadata["query"]`` holds
        the sets.
    out
        Directory to write the tables, ``run.json`` and ``report.html`` into, as
        ``wordlens weat --out``; None (default) writes nothing.
    progress
        Show progress bars.
    **options
        Fields of :class:`~wordlens.methods.weat.config.WeatConfig`: ``tests`` (test numbers,
        None: all ten), ``layers`` (None: all), ``context`` (``"template"``: each word in
        ``template``; ``"none"``: alone), ``pooling``, ``permutations`` (permutation partitions),
        ``seed``, ``ddof``, ``max_missing`` (skip a test one of whose sets loses more than
        this share of its words); and the loading options of :func:`run`.

    Returns
    -------
    Run
        Table ``weat``: per test and layer the effect size d, one- and two-sided permutation
        p-values and the set sizes; table ``words``: every target word's ``s(w, A, B)`` per
        test and layer (the statistic is their sum over X minus that over Y);
        ``metadata["dropped_words"]`` lists, per test, the words the model lacks (left out).

    Examples
    --------
    >>> import wordlens
    >>> result = wordlens.weat("glove-6b-50d", tests=[1, 7], permutations=1000)
    >>> result.tables["weat"][["test", "layer", "effect_size"]].round(2)
       test  layer  effect_size
    0     1      0         1.08
    1     7      0         1.50
    >>> result.metadata["dropped_words"]
    {'1': ['gladiola']}

    Your own target and attribute sets:

    >>> mine = wordlens.weat("glove-6b-50d", query={
    ...     "title": "Instruments vs. weapons",
    ...     "targets": {"instruments": ["guitar", "violin", "piano", "flute", "drum"],
    ...                 "weapons": ["gun", "sword", "rifle", "bomb", "knife"]},
    ...     "attributes": {"pleasant": ["love", "peace", "joy", "gentle", "happy"],
    ...                    "unpleasant": ["hate", "war", "death", "evil", "ugly"]},
    ... })
    >>> mine.tables["weat"][["test", "title", "effect_size"]].round(2)
       test                    title  effect_size
    0     0  Instruments vs. weapons         1.84
    """
    return run("weat", model, out=out, progress=progress, query=query, **options)


def vast(model: ModelLike, *, out: OutPath = None, progress: bool = False, **options: Any) -> Run:
    """VAST, the Valence-Assessing Semantics Test, with every experiment of its paper.

    Wolfe & Caliskan (2022, AAAI 36(10)) measured how well a language model's word vectors
    encode human valence, layer by layer: the Pearson correlation of each word's association
    with pleasant vs unpleasant polar words (SC-WEAT) with its human valence rating, in four
    contextual settings, and how it changes when the top principal components are nullified.

    Parameters
    ----------
    model
        A model name (alias, local path or hub id) or a word embedder from
        :func:`wordlens.load_model` (used as it is; ``conventions="paper"`` needs it loaded
        with the paper's BOS choice).
    out
        Directory to write the tables, ``run.json`` and ``report.html`` into, as
        ``wordlens vast --out``; None (default) writes nothing.
    progress
        Say each stage (embedding the lexica, the PC population) on stderr and show progress
        bars; ``wordlens vast`` does by default.
    **options
        Fields of :class:`~wordlens.methods.vast.config.VastConfig`: ``lexica`` (e.g.
        ``["bellezza"]``), ``settings`` (``random``, ``bleached``, ``aligned``, ``misaligned``;
        static vectors: bleached only), ``pooling`` (several), ``layers``, ``max_pcs``,
        ``pc_population``, ``tokenization``, ``similarity``, ``weat``, ``probes``, ``seed``,
        ``conventions``; and the loading options of :func:`run`.

    Notes
    -----
    The default ``pc_population`` (the authors' population: every Bellezza, ANEW, Warriner and
    WEAT word, about 14,000 words, embedded in every setting to find the top principal
    components) is the slow part: about 4 minutes (241 s) on 2 CPU cores for a small model
    such as ``minilm-l6``, silent unless ``progress=True``; ``pc_population="lexicon"`` (the
    lexicon's own words) takes about 19 s. The activation cache keeps the vectors for the next
    run.

    Returns
    -------
    Run
        Tables ``layers`` (VAST score r per lexicon, dimension, setting, pooling and layer,
        with its 95% interval) and ``nullification`` (r with k = 0..``max_pcs`` top PCs
        nullified), and the tables of the optional experiments;
        ``metadata["lexicon_words"]`` counts and lists the lexicon words the model lacks.

    Examples
    --------
    >>> import wordlens
    >>> result = wordlens.vast(
    ...     "glove-6b-50d", lexica=["bellezza"], settings=["bleached"], tokenization=False,
    ...     similarity=[], weat=False, probes=False, max_pcs=2,
    ... )
    >>> result.tables["layers"][["lexicon", "setting", "layer", "r", "n"]].round(3)
        lexicon   setting  layer      r    n
    0  bellezza  bleached      0  0.797  399
    """
    return run("vast", model, out=out, progress=progress, **options)


def intersectional(
    model: ModelLike, *, out: OutPath = None, progress: bool = False, **options: Any
) -> Run:
    """Intersectional valence bias: ValNorm, differential biases and the strongest biases.

    Omrani Sabbaghi, Wolfe & Caliskan (2023, AIES 542-553) measured the valence a language
    model gives to people described by several social categories at once ("a young thin ...
    male person") along a valence direction learned from a lexicon, with effect sizes for
    each bias (their Table 2) and the categories most over-represented among the most and
    least pleasant phrases.

    Parameters
    ----------
    model
        A model name (alias, local path or hub id) or a word embedder from
        :func:`wordlens.load_model` (used as it is); static vectors run ``valnorm`` only.
    out
        Directory to write the tables, ``run.json`` and ``report.html`` into, as
        ``wordlens intersectional --out``; None (default) writes nothing.
    progress
        Show progress bars.
    **options
        Fields of :class:`~wordlens.methods.intersectional.config.IntersectionalConfig`:
        ``lexicon``, ``experiments`` (``valnorm``, ``differential``, ``strongest``),
        ``layers``, ``context_layer``, ``pooling``, ``study`` (a file of your own biases),
        ``svc_c``, ``permutations``, ``fraction``, ``seed``, ``conventions``; and the loading
        options of :func:`run`.

    Returns
    -------
    Run
        Table ``valnorm`` (the lexicon's valence recovered by layer) and, per experiment run,
        ``differential`` and ``strongest``; ``metadata["missing_lexicon_words"]`` lists the
        lexicon words the model lacks.

    Examples
    --------
    >>> import wordlens
    >>> result = wordlens.intersectional("glove-6b-50d", experiments=["valnorm"])
    >>> result.tables["valnorm"][["layer", "projection_r", "cosine_r", "n"]].round(2)
       layer  projection_r  cosine_r    n
    0      0          0.77       0.8  399
    """
    return run("intersectional", model, out=out, progress=progress, **options)


def likelihood_bias(
    model: ModelLike, *, out: OutPath = None, progress: bool = False, **options: Any
) -> Run:
    """Likelihood bias score of a language model on stereotype sentence pairs.

    Zhou, Kaneko & Bollegala (2022, ACL, eq. 6 and Table 3) measured how often a masked
    language model finds the stereotypical sentence of a pair more likely than the
    anti-stereotypical one (AUL, AULA, PLL scores), as 100·share − 50: 0 is unbiased, positive
    favours stereotypes; on CrowS-Pairs, StereoSet and their sense-sensitive SSSB.

    Parameters
    ----------
    model
        A model name (alias, local path or hub id) of a masked or causal language model, or a
        sentence scorer from :func:`wordlens.models.scoring.load_scorer` (used as it is).
    out
        Directory to write the tables, ``run.json``, ``report.html`` and Figure 3 into, as
        ``wordlens likelihood-bias --out``; None (default) writes nothing.
    progress
        Show progress bars.
    **options
        Fields of :class:`~wordlens.methods.likelihood_bias.config.LikelihoodBiasConfig`:
        ``benchmarks`` (``sssb``, ``crows``, ``stereoset``), ``methods`` (``aul``, ``aula``,
        ``pll``; causal LMs ``causal_sum``, ``causal_mean``; None: all the model supports),
        ``sample`` (a seeded sample of pairs per benchmark), ``bootstrap`` (resamples of each
        95% interval), ``seed``; and ``device``, ``dtype``, ``token_budget``,
        ``trust_remote_code`` when ``model`` is a name.

    Returns
    -------
    Run
        Tables ``pair_scores`` (each pair's two scores), ``bias_scores`` (per benchmark,
        category and sense, with intervals), ``table3`` (the paper's layout) and, with SSSB
        gender pairs, ``sssb_occupations``.

    Examples
    --------
    The masked LM of the shared inputs (``$WORDLENS_SHARED/models/minilm-l6-mlm``):

    >>> import os, wordlens
    >>> mlm = os.path.join(os.environ["WORDLENS_SHARED"], "models", "minilm-l6-mlm")
    >>> result = wordlens.likelihood_bias(
    ...     mlm, benchmarks=["crows"], methods=["aul"], sample=20, bootstrap=0
    ... )
    >>> result.tables["table3"][["benchmark", "n", "aul"]]
         benchmark   n   aul
    0  CrowS-Pairs  20 -10.0
    """
    return run("likelihood-bias", model, out=out, progress=progress, **options)


def sense_bias(
    model: ModelLike = None, *, out: OutPath = None, progress: bool = False, **options: Any
) -> Run:
    """Social bias in sense embeddings, against word embeddings of the same model.

    Zhou, Kaneko & Bollegala (2022, ACL, Table 2 and Figures 1-2) measured social biases in
    sense embeddings built from WordNet glosses and examples, sense by sense (e.g. *black* the
    colour vs the race): WEAT with sense assignments, WAT, the gender direction of occupations
    and the SSSB sense-sensitive bias.

    Parameters
    ----------
    model
        A model name (alias, local path or hub id) or a word embedder from
        :func:`wordlens.load_model` (used as it is) to build sense vectors from; None with
        ``senses`` (a sense-vector file).
    out
        Directory to write the tables, ``run.json``, ``report.html`` and the paper's figures
        into, as ``wordlens sense-bias --out``; None (default) writes nothing.
    progress
        Show progress bars.
    **options
        Fields of :class:`~wordlens.methods.sense_bias.config.SenseBiasConfig`: ``senses``,
        ``baseline`` (a word-level model, None for none), ``experiments`` (``weat``, ``wat``,
        ``gender-direction``, ``sssb``, ``dimensions``), ``layers``, ``weat_tests``,
        ``wat_reference``, ``permutations``, ``max_examples``, ``seed``; and the loading options
        of :func:`run`.

    Returns
    -------
    Run
        One table per experiment run (``weat``, ``wat``, ``gender_direction``, ``sssb``,
        ``dimensions``) and ``table2``; the metadata lists the words and senses left out.

    Examples
    --------
    >>> import wordlens
    >>> result = wordlens.sense_bias(
    ...     "glove-6b-50d", baseline=None, experiments=["weat"], weat_tests=[9], permutations=100
    ... )
    >>> sorted(result.tables["weat"]["representation"])
    ['sense', 'word']
    """
    return run("sense-bias", model, out=out, progress=progress, **options)


def asymmetry(
    model: ModelLike, *, out: OutPath = None, progress: bool = False, **options: Any
) -> Run:
    """Asymmetry of word association: a model's directional judgments against evocation data.

    Zhang, Campbell, Yu & Kumaravel (2021) measured whether a model's conditional
    probabilities P(b | a) vs P(a | b) (language models, eq. 6 over corpus contexts; static
    vectors, their similarity-based estimate) follow the asymmetry of human free association
    (EAT, USF, SWOW): the correlation CAM (eq. 4) and direction accuracy (Appendix G).

    Parameters
    ----------
    model
        A model name (alias, local path or hub id), static vectors from
        :func:`wordlens.load_model` or a language model with its head from
        :func:`wordlens.models.scoring.load_scorer` (used as it is).
    out
        Directory to write the tables, ``run.json``, ``report.html`` and the resumable work
        list (``work/``) into, as ``wordlens asymmetry --out``; None (default) writes nothing.
    progress
        Show progress bars.
    **options
        Fields of :class:`~wordlens.methods.asymmetry.config.AsymmetryConfig`: ``norms``
        (``eat``, ``usf``, ``swow`` with ``swow_file``), ``pairs`` (a seeded sample, ``"all"``),
        ``thresholds``, ``similarity``, ``conceptnet``, ``max_contexts``, ``seed``; and
        ``device``, ``dtype``, ``token_budget``, ``trust_remote_code`` when ``model`` is a name.

    Returns
    -------
    Run
        Tables ``cam`` (per data set and ConceptNet relation, ``all`` for every pair),
        ``direction_accuracy``, ``pairs`` (each pair's scores), ``alar``, ``data_alar``,
        ``relations``, ``coverage`` (pairs the model could score) and, with ``similarity``,
        the similarity results (their Table 4).

    Examples
    --------
    >>> import wordlens
    >>> result = wordlens.asymmetry(
    ...     "glove-6b-50d", norms=["usf"], pairs="500", similarity=[], thresholds=[0]
    ... )
    >>> overall = result.tables["cam"].query("relation == 'all'")
    >>> print(overall[["norm", "n", "cam"]].round(2).to_string(index=False))
    norm   n  cam
     usf 500 0.39
    """
    return run("asymmetry", model, out=out, progress=progress, **options)


def probe(model: ModelLike, *, out: OutPath = None, progress: bool = False, **options: Any) -> Run:
    """Edge probing: what a frozen transformer's layers encode, probed task by task.

    Tenney et al. (2019, ICLR, "What do you learn from context?") trained small span
    classifiers on a frozen model's vectors (part of speech, dependencies, relations,
    semantic proto-roles, Winograd coreference) and compared representations: the top layer,
    the lexical layer, a learned mix of layers, one layer at a time, and a randomized encoder.

    Parameters
    ----------
    model
        A transformer's name (alias, local path or hub id) or a transformer from
        :func:`wordlens.load_model` (used as it is; ``random-*`` representations randomize a
        fresh copy, loaded again, never the model given).
    out
        Directory to write the tables, ``run.json`` and ``report.html`` into, as
        ``wordlens probe --out``; None (default) writes nothing.
    progress
        Show progress bars.
    **options
        Fields of :class:`~wordlens.methods.probing.config.ProbeConfig`: ``task`` (``pos``,
        ``dep``, ``rel``, ``spr``, ``winograd``), ``representations`` (``top``, ``lex``,
        ``cat``, ``mix``, ``layer:K``, ``cnn3``, ...; ``random-`` prefixed for the randomized
        encoder), ``train_sentences``, ``eval_sentences`` (seeded samples), ``max_steps``,
        ``validate_every``, ``seed``; and the loading options of :func:`run`.

    Returns
    -------
    Run
        Table ``scores``: per representation the test micro-F1 (and the majority baseline's),
        best dev micro-F1 and training steps; ``metadata["unseen_test_labels"]`` counts the
        test labels the training sample never showed.

    Examples
    --------
    >>> import wordlens
    >>> result = wordlens.probe(
    ...     "minilm-l6", task="pos", representations=["lex"], train_sentences=8,
    ...     eval_sentences=4, max_steps=4, validate_every=2,
    ... )
    >>> list(result.tables["scores"]["representation"])
    ['lex', 'majority']
    """
    return run("probe", model, out=out, progress=progress, **options)


def rnd(
    model: ModelLike,
    *,
    query: Query | Mapping[str, Any] | str | os.PathLike[str] | None = None,
    out: OutPath = None,
    progress: bool = False,
    **options: Any,
) -> Run:
    """Relative norm distance (RND) at every layer of a model.

    Garg, Schiebinger, Jurafsky & Zou (2018, *PNAS* 115(16)): for one attribute set, the sum over
    its words of how much nearer the second target set's average vector lies than the first's
    (unit-length vectors); one result per attribute set.

    Parameters
    ----------
    model
        A model name (alias, local path or hub id) or a word embedder from
        :func:`wordlens.load_model` (used as it is).
    query
        Two named target sets and two named attribute sets, as :func:`weat` takes them: a
        mapping, a :class:`~wordlens.resources.Query` or the path of a YAML or JSON file.
    out
        Directory to write the tables, ``run.json`` and ``report.html`` into, as
        ``wordlens rnd --out``; None (default) writes nothing.
    progress
        Show progress bars.
    **options
        Fields of :class:`~wordlens.methods.rnd.config.RndConfig`: ``layers``, ``context``,
        ``template``, ``pooling``, ``bootstrap``, ``permutations``, ``confidence``, ``seed``,
        ``max_missing`` (skip the query when a set loses more than this share of its words) and
        the metric's own ``normalize``, ``average`` (WEFE's mean over the attribute words),
        ``distance``; and the loading options of :func:`run`.

    Returns
    -------
    Run
        Table ``scores``: per part of the query and layer the ``value``, its bootstrap interval
        (``ci_low``, ``ci_high``) and permutation ``p_value`` (NaN where there is none:
        ``metadata["uncertainty"]`` says why); table ``words``: each word's own score at every
        layer, the exact terms of the value (``metadata["word_scores"]`` says how);
        ``metadata["left_out"]`` lists the words the model lacks.

    Examples
    --------
    >>> import wordlens
    >>> query = {
    ...     "targets": {"flowers": ["rose", "tulip", "daisy", "lily"],
    ...                 "insects": ["ant", "wasp", "flea", "moth"]},
    ...     "attributes": {"pleasant": ["love", "peace", "joy", "gift"],
    ...                    "unpleasant": ["hate", "war", "ugly", "filth"]},
    ... }
    >>> result = wordlens.rnd("glove-6b-50d", query=query, bootstrap=0, permutations=0)
    >>> result.tables["scores"][["part", "layer", "value"]].round(3)
             part  layer  value
    0    pleasant      0 -0.903
    1  unpleasant      0 -0.163
    """
    return run("rnd", model, out=out, progress=progress, query=query, **options)


def rnsb(
    model: ModelLike,
    *,
    query: Query | Mapping[str, Any] | str | os.PathLike[str] | None = None,
    out: OutPath = None,
    progress: bool = False,
    **options: Any,
) -> Run:
    """Relative negative sentiment bias (RNSB) at every layer of a model.

    Sweeney & Najafian (2019, ACL): a logistic regression told apart the two attribute sets (the
    second one negative); the KL divergence of the target words' normalised negative probabilities
    from the uniform distribution, averaged over ``fits`` seeded fits (their spread in ``fits_sd``).

    Parameters
    ----------
    model
        A model name (alias, local path or hub id) or a word embedder from
        :func:`wordlens.load_model` (used as it is).
    query
        Two named target sets and two named attribute sets, as :func:`weat` takes them: a
        mapping, a :class:`~wordlens.resources.Query` or the path of a YAML or JSON file.
    out
        Directory to write the tables, ``run.json`` and ``report.html`` into, as
        ``wordlens rnsb --out``; None (default) writes nothing.
    progress
        Show progress bars.
    **options
        Fields of :class:`~wordlens.methods.rnsb.config.RnsbConfig`: ``layers``, ``context``,
        ``template``, ``pooling``, ``bootstrap``, ``permutations``, ``confidence``, ``seed``,
        ``max_missing`` (skip the query when a set loses more than this share of its words) and
        the metric's own ``fits``, ``holdout``; and the loading options of :func:`run`.

    Returns
    -------
    Run
        Table ``scores``: per part of the query and layer the ``value``, its bootstrap interval
        (``ci_low``, ``ci_high``) and permutation ``p_value`` (NaN where there is none:
        ``metadata["uncertainty"]`` says why); table ``words``: each word's own score at every
        layer, the exact terms of the value (``metadata["word_scores"]`` says how);
        ``metadata["left_out"]`` lists the words the model lacks.

    Examples
    --------
    >>> import wordlens
    >>> query = {
    ...     "targets": {"flowers": ["rose", "tulip", "daisy", "lily"],
    ...                 "insects": ["ant", "wasp", "flea", "moth"]},
    ...     "attributes": {"pleasant": ["love", "peace", "joy", "gift"],
    ...                    "unpleasant": ["hate", "war", "ugly", "filth"]},
    ... }
    >>> result = wordlens.rnsb("glove-6b-50d", query=query, bootstrap=0, permutations=0)
    >>> result.tables["scores"][["part", "layer", "value"]].round(3)
           part  layer  value
    0  all sets      0  0.094
    """
    return run("rnsb", model, out=out, progress=progress, query=query, **options)


def mac(
    model: ModelLike,
    *,
    query: Query | Mapping[str, Any] | str | os.PathLike[str] | None = None,
    out: OutPath = None,
    progress: bool = False,
    **options: Any,
) -> Run:
    """Mean average cosine (MAC) at every layer of a model.

    Manzini, Lim, Tsvetkov & Black (2019, NAACL): the mean over the target words and the attribute
    sets of the mean cosine distance of a target word to the set's words (smaller: closer).

    Parameters
    ----------
    model
        A model name (alias, local path or hub id) or a word embedder from
        :func:`wordlens.load_model` (used as it is).
    query
        Two named target sets and two named attribute sets, as :func:`weat` takes them: a
        mapping, a :class:`~wordlens.resources.Query` or the path of a YAML or JSON file.
    out
        Directory to write the tables, ``run.json`` and ``report.html`` into, as
        ``wordlens mac --out``; None (default) writes nothing.
    progress
        Show progress bars.
    **options
        Fields of :class:`~wordlens.methods.association.AssociationConfig`: ``layers``, ``context``,
        ``template``, ``pooling``, ``bootstrap``, ``permutations``, ``confidence``, ``seed``,
        ``max_missing`` (skip the query when a set loses more than this share of its words);
        and the loading options of :func:`run`.

    Returns
    -------
    Run
        Table ``scores``: per part of the query and layer the ``value``, its bootstrap interval
        (``ci_low``, ``ci_high``) and permutation ``p_value`` (NaN where there is none:
        ``metadata["uncertainty"]`` says why); table ``words``: each word's own score at every
        layer, the exact terms of the value (``metadata["word_scores"]`` says how);
        ``metadata["left_out"]`` lists the words the model lacks.

    Examples
    --------
    >>> import wordlens
    >>> query = {
    ...     "targets": {"flowers": ["rose", "tulip", "daisy", "lily"],
    ...                 "insects": ["ant", "wasp", "flea", "moth"]},
    ...     "attributes": {"pleasant": ["love", "peace", "joy", "gift"],
    ...                    "unpleasant": ["hate", "war", "ugly", "filth"]},
    ... }
    >>> result = wordlens.mac("glove-6b-50d", query=query, bootstrap=0, permutations=0)
    >>> result.tables["scores"][["part", "layer", "value"]].round(3)
           part  layer  value
    0  all sets      0  0.898
    """
    return run("mac", model, out=out, progress=progress, query=query, **options)


def ect(
    model: ModelLike,
    *,
    query: Query | Mapping[str, Any] | str | os.PathLike[str] | None = None,
    out: OutPath = None,
    progress: bool = False,
    **options: Any,
) -> Run:
    """Embedding coherence test (ECT) at every layer of a model.

    Dev & Phillips (2019, AISTATS): Spearman's rho between the attribute words' cosines with the two
    target sets' average vectors (1: both targets relate to the attributes alike); one result per
    attribute set.

    Parameters
    ----------
    model
        A model name (alias, local path or hub id) or a word embedder from
        :func:`wordlens.load_model` (used as it is).
    query
        Two named target sets and two named attribute sets, as :func:`weat` takes them: a
        mapping, a :class:`~wordlens.resources.Query` or the path of a YAML or JSON file.
    out
        Directory to write the tables, ``run.json`` and ``report.html`` into, as
        ``wordlens ect --out``; None (default) writes nothing.
    progress
        Show progress bars.
    **options
        Fields of :class:`~wordlens.methods.association.AssociationConfig`: ``layers``, ``context``,
        ``template``, ``pooling``, ``bootstrap``, ``permutations``, ``confidence``, ``seed``,
        ``max_missing`` (skip the query when a set loses more than this share of its words);
        and the loading options of :func:`run`.

    Returns
    -------
    Run
        Table ``scores``: per part of the query and layer the ``value``, its bootstrap interval
        (``ci_low``, ``ci_high``) and permutation ``p_value`` (NaN where there is none:
        ``metadata["uncertainty"]`` says why); table ``words``: each word's own score at every
        layer, the exact terms of the value (``metadata["word_scores"]`` says how);
        ``metadata["left_out"]`` lists the words the model lacks.

    Examples
    --------
    >>> import wordlens
    >>> query = {
    ...     "targets": {"flowers": ["rose", "tulip", "daisy", "lily"],
    ...                 "insects": ["ant", "wasp", "flea", "moth"]},
    ...     "attributes": {"pleasant": ["love", "peace", "joy", "gift"],
    ...                    "unpleasant": ["hate", "war", "ugly", "filth"]},
    ... }
    >>> result = wordlens.ect("glove-6b-50d", query=query, bootstrap=0, permutations=0)
    >>> result.tables["scores"][["part", "layer", "value"]].round(3)
             part  layer  value
    0    pleasant      0    0.8
    1  unpleasant      0    0.4
    """
    return run("ect", model, out=out, progress=progress, query=query, **options)


def ripa(
    model: ModelLike,
    *,
    query: Query | Mapping[str, Any] | str | os.PathLike[str] | None = None,
    out: OutPath = None,
    progress: bool = False,
    **options: Any,
) -> Run:
    """Relational inner product association (RIPA) at every layer of a model.

    Ethayarajh, Duvenaud & Hirst (2019, ACL): the inner product of each attribute word with the
    relation vector of the target pairs (x_i, y_i), the two target sets paired by position, averaged
    over the attribute set; one result per attribute set.

    Parameters
    ----------
    model
        A model name (alias, local path or hub id) or a word embedder from
        :func:`wordlens.load_model` (used as it is).
    query
        Two named target sets and two named attribute sets, as :func:`weat` takes them: a
        mapping, a :class:`~wordlens.resources.Query` or the path of a YAML or JSON file.
    out
        Directory to write the tables, ``run.json`` and ``report.html`` into, as
        ``wordlens ripa --out``; None (default) writes nothing.
    progress
        Show progress bars.
    **options
        Fields of :class:`~wordlens.methods.ripa.config.RipaConfig`: ``layers``, ``context``,
        ``template``, ``pooling``, ``bootstrap``, ``permutations``, ``confidence``, ``seed``,
        ``max_missing`` (skip the query when a set loses more than this share of its words) and
        the metric's own ``relation`` (``"pc"``: the paper's first principal component; ``"pairs"``:
        WEFE's); and the loading options of :func:`run`.

    Returns
    -------
    Run
        Table ``scores``: per part of the query and layer the ``value``, its bootstrap interval
        (``ci_low``, ``ci_high``) and permutation ``p_value`` (NaN where there is none:
        ``metadata["uncertainty"]`` says why); table ``words``: each word's own score at every
        layer, the exact terms of the value (``metadata["word_scores"]`` says how);
        ``metadata["left_out"]`` lists the words the model lacks.

    Examples
    --------
    >>> import wordlens
    >>> query = {
    ...     "targets": {"flowers": ["rose", "tulip", "daisy", "lily"],
    ...                 "insects": ["ant", "wasp", "flea", "moth"]},
    ...     "attributes": {"pleasant": ["love", "peace", "joy", "gift"],
    ...                    "unpleasant": ["hate", "war", "ugly", "filth"]},
    ... }
    >>> result = wordlens.ripa("glove-6b-50d", query=query, bootstrap=0, permutations=0)
    >>> result.tables["scores"][["part", "layer", "value"]].round(3)
             part  layer  value
    0    pleasant      0  1.288
    1  unpleasant      0 -0.093
    """
    return run("ripa", model, out=out, progress=progress, query=query, **options)


def semaxis(
    model: ModelLike,
    *,
    query: Query | Mapping[str, Any] | str | os.PathLike[str] | None = None,
    out: OutPath = None,
    progress: bool = False,
    **options: Any,
) -> Run:
    """SemAxis at every layer of a model.

    An, Kwak & Ahn (2018, ACL): the axis from the second attribute set's average vector to the
    first's; the mean cosine of the first target set's words with it minus the second's.

    Parameters
    ----------
    model
        A model name (alias, local path or hub id) or a word embedder from
        :func:`wordlens.load_model` (used as it is).
    query
        Two named target sets and two named attribute sets, as :func:`weat` takes them: a
        mapping, a :class:`~wordlens.resources.Query` or the path of a YAML or JSON file.
    out
        Directory to write the tables, ``run.json`` and ``report.html`` into, as
        ``wordlens semaxis --out``; None (default) writes nothing.
    progress
        Show progress bars.
    **options
        Fields of :class:`~wordlens.methods.association.AssociationConfig`: ``layers``, ``context``,
        ``template``, ``pooling``, ``bootstrap``, ``permutations``, ``confidence``, ``seed``,
        ``max_missing`` (skip the query when a set loses more than this share of its words);
        and the loading options of :func:`run`.

    Returns
    -------
    Run
        Table ``scores``: per part of the query and layer the ``value``, its bootstrap interval
        (``ci_low``, ``ci_high``) and permutation ``p_value`` (NaN where there is none:
        ``metadata["uncertainty"]`` says why); table ``words``: each word's own score at every
        layer, the exact terms of the value (``metadata["word_scores"]`` says how);
        ``metadata["left_out"]`` lists the words the model lacks.

    Examples
    --------
    >>> import wordlens
    >>> query = {
    ...     "targets": {"flowers": ["rose", "tulip", "daisy", "lily"],
    ...                 "insects": ["ant", "wasp", "flea", "moth"]},
    ...     "attributes": {"pleasant": ["love", "peace", "joy", "gift"],
    ...                    "unpleasant": ["hate", "war", "ugly", "filth"]},
    ... }
    >>> result = wordlens.semaxis("glove-6b-50d", query=query, bootstrap=0, permutations=0)
    >>> result.tables["scores"][["part", "layer", "value"]].round(3)
           part  layer  value
    0  all sets      0   0.32
    """
    return run("semaxis", model, out=out, progress=progress, query=query, **options)


def associations(
    model: ModelLike,
    *,
    query: Query | Mapping[str, Any] | str | os.PathLike[str] | None = None,
    out: OutPath = None,
    progress: bool = False,
    **options: Any,
) -> Run:
    """Every association metric (RND, RNSB, MAC, ECT, RIPA, SemAxis) on one query, at every
    layer of a model: the layers ranked by each metric, and where the metrics disagree.

    The query's words are embedded once; each metric scores them with the shared options
    (:func:`wordlens.methods.associations.metric_config`), as its own function would.

    Parameters
    ----------
    model
        A model name (alias, local path or hub id) or a word embedder from
        :func:`wordlens.load_model` (used as it is).
    query
        Two named target sets and two named attribute sets, as :func:`weat` takes them.
    out
        Directory to write the tables, ``run.json`` and ``report.html`` into, as
        ``wordlens associations --out``; None (default) writes nothing.
    progress
        Show progress bars.
    **options
        Fields of :class:`~wordlens.methods.associations.AssociationsConfig`: ``layers``,
        ``context``, ``template``, ``pooling``, ``bootstrap``, ``permutations``, ``confidence``,
        ``seed``, ``max_missing`` and RNSB's ``holdout``; and the loading options of
        :func:`run`.

    Returns
    -------
    Run
        Tables ``scores`` (every metric's, with a ``metric`` column and ``strength``: the value
        oriented so that larger means more association), ``ranks`` (each metric's strongest
        layer and the layers from strongest to weakest), ``disagreements`` (Spearman's rho
        between two metrics' strengths over the layers) and ``words`` (every metric's per-word
        scores); metadata ``not_computed`` (each metric
        that cannot run on the query, with why) and ``skipped`` (why the whole query was, under
        ``max_missing``; '' where it ran).

    Examples
    --------
    >>> import wordlens
    >>> query = {
    ...     "targets": {"flowers": ["rose", "tulip", "daisy", "lily"],
    ...                 "insects": ["ant", "wasp", "flea", "moth"]},
    ...     "attributes": {"pleasant": ["love", "peace", "joy", "gift"],
    ...                    "unpleasant": ["hate", "war", "ugly", "filth"]},
    ... }
    >>> result = wordlens.associations("glove-6b-50d", query=query, bootstrap=0, permutations=0)
    >>> sorted(set(result.tables["scores"]["metric"]))
    ['ect', 'mac', 'ripa', 'rnd', 'rnsb', 'semaxis']
    """
    return run("associations", model, out=out, progress=progress, query=query, **options)


def _model_options(method: Method[Any], model: ModelLike, loading: dict[str, Any]) -> ModelOptions:
    """How ``method`` gets ``model``: by name with the ``loading`` options, or as loaded.

    Raises
    ------
    WordlensError
        If the method needs a model and none is given, or ``model`` is of no usable kind.
    """
    if model is None:
        if method.model_required:
            raise WordlensError(f"{method.name} needs a model: a name, a path or a loaded model")
        return config_from_values(ModelOptions, loading, python=True)
    if isinstance(model, str | os.PathLike):
        return config_from_values(ModelOptions, {"model": os.fspath(model), **loading}, python=True)
    if not isinstance(model, WordEmbedder) and not _is_scorer(model):
        raise WordlensError(
            f"model must be a name, a path, or a model from load_model or load_scorer; got "
            f"{type(model).__name__}"
        )
    return LoadedModel.around(model, **read_values(ModelOptions, loading, python=True))


def _is_scorer(model: object) -> bool:
    """Whether ``model`` is a sentence scorer, without importing torch: none can be unless
    :mod:`wordlens.models.scoring` is already imported."""
    scoring = sys.modules.get("wordlens.models.scoring")
    return scoring is not None and isinstance(model, scoring.LMScorer)
