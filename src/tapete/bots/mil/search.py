"""The ``search`` Mil player (level 2): sampling plus the exact open-hand solver.

Card play is perfect-information Monte Carlo (PIMC): hidden hands are dealt at random
consistently with the view (:func:`tapete.bots.mil.sampling.sample_mil_hands`), each deal is
solved exactly by :func:`tapete.solver.best_moves`, and the move with the best average is
played: the declarer maximises the share of deals in which the contract is made, then the
points; the defenders minimise the same.

Bidding, the talon (redeal, rospis, the two cards to give) and the contract are chosen by
simulation over the unseen cards: for each sampled deal the declarer's hand is completed,
the rules player's gifts are made and the deal is solved; a value is bid or contracted when
its expected score beats the alternatives.

Every decision has a time budget (``budget`` seconds, default 0.5): sampling stops when it
runs out, and at least one sample is always solved.
"""

from __future__ import annotations

import random
import time
from typing import Any, Final

from tapete.bots.mil.rules import best_gives, keep_value, rules_decision
from tapete.bots.mil.sampling import MilInfo, mil_info, sample_mil_hands
from tapete.bots.reasons import Reason
from tapete.cards import card_name
from tapete.game import JSON
from tapete.mil.actions import (
    Bid,
    Contract,
    Give,
    KeepDeal,
    MilAction,
    Pass,
    Play,
    Redeal,
    Rospis,
    action_from_json,
)
from tapete.mil.state import contract_made
from tapete.solver import MilPosition, best_moves, solve

__all__ = ["MilSearchBot"]

#: what a defender expects to score in a deal, the alternative to declaring
DEFENDER_VALUE: Final = 22
#: double-dummy results flatter the declarer a little: a sample counts as made only with this
#: much to spare
MARGIN: Final = 8
#: the reason of a card play by its outcome over the sampled deals, as (lead, play, announce)
PLAY_REASONS: Final = {
    "safe": ("lead_contract_safe", "play_contract_safe", "announce_contract_safe"),
    "lost": ("lead_contract_lost", "play_contract_lost", "announce_contract_lost"),
    "makes": ("lead_makes_pct", "play_makes_pct", "announce_makes_pct"),
    "beats_all": ("lead_beats_all", "play_beats_all", "announce_beats_all"),
    "made_anyway": ("lead_made_anyway", "play_made_anyway", "announce_made_anyway"),
    "beats": ("lead_beats_pct", "play_beats_pct", "announce_beats_pct"),
}


