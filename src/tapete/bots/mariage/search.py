"""The ``search`` Mariage player (level 2).

Open stock: perfect-information Monte Carlo (PIMC). The unseen cards (the opponent's hand and
the face-down stock) are dealt at random consistently with the view and the tracker's memory;
every legal action (play, marriage, close) is tried on each sampled deal and played out to
the end of the hand by a quick policy modelled on the ``rules`` player (it closes, cashes
masters in strict play) on the engine's own :class:`tapete.mariage.State`, finished by the
exact search once 3 cards are left in the strict phase. The ``rules`` player's action is kept
unless another one is better by ``margin`` game points on average over the same deals; actions
that clearly cannot be are screened out as deals accumulate, so close decisions get more deals.

Strict phase (stock exhausted or closed): the exact solver (:mod:`tapete.solver.mariage`)
over sampled deals (:func:`tapete.bots.mariage.rules.strict_choice`). After exhaustion every
card is known (one deal); after a closing the opponent's hand is sampled.

Claims are never searched: claiming as soon as one has 66 is never worse (the opponent's
points and tricks only grow), and a false claim is never better than playing on.
"""

from __future__ import annotations

import random
import time
from typing import Any, Final

from tapete.bots.mariage.rules import mariage_rules_decision, strict_choice, sure_points_of
from tapete.bots.mariage.tracker import MariageInfo, MariageTracker, build_state, sample_mariage
from tapete.bots.reasons import Reason
from tapete.cards import (
    ABOVE,
    CARD_POINTS,
    KING,
    PAIR_MASKS,
    QUEEN,
    SUIT_MASKS,
    TEN,
    Suit,
    bits,
    card_name,
    card_points,
)
from tapete.game import JSON
from tapete.mariage.actions import (
    CLAIM,
    CLOSE,
    DECLINE,
    EXCHANGE,
    PLAYS,
    Action,
    Claim,
    Close,
    Decline,
    Exchange,
    Marriage,
    Play,
    action_from_json,
)
from tapete.mariage.state import STOCK_SIZE, WIN_POINTS, Phase, State, marriage_value
from tapete.solver.mariage import game_value, solve_strict

__all__ = ["MariageSearchBot"]

WIN: Final = WIN_POINTS


# ---------------------------------------------------------------------------- playouts


#: how many standard errors below the margin an action must fall to be dropped from the search
Z_SCREEN: Final = 2.5
#: a closing in a playout when the seat's points and its sure tricks reach this (as ``rules``)
CLOSE_AT: Final = WIN + 6
_STRICT: Final = Phase.STRICT


def _unseen_by(st: State, s: int) -> int:
    """The cards seat ``s`` cannot see in a playout: the other hand and the stock left."""
    m = st.hands[1 - s]
    for c in st.stock[STOCK_SIZE - st.stock_count :]:
        m |= 1 << c
    return m


def _low(m: int) -> int:
    """The lowest card of a non-empty mask."""
    return (m & -m).bit_length() - 1


def _cheapest(hand: int, cards: int, t: int, pair_cost: int, extra: int, off: int) -> int:
    """The card of ``cards`` to spare: no trump (cost 2) and no marriage card (``pair_cost``)
    if possible, then the fewest points (plus ``extra`` for aces and tens), ties at random."""
    best_c = -1
    best_k = 1 << 30
    m = cards
    while m:
        low = m & -m
        m ^= low
        c = low.bit_length() - 1
        su = c >> 3
        r = c & 7
        k = CARD_POINTS[c]
        if r >= TEN:
            k += extra
        if su == t:
            k += 2048
        if r in (KING, QUEEN) and hand & PAIR_MASKS[su] == PAIR_MASKS[su]:
            k += pair_cost * 1024
        k = k * 32 + ((c + off) & 31)
        if k < best_k:
            best_c, best_k = c, k
    return best_c


