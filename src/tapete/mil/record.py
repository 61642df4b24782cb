"""Replay a Mil ``tapete/1`` record through the engine, checking every action and result."""

from __future__ import annotations

from typing import Any

from tapete.cards import MIL_DECK, InvalidNotationError, card_name, parse_card
from tapete.errors import IllegalActionError, RecordError
from tapete.mil.actions import KeepDeal, Redeal, action_from_json
from tapete.mil.game import MilGame
from tapete.mil.profiles import PROFILES, Profile
from tapete.mil.scoring import Standing
from tapete.mil.state import Phase

__all__ = ["replay_mil", "standing_from_start"]

_OFFERS = (Phase.REDEAL_OFFER, Phase.NINES_OFFER)


def _seats3(start: dict[str, Any], key: str, kind: type, default: Any) -> tuple[Any, ...]:
    value = start.get(key, [default] * 3)
    if (
        not isinstance(value, list)
        or len(value) != 3
        or not all(isinstance(x, kind) and (kind is bool or not isinstance(x, bool)) for x in value)
    ):
        raise RecordError(f"start.{key} must be a list of 3 {kind.__name__} values, got {value!r}")
    return tuple(value)


def _half_points(x: Any, where: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int | float) or (2 * x) != int(2 * x):
        raise RecordError(f"{where} must be a number in half points, got {x!r}")
    return int(2 * x)


def standing_from_start(start: dict[str, Any], profile: Profile | None = None) -> Standing:
    """The standing a record's ``start`` describes (missing fields: a new game).

    Each count must be 0, 1 or 2 (a third bolt, attempt or failed visit is settled in the
    deal that brings it). With ``profile``, the position must also be one that profile can
    reach (see :func:`_check_start`).
    """
    if not isinstance(start, dict):
        raise RecordError(f"start must be an object, got {start!r}")
    scores = start.get("scores", [0, 0, 0])
    if not isinstance(scores, list) or len(scores) != 3:
        raise RecordError(f"start.scores must be a list of 3 numbers, got {scores!r}")
    half = tuple(_half_points(s, "start.scores") for s in scores)
    bolts = _seats3(start, "bolts", int, 0)
    barrel = _seats3(start, "in_barrel", bool, False)
    attempts = _seats3(start, "barrel_attempts", int, 0)
    failed = _seats3(start, "failed_visits", int, 0)
    for key, counts in (("bolts", bolts), ("barrel_attempts", attempts), ("failed_visits", failed)):
        if not all(0 <= n <= 2 for n in counts):
            raise RecordError(f"start.{key} must be 0, 1 or 2 for each seat, got {list(counts)!r}")
    standing = Standing(
        scores=(half[0], half[1], half[2]),
        bolts=(bolts[0], bolts[1], bolts[2]),
        in_barrel=(barrel[0], barrel[1], barrel[2]),
        barrel_attempts=(attempts[0], attempts[1], attempts[2]),
        failed_visits=(failed[0], failed[1], failed[2]),
    )
    if profile is not None:
        _check_start(profile, standing, "in_barrel" in start)
    return standing


def _check_start(profile: Profile, st: Standing, barrel_given: bool) -> None:
    """Refuse a start position that ``profile`` cannot reach (RecordError names the seat)."""
    target = 2 * profile.target
    for s in range(3):
        if st.scores[s] >= target:
            raise RecordError(
                f"start: seat {s} already has {st.scores[s] / 2:g}, the target "
                f"({profile.target}): the game would be over"
            )
    if profile.barrel != "club":
        for key in ("bolts", "barrel_attempts", "failed_visits"):
            if any(getattr(st, key)):
                raise RecordError(f"start.{key} must be 0 in {profile.name}")
        if barrel_given and st.in_barrel != st.barrel_flags(profile):
            raise RecordError(
                f"start.in_barrel must be {list(st.barrel_flags(profile))} in {profile.name} "
                f"(in the barrel means {profile.barrel_from} <= score < {profile.target})"
            )
        return
    cap = 2 * profile.barrel_from
    for s in range(3):
        score = st.scores[s] / 2
        if st.in_barrel[s] and st.scores[s] != cap:
            raise RecordError(
                f"start: seat {s} is in the barrel, so its score must be "
                f"{profile.barrel_from}, got {score:g}"
            )
        if not st.in_barrel[s] and st.scores[s] >= cap:
            raise RecordError(
                f"start: seat {s} has {score:g} but is not in the barrel "
                f"(a score reaching {profile.barrel_from} enters it)"
            )
        if st.barrel_attempts[s] and not st.in_barrel[s]:
            raise RecordError(f"start: seat {s} has barrel attempts but is not in the barrel")
    if sum(st.in_barrel) > 2:
        raise RecordError("start: at most two players can be in the barrel")


