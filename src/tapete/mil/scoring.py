"""Scoring a finished deal against the game's standing: contract, defenders, bolts, barrel.

Scores are kept in **half points** (ints) so that rospis halves stay exact: a score of 62.5 is
``125``. :func:`settle` is the one place where the barrel rules live, applied in the order
of docs/rules-mil.md: (1) deal deltas, (2) bolt penalties, (3) the barrel occupants'
outcomes, (4) caps and arrivals, (5) third-failed-visit resets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from tapete.mil.profiles import Profile
from tapete.mil.state import State, contract_made
from tapete.scores import score_json

__all__ = ["BARREL_ATTEMPTS", "PENALTIES", "DealResult", "Standing", "settle"]

#: club: completed deals a barrel occupant may play without winning before it falls back
#: (``Profile.barrel_penalty``)
BARREL_ATTEMPTS: Final = 3


@dataclass(frozen=True)
class Standing:
    """The game's counts between deals (scores in half points)."""

    scores: tuple[int, int, int] = (0, 0, 0)
    bolts: tuple[int, int, int] = (0, 0, 0)
    in_barrel: tuple[bool, bool, bool] = (False, False, False)
    barrel_attempts: tuple[int, int, int] = (0, 0, 0)
    failed_visits: tuple[int, int, int] = (0, 0, 0)

    def barrel_flags(self, profile: Profile) -> tuple[bool, bool, bool]:
        """Who is "in the barrel" for this profile (casa: threshold <= score < target)."""
        if profile.barrel == "club":
            return self.in_barrel
        lo, hi = 2 * profile.barrel_from, 2 * profile.target
        a, b, c = (lo <= s < hi for s in self.scores)
        return (a, b, c)

    def to_json(self, profile: Profile) -> dict[str, Any]:
        return {
            "scores": [score_json(s) for s in self.scores],
            "bolts": list(self.bolts),
            "in_barrel": list(self.barrel_flags(profile)),
            "barrel_attempts": list(self.barrel_attempts),
            "failed_visits": list(self.failed_visits),
        }


@dataclass(frozen=True)
class DealResult:
    annulled: bool
    declarer: int | None
    bid: int | None
    contract: int | None
    rospis: bool
    raw: tuple[int, int, int] | None
    standing: Standing
    winner: int | None = None
    #: what happened at the barrel, for people (e.g. "seat 1 enters the barrel")
    notes: tuple[str, ...] = field(default=())
    #: the seats whose points a cap cut short this deal (their score is the cap): a
    #: defender held below the target (casa), a player arriving at the barrel with more
    #: than its threshold (club); the views say it beside the points (``-> +120``): the
    #: sheet's row has ``capped`` when it names any
    capped: tuple[int, ...] = field(default=())
    #: the penalties of the deal's end, per seat in seat order: ``(seat, why)`` with why one of
    #: :data:`PENALTIES` (a third bolt, the barrel's three attempts used, pushed out of it, the
    #: third to arrive, a third failed visit); the views say why beside the points (a
    #: defender who took 47 points and lost 120): the sheet's row has ``penalties`` when any
    penalties: tuple[tuple[int, str], ...] = field(default=())

    def to_json(self, profile: Profile) -> dict[str, Any]:
        return {
            "annulled": self.annulled,
            "declarer": self.declarer,
            "bid": self.bid,
            "contract": self.contract,
            "rospis": self.rospis,
            "raw": list(self.raw) if self.raw is not None else None,
            **self.standing.to_json(profile),
        }


#: why a deal's end took points from a seat (``DealResult.penalties``), in the order they are
#: applied
PENALTIES = ("third_bolt", "attempts_used", "pushed_out", "arrives_third", "back_to_zero")


def settle(profile: Profile, standing: Standing, deal: State) -> DealResult:
    """The result of a finished deal and the standing after it."""
    if not deal.done:
        raise ValueError("settle() needs a finished deal")
    if deal.annulled:
        auction_over = deal.declarer >= 0
        return DealResult(
            annulled=True,
            declarer=deal.declarer if auction_over else None,
            bid=deal.bid if auction_over else None,
            contract=None,
            rospis=False,
            raw=None,
            standing=standing,
        )
    if profile.barrel == "club":
        return _settle_club(profile, standing, deal)
    return _settle_casa(profile, standing, deal)


def _settle_casa(profile: Profile, standing: Standing, deal: State) -> DealResult:
    d = deal.declarer
    raw = deal.raw()
    scores = list(standing.scores)
    start_barrel = standing.barrel_flags(profile)
    made = contract_made(raw[d], deal.contract)
    scores[d] += 2 * deal.contract if made else -2 * deal.contract
    capped: list[int] = []
    notes: list[str] = []
    for o in range(3):
        if o != d and not start_barrel[o]:
            reached = scores[o] + 2 * profile.round_defender(raw[o])
            if reached > 2 * profile.defender_cap:
                capped.append(o)
                notes.append(f"seat {o} is held at {profile.defender_cap}")
            scores[o] = min(reached, 2 * profile.defender_cap)
    winner = d if scores[d] >= 2 * profile.target else None
    new = Standing(scores=(scores[0], scores[1], scores[2]))
    return DealResult(
        False, d, deal.bid, deal.contract, False, raw, new, winner, tuple(notes), tuple(capped)
    )


