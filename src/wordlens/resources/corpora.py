"""Plain English text corpora for sampling natural contexts of words (VAST's *random* setting).

Four resources of kind ``"corpus"``, each loading as a :class:`Corpus` of documents split into
paragraphs (the sentence splitter lives in :mod:`wordlens.contexts.corpus`):

- ``corpus-gutenberg``: 13 Project Gutenberg books (Austen, Blake, Chesterton, Milton,
  Shakespeare, Whitman), hard-wrapped lines with blank lines between paragraphs. The Project
  Gutenberg header, licence ("small print") and footer are stripped (:func:`strip_gutenberg`).
- ``corpus-inaugural``: 55 US presidential inaugural addresses, 1789-2005.
- ``corpus-state-union``: 65 State of the Union addresses, 1945-2006.
  The speeches have one paragraph per line.
- ``corpus-ud-ewt``: the 16,622 sentences of the Universal Dependencies English Web Treebank
  (train, dev and test), from the ``# text = ...`` comment lines of the gzipped CoNLL-U files;
  already one sentence per line, so never re-split.

Text files are decoded as UTF-8, falling back to Latin-1 for the few ISO-8859-1 files
(``shakespeare-caesar.txt``, several Nixon and Madison speeches, ...): every byte string is valid
Latin-1, and Latin-1 text with accented letters is almost never valid UTF-8.

The copies under ``corpus/`` are verbatim NLTK files (``nltk/nltk`` at commit
``d9d5aeda29fed4a6ddab0ea06305f96b70a4ee47``), so downloads from the canonical URLs verify. The
UD files are the gzipped releases of ``UniversalDependencies/UD_English-EWT`` at commit
``15d613d8447b3478787d4c278730a1e48a945efb``: the upstream files are not gzipped, so a download
from the canonical URL fails its checksum; point ``$WORDLENS_DATA_PATH`` (or
``$WORDLENS_MIRROR_URL``) at a data root holding ``probing/ud_english_ewt/*.conllu.gz`` instead.

References
----------
Wolfe, R., & Caliskan, A. (2022). VAST: The valence-assessing semantics test for contextualizing
language models. *AAAI 2022* (random setting: one randomly chosen natural context per word).

Bird, S., Klein, E., & Loper, E. (2009). *Natural Language Processing with Python*. O'Reilly (the
NLTK corpora these files come from).

Silveira, N., Dozat, T., de Marneffe, M.-C., Bowman, S., Connor, M., Bauer, J., & Manning, C. D.
(2014). A gold standard dependency corpus for English. *LREC 2014* (UD English EWT).
"""

from __future__ import annotations

import functools
import gzip
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TextIO

from wordlens._files import StrPath
from wordlens.errors import LexiconFormatError
from wordlens.resources.registry import Resource, ResourceFile, get_resource, register

Layout = Literal["wrapped", "lines"]
"""How a plain-text file marks paragraphs: blank lines between hard-wrapped lines (``wrapped``),
or one paragraph per line (``lines``)."""


@dataclass(frozen=True)
class Document:
    """One file of a corpus.

    Attributes
    ----------
    source
        The file's path relative to the data root, e.g. ``"corpus/inaugural/1789-Washington.txt"``.
    paragraphs
        Its text blocks in order, whitespace runs collapsed to single spaces. A sentence never
        spans two blocks.
    """

    source: str
    paragraphs: tuple[str, ...]


@dataclass(frozen=True)
class Corpus:
    """A loaded corpus resource.

    Attributes
    ----------
    name
        Resource name.
    documents
        One :class:`Document` per file, in registration order.
    segmented
        True when every paragraph is already one sentence (UD EWT): a sentence splitter must
        leave them whole.
    """

    name: str
    documents: tuple[Document, ...]
    segmented: bool


