"""One conformance test run over every registered game (OpenSpiel's ``random_sim_test``).

Random play from many seeds checks, for every game in :func:`tapete.games.kinds`:

* legal actions are never empty before the end, and every one of them is accepted;
* ``push``/``pop`` on the deal restore it exactly (every seat's view, the spectator's view
  and the record) and ``pop`` returns the pushed action;
* no view and no ``event.for_viewer`` payload holds a card its viewer may not know: the cards
  a viewer may know are built here from the raw facts of the deal (what it was dealt, drew or
  was given, the cards played, the talon once revealed, the cards a redeal or a marriage
  shows, the face-up indicators), not from the engine's visibility code;
* a spectator view never lists legal actions, also after ``stop()``;
* replaying the game's own record reproduces ``to_record()``.

And the docstring examples of every module in ``src/tapete`` run (one test per module).
"""

from __future__ import annotations

import doctest
import importlib
import json
import random
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tapete.cards import CARD_NAMES, KING, NINE, QUEEN, SEVEN, bits
from tapete.game import Event, GameKind
from tapete.games import game_from_record, kinds

KINDS = {k.name: k for k in kinds()}
CARD_RE = re.compile(r"(?<![A-Za-z0-9_])[AKQJT987][SCDH](?![A-Za-z0-9_])")

#: seeds per (game, profile) and deals per game: bounded so that the file runs in well under
#: a minute on one core
SEEDS = 12
DEALS = 3


def cards_in(payload: Any) -> set[str]:
    return set(CARD_RE.findall(json.dumps(payload)))


# --- what a viewer may know, from the raw facts of the deal ---------------------------------


def _mil_known(st: Any, viewer: int | None) -> set[int]:
    known: set[int] = set()
    for seat, action in st.history:
        t = action.to_json()
        if t["type"] == "play" or (
            t["type"] == "give" and viewer is not None and viewer in (seat, action.to)
        ):
            known.add(action.card)
        elif t["type"] == "redeal":
            # the redeal's proof is shown to everyone: four 9s, the dealt hand, the talon
            if t["reason"] == "four_nines":
                known |= {s * 8 + NINE for s in range(4)}
            elif t["reason"] == "low_points":
                known |= set(st.dealt_hands[seat])
            else:
                known |= set(st.dealt_talon)
    if st.declarer >= 0:  # the auction is over: the talon was turned face up
        known |= set(st.dealt_talon)
    if viewer is not None:
        known |= set(st.dealt_hands[viewer])
    return known


def _mariage_known(st: Any, viewer: int | None) -> set[int]:
    known = {st.initial_stock[-1]}  # the indicator, face up from the deal
    for _seat, action in st.history:
        t = action.to_json()
        if t["type"] == "play":
            known.add(action.card)
        elif t["type"] == "exchange":
            known.add(st.trump * 8 + SEVEN)  # the trump 7 becomes the face-up indicator
        elif t["type"] == "marriage":
            known |= {action.suit * 8 + KING, action.suit * 8 + QUEEN}
    if viewer is not None:
        # what it was dealt and what it drew: every card it holds now or played
        known |= set(st.initial_hands[viewer]) | set(bits(st.hands[viewer]))
        known |= {a.card for s, a in st.history if s == viewer and a.to_json()["type"] == "play"}
    return known


KNOWN = {"mil": _mil_known, "mariage": _mariage_known}


class Knowledge:
    """The cards each viewer may know in the current deal, accumulated (within a deal what
    a viewer once saw stays known)."""

    def __init__(self, name: str, seats: int) -> None:
        self.name = name
        self.viewers: list[int | None] = [None, *range(seats)]
        self.state: Any = None
        self.sets: dict[int | None, set[str]] = {}

    def update(self, st: Any) -> dict[int | None, set[str]]:
        if st is not self.state:
            self.state = st
            self.sets = {v: set() for v in self.viewers}
        for v in self.viewers:
            self.sets[v] |= {CARD_NAMES[c] for c in KNOWN[self.name](st, v)}
        return self.sets


# --- the random simulation ----------------------------------------------------------------


def _views(game: Any, viewers: list[int | None]) -> list[Any]:
    return [json.dumps(game.view(v), sort_keys=True) for v in viewers]


def _check_push_pop(game: Any, viewers: list[int | None], rng: random.Random) -> None:
    st = game.state
    legal = game.legal_actions()
    before = _views(game, viewers)
    record = game.to_record()
    for a in rng.sample(legal, min(3, len(legal))):
        st.push(a)
        follow = st.legal_actions()
        if follow:  # one level deeper too
            b = follow[rng.randrange(len(follow))]
            st.push(b)
            assert st.pop() == b
        assert st.pop() == a
        assert _views(game, viewers) == before, f"push/pop of {a} changed a view"
        assert game.to_record() == record, f"push/pop of {a} changed the record"


def _check_no_leak(
    game: Any, events: list[Event], knowledge: Knowledge, old: Any, viewers: list[int | None]
) -> int:
    """The events of one action and the views after it hold only known cards."""
    checked = 0
    during = {v: set(s) for v, s in knowledge.update(old).items()}
    now = knowledge.update(game.state) if game.state is not None else during
    for e in events:
        # a new deal speaks of the new position, every other event of the deal it came from
        allowed = now if e.type == "deal" else during
        for v in viewers:
            found = cards_in(e.for_viewer(v))
            leaked = found - allowed[v]
            assert not leaked, f"{e.type} event shows {sorted(leaked)} to viewer {v}: {e}"
            checked += len(found)
    for v in viewers:
        view = game.view(v)
        found = cards_in(view)
        leaked = found - now[v]
        assert not leaked, f"the view of {v} shows {sorted(leaked)}"
        checked += len(found)
        if v is None:
            assert view["legal"] == [], "a spectator view lists legal actions"
    return checked


