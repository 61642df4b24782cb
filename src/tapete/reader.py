"""The shared reader of ``tapete/1`` records: one deal loop for every game.

:func:`read_record` checks a record's header, the cards of every deal, each action's seat and
turn, applies every action through the engine and compares every result, and says where the
first problem is (:class:`~tapete.errors.RecordError` with the deal and action index). What
differs between the games comes from the game's :class:`~tapete.game.RecordReader` hooks (in
``tapete.mil.record`` and ``tapete.mariage.record``): the start position, the engine actions
the format does not write, and the results to recompute.

Callers use :mod:`tapete.replay`, which finds a record's game in the registry; this module
knows no game, so the game packages can build on it.
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Generator
from typing import Any, Final, TypeVar

from tapete.arguments import SEED_RULE, valid_seed
from tapete.cards import (
    CARD_NAMES,
    RANK_LETTERS,
    SUIT_LETTERS,
    Card,
    InvalidNotationError,
    deck_ranks,
    parse_card,
)
from tapete.errors import IllegalActionError, RecordError, json_kind
from tapete.fair import read_fair
from tapete.game import JSON, DealCards, Game, RecordReader
from tapete.records import FORMAT, check_depth

__all__ = ["Steps", "describe_action", "read_record", "replay_with", "same", "short"]

G = TypeVar("G", bound=Game)

#: what :func:`read_record` yields, ``(game, action)`` before each action, and finally returns
Steps = Generator[tuple[G, Any], None, G]

#: no action field needs a number this large (a bid, a seat)
_LIMIT = 2**63

#: the suit symbols a record may write for S C D H (the specification's, in that order)
_SYMBOLS: Final = "♠♣♦♥"
#: how a record may write a suit: the letters in capitals, or the symbols
_SUIT_SPELLINGS: Final = frozenset(SUIT_LETTERS + _SYMBOLS)
#: how a record may write a card (the specification's "Cards"): rank A T K Q J 9 8 7 in
#: capitals, or 10 for the ten, then a suit as above. ``parse_card`` reads more (lower case,
#: spaces around: the web client's and a person's notation); a record written so would not
#: read back as it was, since Tapete writes "KH"
_CARD_SPELLINGS: Final = frozenset(
    rank + suit
    for rank_letter in RANK_LETTERS
    for rank in (rank_letter, *(("10",) if rank_letter == "T" else ()))
    for s, suit_letter in enumerate(SUIT_LETTERS)
    for suit in (suit_letter, _SYMBOLS[s])
)


class _JSONWords(reprlib.Repr):
    """``reprlib`` with JSON's words for the values that Python spells otherwise: a record's
    reader knows ``true``, ``false`` and ``null``, not ``True`` and ``None``."""

    def repr_bool(self, x: bool, level: int) -> str:
        return "true" if x else "false"

    def repr_NoneType(self, x: None, level: int) -> str:
        return "null"


_REPR = _JSONWords()
_REPR.maxstring = 40
_REPR.maxother = 40
_REPR.maxlist = _REPR.maxdict = 6
_REPR.maxlevel = 3


def short(value: object) -> str:
    """``repr(value)``, cut short: what a message may quote of a record's value."""
    try:
        return _REPR.repr(value)
    except ValueError:  # an int too long to write out
        return "a number too long to show"


def same(a: object, b: object) -> bool:
    """Equal as JSON values: numbers by value (``120 == 120.0``), booleans only to booleans."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


def describe_action(entry: JSON) -> str:
    """An action's record entry as messages quote it: ``{seat 2 play KS}``."""
    parts: list[str] = []
    for key, value in entry.items():
        if key == "seat":
            shown = value if type(value) is int and -_LIMIT < value < _LIMIT else short(value)
            parts.insert(0, f"seat {shown}")
        elif value is True:
            parts.append(key if isinstance(key, str) else short(key))
        elif value is not False:
            plain = isinstance(value, str) and value.isprintable() and len(value) <= 20
            parts.append(value if plain else short(value))
    return "{" + " ".join(parts) + "}"


def _seats(n: int) -> str:
    return ", ".join(str(s) for s in range(n - 1)) + f" or {n - 1}"