def _playout_action(st: State, rng: random.Random) -> Action:
    """A quick policy for both seats (used only inside playouts). It plays like the ``rules``
    player: exchange, marriages, a closing when the sure points reach 72, cheap leads,
    taking led points; in strict play it cashes its master cards first. It reads only what
    the seat could know: its hand, the trick, and the cards still out (the other hand and
    the stock together, never which is where)."""
    s = st.turn
    assert s is not None
    hand = st.hands[s]
    t = st.trump
    strict = st.phase is _STRICT
    lead = st.lead_card
    if lead is None:
        if st.points[s] >= WIN and st.trick_number:
            return CLAIM
        if not hand:
            return DECLINE
        pend = st.pending_marriage
        if pend is not None:
            q = pend * 8 + QUEEN
            return PLAYS[q] if hand >> q & 1 else PLAYS[pend * 8 + KING]
        if not strict:
            acts = st.legal_actions()
            best_m: Action | None = None
            can_close = False
            for a in acts:
                if a is EXCHANGE:
                    return a
                if type(a) is Marriage and (best_m is None or a.suit == t):
                    best_m = a
                elif a is CLOSE:
                    can_close = True
            if best_m is not None:
                return best_m
            if can_close and st.points[s] + sure_points_of(hand, t, _unseen_by(st, s)) >= CLOSE_AT:
                return CLOSE
        else:
            out = _unseen_by(st, s)
            best_c = -1
            best_k = -1
            for c in bits(hand):
                su = c >> 3
                safe = su == t or out & SUIT_MASKS[su] or not out & SUIT_MASKS[t]
                if safe and not out & ABOVE[c]:
                    k = CARD_POINTS[c] * 2 + (1 if su == t else 0)
                    if k > best_k:
                        best_c, best_k = c, k
            if best_c >= 0:
                return PLAYS[best_c]
        return PLAYS[_cheapest(hand, hand, t, 2, 0, rng.getrandbits(5))]
    allowed = hand
    if strict:
        allowed = 0
        for a in st.legal_actions():
            allowed |= 1 << a.card  # type: ignore[union-attr]
    lead_pts = CARD_POINTS[lead]
    ls = lead >> 3
    same = allowed & ABOVE[lead]
    if same:
        c = same.bit_length() - 1
        if CARD_POINTS[c] >= 10 or lead_pts >= 3 or strict:
            return PLAYS[c]
    ruff = allowed & SUIT_MASKS[t] if ls != t else 0
    if (same or ruff) and (lead_pts >= 10 or st.points[s] + lead_pts >= WIN - 4):
        cands = [_low(m) for m in (same, ruff) if m]
        return PLAYS[min(cands, key=lambda c: (CARD_POINTS[c], c))]
    return PLAYS[_cheapest(hand, allowed, t, 1, 5, rng.getrandbits(5))]


def _playout(st: State, me: int, rng: random.Random, deadline: float) -> int:
    depth = 0
    while not st.done:
        if st.phase is _STRICT and st.hands[0].bit_count() <= 3:
            try:
                v = solve_strict(st, me, deadline)[0]
            except TimeoutError:
                v = None
            if v is not None:
                for _ in range(depth):
                    st.pop()
                return v
        st.apply(_playout_action(st, rng))
        depth += 1
    v = game_value(st, me)
    for _ in range(depth):
        st.pop()
    return v


