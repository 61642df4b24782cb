"""The analysis of one Mariage hand: every decision judged from the seat's view and open-handed.

Values are the seat's game points at the end of the hand (+1..3 if it wins, -1..3 if it loses,
0 for a tie).

Expected loss (what the seat knew): the seat's memory of the hand is rebuilt the way the
``search`` player keeps it (:class:`MariageTracker`), the opponent's hand and the stock are
dealt at random consistently with it, and every legal action is scored on the same sampled
deals: with the open stock (and after a closing, until few cards are left) by the ``search``
player's playouts (the same playout seed for every action of a sample); after a closing with
few cards left by the exact search over sampled deals; once the stock is exhausted every card
is known, and the expected loss is the open loss.

Open loss (every card known): an exact alpha-beta search on the true position
(:class:`ExactSearch`), in the strict phase and, with the stock still open, over the actual
stock order once the stock is down to its last trick; the search may visit at most
``open_nodes`` positions per decision (deterministic), and a decision it cannot finish is not
judged (``None``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from tapete.analysis.adapters import (
    MariageInfo,
    MariageTracker,
    mariage_playout,
    mariage_solve_strict,
    mariage_state,
    sample_mariage,
)
from tapete.analysis.core import Budget, Decision, decision_rng, grade, seat_totals
from tapete.cards import card_points, parse_card
from tapete.game import JSON, Game
from tapete.mariage.actions import DECLINE, Action, Claim, action_from_json
from tapete.mariage.game import MariageGame
from tapete.mariage.state import Phase, State

__all__ = [
    "LEAST",
    "PHASE_WORDS",
    "THRESHOLDS",
    "UNIT",
    "ExactSearch",
    "MariageSettings",
    "OutOfNodes",
    "amount",
    "analyse_finished",
    "analyse_mariage_deal",
    "headline",
]

#: the least ``expected_loss`` for each label (inaccuracy, mistake, blunder), in game points
#: (a hand is worth 1 to 3)
THRESHOLDS: Final = (0.2, 0.5, 1.0)
#: the unit of the losses in the readable report, and the least loss it shows (what rounds
#: to a tenth of a game point)
UNIT: Final = "game points"
LEAST: Final = 0.05
#: every decision of a hand has a trick number: no phase needs words
PHASE_WORDS: Final[Mapping[str, str]] = {}

#: points that allow a claim
_WIN = 66


@dataclass(frozen=True)
class MariageSettings:
    """How many sampled deals each decision is judged on, and how far the open search goes."""

    open_samples: int = 40
    strict_samples: int = 8
    #: the expected loss is searched exactly once the stock is exhausted (every card is then
    #: known) and, after a closing, over ``strict_samples`` deals with at most this many cards
    #: in hand; otherwise it is played out
    exact_cards: int = 4
    #: the exact search with the stock still open is tried only with this many cards left in it
    open_stock_cards: int = 4
    #: the positions the open-hand search may visit for one decision (all its alternatives)
    open_nodes: int = 60_000


def _signed(st: State, me: int) -> int:
    r = st.result
    assert r is not None
    if r.winner is None:
        return 0
    return r.game_points if r.winner == me else -r.game_points


def _moves(st: State) -> list[Action]:
    """The actions worth searching: a claim as soon as it is correct, never a false one (a
    correct claim is never worse than playing on: the opponent's points only grow)."""
    acts = st.legal_actions()
    if st.lead_card is not None:
        return acts
    s = st.turn
    assert s is not None
    if st.points[s] >= _WIN and st.trick_number:
        return [a for a in acts if isinstance(a, Claim)] or acts
    return [a for a in acts if not isinstance(a, Claim)] or acts


class OutOfNodes(Exception):
    """The exact search reached its node allowance."""


def _key(st: State) -> tuple[object, ...]:
    """Everything the rest of a hand depends on (for the search's table)."""
    return (
        st.hands[0],
        st.hands[1],
        st.points[0],
        st.points[1],
        st.tricks[0] > 0,
        st.tricks[1] > 0,
        st.trick_number > 0,
        st.turn,
        st.lead_card,
        st.stock_count,
        st.stock[-1] if st.stock_count else None,
        st.closed_by,
        st.closed_position,
        st.pending_marriage,
    )


def _ordered(acts: list[Action]) -> list[Action]:
    def key(a: Action) -> int:
        card = getattr(a, "card", None)
        return -100 if card is None else -card_points(card)

    return sorted(acts, key=key)


class ExactSearch:
    """Alpha-beta with a table over the engine state, every card known (the true stock order
    included), for one seat's game points; at most ``nodes`` positions in all, so that it is
    deterministic and bounded (:class:`OutOfNodes` past that)."""

    def __init__(self, me: int, nodes: int) -> None:
        self.me = me
        self.left = nodes
        self.table: dict[tuple[object, ...], tuple[int, int]] = {}

    def value(self, st: State) -> int:
        return self._ab(st, -3, 3)

    def _ab(self, st: State, alpha: int, beta: int) -> int:
        if st.done:
            return _signed(st, self.me)
        self.left -= 1
        if self.left < 0:
            raise OutOfNodes
        key = _key(st)
        lo, hi = self.table.get(key, (-3, 3))
        if lo >= beta or lo == hi:
            return lo
        if hi <= alpha:
            return hi
        alpha, beta = max(alpha, lo), min(beta, hi)
        a0, b0 = alpha, beta
        maxing = st.turn == self.me
        best = -99 if maxing else 99
        for a in _ordered(_moves(st)):
            st.apply(a)
            try:
                v = self._ab(st, alpha, beta)
            finally:
                st.pop()
            if maxing:
                best = max(best, v)
                alpha = max(alpha, v)
            else:
                best = min(best, v)
                beta = min(beta, v)
            if alpha >= beta:
                break
        if best <= a0:
            self.table[key] = (lo, best)
        elif best >= b0:
            self.table[key] = (best, hi)
        else:
            self.table[key] = (best, best)
        return best


def _losses(values: dict[Action, float]) -> dict[Action, float]:
    top = max(values.values())
    return {a: top - v for a, v in values.items()}


class _HandAnalysis:
    def __init__(
        self,
        game: MariageGame,
        actions: list[Action],
        deal: int,
        seed: int,
        quick: bool,
        budget: Budget,
        settings: MariageSettings,
        seats: set[int] | None,
    ) -> None:
        self.game = game
        self.actions = actions
        self.deal = deal
        self.seed = seed
        self.quick = quick
        self.budget = budget
        self.settings = settings
        self.seats = seats
        self.trackers = (MariageTracker(), MariageTracker())
        self.decisions: list[Decision] = []
        self.curve: list[int | None] = []

    def _open(self, st: State, search: ExactSearch) -> int | None:
        if st.phase is Phase.OPEN and st.stock_count > self.settings.open_stock_cards:
            return None
        try:
            return search.value(st)
        except OutOfNodes:
            return None

    def _curve_point(self, st: State) -> None:
        """Seat 0's open-hand value at a trick boundary (None where it is not searched)."""
        search = ExactSearch(0, self.settings.open_nodes)
        self.curve.append(_signed(st, 0) if st.done else self._open(st, search))

    def run(self) -> None:
        st = self.game.state
        steps: list[tuple[int | None, Action]] = list(enumerate(self.actions))
        i = 0
        tricks = -1
        while not st.done:
            if st.lead_card is None and st.trick_number != tricks:
                tricks = st.trick_number
                self._curve_point(st)
            if i < len(steps):
                index, action = steps[i]
                i += 1
            else:
                # a closed hand whose last trick's winner did not claim (records omit it)
                index, action = None, DECLINE
            seat = st.turn
            assert seat is not None
            infos = [self.trackers[s].update(self.game.view(s)) for s in (0, 1)]
            legal = st.legal_actions()
            if len(legal) > 1 and (self.seats is None or seat in self.seats):
                self._judge(index, seat, action, st, legal, infos[seat])
            self.game.apply(action)
        self._curve_point(st)

    def _judge(
        self,
        index: int | None,
        seat: int,
        action: Action,
        st: State,
        legal: list[Action],
        info: MariageInfo,
    ) -> None:
        d = Decision(
            index=index,
            seat=seat,
            action=action.to_json(),
            phase=st.phase.value,
            trick=st.trick_number + 1,
        )
        # open-handed, on the true position (applied and undone)
        open_vals: dict[Action, float] = {}
        search = ExactSearch(seat, self.settings.open_nodes)
        for a in legal:
            st.apply(a)
            try:
                v = self._open(st, search)
            finally:
                st.pop()
            if v is None:
                open_vals = {}
                break
            open_vals[a] = v
        open_best: Action | None = None
        if open_vals:
            ol = _losses(open_vals)
            d.open_loss = ol[action]
            open_best = min(ol, key=lambda a: ol[a])
        known = st.phase is Phase.STRICT and not st.closed  # exhausted: every card is known
        if not self.quick and self.budget.left():
            # with every card known the seat's own judgement is the open-hand one
            ex = _losses(open_vals) if known and open_vals else None
            if ex is None:
                ex = self._expected(st, seat, legal, info, index)
            if ex is not None:
                d.expected_loss = ex[action]
                best = min(ex, key=lambda a: ex[a])
                d.best = best.to_json() if d.expected_loss > 0 else None
        if d.expected_loss is None and d.open_loss and open_best is not None:
            d.best = open_best.to_json()
        loss = d.expected_loss if d.expected_loss is not None else d.open_loss
        d.label = grade(THRESHOLDS, loss)
        self.decisions.append(d)

    def _expected(
        self,
        st: State,
        seat: int,
        legal: list[Action],
        info: MariageInfo,
        index: int | None,
    ) -> dict[Action, float] | None:
        rng = decision_rng(self.seed, self.deal, -1 if index is None else index)
        # the exact search once few cards are left, playouts before (as the search player)
        strict = st.phase is Phase.STRICT
        known = strict and not st.closed  # stock exhausted: every card is known
        small = known or (strict and st.hands[seat].bit_count() <= self.settings.exact_cards)
        n = 1 if known else self.settings.strict_samples if small else self.settings.open_samples
        if st.phase is Phase.OPEN and st.stock_count <= self.settings.open_stock_cards:
            got = self._expected_exact(seat, legal, info, rng)
            if got is not None:
                return got
        totals: dict[Action, float] = dict.fromkeys(legal, 0.0)
        never = float("inf")  # no deadline: the same samples always give the same values
        for _ in range(n):
            opp, stock = sample_mariage(info, rng)
            sample = mariage_state(info, opp, stock)
            playout_seed = rng.random()
            for a in legal:
                sample.apply(a)
                try:
                    if sample.done:
                        v = _signed(sample, seat)
                    elif small:
                        v = mariage_solve_strict(sample, seat, None)[0]
                    else:
                        v = mariage_playout(sample, seat, random.Random(playout_seed), never)
                finally:
                    sample.pop()
                totals[a] += v
        return _losses({a: t / n for a, t in totals.items()})

    def _expected_exact(
        self, seat: int, legal: list[Action], info: MariageInfo, rng: random.Random
    ) -> dict[Action, float] | None:
        """Near the end of the open stock: the exact search on each of ``strict_samples``
        sampled deals (few cards are unseen then), within twice the open search's allowance
        for the whole decision; None if it runs out."""
        left = 2 * self.settings.open_nodes
        n = self.settings.strict_samples
        totals: dict[Action, float] = dict.fromkeys(legal, 0.0)
        for _ in range(n):
            opp, stock = sample_mariage(info, rng)
            sample = mariage_state(info, opp, stock)
            search = ExactSearch(seat, left)
            for a in legal:
                sample.apply(a)
                try:
                    totals[a] += search.value(sample)
                except OutOfNodes:
                    return None
                finally:
                    sample.pop()
            left = search.left
        return _losses({a: t / n for a, t in totals.items()})


def analyse_mariage_deal(
    players: list[str],
    deal_json: JSON,
    *,
    deal: int,
    seed: int = 0,
    quick: bool = False,
    budget: float | None = 10.0,
    settings: MariageSettings | None = None,
    seats: set[int] | None = None,
) -> JSON:
    """The report of one finished Mariage hand given in record form (already replayed)."""
    hands = [[parse_card(c) for c in h] for h in deal_json["hands"]]
    stock = [parse_card(c) for c in deal_json["stock"]]
    game = MariageGame(
        players=players, max_deals=1, deals=[(hands, stock)], first_dealer=deal_json["dealer"]
    )
    actions = [action_from_json(a) for a in deal_json["actions"]]
    clock = Budget(budget)
    work = _HandAnalysis(
        game, actions, deal, seed, quick, clock, settings or MariageSettings(), seats
    )
    work.run()
    return {
        "deal": deal,
        "open_values": work.curve,
        "decisions": [x.to_json() for x in work.decisions],
        "seats": seat_totals(work.decisions, 2),
        "result": deal_json.get("result"),
        "complete": not clock.exhausted,
    }


# ---------------------------------------------------------------------------- the kind's hooks
# (tapete.analysis.core.GameAnalysis: the generic report, text and command ask these)


def analyse_finished(
    record: JSON,
    game: Game,
    deal: int,
    *,
    seed: int,
    quick: bool,
    budget: float | None,
    seats: set[int] | None,
) -> JSON:
    """:func:`analyse_mariage_deal` on finished hand ``deal`` of ``game`` (replayed from
    ``record``)."""
    assert isinstance(game, MariageGame)
    return analyse_mariage_deal(
        list(record["players"]),
        game.finished[deal],
        deal=deal,
        seed=seed,
        quick=quick,
        budget=budget,
        seats=seats,
    )


def amount(x: float) -> str:
    """A loss in words: ``about 0.5 game points``."""
    return f"about {x:.1f} game point{'s' if round(x, 1) != 1 else ''}"


def headline(report: JSON) -> list[str]:
    """Who won the hand, how many game points, why, and the card points."""
    players = report["players"]
    r = report.get("result") or {}
    w = r.get("winner")
    who = "a tie" if w is None else f"{players[w]} won {r.get('game_points')} game point(s)"
    reason = str(r.get("reason"))
    why = _WHY.get(reason, reason)  # (the record's key: false_claim)
    return [f"  {who} ({why}), points {r.get('points')}"]


#: why a hand ended, in words (``result.reason`` in records is a key)
_WHY = {
    "claim": "a correct claim of 66",
    "false_claim": "a false claim",
    "closer_failed": "the closer failed",
    "opponent_claimed_after_close": "the closer's opponent claimed first",
    "exhausted": "the cards ran out",
    "tie": "the cards ran out with equal points",
}
