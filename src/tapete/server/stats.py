"""Statistics and the Ranking, computed from a finished game's tapete/1 record.

Per (player name, game, profile): games, wins, total points (the player's final score, so
the average is ``points_total / games``), contracts made and failed (Mil: deals the player
declared; a rospis counts as failed), barrel visits (Mil: how many times the player's
``in_barrel`` went from false to true, deal by deal). A won game enters the Ranking with
score = the player's final points (the record's ``GameKind.score_key``); one board per game
and target (``GameKind.target(profile)``: Mil to 1000 for ``club`` and ``casa``, Mil to 500
for ``casa-500``, Mariage to 7).

With the statistics come the player's analysed deals (``deal_reviews``: every deal of a
finished game is analysed in the background, and a deal of a game still on when someone asks
for its review; ``tapete.server.review``): per game and profile, how many of their deals
were analysed, their average loss per analysed deal (the expected loss; the open loss of a
quick analysis), and how many of their finished games still wait for the background.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from tapete.games import kind
from tapete.mil.state import contract_made
from tapete.server.db import RankingRow, StatRow

__all__ = [
    "GameSummary",
    "board_target",
    "player_stats",
    "ranking",
    "record_game",
    "summarize",
]


@dataclass(frozen=True, slots=True)
class GameSummary:
    points: float
    won: bool
    contracts_made: int
    contracts_failed: int
    barrel_visits: int


def board_target(game: str, profile: str) -> int:
    """The Ranking board a game belongs to: its profile's target (Mil 1000 or 500, Mariage 7)."""
    return kind(game).target(profile)


def _final_points(record: dict[str, Any], seat: int) -> float:
    values = record.get(kind(record.get("game")).score_key) or []
    return float(values[seat]) if seat < len(values) else 0.0


def _flag(values: Any, seat: int) -> bool:
    """``values[seat]`` of an optional per-seat list of a result (False when absent)."""
    return bool(values[seat]) if isinstance(values, list) and seat < len(values) else False


def summarize(record: dict[str, Any], seat: int) -> GameSummary:
    """One seat's figures in a (finished) record.

    Contracts and barrel visits come from the fields a deal's ``result`` has in games with
    contracts and a barrel (Mil: ``declarer``, ``contract``, ``raw``, ``rospis``,
    ``annulled``, ``in_barrel``); a game whose results have none of them (Mariage) counts 0.
    """
    made = failed = visits = 0
    in_barrel = _flag((record.get("start") or {}).get("in_barrel"), seat)
    for deal in record.get("deals", []):
        result = deal.get("result") or {}
        if not result:
            continue
        if (
            not result.get("annulled")
            and result.get("declarer") == seat
            and result.get("contract") is not None
        ):
            raw = result.get("raw")
            reached = raw is not None and contract_made(raw[seat], result["contract"])
            if result.get("rospis") or not reached:
                failed += 1
            else:
                made += 1
        now = _flag(result.get("in_barrel"), seat)
        if now and not in_barrel:
            visits += 1
        in_barrel = now
    return GameSummary(
        points=_final_points(record, seat),
        won=record.get("winner") == seat,
        contracts_made=made,
        contracts_failed=failed,
        barrel_visits=visits,
    )


def record_game(
    session: Session,
    *,
    table_id: int,
    name: str,
    seat: int,
    record: dict[str, Any],
    when: datetime,
    ranked: bool = True,
    abandoned: bool = False,
) -> GameSummary:
    """Add one finished game of ``name`` (at ``seat``) to the statistics and the Ranking.
    ``abandoned``: the person left the seat to a computer for good (the clock's
    abandonment), so the game counts as played and nothing more: no win, no points, no
    contract, no Ranking entry, whatever the computer made of the seat (as a rated game
    counts it last); else leaving a game to a strong computer would earn its wins."""
    game = str(record.get("game"))
    profile = str(record.get("profile"))
    summary = summarize(record, seat)
    # the row is locked until the game's transaction ends (PostgreSQL: another server
    # process finishing a game of the same player waits, and no addition is lost; SQLite
    # locks the whole database for a write anyway and ignores FOR UPDATE)
    row = session.get(StatRow, (name, game, profile), with_for_update=True)
    if row is None:
        row = StatRow(
            name=name,
            game=game,
            profile=profile,
            games=0,
            wins=0,
            points_total=0.0,
            contracts_made=0,
            contracts_failed=0,
            barrel_visits=0,
        )
        session.add(row)
    row.games += 1
    if abandoned:
        return summary
    row.wins += int(summary.won)
    row.points_total += summary.points
    row.contracts_made += summary.contracts_made
    row.contracts_failed += summary.contracts_failed
    row.barrel_visits += summary.barrel_visits
    if ranked and summary.won:
        session.add(
            RankingRow(
                name=name,
                game=game,
                profile=profile,
                target=board_target(game, profile),
                score=summary.points,
                table_id=table_id,
                date=when,
            )
        )
    return summary


def _number(x: float) -> int | float:
    return int(x) if float(x).is_integer() else round(x, 2)


