"""The one decision (server/fairplay/decide.py), pure: the documented rule, judged against
people, speed never alone, a new player's lead held only on unusual evidence."""

from __future__ import annotations

from typing import Any

from server.fairplay.decide import decide, outright, suspicion
from server.fairplay.policy import Policy
from server.fairplay.values import Assessment, Decision
from server.settings import Settings

P = Policy()


def record(**over: Any) -> dict[str, Any]:
    """A record as the solver pool's job gives it (a person's, by default)."""
    base: dict[str, Any] = {
        "solver": 0.62,
        "solver_scored": 30,
        "optimal": 0.7,
        "optimal_scored": 30,
        "known": 0.0,
        "borrowed": 0.0,
        "field": None,
        "field_agreement": None,
        "time_ms": 150_000,
    }
    return {**base, **over}


def finish(held: bool = False, reason: str = "ok", **over: Any) -> Assessment:
    return Assessment.from_job(
        {"held": held, "reason": reason, "message": reason, "agreement": 0.6, "scored": 30}
        | {"evidence": record(**over)}
    )


def earlier(*suspicions: float) -> list[dict[str, Any]]:
    return [record(suspicion=s) for s in suspicions]


def test_the_policy_is_the_settings() -> None:
    assert Policy.from_settings(Settings()) == Policy()
    custom = Settings(evidence_min_finishes=4, evidence_flag_score=0.7)
    policy = Policy.from_settings(custom)
    assert (policy.min_finishes, policy.flag_score) == (4, 0.7)


def test_no_flag_from_fewer_finishes_than_the_rule_says() -> None:
    # Before: the server flagged as soon as a score reached the flag, from one finish.
    first = decide(finish(solver=0.85), [], P)
    assert first.suspicion >= P.flag_score and not first.flag and not first.held
    second = decide(finish(solver=0.85), earlier(first.suspicion), P)
    assert not second.flag and second.finishes == 2
    third = decide(finish(solver=0.85), earlier(first.suspicion, second.suspicion), P)
    assert third.flag and third.held and third.reason == "flagged" and third.finishes == 3
    assert third.to_json()["flag"] is True


def test_a_reference_line_outright_flags_from_one_finish() -> None:
    optimal = finish(optimal=1.0, optimal_scored=40)
    assert outright(optimal.record or {}, P)
    decided = decide(optimal, [], P)
    assert decided.flag and decided.held and decided.suspicion == 1.0
    borrowed = decide(finish(borrowed=0.9), [], P)
    assert borrowed.flag and borrowed.reason == "flagged"
    known = decide(finish(known=0.8), [], P)
    assert known.flag
    # A few early decisions agreeing with the optimal search are not a reference's line.
    assert not decide(finish(optimal=1.0, optimal_scored=8), [], P).flag
    # The flag turned off (above 1) flags nobody, outright or not.
    assert not decide(optimal, [], Policy(flag_score=1.5)).flag


def test_a_strong_honest_player_is_not_held_or_flagged() -> None:
    # A strong person: optimal agreement 0.76-0.80, solver 0.7, fast (0.6 of the field).
    history: list[dict[str, Any]] = []
    for optimal in (0.8, 0.76, 0.79, 0.8, 0.78, 0.77, 0.8):
        this = finish(solver=0.7, optimal=optimal, field=0.6, field_agreement=0.66)
        made = decide(this, history, P)
        assert not made.held and not made.flag, made
        assert made.suspicion < 0.3, made
        history.insert(0, {**dict(this.record or {}), "suspicion": made.suspicion})


def test_speed_alone_never_adds_suspicion() -> None:
    assert suspicion(record(solver=0.55, optimal=0.6, field=0.2), P) == 0.0
    slow = suspicion(record(solver=0.8, field=1.2), P)
    fast = suspicion(record(solver=0.8, field=0.5), P)
    assert 0 < slow < fast <= 1 and fast == round(slow * (1 + P.field_weight), 3)


def test_the_field_raises_the_agreement_that_counts() -> None:
    # On a deal where the day's finishers agree with the solver 0.75 of the time, 0.75 is
    # what people do there.
    alone = suspicion(record(solver=0.75), P)
    crowd = suspicion(record(solver=0.75, field_agreement=0.75), P)
    assert alone > 0.3 and crowd == 0.0
    # The field never lifts it past its cap: a field of solver lines hides nobody.
    assert suspicion(record(solver=0.95, field_agreement=0.95), P) == 1.0
    assert suspicion(record(solver=0.9, field_agreement=0.95), P) > 0.5


def test_the_reviews_hold_and_a_flag_keep_their_reasons() -> None:
    held = decide(finish(held=True, reason="fast_bursts"), [], P)
    assert held.held and held.reason == "fast_bursts" and not held.flag
    flagged = decide(finish(), [], P, flagged=True)
    assert flagged.held and flagged.reason == "flagged" and not flagged.flag
    unreviewed = Assessment.from_job({"held": True, "reason": "unreviewed", "message": "x"})
    none = decide(unreviewed, earlier(0.2), P)
    assert isinstance(none, Decision) and none.held and none.reason == "unreviewed"
    assert none.suspicion == 0.0 and none.finishes == 1 and none.score == 0.2


def test_a_new_leader_is_held_only_on_unusual_evidence() -> None:
    usual = decide(finish(solver=0.65), [], P, new_leader=True)
    assert not usual.held and usual.reason == "ok"
    odd = decide(finish(solver=0.85), [], P, new_leader=True)
    assert odd.held and odd.reason == "new_leader" and not odd.flag
    assert not decide(finish(solver=0.85), [], P).held


def test_the_score_is_over_the_window() -> None:
    made = decide(finish(solver=P.agreement_low), earlier(1, 1, 1, 1, 1, 1, 1), P)
    assert made.finishes == P.window and made.score == round(4 / 5, 3)


def test_a_person_s_own_plans_count_less_than_a_solver_re_asked() -> None:
    # The same agreement: deviations followed at once by the solver's move (a solver
    # re-asked after each) count in full, a person's own plan straying for a few moves less.
    re_asked = suspicion(record(solver=0.8, recovery=0.85), P)
    halfway = (P.recovery_low + P.recovery_high) / 2
    between = suspicion(record(solver=0.8, recovery=halfway), P)
    own_plan = suspicion(record(solver=0.8, recovery=P.recovery_low), P)
    unmeasured = suspicion(record(solver=0.8), P)
    assert re_asked == unmeasured > between > own_plan
    assert own_plan == round(unmeasured * P.recovery_floor, 3)
    # A reference's line outright is one whatever its few deviations.
    assert suspicion(record(solver=0.97, recovery=0.0), P) < suspicion(record(solver=0.97), P)
    assert outright(record(solver=0.97, recovery=0.0), P)


def test_a_stretch_shared_with_another_line_is_not_a_borrowed_line() -> None:
    # Two people's own lines of one deal may share a stretch (half of one's decisions in the
    # new-community run); a replay shares nearly all of them.
    shared = record(borrowed=0.55)
    assert not outright(shared, P) and suspicion(shared, P) < 1
    assert outright(record(borrowed=P.borrowed_high), P)
    assert outright(record(known=P.known_high), P)  # the address's own practice
