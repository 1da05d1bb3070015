"""Exceptions raised by wordlens.

Every error a user can cause derives from :class:`WordlensError`, so callers (and the CLI, which
maps them to exit code 2) can tell bad input apart from bugs. Each subclass says what was wrong and,
where possible, how to fix it.
"""

from __future__ import annotations

WORD_LIMIT = 60
"""The most characters of a word an error message shows (see :func:`shown_word`)."""


def shown_word(word: str, limit: int = WORD_LIMIT) -> str:
    """``word`` quoted for an error message, cut if it is long.

    Parameters
    ----------
    word
        The word to show.
    limit
        The most characters shown; a longer word is cut to its first ``limit`` characters and
        an ellipsis, followed by its length.

    Returns
    -------
    str
        ``repr(word)``, or e.g. ``'aaaa…' (10,000 characters)``.
    """
    if len(word) <= limit:
        return repr(word)
    return f"{word[:limit] + '…'!r} ({len(word):,} characters)"


class WordlensError(Exception):
    """Base class of all user-facing wordlens errors."""


class UnknownModelError(WordlensError, ValueError):
    """A model spec is neither an alias, a local path, a GGUF file nor a reachable hub id."""


class MissingPackageError(WordlensError, ImportError):
    """A model alias or optional feature needs a package that is not installed."""


class ModelFilesError(WordlensError, FileNotFoundError):
    """A model directory or file exists but lacks the weights or tokenizer files it needs."""


class TargetError(WordlensError, ValueError):
    """A target (word in context) is malformed: word not in text, span out of range, etc."""


class AlignmentError(WordlensError, ValueError):
    """A target span could not be mapped onto the tokenizer's subtokens."""


class EmptyInputError(WordlensError, ValueError):
    """A word list, lexicon or target list that must not be empty is empty."""


class WordSetError(WordlensError, ValueError):
    """The word sets of a WEAT test are not sets: a set lists a word twice, or the two target sets
    (or the two attribute sets) share words; the message names the words and the sets."""


class QueryError(WordlensError, ValueError):
    """A WEAT query (a user's own target and attribute sets) is malformed: a missing key, not
    two sets, an empty set, a word that is not text; the message names the file and the key."""


class LexiconFormatError(WordlensError, ValueError):
    """A lexicon or word-list file is malformed; the message names the file and line."""


class InputFileError(WordlensError, OSError):
    """A user's input file (a lexicon, a similarity set, a SWOW file) exists but cannot be read:
    a directory, no permission, an I/O error; the message names the file and the reason."""


class FileEncodingError(WordlensError, ValueError):
    """A text file is not in the encoding it is read with; the message names the file, the line
    and the encoding, and how to read it otherwise."""


class DeviceError(WordlensError, ValueError):
    """A torch device is not one wordlens knows, or is not available on this machine."""


class RemoteCodeError(WordlensError, ValueError):
    """A model needs its own Python code to load and running it was not allowed."""


class PickleWeightsError(WordlensError, ValueError):
    """A model's weights are only a pickle (``pytorch_model.bin``) and loading pickles was not
    allowed (``--allow-pickle``)."""


class ResourceNotFoundError(WordlensError, FileNotFoundError):
    """A named data resource is neither local, mirrored, cached nor downloadable."""


class PublishedValuesError(WordlensError, ValueError):
    """A file of a paper's published numbers (``wordlens/reproduce/papers/*.yaml``) is malformed;
    the message names the file and the entry."""


class ChecksumError(WordlensError, ValueError):
    """A downloaded file does not match its recorded sha256."""


class CacheError(WordlensError, OSError):
    """The activation cache cannot be read or written (e.g. an unwritable directory)."""


class WordlensWarning(UserWarning):
    """Base class of the warnings wordlens gives about a result that may mislead."""


class FewPartitionsWarning(WordlensWarning):
    """A permutation test has fewer than
    :data:`~wordlens.stats.diagnostics.MIN_PARTITIONS` partitions to count over, so its p-value
    is coarse: the message says how many and what the one-sided p can be (under Caliskan et al.'s
    strict rule, multiples of 1/N from 0, where 0 only says no partition exceeds the observed
    one)."""


class UndefinedStatisticWarning(WordlensWarning):
    """An effect size or p-value is NaN; the message gives the reason (a NaN or zero vector, or
    scores that are all equal)."""


class CacheDamageWarning(UserWarning):
    """An activation cache shard failed its check (truncated, overwritten, no checksum); it was
    moved aside and its targets are computed again."""


class Terminated(KeyboardInterrupt):
    """The process received SIGTERM. Raised in the main thread by the handler the command line
    installs, it unwinds like Ctrl-C (a ``KeyboardInterrupt``): finished work stays, exit 143."""


class OutputError(WordlensError, OSError):
    """The output directory cannot be created or written."""


class VocabularyError(WordlensError, KeyError):
    """Words are missing from a static model's vocabulary."""

    def __init__(self, missing: list[str], model_name: str) -> None:
        shown = ", ".join(shown_word(word) for word in missing[:10])
        more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
        super().__init__(
            f"{len(missing)} word(s) not in the vocabulary of {model_name}: {shown}{more}"
        )
        self.missing = missing

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0])


class UntrainedHeadError(WordlensError, ValueError):
    """A model loaded to score sentences has newly initialized language-model weights (e.g. an
    encoder checkpoint without its masked-LM head), so its likelihoods would be noise."""
