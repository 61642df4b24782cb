"""A whole Mil game: deals in sequence, the standing between them, views and records."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from tapete.cards import MIL_DECK, NINE, bits, card_name, mask_of, mask_points
from tapete.errors import IllegalActionError
from tapete.mil.actions import KeepDeal, MilAction, action_from_json
from tapete.mil.profiles import Profile, get_profile
from tapete.mil.scoring import BARREL_ATTEMPTS, DealResult, Standing, settle
from tapete.mil.state import MARRIAGE_VALUES, PAIR_MASKS, Phase, State, held_marriages
from tapete.scores import score_json

__all__ = ["DealSource", "MilGame", "deal_cards"]

#: (dealer) -> (three hands of 7 cards, talon of 3), in dealt order
DealSource = Callable[[int], tuple[list[list[int]], list[int]]]

_MIL_CARDS = sorted(bits(MIL_DECK))
_SUITS = "SCDH"


def deal_cards(rng: random.Random) -> tuple[list[list[int]], list[int]]:
    """Shuffle the 24 cards: three hands of 7 and a talon of 3 (a uniform deal)."""
    deck = list(_MIL_CARDS)
    rng.shuffle(deck)
    return [deck[0:7], deck[7:14], deck[14:21]], deck[21:24]


class MilGame:
    """A Mil game to 1000 (or 500) under one profile; see docs/dev/contract.md.

    >>> g = MilGame("club", seed=1)
    >>> g.turn in (0, 1, 2), g.phase in ("bidding", "redeal_offer")
    (True, True)
    """

    name = "mil"

    def __init__(
        self,
        profile: str | Profile,
        *,
        seed: int | None = None,
        players: Sequence[str] | None = None,
        max_deals: int | None = None,
        start: dict[str, Any] | None = None,
        standing: Standing | None = None,
        dealer: int | None = None,
        deal_source: DealSource | None = None,
    ) -> None:
        self.profile = profile if isinstance(profile, Profile) else get_profile(profile)
        self.profile_name = self.profile.name
        self.seed = seed
        self.players = list(players) if players else ["Ana", "Bruno", "Carla"]
        if len(self.players) != 3:
            raise ValueError(f"Mil needs 3 players, got {len(self.players)}")
        self.max_deals = max_deals
        self.start = start
        self._rng = random.Random(seed)
        self.standing = standing or Standing()
        self.dealer = self._rng.randrange(3) if dealer is None else dealer
        self._deal_source = deal_source
        self.deals: list[tuple[State, DealResult]] = []
        self._sheet: list[dict[str, Any]] = []
        self.winner: int | None = None
        self.state: State | None = None
        self._stopped = False
        self._deal()

    # ------------------------------------------------------------------ the flow
    def _deal(self) -> None:
        if self.max_deals is not None and len(self.deals) >= self.max_deals:
            self.state = None
            self._stopped = True
            return
        if self._deal_source is not None:
            hands, talon = self._deal_source(self.dealer)
        else:
            hands, talon = deal_cards(self._rng)
        self.state = State(
            self.profile, self.dealer, hands, talon, self.standing.barrel_flags(self.profile)
        )

    @property
    def over(self) -> bool:
        return self.winner is not None or self._stopped

    @property
    def turn(self) -> int | None:
        return None if self.over or self.state is None else self.state.turn

    @property
    def phase(self) -> str:
        return "over" if self.over or self.state is None else self.state.phase.value

    @property
    def scores(self) -> list[float]:
        return [s / 2 for s in self.standing.scores]

    def legal_actions(self) -> list[MilAction]:
        return [] if self.over or self.state is None else self.state.legal_actions()

    def parse_action(self, data: dict[str, Any]) -> MilAction:
        return action_from_json(data)

    def apply(self, action: MilAction) -> DealResult | None:
        """Apply ``action`` for ``turn``; returns the deal's result when it ends it."""
        if self.over or self.state is None:
            raise IllegalActionError(f"cannot {action}: the game is over")
        st = self.state
        st.apply(action)
        if not st.done:
            return None
        return self._finish_deal()

    def _finish_deal(self) -> DealResult:
        st = self.state
        assert st is not None
        before = self.standing.scores
        result = settle(self.profile, self.standing, st)
        self.deals.append((st, result))
        self._sheet.append(
            {
                "dealer": st.dealer,
                **result.to_json(self.profile),
                "notes": list(result.notes),
                # for the views: what the deal changed, so that no client works it out
                "deltas": [
                    score_json(a - b) for a, b in zip(result.standing.scores, before, strict=True)
                ],
                "made": _made(result),
            }
        )
        self.standing = result.standing
        if result.winner is not None:
            self.winner = result.winner
            self.state = None
            return result
        if not result.annulled:
            self.dealer = (self.dealer + 1) % 3
        self._deal()
        return result

    def stop(self) -> None:
        """End the game here without a winner (the record keeps the finished deals)."""
        self._stopped = True

    # ------------------------------------------------------------------ records
    def to_record(self) -> dict[str, Any]:
        rec: dict[str, Any] = {
            "format": "tapete/1",
            "game": "mil",
            "profile": self.profile.name,
            "seed": self.seed,
            "players": list(self.players),
        }
        if self.start is not None:
            rec["start"] = self.start
        rec["deals"] = [self._deal_record(st, res) for st, res in self.deals]
        rec["scores"] = self.standing.to_json(self.profile)["scores"]
        rec["winner"] = self.winner
        return rec

    def _deal_record(self, st: State, res: DealResult) -> dict[str, Any]:
        return {
            "dealer": st.dealer,
            "hands": [[card_name(c) for c in h] for h in st.dealt_hands],
            "talon": [card_name(c) for c in st.dealt_talon],
            "actions": [
                {"seat": seat, **a.to_json()}
                for seat, a in st.history
                if not isinstance(a, KeepDeal)
            ],
            "result": res.to_json(self.profile),
        }

    # ------------------------------------------------------------------ views
    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know (``None``: a spectator), as a JSON-safe dict."""
        p = self.profile
        st = self.state
        standing = self.standing.to_json(p)
        v: dict[str, Any] = {
            "game": "mil",
            "profile": p.name,
            "seat": seat,
            "players": list(self.players),
            "phase": self.phase,
            "turn": self.turn,
            "over": self.over,
            "winner": self.winner,
            "deal_number": len(self.deals) + (0 if self.over else 1),
            "dealer": self.dealer,
            "target": p.target,
            "barrel_from": p.barrel_from,
            # club: a player in the barrel has this many deals to get out (scoring.py)
            "barrel_attempts_max": BARREL_ATTEMPTS if p.barrel == "club" else None,
            **standing,
            "sheet": list(self._sheet),
        }
        if st is None:
            v.update(
                legal=[],
                hand=[],
                hand_counts=[0, 0, 0],
                bids=[],
                high_bid=None,
                declarer=None,
                bid=None,
                contract=None,
                talon=None,
                talon_count=0,
                given=[],
                trump=None,
                marriages=[],
                trick=[],
                leader=None,
                tricks=[],
                tricks_won=[0, 0, 0],
                captured_points=[0, 0, 0],
                held_marriages=[],
                pair_cards=[],
                redeal_reasons=[],
                redeal_cards={},
                hand_points=None,
                talon_points=None,
            )
            return v
        own = st.hands[seat] if seat is not None else 0
        revealed = st.declarer >= 0
        v.update(
            legal=[a.to_json() for a in st.legal_actions()] if seat == self.turn else [],
            hand=[card_name(c) for c in sorted(bits(own), key=_hand_order)],
            hand_counts=[h.bit_count() for h in st.hands],
            bids=[
                {"seat": s, **a.to_json()}
                for s, a in st.history
                if a.to_json()["type"] in ("bid", "pass")
            ],
            high_bid=st.high or None,
            declarer=st.declarer if revealed else None,
            bid=st.bid if revealed else None,
            contract=st.contract or None,
            talon=[card_name(c) for c in st.dealt_talon] if revealed else None,
            talon_count=st.talon.bit_count(),
            given=[
                {
                    "from": st.declarer,
                    "to": to,
                    "card": card_name(c) if seat in (to, st.declarer) else None,
                }
                for c, to in st.gives
            ],
            trump=_SUITS[st.trump] if st.trump >= 0 else None,
            marriages=[
                {"seat": s, "suit": _SUITS[su], "value": MARRIAGE_VALUES[su]}
                for s, su in st.marriages
            ],
            trick=[
                {"seat": (st.leader + i) % 3, "card": card_name(c)} for i, c in enumerate(st.trick)
            ],
            leader=st.leader if st.phase is Phase.PLAY else None,
            tricks=[
                {
                    "leader": leader,
                    "cards": [
                        {"seat": (leader + i) % 3, "card": card_name(c)}
                        for i, c in enumerate(cards)
                    ],
                    "winner": w,
                }
                for leader, cards, w in st.tricks
            ],
            tricks_won=list(st.tricks_won),
            captured_points=list(st.captured),
            held_marriages=[_SUITS[s] for s in held_marriages(own)],
            pair_cards=[
                card_name(c)
                for c in sorted(bits(own), key=_hand_order)
                if any(PAIR_MASKS[s] >> c & 1 for s in held_marriages(own))
            ],
            hand_points=mask_points(own) if seat is not None else None,
            talon_points=mask_points(mask_of(st.dealt_talon)) if revealed else None,
            redeal_reasons=_redeal_reasons(st, seat),
            redeal_cards=_redeal_cards(st, seat),
        )
        return v


def _made(res: DealResult) -> bool | None:
    """Whether the declarer made the contract (None for an annulled deal or a rospis)."""
    if res.annulled or res.rospis or res.raw is None or res.declarer is None:
        return None
    return res.contract is not None and res.raw[res.declarer] >= res.contract


def _hand_order(c: int) -> tuple[int, int]:
    # hearts, spades, diamonds, clubs alternate colours; strongest first inside a suit
    return ((3, 0, 2, 1).index(c >> 3), -c)


def _redeal_reasons(st: State, seat: int | None) -> list[str]:
    if seat is None or seat != st.turn:
        return []
    return [a.to_json()["reason"] for a in st.legal_actions() if a.to_json()["type"] == "redeal"]


def _redeal_cards(st: State, seat: int | None) -> dict[str, list[str]]:
    """For each redeal ``seat`` may ask for now, the cards that justify it (the four 9s in
    its hand, its dealt hand for low points, the talon for a poor talon): cards it knows."""
    out: dict[str, list[str]] = {}
    for reason in _redeal_reasons(st, seat):
        assert seat is not None
        if reason == "four_nines":
            cards = [c for c in bits(st.hands[seat]) if c & 7 == NINE]
        elif reason == "low_points":
            cards = list(st.dealt_hands[seat])
        elif reason == "low_talon":
            cards = list(st.dealt_talon)
        else:
            cards = []
        out[reason] = [card_name(c) for c in sorted(cards, key=_hand_order)]
    return out
