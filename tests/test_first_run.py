"""What a new user runs first says nothing deprecated: the example study and ``make demo`` (the
README's main job) use the current option names and values. Checked cheaply, by reading the
options as the study file and the command line read them, without running anything."""

from __future__ import annotations

import re
import shlex
import warnings
from pathlib import Path

from tests.conftest import REPO
from wordlens.methods.registry import get_method
from wordlens.models.options import ModelOptions
from wordlens.options import option_specs, read_values
from wordlens.study.spec import load_study

NOT_OPTIONS = {"out"}
"""Flags of a method's command that are no config option (the output directory)."""


def demo_commands() -> list[list[str]]:
    """The ``wordlens`` commands of the Makefile's ``demo`` recipe, each split into words."""
    lines = (REPO / "Makefile").read_text().splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("demo:"))
    recipe = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        recipe.append(line.strip())
    joined = " ".join(recipe).replace("\\ ", " ")
    commands = [part.strip() for part in joined.split("$(BIN)/wordlens") if part.strip()]
    return [shlex.split(command) for command in commands]


def flag_values(words: list[str], config_type: type) -> dict[str, dict[str, str]]:
    """``--flag value`` and bool ``--flag``/``--no-flag`` words, by the config they belong to
    (the method's or :class:`ModelOptions`), as the command line gives them (text)."""
    owners = {"method": config_type, "model": ModelOptions}
    chosen: dict[str, dict[str, str]] = {"method": {}, "model": {}}
    index = 0
    while index < len(words):
        flag = words[index].removeprefix("--")
        assert words[index].startswith("--"), f"not a flag: {words[index]}"
        for owner, kind in owners.items():
            for spec in option_specs(kind):
                on, _, off = (spec.info.flag or spec.name.replace("_", "-")).partition("/")
                if spec.base is bool and flag in (on, off or f"no-{on}"):
                    chosen[owner][spec.name] = "false" if flag != on else "true"
                    break
                if flag in spec.aliases():
                    chosen[owner][flag] = words[index + 1]
                    index += 1
                    break
            else:
                continue
            break
        else:
            assert flag in NOT_OPTIONS, f"--{flag} is no option of {config_type.__name__}"
            index += 1
        index += 1
    return chosen


def test_the_demo_has_commands() -> None:
    commands = demo_commands()
    assert [command[0] for command in commands] == ["weat", "weat", "vast", "vast"]
    assert commands[0][3:5] == ["--context", "template"]


def test_the_demo_uses_no_deprecated_option_or_value() -> None:
    for method_name, *words in demo_commands():
        config_type = get_method(method_name).config_type
        given = flag_values(words, config_type)
        with warnings.catch_warnings():
            warnings.simplefilter("error", FutureWarning)
            read_values(config_type, given["method"])
            read_values(ModelOptions, given["model"])


def test_the_example_study_uses_no_deprecated_option_or_value() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        study = load_study(REPO / "studies" / "example.yaml", check_inputs=False)
    assert study.cells


def test_a_deprecated_value_is_caught(tmp_path: Path) -> None:
    """The check above can fail: the former name of WEAT's context warns."""
    study = (REPO / "studies" / "example.yaml").read_text()
    old = tmp_path / "example.yaml"
    old.write_text(study.replace("context: template", "context: bleached"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_study(old, check_inputs=False)
    assert any(issubclass(warning.category, FutureWarning) for warning in caught)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read_values(get_method("weat").config_type, {"context": "bleached"})
    assert any(issubclass(warning.category, FutureWarning) for warning in caught)


NUMBERS = {"five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}


def test_the_getting_started_guide_counts_the_files_a_weat_run_writes(tmp_path: Path) -> None:
    import wordlens

    guide = (REPO / "docs" / "getting-started.md").read_text()
    [printed] = re.findall(r"\((\d+) files in results/weat-glove\)", guide)
    [said] = re.findall(r"`results/weat-glove/` holds (\d+) files", guide)
    wordlens.weat("glove-6b-50d", tests=[7], permutations=100, out=tmp_path)
    files = sorted(path.name for path in tmp_path.iterdir())
    assert int(printed) == int(said) == len(files), files
    paragraph = guide[guide.index("`results/weat-glove/` holds") :]
    for name in files:  # each named: a figure's formats after its .png
        assert f"`{name}`" in paragraph or f"`.{name.rsplit('.', 1)[1]}`" in paragraph, name


def test_the_home_page_counts_the_methods_of_its_table() -> None:
    index = (REPO / "docs" / "index.md").read_text()
    [word] = re.findall(r"wordlens implements (\w+) methods", index)
    table = index[index.index("| method | what it measures | paper |") :].split("\n\n")[0]
    rows = [line for line in table.splitlines()[2:] if line.startswith("| [")]
    assert NUMBERS[word] == len(rows)
    assert "five papers" not in index