class MilSearchBot:
    """Level 2 (see the module docstring)."""

    name = "search"

    def __init__(
        self,
        profile: str | None = None,
        *,
        budget: float = 0.5,
        samples: int = 40,
        bid_samples: int = 24,
        rospis: bool = False,
        **options: Any,
    ) -> None:
        self.profile = profile
        self.budget = float(budget)
        self.samples = int(samples)
        self.bid_samples = int(bid_samples)
        self.rospis = bool(rospis)
        self._plan: tuple[Any, list[int]] | None = None

    def act(self, view: JSON, rng: random.Random) -> MilAction:
        return self.explain(view, rng)[0]

    def explain(self, view: JSON, rng: random.Random) -> tuple[MilAction, Reason]:
        legal = [action_from_json(a) for a in view["legal"]]
        if not legal:
            raise ValueError("no legal action in this view")
        if len(legal) == 1:
            return legal[0], _only(legal[0])
        deadline = time.perf_counter() + self.budget
        info = mil_info(view)
        phase = info.phase
        if phase == "play":
            got = self._play(info, legal, rng, deadline)
            if got is not None:
                return got
        elif phase == "bidding":
            return self._bid(info, legal, rng, deadline, view)
        elif phase in ("talon", "give"):
            got = self._talon(info, legal, rng, deadline, view)
            if got is not None:
                return got
        elif phase == "contract":
            got = self._contract(info, legal, rng, deadline)
            if got is not None:
                return got
        elif phase == "nines_offer" and info.declarer == info.seat:
            got = self._nines(info, legal, rng, deadline)
            if got is not None:
                return got
        return rules_decision(view, rng)

    # ------------------------------------------------------------------ card play
    def _play(
        self, info: MilInfo, legal: list[MilAction], rng: random.Random, deadline: float
    ) -> tuple[MilAction, Reason] | None:
        plays = [a for a in legal if isinstance(a, Play)]
        assert info.declarer is not None
        declarer = info.declarer
        contract = info.contract or info.bid or 100
        made: dict[tuple[int, bool], int] = {(a.card, a.marriage): 0 for a in plays}
        pts: dict[tuple[int, bool], int] = dict.fromkeys(made, 0)
        n = 0
        prof = info.profile
        trump = info.trump if info.trump >= 0 else None
        leader = info.leader if info.leader is not None else info.seat
        while n < self.samples and (n == 0 or time.perf_counter() < deadline):
            hands = sample_mil_hands(info, rng)
            if hands is None:
                if n == 0 and info.unseen == 0:
                    return None
                break
            pos = MilPosition(
                hands=(hands[0], hands[1], hands[2]),
                declarer=declarer,
                leader=leader,
                trick=tuple(info.trick),
                trump=trump,
                points=(info.points[0], info.points[1], info.points[2]),
                tricks_played=info.tricks_played,
                profile=prof,
            )
            for card, announce, value in best_moves(pos):
                key = (card, announce)
                if key in made:
                    made[key] += 1 if contract_made(value, contract) else 0
                    pts[key] += value
            n += 1
        if n == 0:
            return None
        me_decl = info.seat == declarer

        def score(a: Play) -> tuple[float, float]:
            k = (a.card, a.marriage)
            if me_decl:
                return (made[k], pts[k])
            return (-made[k], -pts[k])

        best = max(plays, key=score)
        k = (best.card, best.marriage)
        share = made[k] / n
        verb = 2 if best.marriage else 0 if not info.trick else 1
        args: dict[str, str | int | float] = {"card": card_name(best.card)}
        if me_decl:
            if share >= 0.999:
                outcome = "safe"
            elif share <= 0.001:
                outcome = "lost"
            else:
                outcome, args["pct"] = "makes", share
        else:
            if share <= 0.001:
                outcome = "beats_all"
            elif share >= 0.999:
                outcome = "made_anyway"
            else:
                outcome, args["pct"] = "beats", 1 - share
        return best, Reason(PLAY_REASONS[outcome][verb], args)

    # ------------------------------------------------------------------ declarer outlook
    def _outlook(
        self,
        info: MilInfo,
        rng: random.Random,
        deadline: float,
        samples: int,
        gives: list[int] | None = None,
    ) -> list[int]:
        """Declarer points (open-hand) over sampled deals, as if this seat declared now with
        the rules player's gifts (or ``gives``)."""
        seat = info.seat
        prof = info.profile
        out: list[int] = []
        while len(out) < samples and (not out or time.perf_counter() < deadline):
            hands = sample_mil_hands(info, rng)
            if hands is None:
                break
            mine = hands[seat]
            if info.declarer is None:
                mine |= hands[3]
            h = [hands[0], hands[1], hands[2]]
            h[seat] = mine
            if mine.bit_count() == 10:
                g = gives if gives is not None else best_gives(mine)
                left, right = (seat + 1) % 3, (seat + 2) % 3
                h[seat] &= ~((1 << g[0]) | (1 << g[1]))
                h[left] |= 1 << g[0]
                h[right] |= 1 << g[1]
            pos = MilPosition(hands=(h[0], h[1], h[2]), declarer=seat, leader=seat, profile=prof)
            out.append(solve(pos))
        return out

    # ------------------------------------------------------------------ bidding
    def _bid(
        self,
        info: MilInfo,
        legal: list[MilAction],
        rng: random.Random,
        deadline: float,
        view: JSON,
    ) -> tuple[MilAction, Reason]:
        bids = sorted((a for a in legal if isinstance(a, Bid)), key=lambda a: a.value)
        passes = [a for a in legal if isinstance(a, Pass)]
        if not bids:
            return passes[0], Reason("pass_no_higher")
        values = self._outlook(info, rng, deadline, self.bid_samples)
        if not values:
            return rules_decision(view, rng)
        step = info.profile.step
        in_barrel = info.profile.barrel == "club" and bool(view["in_barrel"][info.seat])

        def ev(b: int) -> float:
            p = sum(1 for v in values if _made(v, b)) / len(values)
            return b * (2 * p - 1)

        # the highest value worth playing for (the talon is already in the samples)
        best_b, best_ev = 0, float(DEFENDER_VALUE)
        top = max(bids[-1].value, 120)
        for b in range(100, top + 1, step):
            e = ev(b)
            if in_barrel and b < info.profile.barrel_min_contract:
                continue
            if e > best_ev:
                best_b, best_ev = b, e
        justified = [a for a in bids if a.value <= best_b]
        if justified:
            a = justified[0]
            p = sum(1 for v in values if _made(v, a.value)) / len(values)
            return a, Reason("bid_likely", {"value": a.value, "pct": p})
        if not passes:
            return bids[0], Reason("bid_opener", {"value": bids[0].value})
        ceiling = max((b for b in range(100, top + 1, step) if ev(b) > 0), default=0)
        if ceiling:
            return passes[0], Reason("pass_justifies", {"ceiling": ceiling})
        return passes[0], Reason("pass_weak", {"value": bids[0].value})

    # ------------------------------------------------------------------ talon and gifts
    def _talon(
        self,
        info: MilInfo,
        legal: list[MilAction],
        rng: random.Random,
        deadline: float,
        view: JSON,
    ) -> tuple[MilAction, Reason] | None:
        gives = [a for a in legal if isinstance(a, Give)]
        bid = info.bid or 100
        if info.phase == "give" or info.hand.bit_count() == 9:
            # second gift: follow the plan made with the talon
            plan = self._plan
            if plan is not None and plan[0] == _deal_key(view):
                for c in plan[1]:
                    for a in gives:
                        if a.card == c:
                            return a, Reason("give_plan", {"card": card_name(c)})
            return None
        hand = info.hand
        cands = sorted(hand_cards(hand), key=lambda c: (keep_value(c, hand), c))[:5]
        pairs = [(a, b) for i, a in enumerate(cands) for b in cands[i + 1 :]][:10]
        samples: list[list[int]] = []
        while len(samples) < 12 and (not samples or time.perf_counter() < deadline):
            s = sample_mil_hands(info, rng)
            if s is None:
                break
            samples.append(s)
        if not samples:
            return None
        prof = info.profile
        seat = info.seat
        left, right = (seat + 1) % 3, (seat + 2) % 3
        results: dict[tuple[int, int], list[int]] = {}
        for pair in pairs:
            vals: list[int] = []
            for s in samples:
                h = [s[0], s[1], s[2]]
                h[seat] = hand & ~((1 << pair[0]) | (1 << pair[1]))
                h[left] |= 1 << pair[0]
                h[right] |= 1 << pair[1]
                pos = MilPosition(
                    hands=(h[0], h[1], h[2]), declarer=seat, leader=seat, profile=prof
                )
                vals.append(solve(pos))
                if time.perf_counter() > deadline:
                    break
            results[pair] = vals
            if time.perf_counter() > deadline:
                break

        def made_share(vals: list[int]) -> float:
            return sum(1 for v in vals if _made(v, bid)) / len(vals) if vals else 0.0

        best_pair = max(results, key=lambda p: (made_share(results[p]), sum(results[p])))
        p = made_share(results[best_pair])
        redeal = next((a for a in legal if isinstance(a, Redeal)), None)
        if redeal is not None and p < 0.55:
            return redeal, Reason("redeal_unlikely", {"value": bid, "pct": p})
        # Rospis costs the declarer the bid, exactly what a lost contract at the bid costs,
        # and hands each opponent half the bid, more than they take by defending a hopeless
        # contract: playing on is never worse for this seat, so it is off unless asked for.
        rospis = next((a for a in legal if isinstance(a, Rospis)), None) if self.rospis else None
        if rospis is not None and p < 0.03:
            return rospis, Reason("rospis_out_of_reach", {"value": bid})
        self._plan = (_deal_key(view), [best_pair[0], best_pair[1]])
        # in club either order is fine; casa gives to the left first
        for c in best_pair:
            for a in gives:
                if a.card == c:
                    if p == 0:  # (no gift makes it: "you make 220 in 0%" read as a slip)
                        return a, Reason("give_least_bad", {"card": card_name(c), "value": bid})
                    return a, Reason("give_likely", {"card": card_name(c), "value": bid, "pct": p})
        return None

    # ------------------------------------------------------------------ contract
    def _contract(
        self, info: MilInfo, legal: list[MilAction], rng: random.Random, deadline: float
    ) -> tuple[MilAction, Reason] | None:
        contracts = sorted((a for a in legal if isinstance(a, Contract)), key=lambda a: a.value)
        values = self._outlook(info, rng, deadline, self.bid_samples)
        if not values:
            return None

        def share(c: int) -> float:
            return sum(1 for v in values if _made(v, c)) / len(values)

        best = max(contracts, key=lambda a: (a.value * (2 * share(a.value) - 1), -a.value))
        if share(best.value) == 0:  # (the lowest, the bid: a lost contract costs its value)
            return best, Reason("contract_out_of_reach", {"value": best.value})
        if best.value == contracts[0].value:
            return best, Reason(
                "contract_likely_enough", {"value": best.value, "pct": share(best.value)}
            )
        return best, Reason("contract_likely", {"value": best.value, "pct": share(best.value)})

    def _nines(
        self, info: MilInfo, legal: list[MilAction], rng: random.Random, deadline: float
    ) -> tuple[MilAction, Reason] | None:
        values = self._outlook(info, rng, deadline, self.bid_samples // 2)
        if not values:
            return None
        c = info.contract or 100
        p = sum(1 for v in values if _made(v, c)) / len(values)
        redeal = next((a for a in legal if isinstance(a, Redeal)), None)
        keep = next((a for a in legal if isinstance(a, KeepDeal)), None)
        if redeal is not None and p < 0.5:
            return redeal, Reason("redeal_unlikely", {"value": c, "pct": p})
        if keep is not None:
            return keep, Reason("keep_likely", {"value": c, "pct": p})
        return None


def hand_cards(hand: int) -> list[int]:
    return [c for c in range(32) if hand >> c & 1]


def _deal_key(view: JSON) -> tuple[Any, ...]:
    return (view.get("deal_number"), view.get("dealer"), tuple(view.get("talon") or ()))


def _made(value: int, contract: int) -> bool:
    """An open-hand sample counts as made only with :data:`MARGIN` points to spare."""
    return contract_made(value, contract + MARGIN)


def _only(a: MilAction) -> Reason:
    if isinstance(a, Bid):
        return Reason("bid_opener", {"value": a.value})
    return Reason("only_legal")
