"""The analysis of one Mil deal: every decision judged from the seat's view and open-handed.

Expected loss (what the seat knew): the hidden cards are dealt at random consistently with the
seat's view, the way the ``search`` player samples them, and every alternative is scored on the
same sampled deals with the exact open-hand solver.

- Card play: each sampled deal is solved for every legal card (``best_moves``). For the
  declarer an alternative is better first by the number of deals in which it makes the
  contract, then by the average raw points; the defence the other way round. The loss is
  ``2 * contract * (difference in the share of deals made)`` when the shares differ, else the
  difference in the declarer's average raw points.
- Bids: the seat's hand plus the sampled talon is solved as declarer (the ``rules`` player's
  two gifts); bidding ``b`` is worth the best ``c * (2 * p(c) - 1)`` over the contracts
  ``c >= b`` it could still play (``p(c)``: the share of deals with ``c`` or more), passing is
  worth what a defender expects to score (the ``search`` player's constant).
- The talon (gifts, rospis, a low-talon redeal) and the contract: the two gifts are tried on
  the same sampled defenders' hands (the cards the ``rules`` player parts with most readily,
  plus the cards actually given), each pair worth the best contract it allows, as above;
  rospis is worth minus the bid, a redeal 0.

Open loss (every card known): the exact solver on the true position, from the first lead on,
with the same ordering (made first, then points), so that failing a makeable contract costs
twice the contract.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from tapete.analysis.adapters import (
    MIL_DEFENDER_VALUE,
    MilInfo,
    mil_best_gives,
    mil_info,
    mil_keep_value,
    sample_mil,
)
from tapete.analysis.core import Budget, Decision, decision_rng, grade, seat_totals
from tapete.analysis.text import card_words
from tapete.cards import bits, card_name
from tapete.game import JSON, Game
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
)
from tapete.mil.game import MilGame
from tapete.mil.record import standing_from_start
from tapete.mil.scoring import DealResult, Standing
from tapete.mil.state import Phase, State
from tapete.solver import MilPosition, best_moves, solve
from tapete.solver.command import position_from_state

__all__ = [
    "LEAST",
    "PHASE_WORDS",
    "THRESHOLDS",
    "UNIT",
    "MilSettings",
    "amount",
    "analyse_finished",
    "analyse_mil_deal",
    "headline",
    "mil_open_values",
]

#: the least ``expected_loss`` for each label (inaccuracy, mistake, blunder), in deal-score
#: points, where one contract of 120 lost is 240
THRESHOLDS: Final = (10.0, 25.0, 60.0)
#: the unit of the losses in the readable report, and the least loss it shows (what rounds
#: to a point)
UNIT: Final = "points"
LEAST: Final = 0.5
#: where a decision before the card play was taken, in words
PHASE_WORDS: Final[Mapping[str, str]] = {
    "bidding": "in the bidding",
    "talon": "with the talon",
    "give": "with the talon",
    "contract": "at the contract",
}

#: a sampled deal the sampler could not complete is retried this many times
_RETRIES: Final = 4


@dataclass(frozen=True)
class MilSettings:
    """How many sampled deals each kind of decision is judged on."""

    bid_samples: int = 24
    give_samples: int = 12
    #: the cards tried as gifts: this many the ``rules`` player parts with first, plus the
    #: cards actually given
    give_candidates: int = 5
    contract_samples: int = 24
    play_samples: int = 32


def _solver_profile(name: str) -> str:
    return "club" if name == "club" else "casa"


def _samples(info: MilInfo, rng: random.Random, n: int) -> list[list[int]]:
    out: list[list[int]] = []
    misses = 0
    while len(out) < n and misses < _RETRIES * n:
        s = sample_mil(info, rng)
        if s is None:
            misses += 1
            continue
        out.append(s)
    return out


def _ev(values: list[int], contract: int) -> float:
    """The declarer's expected deal score at ``contract``: +c made, -c failed."""
    p = sum(1 for v in values if v >= contract) / len(values)
    return contract * (2 * p - 1)


def _best_ev(values: list[int], low: int, high: int, step: int) -> tuple[float, int]:
    best = (-1e9, low)
    for c in range(low, high + 1, step):
        e = _ev(values, c)
        if e > best[0]:
            best = (e, c)
    return best


# ---------------------------------------------------------------------------- card play


