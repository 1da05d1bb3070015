"""The Python API speaks Python: errors name keywords (not flags) and suggest the closest one, a
loaded model prints what it is, and every path it takes may be text or any ``os.PathLike``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

import wordlens
from wordlens.cli import app
from wordlens.errors import WordlensError
from wordlens.models.base import WordEmbedder
from wordlens.options import OptionError, config_from_values, keyword_names, keywords_in_errors
from wordlens.results import Figure, Run

runner = CliRunner()


class _PathLike:
    """An ``os.PathLike`` that is neither text nor a ``pathlib.Path``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __fspath__(self) -> str:
        return str(self.path)


# --- errors name the Python keyword -----------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"tests": "x"}, "^tests: not an integer: 'x'$"),
        ({"layers": "a-b"}, "^layers: cannot read layers 'a-b'"),
        ({"pooling": "median"}, "^pooling: unknown pooling 'median'"),
        ({"permutations": "many"}, "^permutations: not an integer"),
        ({"dtype": "int8"}, "^dtype: unknown dtype 'int8'"),  # a loading option
    ],
)
def test_errors_name_the_keyword(
    glove: WordEmbedder, options: dict[str, str], message: str
) -> None:
    with pytest.raises(OptionError, match=message) as raised:
        wordlens.weat("glove-6b-50d", **options)
    assert "--" not in str(raised.value)


def test_a_loaded_model_s_loading_options_name_the_keyword(glove: WordEmbedder) -> None:
    with pytest.raises(OptionError, match=r"^token_budget: not an integer"):
        wordlens.weat(glove, token_budget="lots")


def test_a_config_rule_names_the_keyword_in_python_and_the_flag_on_the_command_line() -> None:
    from wordlens.methods.likelihood_bias.config import LikelihoodBiasConfig

    with pytest.raises(OptionError, match=r"^bootstrap: must be >= 0"):
        wordlens.likelihood_bias("glove-6b-50d", bootstrap=-1)
    with pytest.raises(OptionError, match=r"^--bootstrap: must be >= 0"):
        config_from_values(LikelihoodBiasConfig, {"bootstrap": "-1"})


def test_a_sample_size_names_the_keyword(glove: WordEmbedder) -> None:
    with pytest.raises(OptionError, match=r"^pairs: at least 1 pair"):
        wordlens.asymmetry(glove, pairs="0")
    with pytest.raises(OptionError, match=r"^similarity_pairs: a number"):
        wordlens.asymmetry(glove, similarity_pairs="some")


def test_a_rule_s_free_text_names_keywords_from_python_and_flags_on_the_command_line(
    glove: WordEmbedder,
) -> None:
    """The flags a rule's message names inside its text (not only its first word) read as
    keywords from Python, as flags on the command line."""
    from wordlens.methods.asymmetry.config import AsymmetryConfig

    with pytest.raises(WordlensError, match=r"SWOW-EN file \(swow_file\)") as raised:
        wordlens.asymmetry(glove, norms=["swow"])
    assert "--" not in str(raised.value)
    with pytest.raises(WordlensError, match=r"SWOW-EN file \(--swow-file\)"):
        config_from_values(AsymmetryConfig, {"norms": "swow"})
    result = runner.invoke(app, ["asymmetry", "-m", "glove-6b-50d", "--norms", "swow"])
    assert result.exit_code == 2 and "(--swow-file)" in " ".join(result.output.split())


def test_keyword_names_of_flags() -> None:
    from wordlens.methods.vast.config import VastConfig
    from wordlens.models.options import ModelOptions

    names = keyword_names(VastConfig, ModelOptions)
    assert names["--no-weat"] == "weat=False"  # the off half of a bool pair
    assert names["--weat"] == "weat"
    assert names["--n-samples"] == "permutations"  # a deprecated flag
    assert names["--no-cache"] == "no_cache"
    assert names["--token-budget"] == "token_budget"


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        # a message naming the keyword already keeps its flag
        (
            "pass --trust-remote-code (trust_remote_code=True in Python)",
            "pass --trust-remote-code (trust_remote_code=True in Python)",
        ),
        (
            "pip install --no-deps x; or pass --no-cache",
            "pip install --no-deps x; or pass no_cache",
        ),
        ("a--cache-dir b", "a--cache-dir b"),  # not a flag: inside a word
    ],
)
def test_flags_in_free_text(message: str, expected: str) -> None:
    from wordlens.models.options import ModelOptions

    with pytest.raises(WordlensError) as raised, keywords_in_errors(ModelOptions):
        raise WordlensError(message)
    assert str(raised.value) == expected