def _settle_club(profile: Profile, standing: Standing, deal: State) -> DealResult:
    d = deal.declarer
    cap = 2 * profile.barrel_from
    fall = 2 * profile.barrel_penalty
    scores = list(standing.scores)
    bolts = list(standing.bolts)
    occupants = list(standing.in_barrel)
    attempts = list(standing.barrel_attempts)
    failed = list(standing.failed_visits)
    failed_now: list[int] = []
    notes: list[str] = []
    capped: list[int] = []
    penalties: list[tuple[int, str]] = []
    winner: int | None = None
    defenders = [(d + 1) % 3, (d + 2) % 3]
    raw: tuple[int, int, int] | None = None

    # (1) deal deltas
    if deal.rospis:
        scores[d] -= 2 * deal.bid
        for o in defenders:
            if not occupants[o]:
                scores[o] += deal.bid  # half of the bid, in half points
    else:
        raw = deal.raw()
        made = contract_made(raw[d], deal.contract)
        scores[d] += 2 * deal.contract if made else -2 * deal.contract
        for o in defenders:
            if not occupants[o]:
                scores[o] += 2 * profile.round_defender(raw[o])
        # (2) bolt penalties
        for o in defenders:
            if not occupants[o] and raw[o] == 0:
                bolts[o] += 1
                if bolts[o] == 3:
                    scores[o] -= 2 * profile.bolt_penalty
                    bolts[o] = 0
                    notes.append(f"seat {o}: third bolt, -{profile.bolt_penalty}")
                    penalties.append((o, "third_bolt"))

    # (3) the barrel occupants' outcomes
    for p in range(3):
        if not occupants[p]:
            continue
        if p == d and raw is not None:
            if contract_made(raw[d], deal.contract):
                scores[p] = cap + 2 * deal.contract
                winner = p
                notes.append(f"seat {p} makes {deal.contract} from the barrel and wins")
            else:
                scores[p] = cap - 2 * deal.contract
                failed_now.append(p)
                notes.append(f"seat {p} fails its contract in the barrel")
            occupants[p] = False
            attempts[p] = 0
            continue
        attempts[p] += 1
        scores[p] = cap
        if attempts[p] >= BARREL_ATTEMPTS:
            scores[p] = cap - fall
            occupants[p] = False
            attempts[p] = 0
            failed_now.append(p)
            notes.append(f"seat {p}: three attempts used, -{profile.barrel_penalty}")
            penalties.append((p, "attempts_used"))

    # (4) caps and arrivals
    arrivals = [p for p in range(3) if not occupants[p] and p != winner and scores[p] >= cap]
    if arrivals:
        previous = [p for p in range(3) if occupants[p]]
        if len(previous) + len(arrivals) > 2:
            for p in previous:
                scores[p] = cap - fall
                occupants[p] = False
                attempts[p] = 0
                failed_now.append(p)
                notes.append(f"seat {p} is pushed out of the barrel, -{profile.barrel_penalty}")
                penalties.append((p, "pushed_out"))
        if len(arrivals) == 3:
            order = [
                d,
                *((deal.dealer + 1 + i) % 3 for i in range(3) if (deal.dealer + 1 + i) % 3 != d),
            ]
            arrivals.sort(key=lambda p: (-scores[p], order.index(p)))
            third = arrivals.pop()
            scores[third] = cap - fall
            failed_now.append(third)
            notes.append(
                f"seat {third} arrives third at the barrel and scores "
                f"{profile.barrel_from - profile.barrel_penalty}"
            )
            penalties.append((third, "arrives_third"))
        for p in arrivals:
            if scores[p] > cap:
                capped.append(p)
            scores[p] = cap
            occupants[p] = True
            attempts[p] = 0
            notes.append(f"seat {p} enters the barrel")

    # (5) third failed visit: back to 0
    for p in failed_now:
        failed[p] += 1
        if failed[p] == 3:
            scores[p] = 0
            failed[p] = 0
            notes.append(f"seat {p}: third failed visit, back to 0")
            penalties.append((p, "back_to_zero"))

    new = Standing(
        scores=(scores[0], scores[1], scores[2]),
        bolts=(bolts[0], bolts[1], bolts[2]),
        in_barrel=(occupants[0], occupants[1], occupants[2]),
        barrel_attempts=(attempts[0], attempts[1], attempts[2]),
        failed_visits=(failed[0], failed[1], failed[2]),
    )
    return DealResult(
        False,
        d,
        deal.bid,
        deal.contract,
        deal.rospis,
        raw,
        new,
        winner,
        tuple(notes),
        tuple(sorted(capped)),
        tuple(sorted(penalties, key=lambda pw: (pw[0], PENALTIES.index(pw[1])))),
    )
