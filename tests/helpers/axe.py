"""axe-core in a real Chromium: a page's accessibility audited (the pinned axe build of
tests/web/vendor) at each of the checked window sizes."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from tests import ROOT
from tests.helpers.pages import resize

if TYPE_CHECKING:
    from playwright.sync_api import Page


VENDOR = ROOT / "tests" / "web" / "vendor"
AXE = VENDOR / "axe.min.js"


SIZES = [(1366, 768), (390, 844)]


def pinned() -> tuple[str, str]:
    """The version and SHA-256 that vendor/README.md pins."""
    readme = (VENDOR / "README.md").read_text(encoding="utf-8")
    version = re.search(r"axe-core@(\d+\.\d+\.\d+)", readme)
    digest = re.search(r"sha256 ([0-9a-f]{64})", readme)
    assert version and digest, "vendor/README.md names the version and the sha256"
    return version.group(1), digest.group(1)


#: While axe runs: the felt is its lightest colour all over (axe cannot read text on a
#: gradient and leaves it "to review", so this is the worst case it can measure), and the
#: cards' decorative band (a pseudo-element under no text, which axe cannot see through) is
#: not drawn.
_WORST_CASE = """() => {
  const style = document.createElement('style');
  style.id = 'axe-worst-case';
  style.textContent = 'body { background: var(--felt-light) !important; }'
    + ' .card::after { display: none !important; }';
  document.head.append(style);
}"""


def axe(page: Page, where: str) -> None:
    """Run axe on the page as it is; fail on any violation, whatever its impact (moderate and
    minor ones too: one h1 a page, no empty table header ...)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    page.evaluate(_WORST_CASE)
    try:
        result: dict[str, Any] = page.evaluate(
            "async () => await axe.run(document, {resultTypes: ['violations']})"
        )
    finally:
        page.evaluate("document.getElementById('axe-worst-case').remove()")
    bad = [
        f"{v['id']} ({v['impact']}): {v['help']}\n    "
        + "\n    ".join(
            f"{' '.join(n['target'])}: {n.get('failureSummary', '')}"[:300] for n in v["nodes"][:5]
        )
        for v in result["violations"]
    ]
    assert not bad, f"{where}:\n" + "\n".join(bad)
    assert page.evaluate("axe.version") == pinned()[0]


def axe_sizes(page: Page, where: str) -> None:
    size = page.viewport_size
    for width, height in SIZES:
        resize(page, width, height)
        axe(page, f"{where} at {width}x{height}")
    if size:
        page.set_viewport_size(size)
