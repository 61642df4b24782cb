"""Ratings: OpenSkill's Plackett–Luce model (free-for-all, any number of players), one pool
per game and target.

Pools (:func:`pool_of`): a game whose profiles play to one target has one pool named after
the game (``mariage``); a game with several targets has one per target (``mil-1000``,
``mil-500``). The two Mil profiles that play to 1000 (club and casa) share a pool: they
differ in a few scoring details, not in the skill they ask for, and one pool gives each
rating twice the games. The pools are the Ranking's boards (web ``rankingBoards``).

A rating is OpenSkill's (mu, sigma) from the model's defaults (mu 25, sigma 25/3, beta
25/6, tau 25/300: sigma grows by tau before each game, so a rating never freezes); the
number shown is the ordinal mu - 3 sigma (0 for a new player; with 99.7 % confidence the
skill is above it). A rating is *provisional* while its player has fewer than
:data:`PROVISIONAL_GAMES` rated games in the pool or its sigma is above
:data:`PROVISIONAL_SIGMA` (the model is still unsure).

Only rated tables (every seat a person with an account: ``table.rated``) change ratings,
through :func:`hook`, run in the transaction that stores the game's end. The final order:
the winner first, the others by final score (equal scores share a place), a seat that
abandoned the game last (several such share the last place).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import DateTime, Float, ForeignKey, Index, Integer, String, func, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from tapete.games import kind, kinds
from tapete.server.accounts import UserRow
from tapete.server.db import Base, SeatRow, TableRow, utcnow

__all__ = [
    "PROVISIONAL_GAMES",
    "PROVISIONAL_SIGMA",
    "RatingChange",
    "RatingHistoryRow",
    "RatingRow",
    "final_places",
    "hook",
    "is_provisional",
    "leaderboard",
    "pool_of",
    "pools",
    "rate_game",
    "register",
    "table_ratings",
    "user_ratings",
]

MODEL = PlackettLuce()
#: fewer rated games than this in a pool: the rating is provisional
PROVISIONAL_GAMES = 10
#: a sigma above this (the model's start is 25/3 ≈ 8.33): the rating is provisional
PROVISIONAL_SIGMA = 7.5


class RatingRow(Base):
    """A user's rating in one pool."""

    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_board", "pool", "ordinal"),)

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    pool: Mapped[str] = mapped_column(String(32), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    #: mu - 3 sigma, the number shown (kept for the leaderboard's order)
    ordinal: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RatingHistoryRow(Base):
    """One rated game of one user: the rating after it."""

    __tablename__ = "rating_history"
    __table_args__ = (Index("ix_rating_history_user", "user_id", "pool", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    pool: Mapped[str] = mapped_column(String(32))
    #: the table of the game (None for a game rated by hand)
    table_id: Mapped[int | None] = mapped_column(
        ForeignKey("tables.id", ondelete="SET NULL"), nullable=True
    )
    #: 1 for the winner; equal places for a tie
    place: Mapped[int] = mapped_column(Integer)
    players: Mapped[int] = mapped_column(Integer)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)
    #: the ordinal before the game (the change is ordinal - before)
    before: Mapped[float] = mapped_column(Float)
    #: 1: this seat abandoned the game (it counted as last)
    abandoned: Mapped[int] = mapped_column(Integer, default=0)
    date: Mapped[datetime] = mapped_column(DateTime(timezone=True))


@dataclass(frozen=True, slots=True)
class RatingChange:
    user_id: int
    place: int
    mu: float
    sigma: float
    ordinal: float
    before: float
    games: int
    provisional: bool


def pool_of(game: str, profile: str) -> str:
    """The rating pool of a game played with ``profile``.

    >>> pool_of("mil", "club"), pool_of("mil", "casa"), pool_of("mil", "casa-500")
    ('mil-1000', 'mil-1000', 'mil-500')
    >>> pool_of("mariage", "mariage")
    'mariage'
    """
    k = kind(game)
    targets = set(k.targets.values())
    return k.name if len(targets) == 1 else f"{k.name}-{k.target(profile)}"


def pools() -> list[str]:
    """Every pool, in the registry's order."""
    return list(dict.fromkeys(pool_of(k.name, p) for k in kinds() for p in k.profiles))


def is_provisional(games: int, sigma: float) -> bool:
    return games < PROVISIONAL_GAMES or sigma > PROVISIONAL_SIGMA


def ordinal(mu: float, sigma: float) -> float:
    return mu - 3.0 * sigma


def _places(ranks: Sequence[int]) -> list[int]:
    """Ranks (lower is better, any numbers) as places from 1, ties sharing the best one:
    ``[0, 5, 5, 9]`` -> ``[1, 2, 2, 4]``."""
    return [1 + sum(1 for other in ranks if other < r) for r in ranks]


def rate_game(
    session: Session,
    pool: str,
    user_ids: Sequence[int],
    ranks: Sequence[int] | None = None,
    *,
    table_id: int | None = None,
    abandoned: frozenset[int] = frozenset(),
    when: datetime | None = None,
) -> list[RatingChange]:
    """Rate one game: ``user_ids`` in the final order (the winner first); ``ranks`` (one per
    user, lower is better) for ties, e.g. ``[0, 1, 1]``: the last two tied (default: all
    places different). ``abandoned``: the users who abandoned (recorded in the history).
    Updates (or creates) each user's rating in ``pool`` and adds a history row each."""
    if pool not in pools():
        raise ValueError(f"no rating pool {pool!r}: {', '.join(pools())}")
    ids = list(user_ids)
    if len(ids) < 2 or len(set(ids)) != len(ids):
        raise ValueError(f"a rated game needs at least two different users, got {ids}")
    order = list(range(len(ids))) if ranks is None else list(ranks)
    if len(order) != len(ids) or order != sorted(order):
        raise ValueError(
            f"'ranks' must give one rank per user in the users' order (non-decreasing), "
            f"got {order} for {len(ids)} users"
        )
    when = when or utcnow()
    rows = {
        r.user_id: r
        for r in session.scalars(
            select(RatingRow).where(RatingRow.pool == pool, RatingRow.user_id.in_(ids))
        )
    }
    teams = []
    for uid in ids:
        row = rows.get(uid)
        teams.append([MODEL.rating() if row is None else MODEL.rating(mu=row.mu, sigma=row.sigma)])
    new = MODEL.rate(teams, ranks=[float(r) for r in order])
    places = _places(order)
    out = []
    for uid, team, place in zip(ids, new, places, strict=True):
        rating = team[0]
        row = rows.get(uid)
        before = 0.0 if row is None else row.ordinal
        if row is None:
            row = RatingRow(user_id=uid, pool=pool, games=0)
            session.add(row)
        row.mu, row.sigma = float(rating.mu), float(rating.sigma)
        row.ordinal = ordinal(row.mu, row.sigma)
        row.games += 1
        row.updated_at = when
        session.add(
            RatingHistoryRow(
                user_id=uid,
                pool=pool,
                table_id=table_id,
                place=place,
                players=len(ids),
                mu=row.mu,
                sigma=row.sigma,
                ordinal=row.ordinal,
                before=before,
                abandoned=int(uid in abandoned),
                date=when,
            )
        )
        out.append(
            RatingChange(
                uid,
                place,
                row.mu,
                row.sigma,
                row.ordinal,
                before,
                row.games,
                is_provisional(row.games, row.sigma),
            )
        )
    session.flush()
    return out


def final_places(
    scores: Sequence[float], winner: int | None, abandoned: frozenset[int] | set[int] = frozenset()
) -> tuple[list[int], list[int]]:
    """The seats in final order and their ranks (lower is better): the winner first, then the
    others by final score, highest first (equal scores share a rank); abandoned seats last
    (sharing the last rank).

    >>> final_places([1005, 640, 640], 0)
    ([0, 1, 2], [0, 1, 1])
    >>> final_places([1010, 990, 300], 0, {1})
    ([0, 2, 1], [0, 1, 2])
    """
    seats = range(len(scores))

    def key(seat: int) -> tuple[int, int, float]:
        return (int(seat in abandoned), int(seat != winner), -float(scores[seat]))

    def tie(seat: int) -> tuple[int, int, float]:
        return (1, 1, 0.0) if seat in abandoned else key(seat)

    order = sorted(seats, key=key)
    ranks: list[int] = []
    for i, seat in enumerate(order):
        if i and tie(order[i - 1]) == tie(seat):
            ranks.append(ranks[-1])
        else:
            ranks.append(i)
    return order, ranks


def hook(session: Session, table: Any, record: dict[str, Any]) -> list[RatingChange]:
    """The finished-game hook (``TableManager.finish_hooks``): rate a rated table's game.
    Does nothing unless ``table.rated`` and every seat has a user, nor for a game the
    server stopped at its cap on deals (``table.capped``: nobody played it to its end, and
    it counts in no statistics), nor when every seat was abandoned: they would all share the
    last place, a tie that says nothing of their play but narrows their sigmas, and so
    raised every one's rating (mu - 3 sigma) for leaving the game to the computers."""
    if not getattr(table, "rated", False) or getattr(table, "capped", False):
        return []
    user_ids = list(getattr(table, "user_ids", []) or [])
    if len(user_ids) < 2 or any(u is None for u in user_ids):
        return []
    abandoned = frozenset(getattr(table, "abandoned", ()) or ())
    if len(abandoned) >= len(user_ids):
        return []
    game = str(record.get("game") or table.game_name)
    profile = str(record.get("profile") or table.profile)
    scores = record.get(kind(game).score_key) or [0] * len(user_ids)
    winner = record.get("winner")
    order, ranks = final_places(scores, winner if isinstance(winner, int) else None, abandoned)
    return rate_game(
        session,
        pool_of(game, profile),
        [user_ids[s] for s in order],
        ranks,
        table_id=getattr(table, "id", None),
        abandoned=frozenset(user_ids[s] for s in abandoned),
    )


def register(manager: Any) -> bool:
    """Add :func:`hook` to ``manager.finish_hooks`` when the manager has them (True)."""
    hooks = getattr(manager, "finish_hooks", None)
    if hooks is None:
        return False
    if hook not in hooks:
        hooks.append(hook)
    return True


def _row_json(row: RatingRow) -> dict[str, Any]:
    return {
        "pool": row.pool,
        "ordinal": round(row.ordinal, 2),
        "mu": round(row.mu, 3),
        "sigma": round(row.sigma, 3),
        "games": row.games,
        "provisional": is_provisional(row.games, row.sigma),
    }


def leaderboard(
    session: Session, pool: str, limit: int = 20, *, offset: int = 0
) -> list[dict[str, Any]]:
    """A page of a pool's leaderboard, highest ordinal first."""
    rows = session.execute(
        select(RatingRow, UserRow.name)
        .join(UserRow, UserRow.id == RatingRow.user_id)
        .where(RatingRow.pool == pool)
        .order_by(RatingRow.ordinal.desc(), RatingRow.games.desc(), UserRow.name_key)
        .offset(offset)
        .limit(limit)
    )
    return [
        {"place": offset + i + 1, "name": name, **_row_json(row)}
        for i, (row, name) in enumerate(rows)
    ]


def user_ratings(session: Session, user_id: int, history_limit: int = 200) -> list[dict[str, Any]]:
    """A user's rating in each pool they played, with its history (oldest first, the last
    ``history_limit`` games)."""
    out = []
    for row in session.scalars(
        select(RatingRow).where(RatingRow.user_id == user_id).order_by(RatingRow.pool)
    ):
        history = list(
            session.scalars(
                select(RatingHistoryRow)
                .where(RatingHistoryRow.user_id == user_id, RatingHistoryRow.pool == row.pool)
                .order_by(RatingHistoryRow.id.desc())
                .limit(history_limit)
            )
        )
        out.append(
            {
                **_row_json(row),
                "history": [
                    {
                        "date": h.date.isoformat(),
                        "ordinal": round(h.ordinal, 2),
                        "before": round(h.before, 2),
                        "place": h.place,
                        "players": h.players,
                        "table": h.table_id,
                        "abandoned": bool(h.abandoned),
                    }
                    for h in reversed(history)
                ],
            }
        )
    return out


def table_ratings(session: Session, table_id: int) -> dict[str, Any] | None:
    """What ``GET /api/tables/{id}/ratings`` gives (None: no such table): whether the table
    is rated, its pool, and per seat of its rated game (none before the game is over, none
    at an unrated table) the seat's rating after the game, before it, the change, the place,
    the player's rated games in the pool counting this one and whether the rating was then
    provisional."""
    table = session.get(TableRow, table_id)
    if table is None:
        return None
    pool = pool_of(table.game, table.profile) if table.rated else None
    seats: list[dict[str, Any]] = []
    rows = list(
        session.scalars(select(RatingHistoryRow).where(RatingHistoryRow.table_id == table_id))
    )
    if table.rated and rows:
        by_user = {r.user_id: r for r in rows}
        for seat in session.scalars(
            select(SeatRow).where(SeatRow.table_id == table_id).order_by(SeatRow.seat)
        ):
            row = by_user.get(seat.user_id) if seat.user_id is not None else None
            if row is None:
                continue
            games = (
                session.scalar(
                    select(func.count())
                    .select_from(RatingHistoryRow)
                    .where(
                        RatingHistoryRow.user_id == row.user_id,
                        RatingHistoryRow.pool == row.pool,
                        RatingHistoryRow.id <= row.id,
                    )
                )
                or 0
            )
            seats.append(
                {
                    "seat": seat.seat,
                    "name": seat.name or "",
                    "ordinal": round(row.ordinal, 2),
                    "before": round(row.before, 2),
                    "change": round(round(row.ordinal, 2) - round(row.before, 2), 2),
                    "place": row.place,
                    "games": int(games),
                    "provisional": is_provisional(int(games), row.sigma),
                    "abandoned": bool(row.abandoned),
                }
            )
    return {"table": table.id, "rated": bool(table.rated), "pool": pool, "seats": seats}