def _parse_deal(deal: Any, i: int) -> tuple[int, list[list[int]], list[int], list[Any]]:
    if not isinstance(deal, dict):
        raise RecordError("a deal must be an object", deal=i)
    for key in ("dealer", "hands", "talon", "actions"):
        if key not in deal:
            raise RecordError(f"missing field {key!r}", deal=i)
    dealer = deal["dealer"]
    if dealer not in (0, 1, 2) or isinstance(dealer, bool):
        raise RecordError(f"dealer must be 0, 1 or 2, got {dealer!r}", deal=i)
    hands = deal["hands"]
    if not isinstance(hands, list) or len(hands) != 3:
        raise RecordError("hands must be a list of 3 hands", deal=i)
    try:
        parsed = []
        for s, h in enumerate(hands):
            if not isinstance(h, list) or len(h) != 7:
                n = len(h) if isinstance(h, list) else h
                raise RecordError(f"seat {s}'s hand must hold 7 cards, got {n!r}", deal=i)
            parsed.append([parse_card(c) for c in h])
        talon = deal["talon"]
        if not isinstance(talon, list) or len(talon) != 3:
            raise RecordError(f"the talon must hold 3 cards, got {talon!r}", deal=i)
        talon_cards = [parse_card(c) for c in talon]
    except InvalidNotationError as exc:
        raise RecordError(str(exc), deal=i) from None
    seen: set[int] = set()
    for c in [*parsed[0], *parsed[1], *parsed[2], *talon_cards]:
        if not MIL_DECK >> c & 1:
            raise RecordError(f"{card_name(c)} is not a Mil card (Mil uses A T K Q J 9)", deal=i)
        if c in seen:
            raise RecordError(f"{card_name(c)} is dealt twice", deal=i)
        seen.add(c)
    actions = deal["actions"]
    if not isinstance(actions, list):
        raise RecordError("actions must be a list", deal=i)
    return dealer, parsed, talon_cards, actions


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


_HEADER = ("format", "game", "profile", "seed", "players", "deals", "scores", "winner")


