"""Mariage's registry entry (:data:`KIND`): what generic code may know about the game."""

from __future__ import annotations

from tapete.fair import DealSeeds
from tapete.game import JSON, GameKind
from tapete.mariage.actions import action_from_json
from tapete.mariage.game import DEFAULT_PLAYERS, TARGET, MariageGame, open_view
from tapete.mariage.record import READER, replay_mariage

__all__ = ["KIND"]


def _build(
    profile: str,
    *,
    seed: int | None = None,
    players: list[str] | None = None,
    max_deals: int | None = None,
    start: JSON | None = None,
    deal_seeds: DealSeeds | None = None,
) -> MariageGame:
    """A new match, or one begun from a record's ``start`` (``game_points``, ``dealer``);
    ``deal_seeds``: fair deals (tapete.fair)."""
    return MariageGame(
        seed=seed, players=players, max_deals=max_deals, start=start, deal_seeds=deal_seeds
    )


KIND = GameKind(
    name="mariage",
    title="Mariage",
    seats=2,
    profiles=("mariage",),
    targets={"mariage": TARGET},
    default_players=DEFAULT_PLAYERS,
    score_key="match",
    max_deals=60,
    build=_build,
    parse_action=action_from_json,
    replay=replay_mariage,
    bots="tapete.bots.mariage",
    point_share=True,
    terminal="tapete.terminal.mariage",
    analysis="tapete.analysis.mariage",
    reader=READER,
    open_view=open_view,
)
