"""Read Mariage records (tapete/1) back through the engine, strictly.

:func:`replay_mariage` checks the shape of the record, replays every action through
:class:`~tapete.mariage.game.MariageGame` and re-computes every result; the first problem
raises :class:`~tapete.errors.RecordError` with the deal and action index and a sentence
saying what is wrong.
"""

from __future__ import annotations

from typing import Any

from tapete.cards import CARD_NAMES, Card, InvalidNotationError, parse_card
from tapete.errors import IllegalActionError, RecordError
from tapete.game import JSON
from tapete.mariage.actions import CLAIM, DECLINE, action_from_json
from tapete.mariage.game import DealSpec, MariageGame
from tapete.mariage.state import HAND_SIZE, STOCK_SIZE

__all__ = ["replay_mariage"]

_RESULT_FIELDS = ("winner", "game_points", "reason", "points", "tricks", "match")


def _is_int(x: Any) -> bool:
    return type(x) is int


def _field(obj: JSON, key: str, where: str, **loc: int | None) -> Any:
    if key not in obj:
        raise RecordError(f"{where} has no {key!r} field", **loc)
    return obj[key]


def _check_header(record: Any) -> None:
    if not isinstance(record, dict):
        raise RecordError(f"a record must be a JSON object, not {type(record).__name__}")
    for key in ("format", "game", "profile", "seed", "players", "deals", "match", "winner"):
        _field(record, key, "the record")
    if record["format"] != "tapete/1":
        raise RecordError(f"unknown format {record['format']!r} (expected 'tapete/1')")
    if record["game"] != "mariage":
        raise RecordError(f"game is {record['game']!r}, not 'mariage'")
    if record["profile"] != "mariage":
        raise RecordError(f"unknown Mariage profile {record['profile']!r} (expected 'mariage')")
    seed = record["seed"]
    if seed is not None and not _is_int(seed):
        raise RecordError(f"seed must be an integer or null, not {seed!r}")
    players = record["players"]
    if (
        not isinstance(players, list)
        or len(players) != 2
        or not all(isinstance(p, str) for p in players)
    ):
        raise RecordError(f"players must be a list of 2 names, not {players!r}")
    if "start" in record:
        start = record["start"]
        if not isinstance(start, dict):
            raise RecordError(f"start must be an object, not {start!r}")
        if "dealer" in start and (not _is_int(start["dealer"]) or start["dealer"] not in (0, 1)):
            raise RecordError(f"start.dealer must be 0 or 1, not {start['dealer']!r}")
        gp = start.get("game_points", [0, 0])
        if not isinstance(gp, list) or len(gp) != 2 or not all(_is_int(x) and x >= 0 for x in gp):
            raise RecordError(f"start.game_points must be two non-negative integers, not {gp!r}")
    if not isinstance(record["deals"], list):
        raise RecordError(f"deals must be a list, not {type(record['deals']).__name__}")


def _parse_cards(value: Any, size: int, what: str, deal: int) -> list[Card]:
    if not isinstance(value, list) or len(value) != size:
        count = len(value) if isinstance(value, list) else type(value).__name__
        raise RecordError(f"{what} must hold {size} cards, not {count}", deal=deal)
    cards: list[Card] = []
    for text in value:
        try:
            cards.append(parse_card(text))
        except InvalidNotationError as exc:
            raise RecordError(f"{what}: {exc}", deal=deal) from None
    return cards


def _parse_deal(deal: Any, k: int) -> DealSpec:
    if not isinstance(deal, dict):
        raise RecordError(f"a deal must be an object, not {type(deal).__name__}", deal=k)
    for key in ("dealer", "hands", "stock", "actions"):
        _field(deal, key, "the deal", deal=k)
    if not _is_int(deal["dealer"]) or deal["dealer"] not in (0, 1):
        raise RecordError(f"dealer must be 0 or 1, not {deal['dealer']!r}", deal=k)
    hands = deal["hands"]
    if not isinstance(hands, list) or len(hands) != 2:
        raise RecordError("hands must be a list of 2 hands", deal=k)
    parsed = [_parse_cards(h, HAND_SIZE, f"the hand of seat {s}", k) for s, h in enumerate(hands)]
    stock = _parse_cards(deal["stock"], STOCK_SIZE, "the stock", k)
    seen: dict[Card, str] = {}
    places = ((parsed[0], "seat 0's hand"), (parsed[1], "seat 1's hand"), (stock, "the stock"))
    for cards, place in places:
        for c in cards:
            if c in seen:
                raise RecordError(
                    f"card {CARD_NAMES[c]} is dealt twice ({seen[c]} and {place})", deal=k
                )
            seen[c] = place
    if not isinstance(deal["actions"], list):
        raise RecordError("actions must be a list", deal=k)
    return parsed, stock