def replay_mil(record: dict[str, Any], *, check_results: bool = True) -> MilGame:
    """Rebuild a Mil game from its record; raise :class:`RecordError` at the first problem."""
    if not isinstance(record, dict):
        raise RecordError(f"a record must be a JSON object, not {type(record).__name__}")
    for key in _HEADER:
        if key not in record:
            raise RecordError(f"the record has no {key!r} field")
    if record["format"] != "tapete/1":
        raise RecordError(f"unknown format {record['format']!r} (expected 'tapete/1')")
    if record["game"] != "mil":
        raise RecordError(f"game is {record['game']!r}, not 'mil'")
    profile = record.get("profile")
    if profile not in PROFILES:
        raise RecordError(
            f"unknown Mil profile {profile!r} (expected one of: {', '.join(PROFILES)})"
        )
    players = record.get("players")
    if not (
        isinstance(players, list) and len(players) == 3 and all(isinstance(p, str) for p in players)
    ):
        raise RecordError(f"players must be a list of 3 names, got {players!r}")
    seed = record.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise RecordError(f"seed must be an integer or null, got {seed!r}")
    raw_deals = record.get("deals")
    if not isinstance(raw_deals, list):
        raise RecordError("deals must be a list")
    deals = [_parse_deal(d, i) for i, d in enumerate(raw_deals)]
    start = record.get("start")
    standing = standing_from_start(start, PROFILES[profile]) if start is not None else Standing()
    first_dealer: Any = (start or {}).get("dealer", deals[0][0] if deals else 0)
    if first_dealer not in (0, 1, 2) or isinstance(first_dealer, bool):
        raise RecordError(f"start.dealer must be 0, 1 or 2, got {first_dealer!r}")

    dealt = 0

    def source(dealer: int) -> tuple[list[list[int]], list[int]]:
        nonlocal dealt
        i = dealt
        dealt += 1
        rec_dealer, hands, talon, _ = deals[i]
        if rec_dealer != dealer:
            raise RecordError(
                f"dealer is {rec_dealer} but the deal should be dealt by seat {dealer}", deal=i
            )
        return hands, talon

    if not deals:
        raise RecordError("a record needs at least one deal")
    game = MilGame(
        profile,
        seed=seed,
        players=players,
        max_deals=len(deals),
        start=start,
        standing=standing,
        dealer=first_dealer,
        deal_source=source,
    )
    for i, (_, _, _, actions) in enumerate(deals):
        if game.over:
            raise RecordError("the game was already won before this deal", deal=i)
        for j, entry in enumerate(actions):
            st = game.state
            if st is None or st.done:
                raise RecordError(f"action after the end of the deal: {entry!r}", deal=i, action=j)
            if not isinstance(entry, dict):
                raise RecordError(f"an action must be an object, got {entry!r}", deal=i, action=j)
            seat = entry.get("seat")
            if "seat" not in entry:
                raise RecordError(f"the action has no 'seat': {entry!r}", deal=i, action=j)
            if seat not in (0, 1, 2) or isinstance(seat, bool):
                raise RecordError(f"seat must be 0, 1 or 2, got {seat!r}", deal=i, action=j)
            try:
                action = action_from_json(entry)
            except InvalidNotationError as exc:
                raise RecordError(str(exc), deal=i, action=j) from None
            # A window of redeal offers: the seats before the one who asks declined.
            while st.phase in _OFFERS and not (isinstance(action, Redeal) and seat == st.turn):
                st.apply(KeepDeal())
            if seat != st.turn:
                raise RecordError(
                    f"{{seat {seat} {action}}}: it is seat {st.turn}'s turn "
                    f"(phase {st.phase.value})",
                    deal=i,
                    action=j,
                )
            before = len(game.deals)
            try:
                game.apply(action)
            except IllegalActionError as exc:
                raise RecordError(f"{{seat {seat} {action}}}: {exc}", deal=i, action=j) from None
            if len(game.deals) > before and j != len(actions) - 1:
                raise RecordError(
                    f"the deal ended at action {j} but {len(actions) - 1 - j} more follow",
                    deal=i,
                    action=j + 1,
                )
        if len(game.deals) != i + 1:
            st = game.state
            phase = st.phase.value if st is not None else "over"
            raise RecordError(f"the deal's actions stop before its end (phase {phase})", deal=i)
        if check_results:
            if "result" not in raw_deals[i]:
                raise RecordError("the deal has no 'result'", deal=i)
            want = raw_deals[i]["result"]
            got = game.deals[i][1].to_json(game.profile)
            if not isinstance(want, dict):
                raise RecordError(f"result must be an object, got {want!r}", deal=i)
            for key, value in got.items():
                if key not in want or not _same(want[key], value):
                    raise RecordError(
                        f"result differs: recorded {key} {want.get(key)!r}, replay gives {value!r}",
                        deal=i,
                    )
    if check_results:
        got_scores = game.to_record()["scores"]
        if not _same(record.get("scores"), got_scores):
            raise RecordError(
                f"final scores differ: recorded {record.get('scores')!r}, "
                f"replay gives {got_scores!r}"
            )
        if record.get("winner") != game.winner or isinstance(record.get("winner"), bool):
            raise RecordError(
                f"winner differs: recorded {record.get('winner')!r}, replay gives {game.winner!r}"
            )
    return game