def _header(reader: RecordReader[Any], record: object) -> JSON:
    if not isinstance(record, dict):
        raise RecordError(f"a record must be a JSON object, not {json_kind(record)}")
    for key in ("format", "game", "profile", "seed", "players", "deals", *reader.final_fields):
        if key not in record:
            raise RecordError(f"the record has no {key!r} field")
    if record["format"] != FORMAT:
        raise RecordError(f"unknown format {short(record['format'])} (expected {FORMAT!r})")
    if record["game"] != reader.name:
        raise RecordError(f"game is {short(record['game'])}, not {reader.name!r}")
    profile = record["profile"]
    if not isinstance(profile, str) or profile not in reader.profiles:
        raise RecordError(
            f"unknown {reader.title} profile {short(profile)} "
            f"(expected one of: {', '.join(reader.profiles)})"
        )
    seed = record["seed"]
    if not valid_seed(seed):
        raise RecordError(f"{SEED_RULE}, got {short(seed)}")
    players = record["players"]
    if not (
        isinstance(players, list)
        and len(players) == reader.seats
        and all(isinstance(p, str) for p in players)
    ):
        raise RecordError(f"players must be a list of {reader.seats} names, got {short(players)}")
    if not isinstance(record["deals"], list):
        raise RecordError(f"deals must be a list, not {json_kind(record['deals'])}")
    if "start" in record:
        check_depth(record["start"], limit=4, what="start")  # the game reads it whole
    return record


def _cards(reader: RecordReader[Any], value: object, size: int, what: str, k: int) -> list[Card]:
    if not isinstance(value, list):  # ("must hold 7 cards, got 7" said of the number 7)
        raise RecordError(f"{what} must be a list of {size} cards, got {short(value)}", deal=k)
    if len(value) != size:
        raise RecordError(f"{what} must hold {size} cards, got {len(value)}", deal=k)
    cards = []
    for text in value:
        if not isinstance(text, str):
            raise RecordError(
                f"{what}: {short(text)} is not a card (expected a string such as 'KH')", deal=k
            )
        try:
            c = parse_card(text, reader.deck)
        except InvalidNotationError as exc:
            raise RecordError(f"{what}: {exc}", deal=k) from None
        if text not in _CARD_SPELLINGS:
            raise RecordError(f"{what}: {_misspelt(text, reader.deck)}", deal=k)
        if not reader.deck >> c & 1:
            raise RecordError(
                f"{what}: {CARD_NAMES[c]} is not a {reader.title} card ({reader.deck_note})",
                deal=k,
            )
        cards.append(c)
    return cards


def _deal(reader: RecordReader[Any], deal: object, k: int) -> DealCards:
    if not isinstance(deal, dict):
        raise RecordError(f"a deal must be an object, not {json_kind(deal)}", deal=k)
    for key in ("dealer", "hands", reader.rest, "actions"):
        if key not in deal:
            raise RecordError(f"the deal has no {key!r} field", deal=k)
    dealer = deal["dealer"]
    if type(dealer) is not int or not 0 <= dealer < reader.seats:
        raise RecordError(f"dealer must be {_seats(reader.seats)}, got {short(dealer)}", deal=k)
    hands = deal["hands"]
    if not isinstance(hands, list) or len(hands) != reader.seats:
        raise RecordError(f"hands must be a list of {reader.seats} hands", deal=k)
    held = [
        _cards(reader, h, reader.hand_size, f"the hand of seat {s}", k) for s, h in enumerate(hands)
    ]
    rest = _cards(reader, deal[reader.rest], reader.rest_size, f"the {reader.rest}", k)
    seen: dict[Card, str] = {}
    places = [*((h, f"seat {s}'s hand") for s, h in enumerate(held)), (rest, f"the {reader.rest}")]
    for cards, place in places:
        for c in cards:
            if c in seen:
                where = f"in {place}" if seen[c] == place else f"({seen[c]} and {place})"
                raise RecordError(f"card {CARD_NAMES[c]} is dealt twice {where}", deal=k)
            seen[c] = place
    if not isinstance(deal["actions"], list):
        raise RecordError("actions must be a list", deal=k)
    return held, rest