def load_corpus(name: str, *, path: StrPath | None = None) -> Corpus:
    """Load the corpus resource ``name`` (see ``list_resources("corpus")``).

    Parameters
    ----------
    name
        ``corpus-gutenberg``, ``corpus-inaugural``, ``corpus-state-union`` or ``corpus-ud-ewt``.
    path
        A data root laid out like the shared data folder, instead of the usual resolution.

    Raises
    ------
    ResourceNotFoundError
        For an unknown name, or a file that cannot be found.
    """
    corpus = get_resource(name, kind="corpus").load(path)
    assert isinstance(corpus, Corpus)
    return corpus


_CONTROL = dict.fromkeys(code for code in range(32) if chr(code) not in "\t\n\v\f\r")


def decode_text(data: bytes) -> str:
    """Bytes as UTF-8 (a byte-order mark dropped), else as Latin-1; control characters other
    than whitespace (e.g. the DOS end-of-file marks ending ``milton-paradise.txt``) removed."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return text.translate(_CONTROL)


_GUTENBERG_START = re.compile(
    r"^\*\*\* ?START OF TH(?:E|IS) PROJECT GUTENBERG|^\*END\*THE SMALL PRINT", re.IGNORECASE
)
_GUTENBERG_END = re.compile(
    r"^\*\*\* ?END OF TH(?:E|IS) PROJECT GUTENBERG|^End of (?:The )?Project Gutenberg",
    re.IGNORECASE,
)


def strip_gutenberg(lines: Sequence[str]) -> list[str]:
    """The body of a Project Gutenberg text: its lines between the boilerplate markers.

    The body starts after the first line that opens it: ``*** START OF THE PROJECT GUTENBERG
    EBOOK ...`` (newer files) or ``*END*THE SMALL PRINT! ...`` (older files, whose licence comes
    first). It ends before the first later line ``*** END OF THE PROJECT GUTENBERG ...`` or
    ``End of (The) Project Gutenberg ...``, or at the end of the file. Text without a start marker
    is returned whole.
    """
    start = next((i + 1 for i, line in enumerate(lines) if _GUTENBERG_START.match(line)), 0)
    end = next((i for i in range(start, len(lines)) if _GUTENBERG_END.match(lines[i])), len(lines))
    return list(lines[start:end])


def paragraphs(lines: Sequence[str], layout: Layout) -> tuple[str, ...]:
    """Text blocks of a file's lines, whitespace collapsed (see :data:`Layout`)."""
    if layout == "lines":
        blocks = [[line] for line in lines]
    else:
        blocks = [[]]
        for line in lines:
            if line.strip():
                blocks[-1].append(line)
            elif blocks[-1]:
                blocks.append([])
    joined = (" ".join(" ".join(block).split()) for block in blocks)
    return tuple(text for text in joined if text)


def read_text_document(path: Path, source: str, layout: Layout, gutenberg: bool) -> Document:
    """A plain-text file as a :class:`Document` (Gutenberg boilerplate stripped if asked)."""
    lines = decode_text(path.read_bytes()).splitlines()
    body = strip_gutenberg(lines) if gutenberg else lines
    return Document(source, paragraphs(body, layout))


_TEXT = "# text ="


def read_conllu_sentences(path: Path, source: str) -> Document:
    """The ``# text = ...`` sentences of a CoNLL-U file (gzipped if its name ends in ``.gz``).

    Raises
    ------
    LexiconFormatError
        If the file holds no ``# text`` line.
    """
    with _open_text(path) as handle:
        texts = [" ".join(line[len(_TEXT) :].split()) for line in handle if line.startswith(_TEXT)]
    sentences = tuple(text for text in texts if text)
    if not sentences:
        raise LexiconFormatError(f"{path}: no '{_TEXT} ...' lines; not a CoNLL-U file")
    return Document(source, sentences)


def _open_text(path: Path) -> TextIO:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")


# --- registered corpora --------------------------------------------------------------------------

