// Reads {games: [{start, deltas, end}]} on stdin; applies each game's deltas with the
// client's board code and prints, per game, whether it ends on the engine's table.
import { fromJSON, applyChanges, foundationCount } from "../js/board.js";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { games } = JSON.parse(input);
const out = games.map((g) => {
  const state = fromJSON(g.start);
  for (const d of g.deltas) {
    if (!applyChanges(state, d.changes)) return { ok: false, why: "a delta did not fit" };
  }
  const want = fromJSON(g.end);
  const same = JSON.stringify([state.cells, state.columns, state.foundations]) ===
    JSON.stringify([want.cells, want.columns, want.foundations]);
  return { ok: same, found: foundationCount(state) };
});
process.stdout.write(JSON.stringify(out));