def _fair(reader: RecordReader[Any], deal: JSON, cards: DealCards, k: int) -> bytes | None:
    """A deal's optional ``fair`` field, checked: the seed matches its commitment and deals
    exactly the recorded cards. Its seed, or None for a deal without one."""
    if "fair" not in deal:
        return None
    try:
        fair = read_fair(deal["fair"])
    except RecordError as exc:
        raise RecordError(exc.reason, deal=k) from None
    hands, rest = reader.deal_seeded(fair.seed)
    places = [*((f"seat {s}'s hand", h) for s, h in enumerate(hands)), (f"the {reader.rest}", rest)]
    for (place, dealt), recorded in zip(places, [*cards[0], cards[1]], strict=True):
        if dealt != recorded:
            raise RecordError(
                f"the cards are not the fair deal of the revealed seed: {place} is "
                f"{' '.join(CARD_NAMES[c] for c in recorded)}, the seed deals "
                f"{' '.join(CARD_NAMES[c] for c in dealt)}",
                deal=k,
            )
    return fair.seed


def _action(reader: RecordReader[Any], entry: object, k: int, j: int) -> tuple[int, Any]:
    if not isinstance(entry, dict):
        raise RecordError(f"an action must be an object, got {short(entry)}", deal=k, action=j)
    if "seat" not in entry:
        raise RecordError(f"the action has no 'seat': {describe_action(entry)}", deal=k, action=j)
    seat = entry["seat"]
    if type(seat) is not int or not 0 <= seat < reader.seats:
        raise _at(entry, f"seat must be {_seats(reader.seats)}, got {short(seat)}", k, j)
    if "type" not in entry:  # (as a missing seat: not "got null", which the record lacks)
        raise _at(entry, "the action has no 'type'", k, j)
    if not isinstance(entry["type"], str):
        raise _at(entry, f"the action's 'type' must be a string, got {short(entry['type'])}", k, j)
    for key, value in entry.items():
        if type(value) is str or type(value) is bool:
            continue
        if (isinstance(value, float) and not math.isfinite(value)) or (
            type(value) is int and not -_LIMIT < value < _LIMIT
        ):
            raise _at(entry, f"{short(key)} is out of range", k, j)
        if isinstance(value, list | dict):  # the game's messages quote a value whole
            try:
                check_depth(value, limit=4, what=short(key))
            except RecordError as exc:
                raise _at(entry, exc.reason, k, j) from None
    try:
        action = reader.parse_action(entry)
    except InvalidNotationError as exc:
        raise _at(entry, str(exc), k, j) from None
    # (the game read its card and suit fields, also in notations a record does not write)
    card = entry.get("card")
    if card is not None and card not in _CARD_SPELLINGS:
        raise _at(entry, _misspelt(card, reader.deck), k, j)
    suit = entry.get("suit")
    if suit is not None and suit not in _SUIT_SPELLINGS:
        raise _at(
            entry,
            f"suit {short(suit)} is not written as records write suits: S C D H "
            "(or ♠ ♣ ♦ ♥), in capitals",
            k,
            j,
        )
    return seat, action


def _misspelt(text: object, deck: int) -> str:
    """Why the card ``text``, which the game reads, is not written as a record may write it."""
    return (
        f"{short(text)} is not written as records write cards: rank {deck_ranks(deck)} (or "
        "10) then suit S C D H (or ♠ ♣ ♦ ♥), in capitals, e.g. 'KH'"
    )


def _at(entry: JSON, reason: str, k: int, j: int | None) -> RecordError:
    """A problem with the recorded action ``entry``, quoted: ``{seat 2 play KS}: reason``."""
    return RecordError(f"{describe_action(entry)}: {reason}", deal=k, action=j)


def _apply(game: Game, action: Any, entry: JSON, k: int, j: int | None) -> None:
    try:
        game.apply(action)
    except IllegalActionError as exc:
        raise _at(entry, str(exc), k, j) from None


def _whole(value: object) -> bool:
    """Whether ``value`` holds no number written with a fraction (``2.0``)."""
    if isinstance(value, list):
        return all(_whole(v) for v in value)
    return not isinstance(value, float)


