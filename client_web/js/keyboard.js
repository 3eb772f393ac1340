// Keyboard play: arrows move between piles, Enter or Space picks a source then a
// destination (the server's legal destinations of the source light up), T taps, D double
// taps, U undoes, S sends every card home (when the server offers it), H asks for a hint,
// Escape cancels.

/**
 * @param {HTMLElement} root the board element
 * @param {{onMove(src,dst):void, onTap(at):void, onDoubleTap(at):void, onUndo():void,
 *          onSendHome():void, onHint():void, announce(text):void, enabled():boolean,
 *          label(loc):string, targets?(src):string[]|null}} h
 * @returns {{afterRender():void, selected():string|null}}
 */
export function attachKeyboard(root, h) {
  let selected = null; // the source location picked with Enter
  let focusLoc = null; // keep focus on the same pile across redraws

  root.addEventListener("focusin", (ev) => {
    const loc = locOf(ev.target);
    if (loc) focusLoc = loc;
  });

  root.addEventListener("keydown", (ev) => {
    if (!h.enabled()) return;
    const loc = locOf(ev.target);
    if (!loc) return;
    const key = ev.key;
    if (key === "Enter" || key === " ") {
      ev.preventDefault();
      if (!selected) {
        selected = loc;
        mark();
        h.announce(h.label(loc));
      } else if (selected === loc) {
        selected = null;
        mark();
      } else {
        const src = selected;
        selected = null;
        mark();
        h.onMove(src, loc);
      }
    } else if (key === "Escape") {
      selected = null;
      mark();
    } else if (key === "t" || key === "T") {
      h.onTap(loc);
    } else if (key === "d" || key === "D") {
      h.onDoubleTap(loc);
    } else if (key === "u" || key === "U") {
      h.onUndo();
    } else if (key === "s" || key === "S") {
      h.onSendHome();
    } else if (key === "h" || key === "H") {
      h.onHint();
    } else if (key.startsWith("Arrow")) {
      ev.preventDefault();
      moveFocus(loc, key);
    }
  });

  function locOf(el) {
    const node = el.closest?.("[data-loc]");
    return node && root.contains(node) ? node.dataset.loc : null;
  }

  function order() {
    const top = [...root.querySelectorAll(".toprow .pile")].map((p) => p.dataset.loc);
    const cols = [...root.querySelectorAll(".tableau .pile")].map((p) => p.dataset.loc);
    return { top, cols };
  }

  function moveFocus(loc, key) {
    const { top, cols } = order();
    const inTop = top.includes(loc);
    const row = inTop ? top : cols;
    let i = row.indexOf(loc);
    if (key === "ArrowLeft") i = (i - 1 + row.length) % row.length;
    else if (key === "ArrowRight") i = (i + 1) % row.length;
    else {
      // Up and down switch rows, keeping roughly the same horizontal place.
      const other = inTop ? cols : top;
      const frac = row.length > 1 ? i / (row.length - 1) : 0;
      const j = Math.round(frac * (other.length - 1));
      focus(other[j]);
      return;
    }
    focus(row[i]);
  }

  function focus(loc) {
    const pile = root.querySelector(`.pile[data-loc="${loc}"]`);
    if (!pile) return;
    const cards = pile.querySelectorAll(".card");
    const el = cards.length ? cards[cards.length - 1] : pile;
    el.focus();
  }

  function mark() {
    for (const el of root.querySelectorAll(".kbd-target")) el.classList.remove("kbd-target");
    for (const el of root.querySelectorAll(".drop-target")) el.classList.remove("drop-target");
    if (!selected) return;
    root.querySelector(`.pile[data-loc="${selected}"]`)?.classList.add("kbd-target");
    for (const loc of h.targets?.(selected) || []) {
      root.querySelector(`.pile[data-loc="${loc}"]`)?.classList.add("drop-target");
    }
  }

  return {
    afterRender() {
      mark();
      if (focusLoc && root.contains(document.activeElement) === false &&
          document.activeElement === document.body) {
        focus(focusLoc);
      }
    },
    selected: () => selected,
  };
}
