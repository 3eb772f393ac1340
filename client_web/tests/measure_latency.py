"""How long the web client takes from a player's intent to the answer on screen, per input.

Starts a real server (on REDIS_URL or the machine's Redis), opens a solo game in headless
Chromium and plays a solver line the four ways a person does, taking turns: a click (tap)
for a card that goes home, a double click where it makes the same move, a keyboard move
(Enter on the source, Enter on the destination) and a drag. For each input kind it prints
the median and 90th percentile of:

- intent -> send: from the input event that completes the intent (the pointerup of the
  click, of the second click, of the drop; the keydown of the last Enter) to the message
  leaving on the websocket;
- intent -> delta: to the server's delta for it arriving;
- intent -> painted: to the frame that shows it (after the next animation frame).

    .venv/bin/python client_web/tests/measure_latency.py [GAME_CODE]

A measurement script (a benchmark), not a test: it prints figures and asserts nothing.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from playwright.sync_api import Page, sync_playwright

from server.engine import Board, DoubleTap, IllegalAction, Move, parse_action
from server.engine.solver import solve
from tests.helpers.serverproc import redis_url, running_server
from tests.helpers.pages import (
    CHROMIUM,
    CHROMIUM_ARGS,
    SERVE_ARGS,
    Player,
    new_page,
    wait_ready,
)

KINDS = ("tap", "double tap", "drag", "keyboard")

# The input event that completes an intent (its timeStamp), the message it sends, and the
# first delta of ours after it, then the frame after that delta.
HOOK = """(() => {
  window.lat = [];
  let intent = null;
  let open = null;
  const mark = (src) => (ev) => { intent = {t: ev.timeStamp, src}; };
  window.addEventListener('pointerup', mark('pointer'), true);
  window.addEventListener('keydown', mark('key'), true);
  const game = seahaven.game;
  const net = seahaven.net;
  const send = net.send.bind(net);
  const kinds = {tap: 'tap', double_tap: 'double tap', move: 'drag'};
  net.send = (type, fields) => {
    const t = performance.now();
    if (intent && type in kinds) {
      const kind = intent.src === 'key' ? 'keyboard' : kinds[type];
      open = {kind, t0: intent.t, send: t - intent.t};
      intent = null;
    }
    return send(type, fields);
  };
  net.on('delta', (m) => {
    if (m.player_id !== game.you || !open) return;
    const o = open;
    open = null;
    o.delta = performance.now() - o.t0;
    requestAnimationFrame(() => setTimeout(() => {
      o.painted = performance.now() - o.t0;
      window.lat.push(o);
    }, 0));
  });
})()"""


def same_as_double_tap(board: Board, move: Move) -> bool:
    """Whether a double tap on the move's source gives the same table as the move."""
    a, b = board.copy(), board.copy()
    try:
        a.play(DoubleTap(move.src))
    except IllegalAction:
        return False
    b.play(move)
    return a.key() == b.key()


def keyboard_move(page: Page, player: Player, board: Board, move: Move) -> None:
    """Enter on the source's top card, then Enter on the destination pile."""
    dst = str(move.dst)
    if dst == "found":
        card = board.card_at(move.src)
        assert card is not None
        dst = "found:" + "SHDC"[card // 13]
    player.top(str(move.src)).focus()
    page.keyboard.press("Enter")
    target = player.pile(dst)
    cards = target.locator(".card")
    (cards.last if cards.count() else target).focus()
    page.keyboard.press("Enter")


def play_line(page: Page, code: str) -> None:
    """Play the solver's line, each action by the input a person would use for it."""
    board = Board.from_code(code)
    player = Player(page)
    for i, text in enumerate(solve(board.copy(), timeout=20).moves):
        move = parse_action(text)
        assert isinstance(move, Move)
        before = player.moves()
        # Settled: the delta of the last action is in, and its legal moves with it.
        page.wait_for_function("seahaven.net.pending.size === 0")
        # Each action by one of the inputs a person could use for it, in turn.
        if move.dst.kind == "found" and move.src.kind != "found":
            ways = ["tap", "tap", "drag", "keyboard"]
        else:
            ways = ["double tap", "drag", "keyboard"] if same_as_double_tap(board, move) else []
            ways = ways or ["drag", "keyboard"]
        way = ways[i % len(ways)]
        if way == "tap":
            player.top(str(move.src)).click()
        elif way == "double tap":
            player.double_click(str(move.src))
        elif way == "keyboard":
            keyboard_move(page, player, board, move)
        else:
            player.play(board.copy(), text, prefer_double=False)
        player.wait_moves(before + 1)
        board.play(move)
        # A person's pause between actions (and time for the painted frame to be recorded):
        # two clicks on one pile closer than the double-tap window are one double tap.
        page.wait_for_timeout(300)


def report(samples: list[dict[str, Any]]) -> None:
    def fmt(xs: list[float]) -> str:
        xs = sorted(xs)
        p90 = xs[min(len(xs) - 1, int(len(xs) * 0.9))]
        return f"{statistics.median(xs):6.1f} / {p90:6.1f}"

    print(
        f"{'input':<11} {'n':>3}   {'intent->send':>15}   {'intent->delta':>15}   "
        f"{'intent->painted':>15}   (median / p90, ms)"
    )
    for kind in KINDS:
        rows = [s for s in samples if s["kind"] == kind]
        if not rows:
            continue
        sends = [r["send"] for r in rows]
        deltas = [r["delta"] for r in rows]
        painted = [r["painted"] for r in rows]
        print(
            f"{kind:<11} {len(rows):>3}   {fmt(sends):>15}   {fmt(deltas):>15}   {fmt(painted):>15}"
        )
    taps = sorted(s["send"] for s in samples if s["kind"] == "tap")
    if taps:
        print(f"tap -> send median: {statistics.median(taps):.1f} ms")


def main() -> None:
    code = sys.argv[1] if len(sys.argv) > 1 else "SH1-C4-AAAAAJ2"
    with running_server(redis_url(), args=SERVE_ARGS) as srv, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = new_page(browser, name="Bench")
        page.goto(srv.http_url + f"/#/play/{code}")
        wait_ready(page)
        page.wait_for_function(f"seahaven.game.code === '{code}' && !!seahaven.game.myBoard()")
        page.evaluate(HOOK)
        play_line(page, code)
        samples = page.evaluate("window.lat")
        browser.close()
    report(samples)


if __name__ == "__main__":
    main()
