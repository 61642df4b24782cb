"""One entry point for every game: create a game by name, rebuild one from a record."""

from __future__ import annotations

from typing import Any

from tapete.errors import RecordError
from tapete.game import JSON, Game

__all__ = ["GAMES", "PROFILES", "game_from_record", "new_game"]

#: game name -> its rule profiles (the first one is the default)
PROFILES: dict[str, tuple[str, ...]] = {
    "mil": ("club", "casa", "casa-500"),
    "mariage": ("mariage",),
}
GAMES = tuple(PROFILES)


def new_game(
    game: str,
    profile: str | None = None,
    *,
    seed: int | None = None,
    players: list[str] | None = None,
    max_deals: int | None = None,
) -> Game:
    """A new game of ``game`` (``"mil"`` or ``"mariage"``) dealt from ``seed``."""
    if game not in PROFILES:
        raise ValueError(f"unknown game {game!r} (expected one of: {', '.join(GAMES)})")
    profile = profile or PROFILES[game][0]
    if profile not in PROFILES[game]:
        raise ValueError(
            f"unknown profile {profile!r} for {game} (expected one of: {', '.join(PROFILES[game])})"
        )
    if game == "mil":
        from tapete.mil.game import MilGame

        return MilGame(profile, seed=seed, players=players, max_deals=max_deals)
    from tapete.mariage.game import MariageGame

    return MariageGame(seed=seed, players=players, max_deals=max_deals)


def game_from_record(record: JSON, *, check_results: bool = True) -> Game:
    """Replay a tapete/1 record through the engine; raise :class:`RecordError` on a problem."""
    kind: Any = record.get("game") if isinstance(record, dict) else None
    if kind == "mil":
        from tapete.mil.record import replay_mil

        return replay_mil(record, check_results=check_results)
    if kind == "mariage":
        from tapete.mariage.record import replay_mariage

        return replay_mariage(record, check_results=check_results)
    raise RecordError(f'unknown game {kind!r} (expected "mil" or "mariage")')
