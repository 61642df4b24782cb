"""The ``search`` Mariage player (level 2) and the exact strict-phase search.

Open stock: perfect-information Monte Carlo (PIMC). The unseen cards (the opponent's hand and
the face-down stock) are dealt at random consistently with the view and the tracker's memory;
every legal action (play, marriage, close) is tried on each sampled deal and played out to
the end of the hand by a quick policy modelled on the ``rules`` player (it closes, cashes
masters in strict play) on the engine's own :class:`tapete.mariage.State`, finished by the
exact search once 3 cards are left in the strict phase. The ``rules`` player's action is kept
unless another one is better by ``margin`` game points on average over the same deals; actions
that clearly cannot be are screened out as deals accumulate, so close decisions get more deals.

Strict phase (stock exhausted or closed): exact alpha-beta on game points over the engine
state. After exhaustion every card is known (one deal); after a closing the opponent's hand is
sampled.

Claims are never searched: claiming as soon as one has 66 is never worse (the opponent's
points and tricks only grow), and a false claim is never better than playing on.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any, Final

from tapete.bots.base import parse_action
from tapete.bots.mariage_rules import mariage_rules_decision, sure_points_of
from tapete.bots.reasons import Reason
from tapete.bots.sampling import MariageInfo, MariageTracker, sample_mariage
from tapete.cards import (
    ABOVE,
    CARD_POINTS,
    KING,
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
)
from tapete.mariage.state import Phase, State

__all__ = ["MariageSearchBot", "build_state", "solve_strict", "strict_choice"]

WIN: Final = 66
PAIR_MASKS: Final = tuple((1 << (s * 8 + KING)) | (1 << (s * 8 + QUEEN)) for s in range(4))


def build_state(info: MariageInfo, opp_hand: int, stock: list[int]) -> State:
    """An engine state for the position of ``info`` with the sampled hidden cards
    (``stock``: the cards left in the stock, next to be drawn first)."""
    me = info.seat
    closed_by: int | None = None
    closed_position = (0, 0)
    if info.closed:
        closed_by = info.closed_by if info.closed_by is not None else me
        o = 1 - closed_by
        closed_position = info.closed_opp or (info.points[o], info.tricks_won[o])
    return State.from_position(
        hands=(info.hand, opp_hand) if me == 0 else (opp_hand, info.hand),
        stock=stock,
        trump=info.trump,
        leader=info.leader,
        lead=info.lead,
        points=info.points,
        tricks=info.tricks_won,
        closed_by=closed_by,
        closed_position=closed_position,
        pending_marriage=info.pending,
    )


def _value(st: State, me: int) -> int:
    r = st.result
    assert r is not None
    if r.winner is None:
        return 0
    return r.game_points if r.winner == me else -r.game_points


def _search_moves(st: State) -> list[Action]:
    """The moves worth searching: a claim as soon as it is correct, never a false one."""
    if st.lead_card is not None:
        return st.legal_actions()
    s = st.turn
    assert s is not None
    if st.points[s] >= WIN and st.trick_number:
        return [CLAIM]
    acts = [a for a in st.legal_actions() if type(a) is not Claim]
    return acts or [CLAIM]


def solve_strict(st: State, me: int, deadline: float | None = None) -> tuple[int, Action | None]:
    """Exact game-point value for ``me`` of a strict-phase position, and the best move."""
    memo: dict[tuple[int, ...], int] = {}

    def ab(alpha: int, beta: int) -> int:
        if st.done:
            return _value(st, me)
        s = st.turn
        assert s is not None
        lead = st.lead_card
        key = (
            st.hands[0],
            st.hands[1],
            st.points[0],
            st.points[1],
            min(st.tricks[0], 1),
            min(st.tricks[1], 1),
            s,
            -1 if lead is None else lead,
        )
        hit = memo.get(key)
        if hit is not None:
            return hit
        if deadline is not None and time.perf_counter() > deadline:
            raise TimeoutError
        maxing = s == me
        best = -99 if maxing else 99
        a0, b0 = alpha, beta
        for a in _order(st, _search_moves(st)):
            st.apply(a)
            v = ab(alpha, beta)
            st.pop()
            if maxing:
                if v > best:
                    best = v
                alpha = max(alpha, v)
            else:
                if v < best:
                    best = v
                beta = min(beta, v)
            if alpha >= beta:
                break
        if a0 < best < b0:
            memo[key] = best
        return best

    if st.done:
        return _value(st, me), None
    depth = len(st.history)
    best_v = -99
    best_a: Action | None = None
    try:
        for a in _order(st, _search_moves(st)):
            st.apply(a)
            v = ab(best_v, 99)
            st.pop()
            if v > best_v:
                best_v, best_a = v, a
    except TimeoutError:
        while len(st.history) > depth:
            st.pop()
        raise
    return best_v, best_a


def _order(st: State, acts: list[Action]) -> list[Action]:
    if len(acts) < 3:
        return acts
    return sorted(acts, key=lambda a: -card_points(a.card) if type(a) is Play else -100)


def _root_values(
    st: State, me: int, acts: list[Action], deadline: float | None
) -> dict[Action, int]:
    out: dict[Action, int] = {}
    for a in acts:
        st.apply(a)
        v = solve_strict(st, me, deadline)[0] if not st.done else _value(st, me)
        st.pop()
        out[a] = v
    return out


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
            vals = _root_values(st, info.seat, list(plays), deadline)
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


# ---------------------------------------------------------------------------- playouts


#: how many standard errors below the margin an action must fall to be dropped from the search
Z_SCREEN: Final = 2.5
#: a closing in a playout when the seat's points and its sure tricks reach this (as ``rules``)
CLOSE_AT: Final = WIN + 6
_STRICT: Final = Phase.STRICT


def _unseen_by(st: State, s: int) -> int:
    """The cards seat ``s`` cannot see in a playout: the other hand and the stock left."""
    m = st.hands[1 - s]
    for c in st.stock[20 - st.stock_count :]:
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
    v = _value(st, me)
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
        legal = [parse_action("mariage", a) for a in view["legal"]]
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
        v = 40 if a.suit == info.trump else 20
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


_: Callable[..., Any] = bits