def play_losses(
    samples: Iterable[list[tuple[int, bool, int]]], contract: int, declarer_side: bool
) -> tuple[dict[tuple[int, bool], float], tuple[int, bool]]:
    """Losses of every move over solved samples (each a ``best_moves`` list) and the best
    move: made first, then points (see the module docstring)."""
    made: dict[tuple[int, bool], int] = {}
    pts: dict[tuple[int, bool], int] = {}
    n = 0
    for moves in samples:
        n += 1
        for card, announce, value in moves:
            k = (card, announce)
            made[k] = made.get(k, 0) + (value >= contract)
            pts[k] = pts.get(k, 0) + value
    sign = 1 if declarer_side else -1
    best = max(made, key=lambda k: (sign * made[k], sign * pts[k], -k[0], k[1]))
    out = {}
    for k in made:
        if made[k] != made[best]:
            out[k] = 2 * contract * abs(made[best] - made[k]) / n
        else:
            out[k] = sign * (pts[best] - pts[k]) / n
    return out, best


def _sampled_position(info: MilInfo, hands: list[int]) -> MilPosition:
    assert info.declarer is not None
    return MilPosition(
        hands=(hands[0], hands[1], hands[2]),
        declarer=info.declarer,
        leader=info.leader if info.leader is not None else info.seat,
        trick=tuple(info.trick),
        trump=info.trump if info.trump >= 0 else None,
        points=(info.points[0], info.points[1], info.points[2]),
        tricks_played=info.tricks_played,
        profile=_solver_profile(info.profile.name),
    )


# ---------------------------------------------------------------------------- the deal


