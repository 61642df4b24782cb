"""The ``rules`` Mariage player (level 1).

It exchanges the trump 7 whenever allowed, declares marriages when leading (and claims right
after if the marriage brings it to 66), closes the stock when the count is safe, claims as
soon as it has 66 (never a false claim), and plays the strict phase (stock exhausted or
closed) exactly with a small search over the cards it knows (after exhaustion every card is
known: it remembers the tricks it saw, see :class:`tapete.bots.mariage.tracker.MariageTracker`)
by the exact solver (:mod:`tapete.solver.mariage`) over a few sampled deals.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any, Final

from tapete.bots.mariage.tracker import MariageInfo, MariageTracker, build_state, sample_mariage
from tapete.bots.reasons import Reason
from tapete.cards import (
    ABOVE,
    ACE,
    KING,
    PAIR_MASKS,
    QUEEN,
    SUIT_MASKS,
    TEN,
    Suit,
    beats,
    bits,
    card_name,
    card_points,
)
from tapete.game import JSON
from tapete.mariage.actions import (
    Action,
    Claim,
    Close,
    Decline,
    Exchange,
    Marriage,
    Play,
    action_from_json,
)
from tapete.mariage.state import WIN_POINTS, marriage_value
from tapete.solver.mariage import root_values

__all__ = [
    "MariageRulesBot",
    "mariage_rules_decision",
    "strict_choice",
    "sure_points",
    "sure_points_of",
]

WIN: Final = WIN_POINTS
#: the strict player: ``(info, plays) -> (action, reason)``, or None to fall back on the rules
StrictSolver = Callable[[MariageInfo, list[Play]], "tuple[Action, Reason] | None"]


def _legal(view: JSON) -> list[Action]:
    return [action_from_json(a) for a in view["legal"]]


def _pair_card(c: int, hand: int) -> bool:
    s = c >> 3
    return c & 7 in (KING, QUEEN) and hand & PAIR_MASKS[s] == PAIR_MASKS[s]


def _out(info: MariageInfo) -> int:
    """Cards not seen played and not in this hand (the opponent's hand or the stock)."""
    m = ((1 << 32) - 1) & ~info.played & ~info.hand
    if info.lead is not None:
        m &= ~(1 << info.lead)
    return m


def sure_points(info: MariageInfo) -> int:
    """Points the hand's top trumps take for sure in strict play (each with a little loot)."""
    return sure_points_of(info.hand, info.trump, _out(info))


def sure_points_of(hand: int, t: int, out: int) -> int:
    """:func:`sure_points` of ``hand`` with trump ``t`` when the cards ``out`` are unseen."""
    total = 0
    for c in sorted(bits(hand & SUIT_MASKS[t]), reverse=True):
        if out & ABOVE[c]:
            break
        total += card_points(c) + 3
    # aces of other suits that the opponent must follow are likely winners too
    for s in range(4):
        if s != t and hand >> (s * 8 + ACE) & 1 and out & SUIT_MASKS[s]:
            total += 11 + 2
    return total


def mariage_rules_decision(
    info: MariageInfo, legal: list[Action], strict_solver: StrictSolver | None = None
) -> tuple[Action, Reason]:
    """The rules player's action and a one-line reason."""
    if len(legal) == 1:
        return legal[0], Reason("only_legal")
    me = info.seat
    mine = info.points[me]
    claim = next((a for a in legal if isinstance(a, Claim)), None)
    if claim is not None and mine >= WIN:
        return claim, Reason("claim", {"points": mine})
    decline = next((a for a in legal if isinstance(a, Decline)), None)
    if decline is not None:
        return decline, Reason("no_claim")
    plays = [a for a in legal if isinstance(a, Play)]
    if info.pending is not None:
        q = [a for a in plays if a.card & 7 == QUEEN] or plays
        return q[0], Reason("lead_marriage_card", {"card": card_name(q[0].card)})
    if info.lead is None:
        exch = next((a for a in legal if isinstance(a, Exchange)), None)
        if exch is not None:
            return exch, Reason("exchange")
        marriages = [a for a in legal if isinstance(a, Marriage)]
        if marriages:

            def value(a: Marriage) -> int:
                return marriage_value(a.suit, info.trump)

            best = max(marriages, key=value)
            v = value(best)
            args: dict[str, str | int | float] = {"suit": Suit(best.suit).letter, "value": v}
            if mine + v >= WIN:
                return best, Reason("marriage_and_claim", args)
            return best, Reason("marriage_points", args)
        close = next((a for a in legal if isinstance(a, Close)), None)
        if close is not None and mine + sure_points(info) >= WIN + 6:
            return close, Reason("close_trumps")
    if info.phase == "strict" and strict_solver is not None:
        got: tuple[Action, Reason] | None = strict_solver(info, plays)
        if got is not None:
            return got
    if info.lead is None:
        return _open_lead(info, plays)
    return _open_follow(info, plays)


def _open_lead(info: MariageInfo, plays: list[Play]) -> tuple[Action, Reason]:
    hand = info.hand
    t = info.trump
    out = _out(info)

    def cost(a: Play) -> tuple[int, int, int, int]:
        c = a.card
        s = c >> 3
        trump = 1 if s == t else 0
        guard = 1 if hand >> (s * 8 + ACE) & 1 and c & 7 != ACE else 0
        master = c & 7 == ACE or not out & SUIT_MASKS[s] & ~((1 << (c + 1)) - 1)
        return (
            trump + (1 if _pair_card(c, hand) else 0) * 2,
            card_points(c) - (6 if master and info.phase == "strict" else 0),
            guard,
            c,
        )

    a = min(plays, key=cost)
    return a, Reason("lead_spare", {"card": card_name(a.card)})


def _open_follow(info: MariageInfo, plays: list[Play]) -> tuple[Action, Reason]:
    lead = info.lead
    assert lead is not None
    t = info.trump
    hand = info.hand
    lead_pts = card_points(lead)
    winners = [a for a in plays if beats(a.card, lead, t)]
    same = [a for a in winners if a.card >> 3 == lead >> 3]
    # take with a high card of the led suit: its points come home too
    if same:
        a = max(same, key=lambda a: (card_points(a.card), a.card))
        if card_points(a.card) >= 10 or lead_pts >= 3:
            return a, Reason("take_both_score", {"card": card_name(a.card)})
    if lead_pts >= 10 or info.points[info.seat] + lead_pts >= WIN - 4:
        trumps = [a for a in winners if a.card >> 3 == t and not _pair_card(a.card, hand)]
        trumps = trumps or [a for a in winners if a.card >> 3 == t]
        if trumps:
            a = min(trumps, key=lambda a: (card_points(a.card), a.card))
            return a, Reason("trump_lead", {"lead": card_name(lead), "card": card_name(a.card)})
    if same and info.phase == "strict":
        a = min(same, key=lambda a: a.card)
        return a, Reason("beat_lead", {"lead": card_name(lead), "card": card_name(a.card)})

    def dump(a: Play) -> tuple[int, int, int, int]:
        c = a.card
        s = c >> 3
        return (
            1 if s == t else 0,
            1 if _pair_card(c, hand) else 0,
            card_points(c) + (5 if c & 7 in (ACE, TEN) else 0),
            c,
        )

    a = min(plays, key=dump)
    return a, Reason("play_cheap", {"card": card_name(a.card)})


def strict_choice(
    info: MariageInfo,
    plays: list[Play],
    rng: random.Random,
    *,
    samples: int = 8,
    budget: float = 0.5,
) -> tuple[Action, Reason] | None:
    """The best card in the strict phase (exact over sampled hidden hands)."""
    if not plays:
        return None
    deadline = time.perf_counter() + budget
    # after exhaustion every unseen card is in the opponent's hand: one exact solve
    known_all = not info.closed and info.stock_count == 0
    n = 1 if known_all else samples
    totals: dict[Action, float] = {a: 0.0 for a in plays}
    done = 0
    try:
        for _ in range(n):
            opp, stock = sample_mariage(info, rng)
            st = build_state(info, opp, stock)
            vals = root_values(st, info.seat, list(plays), deadline)
            for a, v in vals.items():
                totals[a] += v
            done += 1
    except TimeoutError:
        pass
    if not done:
        return None
    best = max(plays, key=lambda a: (totals[a], -card_points(a.card)))
    avg = totals[best] / done
    args: dict[str, str | int | float] = {"card": card_name(best.card), "avg": avg}
    if info.lead is None:
        return best, Reason("lead_exact", args)
    return best, Reason("play_exact", args)


class MariageRulesBot:
    """Level 1 (see the module docstring). Keeps a memory of the hand's public cards."""

    name = "rules"

    def __init__(self, *, strict_budget: float = 1.0, **options: Any) -> None:
        #: seconds for the exact search of a strict-phase card (it takes milliseconds; the
        #: limit only guards against a pathological position)
        self.strict_budget = float(strict_budget)
        self.tracker = MariageTracker()

    def explain(self, view: JSON, rng: random.Random) -> tuple[Action, Reason]:
        legal = _legal(view)
        if not legal:
            raise ValueError("no legal action in this view")
        info = self.tracker.update(view)
        return mariage_rules_decision(
            info, legal, lambda i, p: strict_choice(i, p, rng, samples=4, budget=self.strict_budget)
        )

    def act(self, view: JSON, rng: random.Random) -> Action:
        return self.explain(view, rng)[0]

    def remember(self, view: JSON) -> None:
        """Take in a view seen earlier in the hand without deciding (see ``bots.base``)."""
        self.tracker.update(view)
