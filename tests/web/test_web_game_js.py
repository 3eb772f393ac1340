"""The web client's room state (client_web/js/game.js, run by Node) fed the server's messages
as protocol/README.md shows them: Ann's snapshot of the full example session, then the
examples of a race (room, countdown, started, delta, progress, finished, gave_up, race_over,
lost, ratings ...); after each, the client holds what the message says."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from typing import Any

import pytest

from server.engine import Board, parse_action
from server.net import wire
from tests import ROOT

SCRIPT = ROOT / "client_web" / "tests" / "game_messages.mjs"
README = ROOT / "protocol" / "README.md"
NODE = shutil.which("node")
ANN, BOB = "p58ebe34a826e", "pc9e2db6a4a86"

pytestmark = pytest.mark.skipif(
    NODE is None and not os.environ.get("SEAHAVEN_REQUIRE_BROWSER"),
    reason="Node.js is not installed",
)


def examples() -> list[dict[str, Any]]:
    """Ann's snapshot (the full session), then every example server message, in order."""
    text = README.read_text(encoding="utf-8")
    snapshot = next(
        line.split(" < ", 1)[1]
        for line in text.splitlines()
        if line.startswith('Ann < {"type": "snapshot"')
    )
    block = text.split("Examples (from a real session", 1)[1].split("```json", 1)[1]
    block = block.split("```", 1)[0]
    messages = [json.loads(snapshot)]
    messages += [json.loads(line) for line in block.splitlines() if line.startswith("{")]
    for m in messages:
        if m["type"] == "started":  # the board shortened with "…" in the README: the deal's
            m["board"] = Board.from_code(m["code"]).to_json()
    return messages


def run(you: str, messages: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """What the client holds after each message, by the message's type (the last of it)."""
    assert NODE is not None
    res = subprocess.run(
        [NODE, str(SCRIPT)],
        input=json.dumps({"you": you, "messages": messages}),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return {step["type"]: step for step in json.loads(res.stdout)}


def racer(step: dict[str, Any], pid: str) -> dict[str, Any]:
    found: dict[str, Any] = next(p for p in step["players"] if p["player_id"] == pid)
    return found


def test_the_readme_examples_are_what_the_client_holds() -> None:
    messages = examples()
    kinds = [m["type"] for m in messages]
    for kind in ("snapshot", "room", "countdown", "started", "delta", "race_over", "ratings"):
        assert kind in kinds, f"protocol/README.md has no {kind} example any more"
    by = {m["type"]: m for m in messages}
    seen = run(ANN, messages)

    room = seen["snapshot"]["room"]
    snap = by["snapshot"]
    assert (room["roomId"], room["state"], room["code"], room["codeTyped"]) == (
        snap["room_id"],
        "lobby",
        snap["code"],
        True,
    )
    assert (room["watch"], room["cells"], room["round"], room["you"], room["role"]) == (
        "live",
        4,
        1,
        ANN,
        "player",
    )
    assert [p["player_id"] for p in seen["snapshot"]["players"]] == [ANN]

    after_room = seen["room"]
    assert after_room["room"]["invite"] == by["room"]["invite"]
    assert ["setRoom", by["room"]["room_id"]] in after_room["asked"]
    assert {p["player_id"] for p in after_room["players"]} == {
        e["player_id"] for e in by["room"]["players"]
    }

    assert seen["countdown"]["room"]["state"] == "countdown"
    assert seen["countdown"]["room"]["startsAt"] == by["countdown"]["starts_at"]

    started = seen["started"]
    assert started["room"]["state"] == "racing"
    assert started["room"]["startedAt"] == by["started"]["started_at"]
    # A racer holds its own board alone; the rival's is progress only.
    assert racer(started, ANN)["board"] and not racer(started, BOB)["board"]
    assert {racer(started, pid)["status"] for pid in by["started"]["players"]} == {"playing"}

    delta = seen["delta"]
    assert delta["asked"] == []  # the delta fitted the board: no resync
    assert (racer(delta, ANN)["moves"], racer(delta, ANN)["foundation_cards"]) == (1, 1)
    assert racer(delta, ANN)["score"] == by["delta"]["score"]
    # Ann's legal moves: her started's, changed by her delta's, are the engine's after it.
    board = Board.from_code(by["started"]["code"])
    assert racer(started, ANN)["legal"] == wire.legal_view(board)
    board.play(parse_action(by["delta"]["action"]))
    assert racer(delta, ANN)["legal"] == wire.legal_view(board)
    assert by["delta"]["legal_change"] == json.loads(
        wire.legal_change(by["started"]["legal"], wire.legal_view(board))
    )
    assert (
        racer(seen["progress"], BOB)["foundation_cards"],
        racer(seen["progress"], BOB)["moves"],
    ) == (1, 1)

    won = racer(seen["finished"], ANN)
    assert (won["status"], won["rank"], won["time_ms"], won["perfect"]) == (
        "finished",
        1,
        314,
        True,
    )
    assert racer(seen["gave_up"], BOB)["status"] == "gave_up"

    over = seen["race_over"]["room"]
    assert over["state"] == "done"
    assert over["par"] == {"par": by["race_over"]["par"], "optimal": True}
    assert [r["player_id"] for r in over["results"]] == [
        r["player_id"] for r in by["race_over"]["results"]
    ]
    assert racer(seen["lost"], ANN)["lost"] is True
    ratings = seen["ratings"]["room"]["ratings"]
    assert ratings == {
        "round": 1,
        "cells": 4,
        "changes": by["ratings"]["changes"],
    }


def test_a_spectator_holds_every_board_and_a_rematch_starts_afresh() -> None:
    messages = examples()
    sam = "p404969a7ac9d"
    for m in messages:
        if m["type"] == "snapshot":
            m["you"], m["role"] = sam, "spectator"
    seen = run(sam, messages)
    started = seen["started"]
    assert racer(started, ANN)["board"] and racer(started, BOB)["board"]  # live: every board
    # The room's next round (a rematch): a new lobby, nothing of the last round kept.
    rematch = dict(next(m for m in messages if m["type"] == "room"), round=2, seq=99)
    again = run(ANN, [*messages, rematch])["room"]
    assert again["room"]["round"] == 2 and again["room"]["results"] is None
    assert all(p["status"] == "waiting" and p["moves"] == 0 for p in again["players"])
