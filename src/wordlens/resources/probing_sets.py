"""Registry entries of the edge-probing source data (Tenney et al. 2019, Section 2.2).

Three resources of kind ``"edge-probing"``; :mod:`wordlens.probing.converters` turns their files
into edge-probing examples. This module imports nothing from :mod:`wordlens.probing`: each
resource's loader is a :func:`~wordlens.resources.registry.deferred_loader` that the converters
fill in when they are imported (:func:`~wordlens.resources.registry.register_loader`), after which
it converts one split (``get_resource("semeval2010-task8").load(split="dev")``);
``get_resource(name).paths()`` and ``wordlens data fetch`` give the files without converting them:

- ``semeval2010-task8``: SemEval-2010 Task 8 relation classification, ``TRAIN_FILE.TXT`` (8,000
  examples) and ``TEST_FILE_FULL.TXT`` (2,717), verbatim copies of the official release.
- ``uds-protoroles``: the UDS 1.0 sentence-level semantic proto-role annotations on UD English
  EWT (2,758 sentences, 7,090 edges: 6,088 predicate-argument edges with 14 properties, the
  loader's targets as jiant's SPR2, and 1,002 non-core edges with 4) and the map from UDS
  sentence ids to EWT ``# sent_id``. The shared copies are gzipped (``protoroles.zip`` unzipped
  and gzipped; ``ud_ids.json`` gzipped), so a download from the canonical URL fails its checksum:
  provide a data root (``$WORDLENS_DATA_PATH`` or ``$WORDLENS_MIRROR_URL``) instead.
- ``dpr``: the Definite Pronoun Resolution data set of Rahman & Ng (2012), 1,322 training and 564
  test sentences.

The EWT treebank itself is ``corpus-ud-ewt`` (:mod:`wordlens.resources.corpora`).

References
----------
Tenney, I., et al. (2019). What do you learn from context? Probing for sentence structure in
contextualized word representations. *ICLR 2019*.
"""

from __future__ import annotations

from wordlens.resources.registry import Resource, ResourceFile, deferred_loader, register

SEMEVAL = "semeval2010-task8"
UDS_PROTOROLES = "uds-protoroles"
DPR = "dpr"

_SEMEVAL_REPO = (
    "SeoSangwoo/Attention-Based-BiLSTM-relation-extraction",
    "02c0000c5aebd9e5de8cc360d2ef45bdb7c29030",
)
_SEMEVAL_FILES = {
    "TRAIN_FILE.TXT": (
        "SemEval2010_task8_training",
        "c22fee88957d245a4b1650c6743eb8c594dcdeffc6a2aa1fa6cced059eebf0e3",
    ),
    "TEST_FILE_FULL.TXT": (
        "SemEval2010_task8_testing_keys",
        "9ec7a35d5582b4da0fb72aa55a6121bc414ade573459e1dcf68bf189f8c18ae8",
    ),
}
_DECOMP_REPO = (
    "decompositional-semantics-initiative/decomp",
    "973705b0c8f0c82701126ac4d8e1e2186bdcab21",
)
_UDS_FILES = {
    "protoroles_normalized.json.gz": (
        "decomp/data/1.0/normalized/sentence/annotations/protoroles.zip",
        "5c04d152742174b49ef161d1bb29cd10f216b36c2a9d5dd9643dd120170529f5",
    ),
    "ud_ids.json.gz": (
        "decomp/data/ud_ids.json",
        "1f6ca5efa23b2af3a9b58d66313a2287516616ecf5dbf478bf7e57f61db6067d",
    ),
}
_WINOGRAD_REPO = ("sgbalogh/nlu-winograd", "5c067ae9b03dffddfb5627d4764e771f7f2470d2")
_DPR_FILES = {
    "dpr_train.c.txt": (
        "datasets/rahman-ng-2012/train.c.txt",
        "bc0a54b3ca1009d8d5b2ca5a221086aee2b0fc5cd03b22b9dfa9cdf44c629cec",
    ),
    "dpr_test.c.txt": (
        "datasets/rahman-ng-2012/test.c.txt",
        "cf1cf025e1d59a5b363e6dcfbd5a13aae8a9830831ac16fd7f865aca7a1559d8",
    ),
}


