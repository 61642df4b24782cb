"""Mil's registry entry (:data:`KIND`): what generic code may know about the game."""

from __future__ import annotations

from typing import Any

from tapete.fair import DealSeeds
from tapete.game import JSON, GameKind
from tapete.mil.actions import action_from_json
from tapete.mil.game import MilGame, open_view
from tapete.mil.profiles import PROFILES
from tapete.mil.record import READER, replay_mil, standing_from_start

__all__ = ["KIND"]


def _build(
    profile: str,
    *,
    seed: int | None = None,
    players: list[str] | None = None,
    max_deals: int | None = None,
    start: JSON | None = None,
    deal_seeds: DealSeeds | None = None,
) -> MilGame:
    """A new game, or one begun from a record's ``start`` (``scores``, ``bolts``,
    ``in_barrel``, ``barrel_attempts``, ``failed_visits``, ``dealer``); ``deal_seeds``: fair
    deals (tapete.fair)."""
    if start is None:
        return MilGame(
            profile, seed=seed, players=players, max_deals=max_deals, deal_seeds=deal_seeds
        )
    if not isinstance(start, dict):
        raise ValueError(f"start must be an object, got {start!r}")
    dealer: Any = start.get("dealer")
    if dealer is not None and (type(dealer) is not int or dealer not in (0, 1, 2)):
        raise ValueError(f"start.dealer must be 0, 1 or 2, got {dealer!r}")
    return MilGame(
        profile,
        seed=seed,
        players=players,
        max_deals=max_deals,
        start=start,
        # (checked against the profile, as `tapete replay` reads it: a position the profile
        # cannot reach, such as club 900 outside the barrel, is refused here too)
        standing=standing_from_start(start, PROFILES[profile]),
        dealer=dealer,
        deal_seeds=deal_seeds,
    )


KIND = GameKind(
    name="mil",
    title="Mil",
    seats=3,
    profiles=tuple(PROFILES),
    targets={name: p.target for name, p in PROFILES.items()},
    default_players=("Ana", "Bruno", "Carla"),
    score_key="scores",
    max_deals=80,
    build=_build,
    parse_action=action_from_json,
    replay=replay_mil,
    bots="tapete.bots.mil",
    point_share=False,
    terminal="tapete.terminal.mil",
    analysis="tapete.analysis.mil",
    reader=READER,
    open_view=open_view,
)