def _where_sat(name: str, *columns: Any) -> list[Any]:
    """Queries of ``columns`` of the tables where ``name`` sat as a person, each row with the
    seat last: the tables' seat rows; and the tables made before those rows existed, with
    the seat of their creator (the first without a computer) as ``levels`` (read with
    :func:`_seat_of`)."""
    from tapete.server.db import SeatRow, TableRow

    seated = (
        select(*columns, SeatRow.seat)
        .select_from(TableRow)
        .join(
            SeatRow,
            (SeatRow.table_id == TableRow.id) & (SeatRow.kind == "person") & (SeatRow.name == name),
        )
    )
    older = (
        select(*columns, TableRow.levels)
        .select_from(TableRow)
        .where(
            TableRow.owner == name,
            ~select(SeatRow.table_id).where(SeatRow.table_id == TableRow.id).exists(),
        )
    )
    return [seated, older]


def _seat_of(seat_or_levels: int | list[str | None]) -> int:
    if isinstance(seat_or_levels, int):
        return seat_or_levels
    return seat_or_levels.index(None) if None in seat_or_levels else 0


def review_losses(session: Session, name: str) -> dict[tuple[str, str], tuple[int, float]]:
    """Per (game, profile): the number of analysed deals that ``name`` played (at every table
    where they sat: the tables of others they were invited to or joined too) and the total
    of their seat's losses; tables begun from a position are left out, as in the
    statistics, and so are the seats they abandoned (a computer played them)."""
    from tapete.server.db import DealReviewRow, TableRow

    out: dict[tuple[str, str], tuple[int, float]] = {}
    columns = (
        TableRow.game,
        TableRow.profile,
        TableRow.start,
        TableRow.abandoned_seats,
        DealReviewRow.seat_losses,
    )
    for query in _where_sat(name, *columns):
        query = query.join(DealReviewRow, DealReviewRow.table_id == TableRow.id)
        for game, profile, start, abandoned, losses, where in session.execute(query):
            seat = _seat_of(where)
            if start is not None or seat in (abandoned or ()):  # (JSON null: tested here)
                continue
            count, total = out.get((game, profile), (0, 0.0))
            out[(game, profile)] = (count + 1, total + float(losses[seat]))
    return out


def games_waiting(session: Session, name: str) -> dict[tuple[str, str], int]:
    """Per (game, profile): the finished games where ``name`` sat whose deals the background
    has not all analysed yet (in its queue and not done, or not in it yet)."""
    from tapete.server.db import ReviewQueueRow, TableRow

    out: dict[tuple[str, str], int] = {}
    columns = (TableRow.id, TableRow.game, TableRow.profile, TableRow.start, ReviewQueueRow.done_at)
    counted: set[int] = set()  # (a name in two seats of one table: one game)
    for query in _where_sat(name, *columns):
        query = query.outerjoin(ReviewQueueRow, ReviewQueueRow.table_id == TableRow.id).where(
            TableRow.status == "finished"
        )
        for table_id, game, profile, start, done_at, _ in session.execute(query):
            if start is None and done_at is None and table_id not in counted:
                counted.add(table_id)
                out[(game, profile)] = out.get((game, profile), 0) + 1
    return out


def player_stats(session: Session, name: str) -> list[dict[str, Any]]:
    reviewed = review_losses(session, name)
    waiting = games_waiting(session, name)
    out: list[dict[str, Any]] = [
        {
            "game": r.game,
            "profile": r.profile,
            "games": r.games,
            "wins": r.wins,
            "average_points": _number(r.points_total / r.games) if r.games else 0,
            "contracts_made": r.contracts_made,
            "contracts_failed": r.contracts_failed,
            "barrel_visits": r.barrel_visits,
        }
        for r in session.scalars(
            select(StatRow).where(StatRow.name == name).order_by(StatRow.game, StatRow.profile)
        )
    ]
    seen = {(r["game"], r["profile"]) for r in out}
    for game, profile in sorted(set(reviewed) - seen):  # reviews of games not finished yet
        out.append(
            {
                "game": game,
                "profile": profile,
                "games": 0,
                "wins": 0,
                "average_points": 0,
                "contracts_made": 0,
                "contracts_failed": 0,
                "barrel_visits": 0,
            }
        )
    for r in out:
        count, total = reviewed.get((r["game"], r["profile"]), (0, 0.0))
        r["analysed_deals"] = count
        r["average_loss"] = _number(total / count) if count else None
        r["games_waiting_analysis"] = waiting.get((r["game"], r["profile"]), 0)
    return out


def ranking(
    session: Session, game: str, target: int, limit: int = 20, *, offset: int = 0
) -> list[dict[str, Any]]:
    """A page of a board: ``limit`` rows from place ``offset + 1``, best first."""
    rows = session.scalars(
        select(RankingRow)
        .where(RankingRow.game == game, RankingRow.target == target)
        .order_by(RankingRow.score.desc(), RankingRow.date.asc(), RankingRow.id.asc())
        .offset(offset)
        .limit(limit)
    )
    return [
        {
            "name": r.name,
            "score": _number(r.score),
            "profile": r.profile,
            "date": r.date.date().isoformat(),
            "table": r.table_id,
        }
        for r in rows
    ]