#: The module that registers the loaders of these resources.
CONVERTERS = "wordlens.probing.converters"


register(
    Resource(
        name=SEMEVAL,
        kind="edge-probing",
        description=(
            "SemEval-2010 Task 8: sentences with two marked nominals and their directed semantic "
            "relation (9 relations x 2 directions + Other = 19 labels); 8,000 training and 2,717 "
            "test examples."
        ),
        files=tuple(
            ResourceFile(
                relpath=f"probing/semeval2010_task8/{name}",
                sha256=sha256,
                repo=_SEMEVAL_REPO[0],
                commit=_SEMEVAL_REPO[1],
                path=f"SemEval2010_task8_all_data/{folder}/{name}",
            )
            for name, (folder, sha256) in _SEMEVAL_FILES.items()
        ),
        loader=deferred_loader(SEMEVAL, CONVERTERS),
        citation=(
            "Hendrickx, I., Kim, S. N., Kozareva, Z., Nakov, P., Ó Séaghdha, D., Padó, S., "
            "Pennacchiotti, M., Romano, L., & Szpakowicz, S. (2010). SemEval-2010 Task 8: "
            "Multi-way classification of semantic relations between pairs of nominals. "
            "Proceedings of the 5th International Workshop on Semantic Evaluation, 33-38."
        ),
        license="CC BY 3.0 (Creative Commons Attribution 3.0 Unported)",
    )
)

register(
    Resource(
        name=UDS_PROTOROLES,
        kind="edge-probing",
        description=(
            "UDS 1.0 semantic proto-role annotations (SPR2-style) on UD English EWT: 2,758 "
            "sentences (train 2,191 / dev 291 / test 276), 7,090 edges (6,088 predicate-argument "
            "edges with 14 properties, the loader's targets as jiant's SPR2; 1,002 non-core edges "
            "with location, manner, purpose, time), normalized Likert values and confidences; "
            "plus the UDS-to-EWT sentence id map. The shared copies are gzipped: provide a data "
            "root, a download from the canonical URL fails its checksum."
        ),
        files=tuple(
            ResourceFile(
                relpath=f"probing/spr_uds/{name}",
                sha256=sha256,
                repo=_DECOMP_REPO[0],
                commit=_DECOMP_REPO[1],
                path=upstream,
            )
            for name, (upstream, sha256) in _UDS_FILES.items()
        ),
        loader=deferred_loader(UDS_PROTOROLES, CONVERTERS),
        citation=(
            "White, A. S., Stengel-Eskin, E., Vashishtha, S., Govindarajan, V. S., Reisinger, "
            "D. A., Vieira, T., Sakaguchi, K., Zhang, S., Ferraro, F., Rudinger, R., Rawlins, K., "
            "& Van Durme, B. (2020). The Universal Decompositional Semantics dataset and Decomp "
            "toolkit. LREC 2020. White, A. S., Reisinger, D., Sakaguchi, K., Vieira, T., Zhang, "
            "S., Rudinger, R., Rawlins, K., & Van Durme, B. (2016). Universal decompositional "
            "semantics on Universal Dependencies. EMNLP 2016."
        ),
        license="CC BY-SA 4.0 (decomp/data)",
    )
)

register(
    Resource(
        name=DPR,
        kind="edge-probing",
        description=(
            "Definite Pronoun Resolution (Winograd-style twin sentences): a sentence, a target "
            "pronoun, two candidate antecedents and the correct one; 1,322 training and 564 test "
            "examples."
        ),
        files=tuple(
            ResourceFile(
                relpath=f"probing/winograd/{name}",
                sha256=sha256,
                repo=_WINOGRAD_REPO[0],
                commit=_WINOGRAD_REPO[1],
                path=upstream,
            )
            for name, (upstream, sha256) in _DPR_FILES.items()
        ),
        loader=deferred_loader(DPR, CONVERTERS),
        citation=(
            "Rahman, A., & Ng, V. (2012). Resolving complex cases of definite pronouns: The "
            "Winograd schema challenge. Proceedings of EMNLP-CoNLL 2012, 777-789."
        ),
        license="none stated by the authors (listed as 'No known license'); research use with "
        "citation",
    )
)
