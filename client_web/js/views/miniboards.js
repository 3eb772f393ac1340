// The racers' boards side by side, as a spectator sees them (Watch, and an arena's leading
// race on its page): one box per racer with name, progress and board, drawn from a Game the
// server filled under the room's watch mode (live, late, or no board until the end). What
// a box shows is only what that spectator's socket was sent: nothing is asked for here.

import { render } from "../board.js";
import { t, formatTime } from "../i18n.js";
import { html, esc, setText, who } from "../dom.js";

/**
 * Draw the boards of `g`'s racers into `grid`, reusing the boxes kept in `drawn` (a Map
 * player id -> box; boxes of racers gone are removed). `room` limits the height the
 * boards may take (px; default: down to the window's bottom).
 */
export function drawBoards(grid, drawn, g, room = null) {
  const racers = g.racers().filter((p) => !(p.gone && g.state === "lobby"));
  const ids = new Set(racers.map((p) => p.player_id));
  for (const [pid, el] of drawn) {
    if (!ids.has(pid)) {
      el.remove();
      drawn.delete(pid);
    }
  }
  const fit = layout(grid, racers, room);
  for (const p of racers) {
    let box = drawn.get(p.player_id);
    if (!box) {
      box = html(`<section class="mini" data-player="${esc(p.player_id)}">
        <header><b class="name"></b><span class="muted status"></span></header>
        <div class="progress"><span></span></div>
        <div class="mini-board-wrap"><div class="board" data-board="${esc(p.player_id)}"></div></div>
      </section>`);
      grid.append(box);
      drawn.set(p.player_id, box);
    }
    // The name with its tag, as racers, leaderboards and pages show it (Ann·4f2c).
    box.querySelector(".name").innerHTML = who(p.name, p.player_id);
    box.querySelector(".progress > span").style.width = `${Math.round((100 * (p.foundation_cards || 0)) / 52)}%`;
    box.querySelector(".status").textContent = racerStatus(g, p);
    const boardEl = box.querySelector(".board");
    // Boards shown late: until the first late board comes, the box says so above the board
    // (the deal's opening, as a late spectator is sent it, or nothing yet).
    const wait = waitingForLate(g, p);
    box.classList.toggle("late-wait", wait > 0);
    let note = box.querySelector(".late-note");
    if (wait > 0 && !note) {
      note = html(`<p class="late-note muted" role="status"></p>`);
      box.querySelector(".mini-board-wrap").prepend(note);
    }
    if (note) {
      note.hidden = wait <= 0;
      if (wait > 0) setText(note, t("watch.delayNote", { n: g.delayS ?? 30 }));
    }
    if (p.board) {
      const key = JSON.stringify([p.board.cells, p.board.columns, p.board.foundations, fit]);
      if (boardEl.dataset.key !== key) {
        boardEl.dataset.key = key;
        render(boardEl, p.board, { interactive: false, maxHeight: fit.height, plan: 0 });
      }
    } else {
      const later = g.watch === "progress" && g.state === "racing"; // boards at the end
      boardEl.innerHTML = `<p class="muted">${esc(t(later ? "watch.boardLater" : "watch.noBoard"))}</p>`;
      boardEl.dataset.key = "";
    }
  }
}

/** Forget the drawn boards' keys so that the next draw renders them again (size, language). */
export function staleBoards(drawn) {
  for (const box of drawn.values()) box.querySelector(".board").dataset.key = "";
}

/**
 * How long, in ms, before a racer's first late board is due: a race watched late shows
 * nothing of the race's first seconds (the delay), and says so; 0 once boards come.
 */
export function waitingForLate(g, p) {
  if (g.watch !== "delayed" || g.state !== "racing" || p.status !== "playing") return 0;
  return Math.max(0, (g.delayS ?? 30) * 1000 - g.elapsed(p.player_id));
}

/** The racing racers' clocks, once a tick (and the late boards' wait, while it lasts). */
export function tickBoards(drawn, g, redraw = null) {
  if (g.state !== "racing") return;
  for (const p of g.racers()) {
    const box = drawn.get(p.player_id);
    if (!box || p.status !== "playing") continue;
    setText(box.querySelector(".status"), racerStatus(g, p));
    if (redraw && box.classList.contains("late-wait") && waitingForLate(g, p) <= 0) redraw();
  }
}

/**
 * Every racer's board on the screen at once, as large as it can be: the number of columns
 * of boards whose cards come out widest for the room's shape (side by side on a wide
 * screen, one above the other on a phone held upright). Returns the height each board
 * gets, in px, and the columns; the boards' own fit does the rest (fit.js).
 */
export function layout(grid, racers, room = null) {
  const n = Math.max(1, racers.length);
  const gap = 10;
  const width = grid.clientWidth || window.innerWidth;
  const top = grid.getBoundingClientRect().top + window.scrollY;
  const height = room ?? Math.max(120, window.innerHeight - top - 6);
  // A box's name line, progress bar and padding: as drawn, or about that before the first.
  const box = grid.querySelector(".mini");
  const drawnBoard = box?.querySelector(".board");
  const chrome = box && drawnBoard ? box.offsetHeight - drawnBoard.offsetHeight + 2 : 64;
  // Card widths in a box w x h: ten columns across; a column of about nine cards (or the
  // longest there is) down, at the fan of a covered card's corner.
  const longest = Math.max(9, ...racers.map((p) => Math.max(0, ...(p.board?.columns || []).map((c) => c.length))));
  const tall = 2 * 1.4 + 0.6 + (longest - 1) * 0.42;
  let best = { cols: 1, height: 560, cw: 0 };
  for (let cols = 1; cols <= n; cols++) {
    const rows = Math.ceil(n / cols);
    const w = (width - (cols - 1) * gap) / cols;
    const h = (height - (rows - 1) * gap) / rows - chrome;
    const cw = Math.min((w - 46) / 10, h / tall);
    if (cw > best.cw + 0.5) best = { cols, height: Math.floor(h), cw };
  }
  grid.style.gridTemplateColumns = `repeat(${best.cols}, minmax(0, 1fr))`;
  return { cols: best.cols, height: best.height };
}

/** A racer's line over their board: place and time, or progress and clock (late if late). */
export function racerStatus(g, p) {
  if (p.status === "finished") return `🏆 #${p.rank ?? "?"} · ${formatTime(p.time_ms)} · ${t("race.movesN", { n: p.moves })}`;
  if (p.status === "gave_up") return t("race.gaveUp");
  if (g.state === "lobby") return "";
  if (waitingForLate(g, p) > 0) return t("watch.lateBy", { n: g.delayS ?? 30 });
  const lost = p.lost ? ` · ${t("watch.stuck")}` : "";
  // Boards shown late: so is their clock (the time of the board shown), and it says so.
  const late = g.watch === "delayed" ? (g.delayS ?? 30) : 0;
  const clock = late ? `${formatTime(Math.max(0, g.elapsed(p.player_id) - late * 1000))} (${t("watch.lateBy", { n: late })})`
    : formatTime(g.elapsed(p.player_id));
  return `${p.foundation_cards}/52 · ${t("race.movesN", { n: p.moves })} · ${clock}${lost}`;
}