def _compare(
    reader: RecordReader[Any], recorded: JSON, computed: JSON, what: str, k: int | None
) -> None:
    for key in computed:  # (compared below, so not deeper than a record may nest)
        try:
            check_depth(recorded[key], what=f"{what} {key}")
        except RecordError as exc:
            raise exc.located(deal=k) from None
    for key, value in computed.items():  # (a seat or a count is 2, never 2.0)
        fraction = key not in reader.fractional and not _whole(recorded[key])
        if fraction and _whole(value) and same(recorded[key], value):
            must = "hold whole numbers" if isinstance(value, list) else "be a whole number"
            raise RecordError(f"{what} {key} must {must}, got {short(recorded[key])}", deal=k)
    diffs = [
        f"recorded {key} {short(recorded[key])}, replay gives {short(value)}"
        for key, value in computed.items()
        if not same(recorded[key], value)
    ]
    if diffs:
        raise RecordError(f"{what} differs: " + "; ".join(diffs), deal=k)


def read_record(reader: RecordReader[G], record: object, *, check_results: bool = True) -> Steps[G]:
    """Replay ``record`` step by step: yields ``(game, action)`` with the game in the position
    before each engine action (the ones the format leaves out too), applies the action when
    resumed, and returns the game holding the whole record. A deal's ``fair`` field is
    checked first: its seed must match its commitment and deal exactly the recorded cards.
    With ``check_results`` every deal's ``result`` and the final fields must equal what the
    engine computes. The first problem raises :class:`RecordError` with the deal and action
    index."""
    rec = _header(reader, record)
    raw_deals: list[Any] = rec["deals"]
    cards = [_deal(reader, d, k) for k, d in enumerate(raw_deals)]
    seeds = [_fair(reader, d, c, k) for k, (d, c) in enumerate(zip(raw_deals, cards, strict=True))]
    game = reader.start(rec, cards, seeds)
    for k, deal in enumerate(raw_deals):
        if game.over:
            raise RecordError("the game was already over before this deal", deal=k)
        dealer = reader.dealer(game)
        if deal["dealer"] != dealer:
            raise RecordError(
                f"dealer is seat {deal['dealer']}, but seat {dealer} deals this deal", deal=k
            )
        actions: list[Any] = deal["actions"]
        entry: JSON = {}
        for j, entry in enumerate(actions):
            if reader.finished(game) > k:
                raise RecordError(
                    f"the deal ended at action {j - 1} but {len(actions) - j} more follow",
                    deal=k,
                    action=j,
                )
            seat, action = _action(reader, entry, k, j)
            for extra in reader.before(game, seat, action):
                yield game, extra
                _apply(game, extra, {"seat": game.turn, "type": str(extra)}, k, j)
            if seat != game.turn:
                raise _at(
                    entry,
                    f"it is seat {game.turn}'s turn, not seat {seat}'s (phase {game.phase})",
                    k,
                    j,
                )
            yield game, action
            _apply(game, action, entry, k, j)
        # a last deal without "result" in a game that may stop mid-deal: it stands where its
        # actions stop, and the actions the format leaves out after them are not put back
        # (Mariage: the claim after a closed hand's last trick is still to be chosen)
        in_progress = reader.in_progress and k == len(raw_deals) - 1 and "result" not in deal
        if reader.finished(game) == k and not in_progress:
            for extra in reader.after(game):
                yield game, extra
                _apply(game, extra, {"seat": game.turn, "type": str(extra)}, k, None)
        if reader.finished(game) == k:
            if in_progress:
                break  # a game in progress: it stands where the record stops
            raise RecordError(
                f"the deal's actions stop before its end (phase {game.phase})", deal=k
            )
        if check_results:
            if "result" not in deal:
                raise RecordError("the deal has no 'result'", deal=k)
            recorded = deal["result"]
            if not isinstance(recorded, dict):
                raise RecordError(f"result must be an object, got {short(recorded)}", deal=k)
            computed = reader.result(game, k)
            for key in computed:
                if key not in recorded:
                    raise RecordError(f"result has no {key!r} field", deal=k)
            _compare(reader, recorded, computed, "result", k)
    if check_results:
        _compare(reader, rec, reader.final(game), "final result", None)
    return game


def replay_with(reader: RecordReader[G], record: object, *, check_results: bool = True) -> G:
    """The game of ``record``, every action and (with ``check_results``) result checked."""
    steps = read_record(reader, record, check_results=check_results)
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            game: G = stop.value
            return game
