"""Options of the VAST method (``wordlens vast``): the only place their defaults live."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from wordlens import help_texts
from wordlens._files import DEFAULT_ENCODING, check_encoding
from wordlens.conventions import ConventionPreset
from wordlens.errors import EmptyInputError, WordlensError
from wordlens.models.base import Pooling
from wordlens.options import SEED_MAX, option
from wordlens.resources.lexica import Duplicates

Setting = Literal["random", "bleached", "aligned", "misaligned"]
SETTINGS: tuple[Setting, ...] = ("random", "bleached", "aligned", "misaligned")
PcPopulation = Literal["authors", "lexicon"]
PC_POPULATIONS: tuple[PcPopulation, ...] = ("authors", "lexicon")
#: The four sets of the VAST validation (WS-353, SimLex-999, Stanford Rare Words, MEN).
VAST_SETS = ("ws353", "simlex999", "rw", "men")


@dataclass(frozen=True)
class VastConfig:
    """What ``wordlens vast`` runs (every experiment of Wolfe & Caliskan 2022).

    Attributes
    ----------
    lexica
        Registered lexicon names or paths (English: bellezza, anew, warriner).
    settings
        Contextual settings (random, bleached, aligned, misaligned).
    pooling
        Subtoken poolings (first, last, mean, max): VAST runs each (the command line's
        ``--pooling``; ``--poolings`` is its deprecated former name).
    layers
        Hidden-state layers; None for all.
    max_pcs
        K of the nullification sweep k = 0..K.
    pc_population
        Vectors the nullified PCs are fitted on: ``"authors"`` (default, as ``VAST.py:116,
        359-365``: every Bellezza, ANEW, Warriner and WEAT word in the same setting and pooling,
        whatever ``lexica`` says) or ``"lexicon"`` (the scored lexicon and the polar words only,
        a departure); :mod:`wordlens.methods.vast.population`.
    seed
        Seed of every random choice (corpus contexts, balancing, permutations).
    tokenization
        Run the singly vs multiply tokenized Warriner experiment.
    similarity
        Word-similarity sets to evaluate (empty to skip).
    weat
        Run the WEAT tests before/after nullification.
    probes
        Run the CoLA and POS probes of the top PCs.
    probe_sentences
        Training sentences per probe (None: all).
    probe_test_sentences
        Test sentences per probe (None: all, as the authors): a seeded sample, for quick runs.
    multilingual
        Non-English lexica to run in the bleached setting with their own polar words.
    permutations
        Permutations per WEAT test (``--n-samples`` is its deprecated former name).
    templates
        A JSON file of aligned/misaligned templates replacing the packaged ones
        (:func:`wordlens.contexts.valence.load_templates`).
    duplicates
        What to do with a word listed twice in a lexicon (:data:`wordlens.resources.Duplicates`);
        None: ``"error"`` for files, a registered lexicon's own policy.
    encoding
        Text encoding of the lexicon and template files given by path.
    conventions
        ``"wordlens"``: the model's ``bos`` option as given; ``"paper"``: the VAST authors' BOS
        choice (:func:`wordlens.conventions.bos_policy`).
    """

    lexica: tuple[str, ...] = option(
        ("bellezza", "anew", "warriner"), "Lexica (registered names or files)."
    )
    settings: tuple[Setting, ...] = option(
        SETTINGS, "Contextual settings: random, bleached, aligned, misaligned."
    )
    pooling: tuple[Pooling, ...] = option(
        ("first", "last", "mean", "max"),
        "Subtoken poolings (VAST runs each).",
        deprecated=("poolings",),
    )
    layers: tuple[int, ...] | None = option(None, help_texts.LAYERS, none="all", parse="layers")
    max_pcs: int = option(12, "Nullification sweep k = 0..K.", minimum=0)
    pc_population: PcPopulation = option(
        "authors",
        "Vectors the nullified PCs are fitted on: authors (every Bellezza, ANEW, Warriner and "
        "WEAT word, as VAST.py) or lexicon (the lexicon and polar words only).",
    )
    seed: int = option(0, "Seed of every random choice.", minimum=0, maximum=SEED_MAX)
    tokenization: bool = option(True, "Singly vs multiply tokenized Warriner words (slow: 13,915).")
    similarity: tuple[str, ...] = option(VAST_SETS, "Similarity sets, or 'none'.")
    weat: bool = option(True, "WEAT before/after nullification.", flag="weat/no-weat")
    probes: bool = option(True, "CoLA and POS probes of the top PCs.")
    probe_sentences: int | None = option(
        None, "Training sentences per probe [default: all].", minimum=1
    )
    probe_test_sentences: int | None = option(
        None, "Test sentences per probe (a seeded sample) [default: all].", minimum=1
    )
    multilingual: tuple[str, ...] = option(
        (), "Non-English lexica (e.g. anew-spanish,fan-french), or 'none'."
    )
    permutations: int = option(
        10_000,
        f"WEAT permutations, {help_texts.PERMUTATIONS_BOUND}.",
        deprecated=("n-samples",),
        minimum=1,
        maximum=help_texts.MAX_PERMUTATIONS,
    )
    templates: Path | None = option(
        None, "JSON file replacing the aligned/misaligned valence templates."
    )
    duplicates: Duplicates | None = option(None, help_texts.DUPLICATES)
    encoding: str = option(DEFAULT_ENCODING, help_texts.ENCODING)
    conventions: ConventionPreset = option("wordlens", help_texts.CONVENTIONS)

    def check(self) -> None:
        """Refuse an empty choice of lexica or settings, an unknown setting or PC population, a
        choice without the bleached setting (the best layer and the layers of the nullification
        sweep are found in it) and an unknown encoding, before any model loads.

        Raises
        ------
        EmptyInputError
            If no lexicon or no setting is chosen.
        WordlensError
            If a setting, the PC population or the encoding is unknown, or the bleached setting
            is not chosen.
        """
        if not self.lexica:
            raise EmptyInputError("no lexicon selected")
        if not self.settings:
            raise EmptyInputError("no contextual setting selected")
        unknown = set(self.settings) - set(SETTINGS)
        if unknown:
            raise WordlensError(f"unknown setting(s) {sorted(unknown)}; choose from {SETTINGS}")
        if "bleached" not in self.settings:
            raise WordlensError(
                "the bleached setting is required: the best layer and the layers of the "
                "nullification sweep are found in it (add it to the settings)"
            )
        if self.pc_population not in PC_POPULATIONS:
            raise WordlensError(
                f"unknown PC population {self.pc_population!r}; choose from {PC_POPULATIONS}"
            )
        check_encoding(self.encoding)
