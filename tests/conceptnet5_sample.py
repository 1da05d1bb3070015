"""A few lines in the format of ConceptNet 5.7's ``conceptnet-assertions-5.7.0.csv.gz``, written
gzipped by the tests that read it (the conceptnet reader, the asymmetry experiment, the CLI).

The format (ConceptNet wiki, "Downloads"): one edge per line, five tab-separated fields: the
edge URI ``/a/[/r/Rel/,/c/en/start/,/c/en/end/]``, the relation URI, the start and end concept
URIs (``/c/<language>/<term>`` with optional ``/<pos>`` and ``/<pos>/<source>/<sense>``
suffixes) and a JSON object with ``dataset``, ``license``, ``sources`` and ``weight``.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

# (relation URI, start URI, end URI, dataset, weight)
EDGES = (
    ("/r/Antonym", "/c/en/hot/a", "/c/en/cold", "/d/wiktionary/en", 2.0),
    ("/r/Antonym", "/c/en/hot", "/c/en/cold/a/wn/all", "/d/verbosity", 0.1),  # the same words
    ("/r/Antonym", "/c/en/black", "/c/en/white", "/d/wiktionary/en", 1.0),
    ("/r/Antonym", "/c/en/wet/a", "/c/en/dry/a", "/d/wordnet/3.1", 2.0),
    ("/r/Synonym", "/c/en/large/a/wn/all", "/c/en/big", "/d/wordnet/3.1", 2.0),
    ("/r/Synonym", "/c/en/sofa/n", "/c/en/couch/n/wn/artifact", "/d/wordnet/3.1", 2.0),
    ("/r/Synonym", "/c/en/ice_cream/n/wn/food", "/c/en/gelato", "/d/wiktionary/en", 1.0),
    ("/r/DistinctFrom", "/c/en/day/n", "/c/en/night", "/d/wiktionary/en", 1.0),
    ("/r/PartOf", "/c/en/wheel", "/c/en/car", "/d/conceptnet/4/en", 1.585),
    ("/r/RelatedTo", "/c/en/queen/n", "/c/en/king", "/d/conceptnet/4/en", 1.0),
    ("/r/MannerOf", "/c/en/shout/v", "/c/en/yell/v", "/d/wordnet/3.1", 2.0),  # a relation not read
    ("/r/Antonym", "/c/fr/chaud", "/c/en/cold", "/d/wiktionary/fr", 1.0),  # not English
    ("/r/Synonym", "/c/en/big", "/c/de/groß", "/d/wiktionary/de", 1.0),  # not English
    ("/r/ExternalURL", "/c/en/dog", "http://dbpedia.org/resource/Dog", "/d/dbpedia/en", 1.0),
)


def edge_line(relation: str, start: str, end: str, dataset: str, weight: float) -> str:
    """One line of the assertions file, as ConceptNet writes it."""
    uri = f"/a/[{relation}/,{start}/,{end}/]"
    info = {
        "dataset": dataset,
        "license": "cc:by-sa/4.0",
        "sources": [{"contributor": "/s/resource/wiktionary/en", "process": "/s/process/x"}],
        "weight": weight,
    }
    return f"{uri}\t{relation}\t{start}\t{end}\t{json.dumps(info, ensure_ascii=False)}\n"


def write_sample(path: Path) -> Path:
    """Write :data:`EDGES` gzipped to ``path``."""
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.writelines(edge_line(*edge) for edge in EDGES)
    return path