def _simulate(k: GameKind, profile: str, seed: int) -> int:
    rng = random.Random(seed)
    game: Any = k.new(profile, seed=seed, max_deals=DEALS)
    viewers: list[int | None] = [None, *range(k.seats)]
    knowledge = Knowledge(k.name, k.seats)
    knowledge.update(game.state)
    checked = 0
    stop_at = rng.randrange(40, 200) if seed % 3 == 0 else -1
    steps = 0
    while not game.over:
        legal = game.legal_actions()
        assert legal, f"no legal action before the end (phase {game.phase})"
        assert game.turn is not None and game.view(None)["legal"] == []
        assert game.view(game.turn)["legal"] == [a.to_json() for a in legal]
        if steps % 4 == 0:
            _check_push_pop(game, viewers, rng)
        action = legal[rng.randrange(len(legal))]
        assert game.why_illegal(action) is None
        old = game.state
        events = game.apply(action)
        assert events and events[0].type == "action"
        assert events[0].for_viewer(None)["seat"] in range(k.seats)
        checked += _check_no_leak(game, events, knowledge, old, viewers)
        steps += 1
        if steps == stop_at:
            game.stop()
    assert game.legal_actions() == []
    for v in viewers:
        assert game.view(v)["legal"] == []
    record = game.to_record()
    assert game_from_record(record).to_record() == record
    assert game_from_record(json.loads(json.dumps(record))).to_record() == record
    return checked


@pytest.mark.parametrize(("name", "profile"), [(k.name, p) for k in kinds() for p in k.profiles])
def test_random_play_conforms(name: str, profile: str) -> None:
    checked = sum(_simulate(KINDS[name], profile, seed) for seed in range(SEEDS))
    assert checked > 1000


@pytest.mark.parametrize("name", list(KINDS))
def test_a_spectator_sees_no_legal_actions_after_stop(name: str) -> None:
    game: Any = KINDS[name].new(seed=2)
    game.apply(game.legal_actions()[0])
    game.stop()
    assert game.over and game.turn is None and game.legal_actions() == []
    assert game.view(None)["legal"] == []


@pytest.mark.parametrize("name", list(KINDS))
def test_the_open_view_shows_every_card_and_hides_none(name: str) -> None:
    """``kind.open_view(game.state)``: every seat's hand as its own view shows it, and the
    ``hidden`` cards are in no hand and in nobody's view; hands, hidden and face-up cards and
    the cards played so far are the whole deck, at every step of random play."""
    k = KINDS[name]
    assert k.open_view is not None
    rng = random.Random(7)
    for seed in range(4):
        game = k.new(seed=seed)
        st, played, steps, dealt = game.state, [], 0, None
        while not game.over and steps < 120:
            if game.state is not st or dealt is None:  # a new deal
                st, played, dealt = game.state, [], None
            ov = k.open_view(st)
            views = [game.view(s) for s in range(k.seats)]
            assert ov["hands"] == [v["hand"] for v in views]
            hidden = set(ov["hidden"])
            assert len(hidden) == len(ov["hidden"])
            assert not hidden & cards_in(views) and not hidden & cards_in(ov["hands"])
            held = [c for hand in ov["hands"] for c in hand] + ov["hidden"]
            face_up = [ov["indicator"]] if ov.get("indicator") else []
            if dealt is None:  # every card is in a hand, hidden or face up at the deal's start
                dealt = sorted(held + face_up)
                assert len(dealt) == len(set(dealt)) == bin(k.reader.deck).count("1")
            assert sorted(held + played + face_up) == dealt
            action = rng.choice(game.legal_actions())
            data = action.to_json()
            game.apply(action)
            if data["type"] == "play" and game.state is st:
                played.append(data["card"])
            steps += 1
    assert steps


def test_the_leak_check_catches_a_leak() -> None:
    # the knowledge built from the raw facts does not contain another seat's hand
    game: Any = KINDS["mil"].new(seed=1)
    knowledge = Knowledge("mil", 3)
    sets = knowledge.update(game.state)
    other = {CARD_NAMES[c] for c in game.state.dealt_hands[1]}
    assert not other & sets[0] and not other & sets[None] and other <= sets[1]
    leaky = Event("deal", {}, {0: {"hand": sorted(other)}})
    with pytest.raises(AssertionError, match="shows"):
        _check_no_leak(game, [leaky], knowledge, game.state, [None, 0, 1, 2])


# --- the docstring examples of every module -----------------------------------------------

SRC = Path(__file__).resolve().parents[1] / "src"


def _modules_with_examples() -> list[str]:
    names = []
    for path in sorted((SRC / "tapete").rglob("*.py")):
        rel = path.relative_to(SRC).with_suffix("")
        if "migrations" in rel.parts:
            continue  # Alembic scripts run on import
        if ">>> " in path.read_text(encoding="utf-8"):
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            names.append(".".join(parts))
    return names


MODULES = _modules_with_examples()


def test_the_examples_are_found() -> None:
    assert {"tapete.cards", "tapete.mil.state", "tapete.mariage.game", "tapete.games"} <= set(
        MODULES
    )


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    from tapete._compiled import import_copy

    module: ModuleType = importlib.import_module(name)
    source = module
    if not (module.__file__ or "").endswith(".py"):
        # compiled with mypyc, which drops docstrings: the examples of the source, run with
        # the compiled module's names
        source = import_copy(module.__name__, "doctest_", pure=True)
    result = doctest.testmod(source, globs=dict(vars(module)), verbose=False)
    assert result.failed == 0 and result.attempted > 0
