// Pointer input on a board: drag and drop of a card or a group (mouse, pen and touch),
// tap and double tap. It only reports intents; the server decides what happens.
//
// What the server said of the board (its legal moves, `targets(loc)`) makes input instant:
// a tap on a card that can go home is sent at once (a double tap would try the foundation
// first, so it cannot mean more), and a drag lights up only the piles the server listed.
// Without that word (`targets` gives null) a tap waits out the double-tap window, as before.

const DRAG_THRESHOLD = 6; // px before a press becomes a drag
const DOUBLE_MS = 280; // a second tap within this time is a double tap

/**
 * Attach pointer input to a board element.
 *
 * @param {HTMLElement} root the board element (render() target)
 * @param {{onMove(src:string, dst:string):void, onTap(at:string):void,
 *          onDoubleTap(at:string):void, enabled():boolean,
 *          targets?(src:string):string[]|null}} handlers `targets`: the legal destinations
 *          the server listed for a source (foundations as found:S ...), or null: unknown
 * @returns {{returnCards():void, settle():void, detach():void}} control over the last drop
 */
export function attachPointer(root, handlers) {
  let press = null; // {x, y, el, id, dragging, els, targets}
  let dropped = null; // cards left where they were dropped, waiting for the server
  let lastTap = null; // {loc, card, time, timer}: a tap that may become a double tap
  let homeTap = null; // {loc, card, time}: a tap sent at once, whose double tap would add nothing

  root.addEventListener("pointerdown", (ev) => {
    if (ev.button !== 0 || !handlers.enabled()) return;
    const el = ev.target.closest(".card");
    if (!el || !root.contains(el)) return;
    settle();
    press = { x: ev.clientX, y: ev.clientY, el, id: ev.pointerId, dragging: false, els: [] };
    ev.preventDefault();
  });

  const onMove = (ev) => {
    if (!press || ev.pointerId !== press.id) return;
    const dx = ev.clientX - press.x;
    const dy = ev.clientY - press.y;
    if (!press.dragging) {
      if (Math.hypot(dx, dy) < DRAG_THRESHOLD) return;
      startDrag();
    }
    for (const el of press.els) el.style.transform = `translate(${dx}px, ${dy}px)`;
    const over = targetAt(ev.clientX, ev.clientY);
    highlight(press.targets && !press.targets.includes(over) ? null : over);
  };

  const onUp = (ev) => {
    if (!press || ev.pointerId !== press.id) return;
    const p = press;
    press = null;
    if (!p.dragging) {
      tapped(p.el, ev.timeStamp);
      return;
    }
    highlight(null);
    light(null);
    const target = targetAt(ev.clientX, ev.clientY);
    const src = p.el.dataset.loc;
    for (const el of p.els) el.classList.remove("dragging");
    if (!target || target === src) {
      back(p.els);
      return;
    }
    // Leave the cards where they were dropped until the server answers.
    dropped = { els: p.els, timer: setTimeout(() => returnCards(), 4000) };
    handlers.onMove(src, target);
  };

  const onCancel = (ev) => {
    if (!press || ev.pointerId !== press.id) return;
    if (press.dragging) back(press.els);
    highlight(null);
    light(null);
    press = null;
  };

  window.addEventListener("pointermove", onMove);
  window.addEventListener("pointerup", onUp);
  window.addEventListener("pointercancel", onCancel);

  function startDrag() {
    press.dragging = true;
    const el = press.el;
    const pile = el.parentElement;
    const from = Number(el.dataset.index);
    // A column card drags everything above it with it; the server fixes the group.
    press.els = [...pile.querySelectorAll(".card")].filter((c) => Number(c.dataset.index) >= from);
    if (!el.dataset.loc.startsWith("col")) press.els = [el];
    for (const c of press.els) c.classList.add("dragging");
    cancelTapTimer();
    // Only the destinations the server listed light up (all of them, while dragging).
    press.targets = handlers.targets?.(el.dataset.loc) ?? null;
    light(press.targets);
  }

  function tapped(el, at) {
    if (!el.classList.contains("top")) return; // only a top card can be tapped
    const loc = el.dataset.loc;
    const card = el.dataset.card;
    // When the finger lifted, not when a busy page got to it: two taps 200 ms apart are a
    // double tap even if the second is handled late.
    const now = at ?? performance.now();
    // A second tap belongs to the first only on the same card, still on top: once the first
    // took its card away, a tap on the card now on top is a click of its own (every click
    // counts: racers tap A, 2, 3 home from one column as fast as they see them).
    const same = (prev) => prev && prev.loc === loc && prev.card === card && now - prev.time < DOUBLE_MS;
    if (same(homeTap)) {
      // The second tap of a double tap on a card sent home at its first (and still shown on
      // top: the server has not answered yet): a double tap tries the foundation first, so
      // it is done.
      homeTap = null;
      return;
    }
    homeTap = null;
    if (same(lastTap)) {
      cancelTapTimer();
      lastTap = null;
      handlers.onDoubleTap(loc);
      return;
    }
    flushTap(); // a tap still waiting on another card is not lost: it goes now
    if (goesHome(loc)) {
      // The server says this card can go home: the tap goes now, without waiting (a double
      // tap tries the foundation first, so it could not mean more).
      homeTap = { loc, card, time: now };
      handlers.onTap(loc);
      return;
    }
    // It cannot (or we do not know yet: an action of ours is on its way): wait for a second
    // tap. Then a single tap on a card that cannot go home does nothing (RULES.md): it is
    // sent only if it can, or if we still do not know.
    // Its timer waits one more turn of the page's queue once the window is over, so that a
    // second tap already queued (a busy page) is handled first and makes a double tap.
    const tap = { loc, card, time: now, timer: 0 };
    tap.timer = setTimeout(() => setTimeout(() => lastTap === tap && flushTap(), 0), DOUBLE_MS);
    lastTap = tap;
  }

  /** Send the single tap that waits for a second one, if it may go home (now, not later). */
  function flushTap() {
    if (!lastTap) return;
    const { loc, timer } = lastTap;
    clearTimeout(timer);
    lastTap = null;
    if (goesHome(loc) !== false) handlers.onTap(loc);
  }

  /** Whether the server listed a foundation for the card at `loc` (null: not known). */
  function goesHome(loc) {
    const targets = handlers.targets?.(loc) ?? null;
    return targets && targets.some((dst) => dst.startsWith("found"));
  }

  function cancelTapTimer() {
    if (lastTap) clearTimeout(lastTap.timer);
  }

  // The pile under the dragged card: the column whose x range holds the pointer, or the
  // cell / foundation under it.
  function targetAt(x, y) {
    const piles = [...root.querySelectorAll(".pile")];
    const tableau = root.querySelector(".tableau")?.getBoundingClientRect();
    let best = null;
    let bestDist = Infinity;
    for (const pile of piles) {
      const r = pile.getBoundingClientRect();
      const isCol = pile.classList.contains("col");
      const top = isCol && tableau ? tableau.top - 8 : r.top - 8;
      const bottom = isCol ? Math.max(r.bottom, (tableau?.bottom ?? r.bottom) + 200) : r.bottom + 8;
      if (y < top || y > bottom) continue;
      const cx = (r.left + r.right) / 2;
      const d = Math.abs(x - cx);
      if (d <= r.width * 0.75 && d < bestDist) {
        best = pile.dataset.loc;
        bestDist = d;
      }
    }
    return best;
  }

  function highlight(loc) {
    for (const p of root.querySelectorAll(".pile.drop-ok")) p.classList.remove("drop-ok");
    if (loc) root.querySelector(`.pile[data-loc="${loc}"]`)?.classList.add("drop-ok");
  }

  /** Mark the legal destinations of the card being dragged (null: none). */
  function light(locs) {
    for (const p of root.querySelectorAll(".pile.drop-target")) p.classList.remove("drop-target");
    for (const loc of locs || []) root.querySelector(`.pile[data-loc="${loc}"]`)?.classList.add("drop-target");
  }

  function back(els) {
    for (const el of els) {
      el.classList.remove("dragging");
      el.classList.add("returning");
      el.style.transform = "";
      setTimeout(() => el.classList.remove("returning"), 260);
    }
  }

  /** The server refused the drop: the cards go back where they came from. */
  function returnCards() {
    if (!dropped) return;
    clearTimeout(dropped.timer);
    const { els } = dropped;
    dropped = null;
    back(els.filter((el) => el.isConnected));
  }

  /** The server accepted (the board is being redrawn): forget the dropped cards. */
  function settle() {
    if (!dropped) return;
    clearTimeout(dropped.timer);
    dropped = null;
  }

  /** Stop listening (the table is gone). */
  function detach() {
    window.removeEventListener("pointermove", onMove);
    window.removeEventListener("pointerup", onUp);
    window.removeEventListener("pointercancel", onCancel);
    cancelTapTimer();
  }

  return { returnCards, settle, detach };
}