def test_the_command_line_keeps_its_flags() -> None:
    from wordlens.methods.weat import WeatConfig

    with pytest.raises(OptionError, match=r"^--tests: not an integer: 'x'$"):
        config_from_values(WeatConfig, {"tests": "x"})


def test_an_unknown_keyword_suggests_the_closest(glove: WordEmbedder) -> None:
    with pytest.raises(
        OptionError, match=r"^permutation: not an option \(.*\); did you mean permutations\?$"
    ):
        wordlens.weat(glove, permutation=10)
    with pytest.raises(OptionError, match=r"did you mean pooling\?$"):
        wordlens.run("weat", glove, poolng="mean")
    with pytest.raises(OptionError, match=r"^bogus: not an option \([^)]*\)$"):  # nothing close
        wordlens.weat(glove, bogus=1)


# --- a loaded model prints what it is ---------------------------------------------------------


def test_repr_of_a_static_model(glove: WordEmbedder) -> None:
    assert repr(glove) == "<StaticEmbedder glove-6b-50d: static, 1 layer, 50 d>"


def test_repr_of_a_transformer(minilm: WordEmbedder) -> None:
    device, dtype = minilm.info.details["device"], minilm.info.details["dtype"]
    assert repr(minilm) == f"<HFEmbedder minilm-l6: encoder, 7 layers, 384 d, {device}, {dtype}>"


# --- paths: text or os.PathLike ---------------------------------------------------------------


@pytest.mark.parametrize("kind", ["str", "str-slash", "pathlike"])
def test_run_write_and_read_take_text_and_pathlike(
    glove: WordEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    monkeypatch.chdir(tmp_path)
    result = wordlens.weat(glove, tests=[7], permutations=100)
    where: str | os.PathLike[str] = {
        "str": str(tmp_path / "a"),
        "str-slash": "out/",  # the README's own example
        "pathlike": _PathLike(tmp_path / "c"),
    }[kind]
    written = result.write(where)
    assert all(isinstance(path, Path) and path.is_file() for path in written)
    again = Run.read(where)
    assert again.method == "weat" and list(again.tables) == ["weat", "words"]
    assert wordlens.read_run(where).tables["weat"].equals(again.tables["weat"])


def test_out_takes_text_and_pathlike(glove: WordEmbedder, tmp_path: Path) -> None:
    wordlens.weat(glove, tests=[7], permutations=100, out=_PathLike(tmp_path / "p"))
    assert (tmp_path / "p" / "run.json").is_file()


def test_a_figure_saves_to_text(tmp_path: Path) -> None:
    path = Figure("x", b"\x89PNG").save(str(tmp_path / "f.png"))
    assert path == tmp_path / "f.png" and path.read_bytes() == b"\x89PNG"


def test_a_path_of_another_type_is_refused(glove: WordEmbedder) -> None:
    result = wordlens.weat(glove, tests=[7], permutations=100)
    with pytest.raises(TypeError, match=r"expected a path .* got int"):
        result.write(3)  # type: ignore[arg-type]


def test_loaders_take_text_and_pathlike(shared: Path) -> None:
    from wordlens.resources import load_lexicon

    data = Path(os.environ["WORDLENS_DATA_PATH"])
    by_text = load_lexicon("bellezza", path=str(data))
    by_pathlike = load_lexicon("bellezza", path=_PathLike(data))
    assert len(by_text.data) == len(by_pathlike.data) > 0
    model = shared / "models" / "minilm-l6-mlm"
    if not model.is_dir():
        pytest.skip("no local masked model")
    assert "minilm-l6-mlm" in repr(wordlens.load_model(_PathLike(model)))


def test_a_wordlens_error_is_still_the_base(glove: WordEmbedder) -> None:
    with pytest.raises(WordlensError):
        wordlens.weat(glove, n_sample=10)


def test_repr_of_a_model_without_info_does_not_raise(glove: WordEmbedder) -> None:
    class Broken(type(glove)):  # type: ignore[misc]
        @property
        def info(self) -> None:  # type: ignore[override]
            raise RuntimeError("not loaded")

    broken = object.__new__(Broken)
    assert repr(broken).startswith("<") and "Broken object at" in repr(broken)
