"""Mil's hooks for the shared ``tapete/1`` reader (:mod:`tapete.reader`), and start positions.

:data:`READER` tells the reader how a Mil game starts from a record (its ``start`` standing,
the first dealer, the recorded deals in order), that a redeal offer the format does not write
was declined (``KeepDeal``), and which results to recompute. :func:`replay_mil` replays a Mil
record with it; :func:`standing_from_start` reads a ``start`` position (the server's too).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from tapete.cards import MIL_DECK
from tapete.errors import RecordError
from tapete.game import JSON, DealCards, RecordReader
from tapete.mil.actions import KeepDeal, MilAction, Redeal, action_from_json
from tapete.mil.game import MilGame, deal_seeded
from tapete.mil.profiles import PROFILES, Profile
from tapete.mil.scoring import Standing
from tapete.mil.state import Phase
from tapete.reader import replay_with, short

__all__ = ["READER", "replay_mil", "standing_from_start"]

_OFFERS = (Phase.REDEAL_OFFER, Phase.NINES_OFFER)
_KEEP: Final = KeepDeal()
#: no score comes near this (and a float holds every half point below it exactly)
_MAX_SCORE: Final = 2**50


def _seats3(start: dict[str, Any], key: str, kind: type, default: Any) -> tuple[Any, ...]:
    value = start.get(key, [default] * 3)
    if (
        not isinstance(value, list)
        or len(value) != 3
        or not all(isinstance(x, kind) and (kind is bool or not isinstance(x, bool)) for x in value)
    ):
        raise RecordError(
            f"start.{key} must be a list of 3 {kind.__name__} values, got {short(value)}"
        )
    return tuple(value)


def _half_points(x: Any, where: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int | float):
        raise RecordError(f"{where} must be a number in half points, got {short(x)}")
    if not -_MAX_SCORE < x < _MAX_SCORE:  # (NaN and the infinities too)
        raise RecordError(f"{where} must lie within ±{_MAX_SCORE:,}, got {short(x)}")
    if (2 * x) != int(2 * x):
        raise RecordError(f"{where} must be a number in half points, got {short(x)}")
    return int(2 * x)


def standing_from_start(start: dict[str, Any], profile: Profile | None = None) -> Standing:
    """The standing a record's ``start`` describes (missing fields: a new game).

    Each count must be 0, 1 or 2 (a third bolt, attempt or failed visit is settled in the
    deal that brings it). With ``profile``, the position must also be one that profile can
    reach (see :func:`_check_start`).
    """
    if not isinstance(start, dict):
        raise RecordError(f"start must be an object, got {short(start)}")
    scores = start.get("scores", [0, 0, 0])
    if not isinstance(scores, list) or len(scores) != 3:
        raise RecordError(f"start.scores must be a list of 3 numbers, got {short(scores)}")
    half = tuple(_half_points(s, "start.scores") for s in scores)
    bolts = _seats3(start, "bolts", int, 0)
    barrel = _seats3(start, "in_barrel", bool, False)
    attempts = _seats3(start, "barrel_attempts", int, 0)
    failed = _seats3(start, "failed_visits", int, 0)
    for key, counts in (("bolts", bolts), ("barrel_attempts", attempts), ("failed_visits", failed)):
        if not all(0 <= n <= 2 for n in counts):
            got = short(list(counts))
            raise RecordError(f"start.{key} must be 0, 1 or 2 for each seat, got {got}")
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
            flags = short(list(st.barrel_flags(profile)))
            raise RecordError(
                f"start.in_barrel must be {flags} in {profile.name} "
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


def _start(record: JSON, deals: list[DealCards], seeds: list[bytes | None]) -> MilGame:
    start = record.get("start")
    standing = (
        standing_from_start(start, PROFILES[record["profile"]]) if start is not None else Standing()
    )
    # no deal yet (a game still in its first deal, as the server gives it while it is played:
    # its finished deals only): the game stands before it, its dealer a new game's (drawn
    # from the seed) unless the start names one
    default = record["deals"][0]["dealer"] if deals else None
    first: Any = (start or {}).get("dealer", default)
    if (first is not None or "dealer" in (start or {})) and (
        type(first) is not int or first not in (0, 1, 2)
    ):
        raise RecordError(f"start.dealer must be 0, 1 or 2, got {short(first)}")
    dealt = iter(deals)

    def source(dealer: int) -> DealCards:  # the reader checks each deal's dealer
        try:
            return next(dealt)
        except StopIteration:  # pragma: no cover - max_deals stops the game first
            raise RecordError("the game needs more deals than the record holds") from None

    return MilGame(
        record["profile"],
        seed=record["seed"],
        players=record["players"],
        max_deals=len(deals),  # the game stops after the recorded deals
        start=start,
        standing=standing,
        dealer=first,
        deal_source=source,
        deal_seeds=seeds.__getitem__,  # (the game stops after the recorded deals)
    )


def _dealer(game: MilGame) -> int:
    assert game.state is not None  # the reader asks only while the game goes on
    return game.state.dealer


def _keeps(game: MilGame, seat: int, action: MilAction) -> Iterator[MilAction]:
    """A window of redeal offers: the seats before the one who asks declined (KeepDeal)."""
    st = game.state
    while (
        st is not None
        and st.phase in _OFFERS
        and not (isinstance(action, Redeal) and seat == st.turn)
    ):
        yield _KEEP


def _nothing(game: MilGame) -> Iterator[MilAction]:
    return iter(())


def _result(game: MilGame, index: int) -> JSON:
    return game.deals[index][1].to_json(game.profile)


def _final(game: MilGame) -> JSON:
    return {"scores": game.standing.to_json(game.profile)["scores"], "winner": game.winner}


READER: Final = RecordReader[MilGame](
    name="mil",
    title="Mil",
    seats=3,
    profiles=tuple(PROFILES),
    hand_size=7,
    rest="talon",
    rest_size=3,
    deck=MIL_DECK,
    deck_note="Mil uses A T K Q J 9",
    final_fields=("scores", "winner"),
    fractional=frozenset({"raw", "scores"}),  # (a rospis halves them)
    in_progress=False,
    start=_start,
    dealer=_dealer,
    parse_action=action_from_json,
    before=_keeps,
    after=_nothing,
    finished=lambda game: len(game.deals),
    result=_result,
    final=_final,
    deal_seeded=deal_seeded,
)


def replay_mil(record: JSON, *, check_results: bool = True) -> MilGame:
    """Rebuild a Mil game from its record; raise :class:`RecordError` at the first problem."""
    return replay_with(READER, record, check_results=check_results)