_NLTK = ("nltk/nltk", "d9d5aeda29fed4a6ddab0ea06305f96b70a4ee47")
_UD = ("UniversalDependencies/UD_English-EWT", "15d613d8447b3478787d4c278730a1e48a945efb")
_NLTK_CITATION = (
    "Bird, S., Klein, E., & Loper, E. (2009). Natural Language Processing with Python. O'Reilly "
    "(NLTK corpora: {what})."
)
_GUTENBERG_SHA256 = {
    "austen-emma.txt": "53f6f260581f4306abe5025e45af53bc40d7a79ab54de76e96e2c3fc37ac064b",
    "austen-persuasion.txt": "ed1c8186360fcd9cdd10bff3bf33e3a240409393e3b61e8cdc4c62956ad4d26f",
    "austen-sense.txt": "b38e58f4f1c97e462fb9a6177fa0146a1ae15b62c3ce7e4e8b637dac9a2b3f70",
    "blake-poems.txt": "9ba8233d6f6e529ff1fc6b9896c3eea62fcbd5709696e80dd16410cf34a5422f",
    "blake-songs.txt": "b9acae52573265fe6f2c2118b58a14f23c00daabb083fe30fbd53e2ccfc8ea70",
    "chesterton-ball.txt": "6ce209831fd2fb5224a343a786b9c74b66a7f6c0b7d0e98c23670af2ec41f2b9",
    "chesterton-brown.txt": "f48019c92c9456b6f3d673ff2c24a308bda631e483b2fc71471879c7331981eb",
    "chesterton-thursday.txt": "70e90dd1cdb145141d0e2fbaa91845c63d4ab4e809c011270b7b2bc1e457129f",
    "milton-paradise.txt": "1038f87e3d0ed16bc18ed2659a9caca220a9bb1bc2fd2f932ce358347c9db15f",
    "shakespeare-caesar.txt": "0f267961696dc9b4d42eb5297177f6e4ade0e3e09872d73c1ccbadba9a1e8bcd",
    "shakespeare-hamlet.txt": "ab285360fc4541b5dd5fa4b42cca225d6246b3193d237e865b440f8da1d20607",
    "shakespeare-macbeth.txt": "bb1f6725cabb8ff4ad0a50540cd8d59de6519c13cfc42ef00978fd59c53d9cb0",
    "whitman-leaves.txt": "d408d750b21b4dc1a94580120a03d446a06e1358f83546910b779eef2c634a66",
}
_INAUGURAL_SHA256 = {
    "1789-Washington.txt": "dd7a7965c81147c7693a085555e05a6b304a6d79c91960d62a32450351b3ae9e",
    "1793-Washington.txt": "01dd6af804662d912d90039b160582de29282defdfa6526d255a15071df117a1",
    "1797-Adams.txt": "86395fff7e36efc9ff3f4a1bce6360a38ed0bb763fae68cadaab97a7bfb0f64b",
    "1801-Jefferson.txt": "a7e603d3cfb66f95580b53f8f8d45f397a48c1aebcc3bad6667be832aafd04df",
    "1805-Jefferson.txt": "85996fc16d7466c6ff3b2a545956ca9a968779dc9cd50cd784b972f3ee73f1cc",
    "1809-Madison.txt": "76a857741c69b14dff013a7ab647e752384a6b57cc50a927f7561e5f594699d6",
    "1813-Madison.txt": "a2ad32d9f98a313e98f93562cef97214b4d1f0b4cd2b43cc615455e1ca79c20a",
    "1817-Monroe.txt": "83162847f5e2258499ac9558e212ad2619fbffd7aed1ce4df0b4d4ca5dd18a75",
    "1821-Monroe.txt": "fd96a3282bdb37a369bb9d84823226a3e9fba598af5578fd7631055b02cb401f",
    "1825-Adams.txt": "4ff8a7833ee643d95ed5a3dc1b4dc11dc8618c0f3e2d51dcd3e6c420a7cf4716",
    "1829-Jackson.txt": "89115f200d992cf99b96eb5b8a3ddf6b321fce00f17701246380f3cc0e71a315",
    "1833-Jackson.txt": "4461c7b8f63f6c325acbbf596073e9e475d0c64137478cad9a993f3f504ec96a",
    "1837-VanBuren.txt": "9466fd68312266b38cf82abd2ad9a7c9b34c9961f673b53403ada83916fa814a",
    "1841-Harrison.txt": "5a61a4639b2de00db87c27169613ddb2fedad1b5c383e7447eef40b142b396ca",
    "1845-Polk.txt": "35470407862f262c279af7678466cc6966faf9ef063c21a4bdbfe22650a04b01",
    "1849-Taylor.txt": "3c56aa0dd8e395a57baa24a6962a15943ce6f4944baf85b9e2fcb0b99701f0d9",
    "1853-Pierce.txt": "08ea7e12999ebaf43d516ec51f1a04bf156de40e140af19f911b50d9dfb95614",
    "1857-Buchanan.txt": "0730dd953a6d5ccfda2ed18d7b7bf179bdd079bf3413b620c57beab38337dfab",
    "1861-Lincoln.txt": "2c7b11f0d57dfbc81f4ba26dcd1255f4397dd4c66f873d900203ca0fdd46ed1d",
    "1865-Lincoln.txt": "45fab6e488f059b77a4f05f95e641b5a86243fc964974e360e51cc9478c13980",
    "1869-Grant.txt": "1b2087583c1a385174234047af12dbbcfe7b357a4813fe26da017007327e2afb",
    "1873-Grant.txt": "8d27f5ebb317376a304a9c11feff4d5d39b22386267c63a721619282ded75c26",
    "1877-Hayes.txt": "d60351a40156effe1ee851d26d6dd258bc0014a36b67b5316f092b3e098cfef6",
    "1881-Garfield.txt": "d4a6ccc8c151c01d9dce785a6f223d6381a465809d581d53ab376594f83c1f6b",
    "1885-Cleveland.txt": "a1aba961370332f72e8d833d94ee480b0b59a6dc2e89ee40ab6736426aef3626",
    "1889-Harrison.txt": "46ab4ff8bb9f8869a1ca45569b39bc31ea12a0401436a0310402378077199536",
    "1893-Cleveland.txt": "c805ccbb61b2e513a9966f0462cef4b529dc936e87f35a1d146f2f071a236672",
    "1897-McKinley.txt": "86f96d99ee636b4060ee6d688a24cd6bee947fd154c8aefe94f8d3ad2afa5f83",
    "1901-McKinley.txt": "46b33934c1266a91a42a44542e5b7742ee4b9000d3d4c4abc7bba90cfbf76a38",
    "1905-Roosevelt.txt": "bd199980beba439915275b11c5e8ca23d25a3a65d5bf1f666d8b694729768bce",
    "1909-Taft.txt": "1b48e7a5f17c8457e393ad6c80bcda96ae8ae7c4fafc34fd012593825855b7ff",
    "1913-Wilson.txt": "edda23cd8b8557dcae46444ee2e2289eb5a6ab33f035de9368339c3dbdf676c4",
    "1917-Wilson.txt": "ab14086bc4bc2f599ab5a1d06dbd5c0014b8294c2fb116fb777f5307a547789c",
    "1921-Harding.txt": "80120e6dc1035c6070167febc39c1bed1c3d26634fdd6be8d87a89675dcbd319",
    "1925-Coolidge.txt": "edca412653352d908fcfd8abd7fdefa485b2717ba4fcd196f83c1d87a3d87157",
    "1929-Hoover.txt": "6b0fbe182f468dbe25b30282afd7cdf4e4288429c873f9f4bc510079fe4c8ce3",
    "1933-Roosevelt.txt": "8057a5f78197481249ba4c21eebc94a610dae84c86c6927b96d33899ce31bfe8",
    "1937-Roosevelt.txt": "7d337a12606cdb9c5ce0c7adbeab1be121b22925c04a5a881338e94dbd656b4d",
    "1941-Roosevelt.txt": "1944f0fda8c449af1086933ef917f32dbdb7431ebfdc3b8b599917ece4d6ba35",
    "1945-Roosevelt.txt": "05fe90f21718f7d68082d70237522ec4c2417f5ea62eb81da0aeb620392c0101",
    "1949-Truman.txt": "0de1bc7dc4ee274aeae4fd7302d482b89a1abdae1968c0452ca098ecfe0c8b2f",
    "1953-Eisenhower.txt": "1e90aa30dfecebd90d5d6348b4ce1dfdd219a8c7f986a5541b0ec7a530ffc94c",
    "1957-Eisenhower.txt": "fcaf780206362764d460359fea07e2dc8fd4c50c13ed387f35d0a38bf89a3e35",
    "1961-Kennedy.txt": "e77e52fdf3122abf372a21d473231c5139681f283dd1d06df21e665c0befba6d",
    "1965-Johnson.txt": "235ab1bc755b6429538819050849e0ad826cca9716e46ceda115bed7a9f3bbce",
    "1969-Nixon.txt": "1e4efdf499873a5a89212775805210a1a363ef0fd1e7680c9c69f0fbc219c2c8",
    "1973-Nixon.txt": "36d86c4c1d2c4dafce2300795c5581cc2b0a40b9078b91a61b7dd0bfb1761be1",
    "1977-Carter.txt": "ee15f6f96985b102ae19c890c4fcc2e4fcb404ad43f1d0ffc46562b838c487d5",
    "1981-Reagan.txt": "46f86824ac000cf7f822b29e838c6c54872a06e219f3229722c0bb101fcbe116",
    "1985-Reagan.txt": "526a130667a191806782a3bb3c9186cdd386aed9b0a335071d88fc4bf8509f94",
    "1989-Bush.txt": "7636e0e3bae0b67378d56a70f12885340fd93370c95bc52f1f0d5c2cafb0b3ed",
    "1993-Clinton.txt": "2003c2c6e77a0c743e67038416bd6d4ea471bcbc54f743c6ced2422ec99d9950",
    "1997-Clinton.txt": "7dbf3690f9bf8ba3393c73ca96df74a793a04ac2b6b04b6bf1a7756e80b8d70d",
    "2001-Bush.txt": "fecec0df824c345c04c52224d720e8535ec95a27f02598cc62d1f98ff919327a",
    "2005-Bush.txt": "e05fbef90e3dee2ec1bd819dda765d15266e6564ecb984693e1ac9b7ec097099",
}
_STATE_UNION_SHA256 = {
    "1945-Truman.txt": "508f873c8c64b4ee0040327df7ae06cff7d65bc0797e6e42d5d1b96c6c6c7122",
    "1946-Truman.txt": "60cf5765672653751189d99a8bb86123d5de92539bc9b355cf648fe6fbc99381",
    "1947-Truman.txt": "1f0978acab51bf2a6ebc102c33f7ddcc8d80ff7aa000d63c40f45d772b5a3679",
    "1948-Truman.txt": "e42be4d6aa00bb54261e0b1f97a395493ee5db29134b2281286ed89235e2a77f",
    "1949-Truman.txt": "b287e17eb5bcbc7089b176c1ad5faa6377cc9a8355bc7fb7b5788172185c226a",
    "1950-Truman.txt": "97fa03d9674d437d9d5e8734b2e4ea6a48ef4ca1062f15358a7721368787eaf4",
    "1951-Truman.txt": "7f509bb0b98b23ca47d9e4ff9e254713a929512d8c9121eea9b0e65b680c2ae4",
    "1953-Eisenhower.txt": "5fd71709187f321fa85068a9cd8bbe16dfaa192766692ae3776315aa0895c399",
    "1954-Eisenhower.txt": "82946a5251e69b1b27b6638d49e1833fb3f8e9641588a2be9ea101ada4331aae",
    "1955-Eisenhower.txt": "7b43e41d5bbf0986782270cf7ca8b239efc59b9122a747f027b32976f3bc8498",
    "1956-Eisenhower.txt": "8d7a5fd8a449a567c02c9fdb2f6dadf860c387a9551f8cf9b477a44940ba7283",
    "1957-Eisenhower.txt": "64ffd6bd519e6deb0813f09a81ee0e0dd765b9df6e8b572794717749896efcb3",
    "1958-Eisenhower.txt": "8d766a59bfcc4787657edbb5c4f0e55261aab142ff3a1f1f4850b4ff6e5e57f7",
    "1959-Eisenhower.txt": "4f99b19581194b499cabf6f47e8592c6c09f560db7e28e4290916803a42ce39a",
    "1960-Eisenhower.txt": "835943c0ba3dbfcad80da5772f64fb0020f884ba991ab25c62e96585e0d1fb28",
    "1961-Kennedy.txt": "6fae264eff28e0c6975c6628933ad11c52a441ccdbfe6e4790258e181c4658b0",
    "1962-Kennedy.txt": "452897c5593fc6129089f0b06effb4c490f31b34c3400e92236acf272e19aa48",
    "1963-Johnson.txt": "36710f0bb7afa2f8c9263522215e5c392af1e0df9862968a473f438f8c4c416a",
    "1963-Kennedy.txt": "25881ee6092b4a0713aa20fe26fa4e6a3f12263908ddec52f5ab2bd05db936df",
    "1964-Johnson.txt": "453df94297de6814321167f5c5b18180249cde338d9a97686a9558c859ae1745",
    "1965-Johnson-1.txt": "04c018c5426945a1a20e9e7e9e6c4b6a7eeb6fb566e86b535f5e2c2aabefb8ff",
    "1965-Johnson-2.txt": "d1128740e0340a5cf56f1d4ecd1c9824d7ea4330c793ac04c51f865af3699b5a",
    "1966-Johnson.txt": "1940bda8e9efe73c583ec1a78a8c0fb98a64e0acbf76572e7109beced6e51f99",
    "1967-Johnson.txt": "53adad365447d35f4ce24b05d2a1636508d19f054d6860829fb5a798ae24e0ea",
    "1968-Johnson.txt": "d9929eddcbe861755f2ec5c66c86a711b85201b357b2f3f4dcf3a02d4ec579a7",
    "1969-Johnson.txt": "f56fa3438fd5b5d7f2ad2e91695c11e9ece29801b9a8e822b9109e353c788396",
    "1970-Nixon.txt": "d0ed02f7ad0fbe28f2ea2b0781c29cafcc1cb467c37e8e2cc760f9004010ef7d",
    "1971-Nixon.txt": "eea9a84007f224a8d21eb9a246e926f8f44bf851c31c591d86bf58a346f1e31e",
    "1972-Nixon.txt": "ffb1bcf7053d162b60cb6a6188918e2c5b3beb455ac2ca3c37e3a3249e3c5aab",
    "1973-Nixon.txt": "8925db6365e10060e3800103f48e6bd99aaade65e4955e4a456e9b6a6ea85189",
    "1974-Nixon.txt": "959624a1421b2dce7ea61ca032ee13a0f57384500a98fa0892c53dac353a0aa4",
    "1975-Ford.txt": "0adbe87cefcb7c7e3e3fc7883c1fa74cd4e4a4ff3e73bf02bee472526fb64291",
    "1976-Ford.txt": "42f95817a920e47804c7b742d99e544c1ff968658949bd8516198782fbc2c6b3",
    "1977-Ford.txt": "adb16ddfd60c969d5e41e9c55e2e35872a3810a2cdbeab89c8367a7859740eb9",
    "1978-Carter.txt": "a56e193ef511712baa98ef1daac52477faee3223e5cde5e9c2e201190c12b0cd",
    "1979-Carter.txt": "32358f1bcf1f6ddd6f455a345fc323bbbd4b3713a42a01e84a79ff552734af99",
    "1980-Carter.txt": "ba93ef966ee5be9fc6941ff28268be973cda347482afde4f646bbc03d484a13c",
    "1981-Reagan.txt": "e5c7ae8dc2cba2b9a9d3fb22097fb6267a41cf2d1d4309bc548c4403066d8d9c",
    "1982-Reagan.txt": "70c088b2377dd4a5e9d75a2e3efdf86ca7212ed84d6ec12b09b0232422ba9256",
    "1983-Reagan.txt": "401795a56a94ae7a07a7c9660f3166a1bd2987d331450de521f068d5a43d72ea",
    "1984-Reagan.txt": "884f1b770018feb428dcc3038a7351dd5c723ff26f97d8f016d2d44457f9dc37",
    "1985-Reagan.txt": "b1b0f8901d67427d2513d3e6ca94085fce242ee0e44e0fe3b4c016c8b948a631",
    "1986-Reagan.txt": "668ba7f9959638386492a00cdac3c6b6853b7e666e044cc45ef876ad009956d2",
    "1987-Reagan.txt": "f514625a435fc9e60604096be250ba51cab229792bbf191d8557b9ccb9b61b86",
    "1988-Reagan.txt": "ec8b207e1c37efeca17d74c4af57549dee69a771b89de1cf2ff57d086baa854c",
    "1989-Bush.txt": "f9a5d83a7a1e7160cfcd74996d74d0a6732db344e9ea8ebcf06b9fdceefe9475",
    "1990-Bush.txt": "eef6d28335c71e4340e6771aaea93129ae8462a5148734ab801ecac35be4d164",
    "1991-Bush-1.txt": "607a47ed658be820181f0aff85a5f855eb0e76d3d78eced175693eb7f3e43a95",
    "1991-Bush-2.txt": "d0e60f53da72b6c8bb10c50331c4bbe096547a253c2dc1c4d544c6897010a9fa",
    "1992-Bush.txt": "8341bd6a7426a1bf5e6823fc4cc7557a648f8182ffde2504b230e64a77689323",
    "1993-Clinton.txt": "3df9edd3c632e81130a159c637ea924954738ffe52579b9ca801a5f11cd60bca",
    "1994-Clinton.txt": "bddff6449206fe5bf0fdea32059915977c4aa661c1c6a08ddfc58f79babb07a7",
    "1995-Clinton.txt": "ea896d98f744016071db021d732f04f054ccd2dc14cbfefcb0059742fee83ea5",
    "1996-Clinton.txt": "03a2263869c8ab799971733b219f4004dae227bc2d58560acd9bfb9a2f3e6eac",
    "1997-Clinton.txt": "983a61951e94b52a5daf7f0c72136c7419afc44e1b045ba7f7a44f6c95568140",
    "1998-Clinton.txt": "c24ee305baabfa6ffda0252690a96bebb6625d0fa3dbe4691a48a5733ae1a562",
    "1999-Clinton.txt": "1e9a77b739d385a24749254337534a8f204145fdcedea94ae53a8cc97f39690b",
    "2000-Clinton.txt": "865d92d19a0264f6b991290864f52324c04123b8bc91429a8ba3a5acb98c8f18",
    "2001-GWBush-1.txt": "58c445ba8eebc09ae604d3429216d602476acec2e4f93a5ad4e8a056d78aa519",
    "2001-GWBush-2.txt": "9a611db1b26fb3bf38cd6d46ddc0643b6de421950be25a223a2614871e67947c",
    "2002-GWBush.txt": "6771542b59b713f5f2c3099017b329ebbdc740ca9575044ec6c26c63675b7eed",
    "2003-GWBush.txt": "6dfb2a0192b731bbd9d505e46cc16aa9e7f9b7839dd14cdd192a87496e717618",
    "2004-GWBush.txt": "84abd1f08c9078d072c3be8670f8c68b4944ea8f0c2d9c2b925b988e9fdca4c7",
    "2005-GWBush.txt": "68da919ac9384ba96e5a719730aba71946ee09efba48d8b315138559fa2a8781",
    "2006-GWBush.txt": "ce65edcf0b8002cc307d63585b8d96597fc9ea35f3172ae01cab4fed69f8c3a7",
}
_UD_SHA256 = {
    "en_ewt-ud-train.conllu": "1ba66845d8de0d5a04da9df614469a9d5d28524970e0d1eebfe90c8e5382dfd0",
    "en_ewt-ud-dev.conllu": "b66a43a5bce72963292e711bd9d41f143a6b3c478f7dc0febad10f84797a8a0b",
    "en_ewt-ud-test.conllu": "97808f66feb1c9ee9b63c7bc31c2f836257b7e594e4b225e1a2e5f335e0ef31e",
}


