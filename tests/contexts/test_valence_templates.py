"""VAST's aligned and misaligned valence templates: bins, rescaling, edges and the template file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from wordlens.contexts.valence import (
    aligned_targets,
    load_templates,
    misaligned_bin,
    misaligned_targets,
    rescale_to_nine,
    valence_bin,
)
from wordlens.errors import EmptyInputError, LexiconFormatError, WordlensError
from wordlens.resources import load_lexicon

PAPER_TEMPLATES = (
    "It is very unpleasant to think of {word}",
    "It is unpleasant to think of {word}",
    "It is neither pleasant nor unpleasant to think of {word}",
    "It is pleasant to think of {word}",
    "It is very pleasant to think of {word}",
)


def test_packaged_templates_are_the_papers() -> None:
    templates = load_templates()
    assert templates.templates == PAPER_TEMPLATES
    assert templates.edges == (1.0, 2.5, 4.0, 6.0, 7.5, 9.0)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1.0, 0),
        (2.49, 0),
        (2.5, 1),
        (3.99, 1),
        (4.0, 2),
        (5.99, 2),
        (6.0, 3),
        (7.49, 3),
        (7.5, 4),
        (9.0, 4),
    ],
)
def test_nine_point_edges_open_the_upper_bin_as_in_the_papers_table(
    value: float, expected: int
) -> None:
    assert valence_bin([value], (1.0, 9.0)).tolist() == [expected]


def test_bellezza_scale_is_rescaled_linearly() -> None:
    values = [1.0, 1.745, 1.75, 2.5, 3.0, 4.25, 5.0]
    assert rescale_to_nine(values, (1.0, 5.0)) == pytest.approx([1, 2.49, 2.5, 4, 5, 7.5, 9])
    assert valence_bin(values, (1.0, 5.0)).tolist() == [0, 0, 1, 2, 2, 4, 4]


def test_german_minus_three_to_three_scale_is_rescaled_linearly() -> None:
    values = [-3.0, -1.875, -0.75, 0.0, 0.75, 1.875, 1.87, 3.0]
    assert rescale_to_nine(values, (-3.0, 3.0)) == pytest.approx(
        [1, 2.5, 4, 5, 6, 7.5, 7.4933333, 9]
    )
    assert valence_bin(values, (-3.0, 3.0)).tolist() == [0, 1, 2, 2, 3, 4, 3, 4]


def test_real_bellezza_words_on_rescaled_edges() -> None:
    bellezza = load_lexicon("bellezza")
    data = bellezza.data.set_index("word")["valence"]
    on_edge = data[data.isin([1.75, 4.25])]
    assert len(on_edge) == 6  # 2 rated 1.75 (-> 2.5) and 4 rated 4.25 (-> 7.5)
    bins = valence_bin(on_edge.to_numpy(), bellezza.scale["valence"])
    assert bins.tolist() == [1 if v == 1.75 else 4 for v in on_edge]


def test_misaligned_bin_mirrors_and_keeps_the_middle() -> None:
    assert misaligned_bin([0, 1, 2, 3, 4]).tolist() == [4, 3, 2, 1, 0]


def test_aligned_and_misaligned_targets_on_warriner_words() -> None:
    warriner = load_lexicon("warriner").data.set_index("word")["valence"]
    words = ["vacation", "murder", "table"]
    values = warriner[words].to_numpy()
    assert valence_bin(values, (1.0, 9.0)).tolist() == [4, 0, 2]
    aligned = aligned_targets(words, values, (1.0, 9.0))
    misaligned = misaligned_targets(words, values, (1.0, 9.0))
    assert [t.text for t in aligned] == [
        "It is very pleasant to think of vacation",
        "It is very unpleasant to think of murder",
        "It is neither pleasant nor unpleasant to think of table",
    ]
    assert [t.text for t in misaligned] == [
        "It is very unpleasant to think of vacation",
        "It is very pleasant to think of murder",
        "It is neither pleasant nor unpleasant to think of table",
    ]
    assert [t.word for t in aligned + misaligned] == words + words


def test_bad_ratings_and_arguments_raise() -> None:
    with pytest.raises(WordlensError, match=r"outside the scale 1\.\.9: 9\.01"):
        valence_bin([5.0, 9.01], (1.0, 9.0))
    with pytest.raises(WordlensError, match=r"outside the scale 1\.\.5: 0\.5"):
        rescale_to_nine([0.5], (1.0, 5.0))
    with pytest.raises(WordlensError, match="outside the scale"):
        valence_bin([np.nan], (1.0, 9.0))
    with pytest.raises(WordlensError, match="min < max"):
        rescale_to_nine([3.0], (5.0, 1.0))
    with pytest.raises(WordlensError, match="2 words but valence ratings of shape"):
        aligned_targets(["a", "b"], [5.0], (1.0, 9.0))
    with pytest.raises(EmptyInputError):
        misaligned_targets([], [], (1.0, 9.0))


def _write(tmp_path: Path, document: object) -> Path:
    path = tmp_path / "templates.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_replacement_template_file_is_used(tmp_path: Path) -> None:
    templates = [f"Bin {i}: {{word}}." for i in range(5)]
    path = _write(tmp_path, {"edges": [1, 3, 4, 6, 8, 9], "templates": templates})
    custom = load_templates(path)
    assert custom.source == str(path)
    targets = aligned_targets(["w", "v"], [2.9, 8.0], (1.0, 9.0), custom)
    assert [t.text for t in targets] == ["Bin 0: w.", "Bin 4: v."]
    assert targets[1].word == "v"


GOOD = {"edges": [1, 2.5, 4, 6, 7.5, 9], "templates": list(PAPER_TEMPLATES)}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"edges": [1, 4, 6, 7.5, 9]}, "'edges' must list 6 numbers"),
        ({"edges": [1, 2.5, 4, 4, 7.5, 9]}, "must increase strictly"),
        ({"edges": [1, 4, 2.5, 6, 7.5, 9]}, "must increase strictly"),
        ({"edges": [0, 2.5, 4, 6, 7.5, 9]}, "must cover the 1-9 scale"),
        ({"edges": [1, 2.5, 4, 6, 7.5, 10]}, "must cover the 1-9 scale"),
        ({"edges": [1, "2.5", 4, 6, 7.5, 9]}, "'edges' must be numbers"),
        ({"templates": list(PAPER_TEMPLATES[:4])}, "'templates' must list 5 strings"),
        ({"templates": [*PAPER_TEMPLATES[:4], "No placeholder"]}, "exactly once"),
        ({"templates": [*PAPER_TEMPLATES[:4], "{word} and {word}"]}, "exactly once"),
        ({"templates": None}, "'templates' must list 5 strings"),
    ],
)
def test_malformed_template_files_are_rejected(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    path = _write(tmp_path, {**GOOD, **change})
    with pytest.raises(LexiconFormatError, match=message) as caught:
        load_templates(path)
    assert str(path) in str(caught.value)


def test_template_file_that_is_not_an_object_or_not_json(tmp_path: Path) -> None:
    with pytest.raises(LexiconFormatError, match="'edges' and 'templates'"):
        load_templates(_write(tmp_path, {"edges": GOOD["edges"]}))
    with pytest.raises(LexiconFormatError, match="'edges' and 'templates'"):
        load_templates(_write(tmp_path, [1, 2, 3]))
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(LexiconFormatError, match="not JSON"):
        load_templates(broken)
    with pytest.raises(LexiconFormatError, match="cannot read"):
        load_templates(tmp_path / "absent.json")
