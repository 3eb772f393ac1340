"""A won game in the web client: the page script that catches the share sheet and the one that
plays a line, the share line read back, a time as the client shows it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page


#: What the page hands on, caught where it goes: the clipboard, the share sheet, the speaker.
CATCH = """
window.__copied = []; window.__shared = []; window.__tones = 0;
Object.defineProperty(navigator, "clipboard", {configurable: true,
  value: {writeText: (text) => { window.__copied.push(text); return Promise.resolve(); }}});
if (window.__sheet) {
  navigator.canShare = (data) => true;
  navigator.share = (data) => {
    const files = (data.files || []).map((f) => ({name: f.name, type: f.type, size: f.size}));
    window.__shared.push({...data, files});
    return Promise.resolve();
  };
}
const oscillator = AudioContext.prototype.createOscillator;
AudioContext.prototype.createOscillator = function () {
  window.__tones++;
  return oscillator.call(this);
};
// Every piece of confetti the page ever showed: a shower lasts about two seconds, and a
// busy test may look after it is gone.
window.__confetti = 0;
new MutationObserver((records) => {
  for (const r of records) {
    for (const node of r.addedNodes) {
      if (node.classList?.contains("confetti")) window.__confetti += node.children.length;
    }
  }
}).observe(document, {childList: true, subtree: true});
"""

#: Play moves through the page's connection, each once the previous one's delta came back,
#: ``gap`` ms apart (a ranked daily needs at least 50 ms between actions).
PLAY = """async ([line, gap]) => {
  for (const text of line) {
    const before = seahaven.game.me().moves;
    const [src, dst] = text.split(" ");
    seahaven.net.send("move", {src, dst});
    const t0 = Date.now();
    while (seahaven.game.me().moves === before) {
      if (Date.now() - t0 > 8000) throw new Error("no delta for " + text);
      await new Promise((r) => setTimeout(r, 3));
    }
    if (gap) await new Promise((r) => setTimeout(r, gap));
  }
}"""


def short_time(ms: int) -> str:
    s = ms // 1000
    return f"{s // 60}:{s % 60:02d}"


def share_line(page: Page) -> str:
    return page.locator(".banner.win .win-share").inner_text().strip()
