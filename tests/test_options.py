"""Option declarations (wordlens.options): one reader for the command line's text and a study's
YAML values, with clear errors, and the JSON Schema of a config."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest

from wordlens.methods.vast.config import VastConfig
from wordlens.models.options import ModelOptions
from wordlens.options import (
    OptionError,
    config_from_values,
    config_values,
    option,
    option_specs,
    options_json_schema,
    read_values,
)


@dataclass(frozen=True)
class Example:
    layers: tuple[int, ...] | None = option(None, "Layers.", none="all", parse="layers")
    names: tuple[str, ...] = option(("a", "b"), "Names.")
    mode: Literal["fast", "exact"] = option("exact", "Mode.")
    ratio: float = option(0.5, "Ratio.")
    steps: int | None = option(None, "Steps [all].")
    path: Path | None = option(None, "A file.")
    shard: int | None = option(None, "One shard only.", study=False)
    flag: bool = option(True, "A switch.", flag="flag/no-flag")

    def check(self) -> None:
        if self.ratio > 1:
            raise OptionError("--ratio", "at most 1")


def test_text_and_yaml_values_read_alike() -> None:
    from_text = config_from_values(
        Example, {"layers": "0, 2-4,-1", "names": "x,y", "mode": "fast", "ratio": "0.25"}
    )
    from_yaml = config_from_values(
        Example, {"layers": [0, 2, 3, 4, -1], "names": ["x", "y"], "mode": "fast", "ratio": 0.25}
    )
    assert from_text == from_yaml == Example((0, 2, 3, 4, -1), ("x", "y"), "fast", 0.25)
    assert config_from_values(Example, {"layers": "all", "names": "none"}) == Example(names=())
    assert config_from_values(Example, {"flag": "false", "steps": 3.0}).flag is False
    assert config_values(Example(path=Path("a/b"))) == {
        "layers": None, "names": ["a", "b"], "mode": "exact", "ratio": 0.5, "steps": None,
        "path": "a/b", "shard": None, "flag": True,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"layers": "a-b"}, "--layers: cannot read layers 'a-b'"),
        ({"mode": "quick"}, "--mode: unknown mode 'quick': use fast, exact"),
        ({"ratio": "half"}, "--ratio: not a number: 'half'"),
        ({"ratio": True}, "--ratio: not a number: True"),
        ({"steps": 2.5}, "--steps: not an integer: 2.5"),
        ({"flag": "maybe"}, "--flag: not true or false: 'maybe'"),
        ({"colour": "red"}, "colour: not an option (layers, names, mode"),
        ({"ratio": 2}, "--ratio: at most 1"),  # the config's own check()
    ],
)
def test_bad_values_name_the_option(values: dict[str, object], message: str) -> None:
    with pytest.raises(OptionError, match=message.replace("(", r"\(")):
        config_from_values(Example, values)


def test_a_study_names_keys_as_written_and_refuses_command_line_only_options() -> None:
    with pytest.raises(OptionError, match=r"^max-pcs: not an integer: 'many'$"):
        read_values(VastConfig, {"max-pcs": "many"}, study=True)
    with pytest.raises(OptionError, match="shard: not an option of a study"):
        read_values(Example, {"shard": 1}, study=True)
    assert read_values(Example, {"shard": 1}) == {"shard": 1}


def test_every_field_must_be_declared() -> None:
    @dataclass(frozen=True)
    class Undeclared:
        size: int = 3

    with pytest.raises(TypeError, match=r"Undeclared\.size is not declared with option"):
        option_specs(Undeclared)


def test_json_schema_of_a_config() -> None:
    schema = options_json_schema(Example)
    properties = schema["properties"]
    assert "shard" not in properties and schema["additionalProperties"] is False
    assert properties["mode"] == {
        "description": "Mode.",
        "default": "exact",
        "enum": ["fast", "exact"],
    }
    assert {"const": "all"} in properties["layers"]["anyOf"]
    assert {"type": "array", "items": {"type": "integer"}} in properties["layers"]["anyOf"]
    model = options_json_schema(ModelOptions)["properties"]
    assert model["dtype"]["enum"] == ["float32", "float16", "bfloat16"]