@dataclass(frozen=True)
class _TextCorpus:
    """A registered plain-text corpus: one NLTK folder and how its files mark paragraphs."""

    name: str
    folder: str
    sha256: Mapping[str, str]
    layout: Layout
    gutenberg: bool
    description: str
    what: str
    license: str


_TEXT_CORPORA = (
    _TextCorpus(
        "corpus-gutenberg",
        "gutenberg",
        _GUTENBERG_SHA256,
        "wrapped",
        True,
        "13 Project Gutenberg books (Austen, Blake, Chesterton, Milton, Shakespeare, Whitman), "
        "879k words; header, licence and footer stripped, paragraphs at blank lines.",
        "Project Gutenberg selections",
        "public domain in the USA (expired copyrights); the Project Gutenberg licence text in the "
        "files is stripped on loading",
    ),
    _TextCorpus(
        "corpus-inaugural",
        "inaugural",
        _INAUGURAL_SHA256,
        "lines",
        False,
        "55 US presidential inaugural addresses, 1789-2005, 130k words; one paragraph per line.",
        "C-Span inaugural address corpus, compiled by K. Ahrens",
        "public domain (works of the US federal government)",
    ),
    _TextCorpus(
        "corpus-state-union",
        "state_union",
        _STATE_UNION_SHA256,
        "lines",
        False,
        "65 US State of the Union addresses, 1945-2006, 350k words; one paragraph per line.",
        "C-Span State of the Union address corpus, compiled by K. Ahrens",
        "public domain (works of the US federal government)",
    ),
)


