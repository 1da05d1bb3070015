"""The reproduction report in headless chromium: it loads without errors, the findings come
first, every published number of the paper is on the page with its location, and nothing is
cut off (a screenshot is kept beside the test's output)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reproduce.self_contradictions import contradicted
from tests.study.test_study_report import _chromium
from wordlens.models.options import ModelOptions
from wordlens.reproduce.base import VERDICTS, Reproduction
from wordlens.reproduce.published import load_published
from wordlens.reproduce.report import UNSUPPORTED
from wordlens.reproduce.runner import reproduce

PAPER = "asymmetry"  # 931 published numbers: the largest page
_FINDINGS_VERDICTS = """() => {
    const heading = [...document.querySelectorAll("h2")].find(h => h.textContent === "Findings");
    const table = heading.nextElementSibling.nextElementSibling;
    return [...table.querySelectorAll("tbody tr")].map(r => r.children[1].textContent);
}"""
"""The verdict column of the Findings table (the table after the heading and its paragraph)."""


@pytest.fixture(scope="module")
def on_glove(tmp_path_factory: pytest.TempPathFactory) -> tuple[Reproduction, Path]:
    out = tmp_path_factory.mktemp("reproduce")
    return reproduce(PAPER, ModelOptions("glove-6b-50d"), out, scale="smoke"), out


def test_the_reproduction_report_in_a_headless_browser(
    on_glove: tuple[Reproduction, Path],
) -> None:
    from playwright.sync_api import sync_playwright

    reproduction, out = on_glove
    problems: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=_chromium(), headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.goto((out / "report.html").as_uri(), wait_until="load")
        headings = page.eval_on_selector_all("h2", "nodes => nodes.map(n => n.textContent)")
        text = page.inner_text("body")
        verdicts = page.evaluate(_FINDINGS_VERDICTS)
        wide = page.evaluate("document.documentElement.scrollWidth")
        page.screenshot(path=str(out / "report.png"), full_page=True)
        browser.close()
    assert problems == []
    assert headings[0] == "Findings"  # the verdicts come before the tables
    assert headings[1] == UNSUPPORTED  # then the findings the paper's numbers contradict
    assert all(finding in text for finding in contradicted(PAPER))
    published = load_published(PAPER)
    assert len(verdicts) == len(published.findings)
    assert set(verdicts) <= set(VERDICTS)
    for location in reproduction.table["location"]:
        assert location in text
    assert "Figures to compare by eye" in text and published.figures[0].caption[:40] in text
    assert wide < 4000  # wide tables scroll inside the page, not the whole page
    assert (out / "report.png").stat().st_size > 10_000
