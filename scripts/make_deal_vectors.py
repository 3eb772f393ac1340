"""Regenerate tests/data/deal_vectors.json, the SH1 test vectors of protocol/README.md.

Run: python scripts/make_deal_vectors.py. The vectors are checked by tests/engine/test_codes.py and
printed into protocol/README.md; the algorithm itself must never change (a new algorithm
gets a new prefix), so this only ever needs running to add vectors.
"""

from __future__ import annotations

import json
from pathlib import Path

from server.engine import Board, card_name, shuffle

DEALS = (0, 1, 2, 3, 31, 32, 314, 1000, 65535, 99999, 123456789, 2**35 - 1)


def main() -> None:
    vectors = []
    for deal in DEALS:
        for cells in (4, 2, 1):
            if cells != 4 and deal not in (0, 314, 2**35 - 1, 123456789):
                continue
            board = Board.deal(deal, cells)
            vectors.append(
                {"deal": deal, "order": [card_name(c) for c in shuffle(deal)], **board.to_json()}
            )
    out = Path(__file__).resolve().parent.parent / "tests" / "data" / "deal_vectors.json"
    out.write_text(json.dumps(vectors, indent=1) + "\n")
    print(f"{len(vectors)} vectors -> {out}")


if __name__ == "__main__":
    main()
