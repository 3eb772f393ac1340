"""How long the web client takes from a player's intent to the server's delta on screen.

Starts a real server (on REDIS_URL or the machine's Redis), opens a solo game in headless
Chromium, plays a solver line by double click and drag, and prints the median and 90th
percentile of: intent sent -> delta received, and intent sent -> the next frame painted.

    .venv/bin/python client_web/tests/measure_latency.py [GAME_CODE]

A measurement script (a benchmark), not a test: it prints figures and asserts nothing.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from playwright.sync_api import sync_playwright  # noqa: E402

from server.engine import Board  # noqa: E402
from server.engine.solver import solve  # noqa: E402
from tests.serverproc import redis_url, running_server  # noqa: E402
from tests.web.pages import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    SERVE_ARGS,
    Player,
    new_page,
    wait_ready,
)

HOOK = """(() => {
  window.lat = [];
  const net = seahaven.net;
  const send = net.send.bind(net);
  net.send = (type, fields) => { window.t0 = performance.now(); return send(type, fields); };
  net.on('delta', () => {
    const t1 = performance.now();
    requestAnimationFrame(() => window.lat.push([t1 - window.t0, performance.now() - window.t0]));
  });
})()"""


def main() -> None:
    code = sys.argv[1] if len(sys.argv) > 1 else "SH1-C4-AAAAAJ2"
    with running_server(redis_url(), args=SERVE_ARGS) as srv, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = new_page(browser, name="Bench")
        page.goto(srv.http_url + f"/#/play/{code}")
        wait_ready(page)
        page.wait_for_function(f"seahaven.game.code === '{code}' && !!seahaven.game.myBoard()")
        page.evaluate(HOOK)
        board = Board.from_code(code)
        player = Player(page)
        for text in solve(board, timeout=20).moves:
            player.play(board, text, prefer_double=True)
        lat = page.evaluate("window.lat")
        browser.close()
    for i, what in enumerate(("intent -> delta received", "intent -> next frame")):
        xs = sorted(x[i] for x in lat)
        p90 = xs[int(len(xs) * 0.9)]
        print(f"{what}: median {statistics.median(xs):.1f} ms, p90 {p90:.1f} ms ({len(xs)} actions)")


if __name__ == "__main__":
    main()