class _DealAnalysis:
    def __init__(
        self,
        game: MilGame,
        done: State,
        deal: int,
        seed: int,
        quick: bool,
        budget: Budget,
        settings: MilSettings,
        seats: set[int] | None,
    ) -> None:
        self.game = game
        self.done = done
        self.deal = deal
        self.seed = seed
        self.quick = quick
        self.budget = budget
        self.settings = settings
        self.seats = seats
        self.profile = done.profile
        self.bid_outlook: dict[int, list[int]] = {}
        #: (card to the left, card to the right) -> the declarer's value on each sample
        self.give_values: dict[tuple[int, int], list[int]] = {}
        self.give_samples: list[list[int]] = []
        self.talon_state: State | None = None
        self.decisions: list[Decision] = []

    # ------------------------------------------------------------------ stepping
    def run(self) -> None:
        game = self.game
        index = 0
        for seat, action in self.done.history:
            st = game.state
            assert st is not None and st.turn == seat
            recorded = not isinstance(action, KeepDeal)
            legal = st.legal_actions()
            if recorded and len(legal) > 1 and (self.seats is None or seat in self.seats):
                self._judge(index, seat, action, st, legal)
            game.apply(action)
            if recorded:
                index += 1

    def _judge(
        self, index: int, seat: int, action: MilAction, st: State, legal: list[MilAction]
    ) -> None:
        phase = st.phase
        d = Decision(index=index, seat=seat, action=action.to_json(), phase=phase.value)
        if st.declarer >= 0:
            d.side = "declarer" if seat == st.declarer else "defence"
        expect = not self.quick and self.budget.left()
        rng = decision_rng(self.seed, self.deal, index)
        losses: dict[MilAction, float] | None = None
        if phase is Phase.PLAY:
            d.trick = len(st.tricks) + 1
            assert isinstance(action, Play)
            self._open_play(d, st, action)
            if expect:
                losses = self._expected_play(st, seat, legal, rng)
        elif expect and phase is Phase.BIDDING:
            losses = self._expected_bid(st, seat, legal, rng)
        elif expect and phase in (Phase.TALON, Phase.GIVE):
            losses = self._expected_talon(st, seat, legal, rng)
        elif expect and phase is Phase.CONTRACT:
            losses = self._expected_contract(st, seat, legal, rng)
        if losses is not None and action in losses:
            best = min(losses, key=lambda a: losses[a])
            d.expected_loss = max(0.0, losses[action])
            d.best = best.to_json() if d.expected_loss > 0 else None
        elif d.open_loss:
            d.best = d.extra.get("open_best")
        # judged on what the seat knew; open-handed only when that was not judged
        d.label = grade(THRESHOLDS, d.expected_loss if d.expected_loss is not None else d.open_loss)
        self.decisions.append(d)

    # ------------------------------------------------------------------ play
    def _open_play(self, d: Decision, st: State, action: Play) -> None:
        pos = position_from_state(st)
        losses, best = play_losses([best_moves(pos)], st.contract, d.side == "declarer")
        d.open_loss = max(0.0, losses[(action.card, action.marriage)])
        if d.open_loss > 0:
            d.extra["open_best"] = Play(best[0], best[1]).to_json()

    def _expected_play(
        self, st: State, seat: int, legal: list[MilAction], rng: random.Random
    ) -> dict[MilAction, float] | None:
        info = mil_info(self.game.view(seat))
        hands = _samples(info, rng, self.settings.play_samples)
        if not hands:
            return None
        solved = [best_moves(_sampled_position(info, h)) for h in hands]
        losses, _ = play_losses(solved, st.contract, seat == st.declarer)
        return {a: losses[(a.card, a.marriage)] for a in legal if isinstance(a, Play)}

    # ------------------------------------------------------------------ bidding
    def _outlook(self, info: MilInfo, rng: random.Random) -> list[int]:
        """Declarer points over sampled deals if ``info.seat`` took the talon now."""
        seat = info.seat
        out = []
        prof = _solver_profile(self.profile.name)
        left, right = (seat + 1) % 3, (seat + 2) % 3
        for s in _samples(info, rng, self.settings.bid_samples):
            h = [s[0], s[1], s[2]]
            mine = h[seat] | s[3]
            g = mil_best_gives(mine)
            h[seat] = mine & ~((1 << g[0]) | (1 << g[1]))
            h[left] |= 1 << g[0]
            h[right] |= 1 << g[1]
            out.append(solve(MilPosition((h[0], h[1], h[2]), seat, seat, profile=prof)))
        return out

    def _expected_bid(
        self, st: State, seat: int, legal: list[MilAction], rng: random.Random
    ) -> dict[MilAction, float] | None:
        values = self.bid_outlook.get(seat)
        if values is None:
            # the seat's hand does not change during the auction: one outlook per seat
            info = mil_info(self.game.view(seat))
            values = self._outlook(info, decision_rng(self.seed, self.deal, seat, "bid"))
            self.bid_outlook[seat] = values
        if not values:
            return None
        p = self.profile
        top = st.bid_limit(seat)
        low_contract = 0
        if p.barrel == "club" and st.in_barrel[seat]:
            low_contract = p.barrel_min_contract
        worth: dict[MilAction, float] = {}
        for a in legal:
            if isinstance(a, Bid):
                lo = max(a.value, low_contract)
                worth[a] = _best_ev(values, lo, max(lo, top), p.step)[0]
            elif isinstance(a, Pass):
                worth[a] = float(MIL_DEFENDER_VALUE)
        return _losses(worth)

    # ------------------------------------------------------------------ talon and contract
    def _contract_range(self, st: State, left_card: int, right_card: int) -> tuple[int, int]:
        if self.talon_state is None:
            self.talon_state = at_talon(self.done)
        assert self.talon_state is not None
        return contract_range_after(self.talon_state, left_card, right_card)

    def _give_value(self, st: State, hand: int, pair: tuple[int, int]) -> list[int]:
        got = self.give_values.get(pair)
        if got is not None:
            return got
        d = st.declarer
        left, right = (d + 1) % 3, (d + 2) % 3
        prof = _solver_profile(self.profile.name)
        out = []
        for s in self.give_samples:
            h = [s[0], s[1], s[2]]
            h[d] = hand & ~((1 << pair[0]) | (1 << pair[1]))
            h[left] |= 1 << pair[0]
            h[right] |= 1 << pair[1]
            out.append(solve(MilPosition((h[0], h[1], h[2]), d, d, profile=prof)))
        self.give_values[pair] = out
        return out

    def _pair_worth(self, st: State, hand: int, pair: tuple[int, int]) -> float:
        low, high = self._contract_range(st, *pair)
        return _best_ev(self._give_value(st, hand, pair), low, high, self.profile.step)[0]

    def _expected_talon(
        self, st: State, seat: int, legal: list[MilAction], rng: random.Random
    ) -> dict[MilAction, float] | None:
        d = st.declarer
        left = (d + 1) % 3
        if not self.give_samples:
            info = mil_info(self.game.view(seat))
            self.give_samples = _samples(info, rng, self.settings.give_samples)
            if not self.give_samples:
                return None
        given = dict((to, c) for c, to in st.gives)
        hand = st.hands[d] | sum(1 << c for c in given.values())
        planned = {c for c, _ in self.done.gives}
        cards = sorted(bits(st.hands[d]), key=lambda c: (mil_keep_value(c, hand), c))
        cands = (set(cards[: self.settings.give_candidates]) | planned) & set(cards)
        worth: dict[MilAction, float] = {}
        for a in legal:
            if isinstance(a, Give):
                if given:
                    # the second gift: the first is fixed, any card may follow
                    first = next(iter(given.items()))
                    pair = (first[1], a.card) if first[0] == left else (a.card, first[1])
                    worth[a] = self._pair_worth(st, hand, pair)
                elif a.card in cands:
                    best = -1e9
                    for other in cands - {a.card}:
                        pair = (a.card, other) if a.to == left else (other, a.card)
                        best = max(best, self._pair_worth(st, hand, pair))
                    worth[a] = best
            elif isinstance(a, Rospis):
                worth[a] = -float(st.bid)
            elif isinstance(a, Redeal):
                worth[a] = 0.0
        return _losses(worth) if worth else None

    def _expected_contract(
        self, st: State, seat: int, legal: list[MilAction], rng: random.Random
    ) -> dict[MilAction, float] | None:
        d = st.declarer
        left = (d + 1) % 3
        to = dict((t, c) for c, t in st.gives)
        pair = (to[left], to[(d + 2) % 3])
        values = self.give_values.get(pair) if self.give_samples else None
        if values is None:
            info = mil_info(self.game.view(seat))
            prof = _solver_profile(self.profile.name)
            values = [
                solve(MilPosition((h[0], h[1], h[2]), d, d, profile=prof))
                for h in _samples(info, rng, self.settings.contract_samples)
            ]
        if not values:
            return None
        worth: dict[MilAction, float] = {
            a: _ev(values, a.value) for a in legal if isinstance(a, Contract)
        }
        return _losses(worth)


