"""Target spans: integer offsets inside the text, refused with a TargetError otherwise."""

from __future__ import annotations

import json

import numpy as np
import pytest

from wordlens.contexts import Target
from wordlens.errors import TargetError


@pytest.mark.parametrize(
    ("start", "end", "message"),
    [
        (0.0, 2, r"span start must be an integer character offset, got 0\.0 \(float\)"),
        (0, 2.0, r"span end must be an integer character offset, got 2\.0 \(float\)"),
        (0, 1.5, r"span end .* got 1\.5 \(float\)"),
        (True, 2, r"span start .* got True \(bool\)"),
        (0, "2", r"span end .* got '2' \(str\)"),
        (0, None, r"span end .* got None \(NoneType\)"),
        (-1, 2, "out of range"),
        (2, 2, "out of range"),
        (3, 1, "out of range"),
        (0, 6, "out of range"),
    ],
)
def test_bad_spans_are_target_errors(start: object, end: object, message: str) -> None:
    with pytest.raises(TargetError, match=message):
        Target("ab cd", start, end)  # type: ignore[arg-type]


def test_numpy_integer_offsets_become_python_ints() -> None:
    target = Target("ab cd", np.int64(3), np.int32(5))  # type: ignore[arg-type]
    assert target.word == "cd" and type(target.start) is int and type(target.end) is int
    assert json.dumps([target.start, target.end]) == "[3, 5]"  # as the cache keys them
    assert target == Target("ab cd", 3, 5)
