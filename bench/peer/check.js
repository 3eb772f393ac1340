// For the test of rules.js (tests/bench/test_peer.py): reads [{code, line}] as JSON on
// stdin and writes, for each deal, the table and its legal destinations after each action
// of the line, or the reason an action was refused.
import { Board, cardName, SUITS } from "./rules.js";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const out = JSON.parse(Buffer.concat(chunks).toString()).map(({ code, line }) => {
  const board = new Board(code);
  const seen = () => ({
    cells: board.cells.map((c) => (c === null ? null : cardName(c))),
    columns: board.columns.map((col) => col.map(cardName)),
    foundations: Object.fromEntries([...SUITS].map((s, i) => [s, board.foundations[i]])),
    score: board.score,
    targets: board.targets(),
  });
  const steps = [seen()];
  for (const text of line) {
    try {
      board.play(text);
      steps.push(seen());
    } catch (err) {
      steps.push({ refused: err.message });
    }
  }
  return steps;
});
process.stdout.write(JSON.stringify(out));