def _losses(worth: dict[MilAction, float]) -> dict[MilAction, float]:
    top = max(worth.values())
    return {a: top - v for a, v in worth.items()}


# ---------------------------------------------------------------------------- deal facts


def mil_open_values(done: State) -> list[int]:
    """The declarer's open-hand final raw points before the first lead and after every
    trick as played (the last one is the raw total); ``[]`` without card play."""
    if done.annulled or done.rospis or done.declarer < 0:
        return []
    st = State(done.profile, done.dealer, done.dealt_hands, done.dealt_talon, done.in_barrel)
    out: list[int] = []
    history = list(done.history)
    i = 0
    while True:
        if st.phase in (Phase.PLAY, Phase.DONE) and not st.trick and len(out) == len(st.tricks):
            out.append(solve(position_from_state(st)))
            if len(out) == 9 or st.done:
                break
        st.apply(history[i][1])
        i += 1
    return out


def at_talon(done: State) -> State | None:
    """A fresh engine state of ``done``'s deal when its declarer has just taken the talon
    (None if the deal never got there)."""
    st = State(done.profile, done.dealer, done.dealt_hands, done.dealt_talon, done.in_barrel)
    for _, a in done.history:
        if st.phase is Phase.TALON or st.done:
            break
        st.apply(a)
    return st if st.phase is Phase.TALON else None


def contract_range_after(talon: State, left_card: int, right_card: int) -> tuple[int, int]:
    """The contracts the engine allows after these two gifts from the talon-phase state
    ``talon`` (pushed and undone; the range depends only on the declarer's own hand)."""
    d = talon.declarer
    talon.push(Give(left_card, (d + 1) % 3))
    talon.push(Give(right_card, (d + 2) % 3))
    low, high = talon.contract_range()
    talon.pop()
    talon.pop()
    return low, high