def _load_text_corpus(
    spec: _TextCorpus, files: Sequence[ResourceFile], paths: Sequence[Path]
) -> Corpus:
    documents = tuple(
        read_text_document(path, file.relpath, spec.layout, spec.gutenberg)
        for file, path in zip(files, paths, strict=True)
    )
    return Corpus(spec.name, documents, segmented=False)


def _load_conllu_corpus(files: Sequence[ResourceFile], paths: Sequence[Path]) -> Corpus:
    documents = tuple(
        read_conllu_sentences(path, file.relpath) for file, path in zip(files, paths, strict=True)
    )
    return Corpus("corpus-ud-ewt", documents, segmented=True)


for _spec in _TEXT_CORPORA:
    _files = tuple(
        ResourceFile(
            relpath=f"corpus/{_spec.folder}/{_name}",
            sha256=_sha256,
            repo=_NLTK[0],
            commit=_NLTK[1],
            path=f"corpora/{_spec.folder}/{_name}",
        )
        for _name, _sha256 in _spec.sha256.items()
    )
    register(
        Resource(
            name=_spec.name,
            kind="corpus",
            description=_spec.description,
            files=_files,
            loader=functools.partial(_load_text_corpus, _spec, _files),
            citation=_NLTK_CITATION.format(what=_spec.what),
            license=_spec.license,
        )
    )

_UD_FILES = tuple(
    ResourceFile(
        relpath=f"probing/ud_english_ewt/{_name}.gz",
        sha256=_sha256,
        repo=_UD[0],
        commit=_UD[1],
        path=_name,
    )
    for _name, _sha256 in _UD_SHA256.items()
)
register(
    Resource(
        name="corpus-ud-ewt",
        kind="corpus",
        description=(
            "Sentences of the UD English Web Treebank v2.15 (train, dev, test: 16,622 sentences "
            "of blogs, reviews, e-mail, newsgroups and answers), from the '# text' lines of the "
            "gzipped CoNLL-U files. The upstream files are not gzipped: provide a data root, a "
            "download from the canonical URL fails its checksum."
        ),
        files=_UD_FILES,
        loader=functools.partial(_load_conllu_corpus, _UD_FILES),
        citation=(
            "Silveira, N., Dozat, T., de Marneffe, M.-C., Bowman, S., Connor, M., Bauer, J., & "
            "Manning, C. D. (2014). A gold standard dependency corpus for English. LREC 2014. "
            "Universal Dependencies English EWT, release 2.15."
        ),
        license="CC BY-SA 4.0 (UD English EWT annotations; underlying texts from the LDC EWT)",
    )
)