class MariageSearchBot:
    """Level 2 (see the module docstring)."""

    name = "search"

    def __init__(self, *, budget: float = 0.8, samples: int = 400, **options: Any) -> None:
        self.budget = float(budget)
        self.samples = int(samples)
        self.margin = float(options.get("margin", 0.15))
        self.min_samples = max(2, int(options.get("min_samples", 40)))
        self.strict_samples = int(options.get("strict_samples", 50))
        self.tracker = MariageTracker()

    def act(self, view: JSON, rng: random.Random) -> Action:
        return self.explain(view, rng)[0]

    def remember(self, view: JSON) -> None:
        """Take in a view seen earlier in the hand without deciding (see ``bots.base``)."""
        self.tracker.update(view)

    def explain(self, view: JSON, rng: random.Random) -> tuple[Action, Reason]:
        legal = [action_from_json(a) for a in view["legal"]]
        if not legal:
            raise ValueError("no legal action in this view")
        info = self.tracker.update(view)
        if len(legal) == 1:
            return legal[0], Reason("only_legal")
        me = info.seat
        claim = next((a for a in legal if isinstance(a, Claim)), None)
        if claim is not None and info.points[me] >= WIN:
            return claim, Reason("claim", {"points": info.points[me]})
        dec = next((a for a in legal if isinstance(a, Decline)), None)
        if dec is not None:
            return dec, Reason("no_claim")
        if claim is not None:
            legal = [a for a in legal if a is not claim and not isinstance(a, Claim)]
        plays = [a for a in legal if isinstance(a, Play)]
        if info.phase == "strict":
            got = strict_choice(
                info, plays, rng, samples=min(self.strict_samples, self.samples), budget=self.budget
            )
            if got is not None:
                return got
            return mariage_rules_decision(info, legal)
        # an exchange never hurts: take it before thinking
        exch = next((a for a in legal if isinstance(a, Exchange)), None)
        if exch is not None:
            return exch, Reason("exchange")
        return self._pimc(info, legal, rng)

    def _pimc(
        self, info: MariageInfo, legal: list[Action], rng: random.Random
    ) -> tuple[Action, Reason]:
        prior, why = mariage_rules_decision(info, legal)
        if prior not in legal:
            prior = legal[0]
        start = time.perf_counter()
        deadline = start + self.budget
        vals: dict[Action, list[int]] = {a: [] for a in legal}
        active = list(legal)
        n = 0
        me = info.seat
        while n < self.samples and time.perf_counter() < deadline:
            opp, stock = sample_mariage(info, rng)
            st = build_state(info, opp, stock)
            seed = rng.random()
            for a in active:
                st.apply(a)
                vals[a].append(_playout(st, me, random.Random(seed), deadline + self.budget))
                st.pop()
            n += 1
            if n >= self.min_samples and n % 10 == 0:
                active = _screen(prior, active, vals, self.margin)
                if len(active) == 1:
                    break
        if n == 0:
            return prior, why
        mean = {a: sum(vals[a]) / len(vals[a]) for a in active}
        best = max(active, key=lambda a: (mean[a], _tiebreak(a)))
        # The playouts are noisy: keep the rules player's choice unless the search finds
        # something clearly better (the best of several noisy averages is biased upwards).
        if mean[best] - mean[prior] < self.margin:
            return prior, why.with_sampled_avg(mean[prior])
        return best, _describe(best, info, mean[best])


def _screen(
    prior: Action, active: list[Action], vals: dict[Action, list[int]], margin: float
) -> list[Action]:
    """The actions that may still beat ``prior`` by ``margin``: an action whose average gain
    over the prior on the same deals is below the margin by 2.5 standard errors is dropped."""
    base = vals[prior]
    n = len(base)
    keep = [prior]
    for a in active:
        if a == prior:
            continue
        d = [x - y for x, y in zip(vals[a], base, strict=True)]
        m = sum(d) / n
        var = sum((x - m) ** 2 for x in d) / (n - 1)
        se = (var / n) ** 0.5
        if m + Z_SCREEN * se >= margin:
            keep.append(a)
    return keep


def _tiebreak(a: Action) -> float:
    if isinstance(a, Play):
        return -card_points(a.card) / 100
    if isinstance(a, Marriage):
        return 1.0
    if isinstance(a, Close):
        return -1.0
    return 0.0


def _describe(a: Action, info: MariageInfo, avg: float) -> Reason:
    if isinstance(a, Marriage):
        v = marriage_value(a.suit, info.trump)
        why = Reason("marriage", {"suit": Suit(a.suit).letter, "value": v})
    elif isinstance(a, Close):
        why = Reason("close_reach")
    elif isinstance(a, Play) and info.lead is not None:
        why = Reason("play_on_lead", {"card": card_name(a.card), "lead": card_name(info.lead)})
    elif isinstance(a, Play):
        why = Reason("lead_card", {"card": card_name(a.card)})
    else:
        why = Reason("safe_legal")  # no other action is searched (exchanges and claims are not)
    return why.with_sampled_avg(avg)