def _talon_facts(done: State) -> JSON:
    """What the talon held and the best contract the declarer could have made open-handed
    with it (every pair of gifts tried, every hand known)."""
    talon = [card_name(c) for c in done.dealt_talon]
    facts: JSON = {"talon": talon, "best_contract": None, "best_gives": None, "bid_makeable": None}
    d = done.declarer
    if d < 0:
        return facts
    st = at_talon(done)
    if st is None:
        return facts
    left, right = (d + 1) % 3, (d + 2) % 3
    hand = st.hands[d]
    prof = _solver_profile(done.profile.name)
    best_c: int | None = None
    best_pair: tuple[int, int] | None = None
    top_value = -1
    step = done.profile.step
    cards = list(bits(hand))
    for a in cards:
        for b in cards:
            if a == b:
                continue
            h = list(st.hands)
            h[d] = hand & ~((1 << a) | (1 << b))
            h[left] |= 1 << a
            h[right] |= 1 << b
            v = solve(MilPosition((h[0], h[1], h[2]), d, d, profile=prof))
            top_value = max(top_value, v)
            low, high = contract_range_after(st, a, b)
            made = [c for c in range(low, high + 1, step) if c <= v]
            if made and (best_c is None or made[-1] > best_c):
                best_c, best_pair = made[-1], (a, b)
    facts["best_contract"] = best_c
    if best_pair is not None:
        facts["best_gives"] = [
            {"card": card_name(best_pair[0]), "to": left},
            {"card": card_name(best_pair[1]), "to": right},
        ]
    facts["bid_makeable"] = top_value >= done.bid
    facts["open_best_value"] = top_value
    return facts


def analyse_mil_deal(
    players: list[str],
    done: State,
    result: DealResult,
    standing: Standing,
    *,
    deal: int,
    seed: int = 0,
    quick: bool = False,
    budget: float | None = 10.0,
    settings: MilSettings | None = None,
    seats: set[int] | None = None,
) -> JSON:
    """The report of one finished Mil deal (``done``: its final engine state; ``standing``:
    the counts before it, for the barrel rules)."""
    game = MilGame(
        done.profile,
        players=players,
        max_deals=1,
        standing=standing,
        dealer=done.dealer,
        deal_source=lambda _d: ([list(h) for h in done.dealt_hands], list(done.dealt_talon)),
    )
    clock = Budget(budget)
    work = _DealAnalysis(game, done, deal, seed, quick, clock, settings or MilSettings(), seats)
    work.run()
    facts = _talon_facts(done)
    return {
        "deal": deal,
        "open_values": mil_open_values(done),
        "decisions": [x.to_json() for x in work.decisions],
        "seats": seat_totals(work.decisions, 3),
        "declarer": done.declarer if done.declarer >= 0 else None,
        "bid": result.bid,
        "contract": result.contract,
        "raw": list(result.raw) if result.raw is not None else None,
        "annulled": result.annulled,
        "rospis": result.rospis,
        **facts,
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
    """:func:`analyse_mil_deal` on finished deal ``deal`` of ``game`` (replayed from
    ``record``), with the barrel counts it began with."""
    assert isinstance(game, MilGame)
    done, result = game.deals[deal]
    if deal:
        before = game.deals[deal - 1][1].standing
    elif record.get("start") is not None:
        before = standing_from_start(record["start"], game.profile)
    else:
        before = Standing()
    return analyse_mil_deal(
        list(record["players"]),
        done,
        result,
        before,
        deal=deal,
        seed=seed,
        quick=quick,
        budget=budget,
        seats=seats,
    )


def amount(x: float) -> str:
    """A loss in words: ``about 14 points``."""
    return f"about {round(x):d} point{'s' if round(x) != 1 else ''}"


def headline(report: JSON) -> list[str]:
    """The declarer, the bid, the contract and its outcome, the talon, the best contract
    open-handed and the open-hand value curve."""
    players = report["players"]
    out: list[str] = []
    if report["annulled"]:
        out.append("  the deal was annulled (redeal): no card play")
        return out
    d = report["declarer"]
    if d is None:
        return out
    talon = " ".join(card_words(c) for c in report["talon"])
    line = f"  {players[d]} declared: bid {report['bid']}"
    if report["rospis"]:
        out.append(line + ", then conceded (rospis)")
    else:
        made = report["raw"][d] >= report["contract"]
        out.append(
            f"{line}, contract {report['contract']}, took {report['raw'][d]} "
            f"({'made' if made else 'failed'})"
        )
    best = report["best_contract"]
    makeable = "makeable" if report["bid_makeable"] else "not makeable"
    top = report.get("open_best_value")
    if best is None and top is not None:  # e.g. a flat curve at 0: the defence keeps every trick
        best_words = (
            "no contract could be made: against the best defence the declarer takes at "
            f"most {top} points"
        )
    elif best is None:
        best_words = "no contract could be made"
    else:
        best_words = f"the best contract was {best}"
    out.append(f"  talon {talon}; with all cards open {best_words} (the bid was {makeable})")
    curve = report["open_values"]
    if curve:
        out.append("  open-hand value by trick: " + " ".join(str(v) for v in curve))
    return out