def _action_text(a: Any) -> str:
    if isinstance(a, dict):
        seat = a.get("seat")
        shown = seat if _is_int(seat) else repr(seat)  # a string "0" must not read as 0
        rest = " ".join(str(v) for key, v in a.items() if key != "seat")
        return f"{{seat {shown} {rest}}}"
    return repr(a)


def replay_mariage(record: JSON, *, check_results: bool = True) -> MariageGame:
    """Rebuild the match of ``record`` through the engine.

    Every action must be legal for the seat whose turn it is; with ``check_results`` every
    hand's ``result`` and the final ``match`` and ``winner`` must equal what the engine
    computes. A last hand without ``result`` is a hand in progress: the returned game stands
    where the record stops.
    """
    _check_header(record)
    raw_deals: list[Any] = record["deals"]
    specs = [_parse_deal(d, k) for k, d in enumerate(raw_deals)]
    start = record.get("start")
    first = raw_deals[0]["dealer"] if raw_deals and start is None else None
    try:
        game = MariageGame(
            seed=record["seed"],
            players=record["players"],
            start=start,
            deals=specs,
            first_dealer=first,
        )
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    for k, deal in enumerate(raw_deals):
        if game.over:
            raise RecordError("the match was already over before this deal", deal=k)
        state = game.state
        if deal["dealer"] != state.dealer:
            raise RecordError(
                f"dealer is seat {deal['dealer']}, but seat {state.dealer} deals this hand "
                "(the deal alternates)",
                deal=k,
            )
        actions: list[Any] = deal["actions"]
        for j, a in enumerate(actions):
            label = f"action {j} {_action_text(a)}"
            if not isinstance(a, dict):
                raise RecordError(f"{label}: an action must be an object", deal=k, action=j)
            try:
                action = action_from_json(a)
            except InvalidNotationError as exc:
                raise RecordError(f"{label}: {exc}", deal=k, action=j) from None
            seat = a.get("seat")
            if state.done:
                raise RecordError(f"{label}: the hand is already over", deal=k, action=j)
            if not _is_int(seat) or seat not in (0, 1):
                raise RecordError(f"{label}: seat must be 0 or 1", deal=k, action=j)
            if seat != state.turn:
                raise RecordError(
                    f"{label}: it is seat {state.turn}'s turn, not seat {seat}'s",
                    deal=k,
                    action=j,
                )
            try:
                game.apply(action)
            except IllegalActionError as exc:
                raise RecordError(f"{label}: {exc}", deal=k, action=j) from None
        if not state.done and state.legal_actions() == [CLAIM, DECLINE]:
            # The winner of the last trick of a closed hand did not claim.
            game.apply(DECLINE)
        last = k == len(raw_deals) - 1
        if not state.done:
            if "result" in deal or not last:
                raise RecordError(f"the hand is not over after its {len(actions)} actions", deal=k)
            break
        if "result" not in deal:
            raise RecordError("the hand is over but the deal has no 'result'", deal=k)
        if check_results:
            _compare_result(deal["result"], game.finished[k]["result"], k)
    if check_results:
        mismatches = []
        if record["match"] != game.match:
            mismatches.append(f"recorded match {record['match']!r}, replay gives {game.match!r}")
        if record["winner"] != game.winner:
            mismatches.append(f"recorded winner {record['winner']!r}, replay gives {game.winner!r}")
        if mismatches:
            raise RecordError("final score differs: " + "; ".join(mismatches))
    return game


def _compare_result(recorded: Any, computed: JSON, k: int) -> None:
    if not isinstance(recorded, dict):
        raise RecordError(f"result must be an object, not {recorded!r}", deal=k)
    diffs = []
    for key in _RESULT_FIELDS:
        if key not in recorded:
            raise RecordError(f"result has no {key!r} field", deal=k)
        if recorded[key] != computed[key] or type(recorded[key]) is not type(computed[key]):
            diffs.append(f"recorded {key} {recorded[key]!r}, replay gives {computed[key]!r}")
    if diffs:
        raise RecordError("result differs: " + "; ".join(diffs), deal=k)
