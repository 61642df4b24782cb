"""Regenerate ``crafted.jsonl``: deals whose costly decision is known by construction.

Run from the repository root: ``PYTHONPATH=src python tests/analysis/make_crafted.py``.

The two Mil deals are dealt and played by hand up to the costly card (see ``MIL_PLAYS``),
then finished by best open-hand play (the exact solver):

1. ``mil_ruff``: a defender, void in the suit led, trumps their partner's winning ace with
   the 10 of trumps when the jack would have done.
2. ``mil_marriage``: the declarer, on lead at trick 2 with K and Q of hearts, leads the king
   without announcing the marriage (club allows it): the pair is broken, its value lost.
3. ``mariage_claim``: a Mariage hand played by the ``rules`` players where the seat on lead
   with 66 or more plays its lowest card instead of claiming and ends with fewer game points
   (the first seed from 1 that gives it).

The file holds one record a line, in the order above; ``crafted.json`` beside it says which
action of each deal is the costly one.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from tapete.bots import make_bot
from tapete.cards import parse_card
from tapete.mariage.actions import CLAIM
from tapete.mariage.actions import Play as MPlay
from tapete.mariage.game import MariageGame
from tapete.mil.actions import Play, action_from_json
from tapete.mil.game import MilGame
from tapete.solver import best_moves
from tapete.solver.command import position_from_state

HERE = Path(__file__).parent


def _best(st: Any) -> Play:
    pos = position_from_state(st)
    moves = best_moves(pos)
    sign = 1 if st.turn == st.declarer else -1
    c, m, _ = max(moves, key=lambda x: (sign * x[2], -x[0]))
    return Play(c, m)


#: the dealt cards of both Mil deals (dealer seat 2): Ana (0) holds the hearts marriage
MIL_HANDS = ("KH QH AS TS KS AD TD", "TH JH 9H QS KD QD JD", "AH AC TC KC QC JC 9S")
MIL_TALON = "9C 9D JS"
#: Ana takes the talon at 100, gives 9D to Bruno and JS to Carla and fixes 145
MIL_START = (
    (0, {"type": "bid", "value": 100}),
    (1, {"type": "pass"}),
    (2, {"type": "pass"}),
    (0, {"type": "give", "card": "9D", "to": 1}),
    (0, {"type": "give", "card": "JS", "to": 2}),
    (0, {"type": "contract", "value": 145}),
)
#: the card play up to and including the costly card
MIL_PLAYS = {
    # Carla's A♣ wins trick 3 (Ana follows 9♣); Bruno, void in clubs, must trump, and
    # trumps with 10♥ where J♥ would do: 10♥ was the card that beat Ana's Q♥ later.
    # With all cards open the contract of 145 is then made (150) instead of failed (142).
    "mil_ruff": (
        "AS",
        "QS",
        "9S",
        "KH+",
        "9H",
        "AH",
        "AC",
        "9C",
        "TH",
    ),
    # Ana leads K♥ at trick 2 without announcing the marriage (club allows it): the pair
    # is broken and its 100 points are lost, and with them the contract.
    "mil_marriage": ("AS", "QS", "9S", "KH"),
}


def _best(st: Any) -> Play:
    moves = best_moves(position_from_state(st))
    sign = 1 if st.turn == st.declarer else -1
    c, m, _ = max(moves, key=lambda x: (sign * x[2], -x[0]))
    return Play(c, m)


def _mil(kind: str) -> tuple[dict[str, Any], int]:
    hands = [[parse_card(c) for c in h.split()] for h in MIL_HANDS]
    talon = [parse_card(c) for c in MIL_TALON.split()]
    game = MilGame(
        "club",
        players=["Ana", "Bruno", "Carla"],
        max_deals=1,
        dealer=2,
        deal_source=lambda _d: (hands, talon),
    )
    for _, a in MIL_START:
        game.apply(action_from_json(a))
    plays = MIL_PLAYS[kind]
    for p in plays:
        game.apply(Play(parse_card(p[:2]), p.endswith("+")))
    while not game.over:
        st = game.state
        assert st is not None
        game.apply(_best(st))
    return game.to_record(), len(MIL_START) + len(plays) - 1


def _mariage(seed: int) -> tuple[dict[str, Any], int] | None:
    game = MariageGame(seed=seed, max_deals=1)
    bots = [make_bot("mariage", "rules"), make_bot("mariage", "rules")]
    rng = random.Random(seed)
    costly: int | None = None
    claimed: Any = None
    index = 0
    while not game.over:
        st = game.state
        seat = st.turn
        assert seat is not None
        view = game.view(seat)
        action = bots[seat].act(view, rng)
        for s in (0, 1):
            if s != seat and hasattr(bots[s], "remember"):
                bots[s].remember(game.view(s))
        if (
            costly is None
            and st.lead_card is None
            and st.points[seat] >= 66
            and CLAIM in st.legal_actions()
            and st.hands[seat]
        ):
            # play the cheapest card instead of claiming
            plays = [a for a in st.legal_actions() if isinstance(a, MPlay)]
            if plays:
                st.apply(CLAIM)
                claimed = st.result
                st.pop()
                action = min(plays, key=lambda a: a.card & 7)
                costly = index
        if action.to_json()["type"] != "decline":
            index += 1
        game.apply(action)
    if costly is None:
        return None
    rec = game.to_record()
    res = rec["deals"][0]["result"]
    if res["winner"] == claimed.winner and res["game_points"] >= claimed.game_points:
        return None  # keep a hand where playing on cost something
    return rec, costly


def main() -> None:
    records = []
    notes = []
    for kind in ("mil_ruff", "mil_marriage", "mariage_claim"):
        if kind != "mariage_claim":
            rec, index = _mil(kind)
            records.append(rec)
            notes.append({"kind": kind, "seed": None, "index": index})
            continue
        for seed in range(1, 400):
            got = _mariage(seed)
            if got is not None:
                records.append(got[0])
                notes.append({"kind": kind, "seed": seed, "index": got[1]})
                break
        else:
            raise SystemExit(f"no seed gives {kind}")
    (HERE / "crafted.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (HERE / "crafted.json").write_text(json.dumps(notes, indent=1) + "\n")
    print(json.dumps(notes))


if __name__ == "__main__":
    main()
