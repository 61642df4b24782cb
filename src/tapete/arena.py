"""Duplicate matches between computer players (``tapete arena``).

Each game is dealt from its own seed (``new_game(..., seed=...)``), so the cards depend only
on the seed, never on who plays; duplicate play replays every game in every seat rotation so
that card luck cancels. Bot decisions use their own ``random.Random`` seeded from the arena
seed, the game, the rotation and the seat: a run is reproducible.

Per bot name: points per deal with a 95% confidence interval, declarer success rate (games
with contracts: Mil), match share (games won) with its interval, ms per decision (median,
p95), and for a game whose deals only win points (``GameKind.point_share``: Mariage, where
"points" are game points and one "deal" is one hand) the share of all points. The intervals
are clustered by game: a game's seat rotations (``duplicate``) and a name's several seats
play the same cards, so their results are one sample, not several (counted apart, one game
played in three rotations gave an interval, and three games as many as nine).
Everything is read from the game-level accessors (``finished_deals``, ``scores``, ``winner``)
and the game's registry entry: the arena knows no game by name.
"""

from __future__ import annotations

import json
import math
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from tapete.bots import FaultCount, make_bots
from tapete.game import DealSummary
from tapete.games import kind

__all__ = ["BotStats", "run_arena"]


def _ratio_ci(
    units: list[tuple[float, float]] | list[tuple[float, int]],
) -> tuple[float, float, float]:
    """Ratio sum(a) / sum(b) over clusters (a, b) with a 95% interval (cluster-robust SE);
    NaN bounds from fewer than two clusters (one game gives no interval: it used to print
    one of zero width, which read as certainty)."""
    num = sum(a for a, _ in units)
    den = sum(b for _, b in units)
    if not den:
        return 0.0, 0.0, 0.0
    r = num / den
    k = len(units)
    if k < 2:
        return r, math.nan, math.nan
    var = sum((a - r * b) ** 2 for a, b in units) / (k * (k - 1))
    se = math.sqrt(var) / (den / k)
    return r, r - 1.96 * se, r + 1.96 * se


@dataclass
class BotStats:
    name: str
    #: per game (its index; every rotation and seat of this name together): (points, deals)
    units: dict[int, tuple[float, int]] = field(default_factory=dict)
    #: per game: (wins, plays): a play is one seat rotation (a tie at the cap split), and a
    #: name in two seats wins the plays either seat wins
    wins: dict[int, tuple[float, int]] = field(default_factory=dict)
    contracts_made: int = 0
    contracts_failed: int = 0
    rospis: int = 0
    ms: list[float] = field(default_factory=list)
    game_points: float = 0.0
    #: per game, where the kind has ``point_share``: (this bot's points, all seats' points)
    gp_units: dict[int, tuple[float, float]] = field(default_factory=dict)
    faults: int = 0

    def add(self, game: int, points: float, deals: int, all_points: float | None) -> None:
        """One seat's result in one play of game number ``game``."""
        a, b = self.units.get(game, (0.0, 0))
        self.units[game] = (a + points, b + deals)
        if all_points is not None:
            ga, gb = self.gp_units.get(game, (0.0, 0.0))
            self.gp_units[game] = (ga + points, gb + all_points)

    def add_play(self, game: int, won: float) -> None:
        """One play of game number ``game``: the share of it this name won (0 to 1)."""
        w, n = self.wins.get(game, (0.0, 0))
        self.wins[game] = (w + won, n + 1)

    def game_point_share(self) -> tuple[float, float, float]:
        """Share of all game points won, with a 95% interval clustered by game; when every
        game gave the same share (all of the points, say), the cluster-robust interval has
        no width, and Wilson's for a share of that many games stands in for it."""
        r, lo, hi = _ratio_ci(list(self.gp_units.values()))
        if math.isnan(lo):
            return r, lo, hi
        if hi - lo < 1e-12:
            _, lo, hi = _wilson(r, len(self.gp_units))
        return r, max(0.0, lo), min(1.0, hi)

    def points_per_deal(self) -> tuple[float, float, float]:
        return _ratio_ci(list(self.units.values()))

    def match_share(self) -> tuple[float, float, float]:
        """Share of plays won, averaged per game (a game's rotations are one sample), with a
        95% Wilson score interval on the number of games (sound for small counts and shares
        near 0 or 1)."""
        if not self.wins:
            return 0.0, 0.0, 0.0
        shares = [w / n for w, n in self.wins.values()]
        return _wilson(sum(shares) / len(shares), len(shares))

    def games(self) -> int:
        """The games this name played (each in one or more seat rotations)."""
        return len(self.wins)

    def plays(self) -> int:
        """The games times their seat rotations."""
        return sum(n for _, n in self.wins.values())

    def declarer_success(self) -> float | None:
        n = self.contracts_made + self.contracts_failed
        return self.contracts_made / n if n else None

    def ms_quantiles(self) -> tuple[float, float]:
        if not self.ms:
            return 0.0, 0.0
        s = sorted(self.ms)
        return s[len(s) // 2], s[min(len(s) - 1, int(0.95 * len(s)))]


def _wilson(m: float, k: int) -> tuple[float, float, float]:
    """A share ``m`` of ``k`` samples with its 95% Wilson score interval."""
    z = 1.96
    denom = 1 + z * z / k
    centre = (m + z * z / (2 * k)) / denom
    half = z * math.sqrt(m * (1 - m) / k + z * z / (4 * k * k)) / denom
    return m, max(0.0, centre - half), min(1.0, centre + half)


def _rotations(players: list[str], duplicate: bool) -> list[list[str]]:
    n = len(players)
    if not duplicate:
        return [list(players)]
    return [players[-r:] + players[:-r] if r else list(players) for r in range(n)]


def _play_game(
    game_name: str,
    profile: str,
    names: list[str],
    seed: int,
    tag: str,
    stats: dict[str, BotStats],
    deal_cap: int,
    number: int,
    fault_counts: dict[str, FaultCount] | None = None,
) -> int:
    """Play one rotation of game ``number``; record everything in ``stats``; return the
    number of deals played. ``fault_counts``: each name's :class:`FaultCount` over the run
    (its bots are made anew for every play, its failures logged once per run)."""
    game_kind = kind(game_name)
    g = game_kind.new(profile, seed=seed, players=names, max_deals=deal_cap)
    bots = make_bots(game_name, names, profile=profile, fault_counts=fault_counts)
    rngs = [random.Random(f"{tag}:{seat}") for seat in range(len(names))]
    steps = 0
    while not g.over:
        seat = g.turn
        assert seat is not None
        view = g.view(seat)
        t0 = time.perf_counter()
        action = bots[seat].act(view, rngs[seat])
        stats[names[seat]].ms.append(1000 * (time.perf_counter() - t0))
        g.apply(action)
        steps += 1
        if steps > 200000:
            raise RuntimeError("arena game does not end")
    seat_pts = [0.0] * len(names)
    deals = g.finished_deals
    for deal in deals:
        _score_deal(deal, names, stats, seat_pts, game_kind.point_share)
    winner = g.winner
    if winner is None:
        final = g.scores
        best = max(final)
        leaders = [s for s, v in enumerate(final) if v == best]
        shares = [1 / len(leaders) if s in leaders else 0.0 for s in range(len(names))]
    else:
        shares = [1.0 if s == winner else 0.0 for s in range(len(names))]
    every = sum(seat_pts) if game_kind.point_share else None
    for seat, n in enumerate(names):
        stats[n].add(number, seat_pts[seat], len(deals), every)
        stats[n].faults += getattr(bots[seat], "faults", 0)
    for n in set(names):
        stats[n].add_play(number, sum(shares[s] for s in range(len(names)) if names[s] == n))
    return len(deals)


def _score_deal(
    deal: DealSummary,
    names: list[str],
    stats: dict[str, BotStats],
    seat_pts: list[float],
    point_share: bool,
) -> None:
    """Add one finished deal to the seats' points and the declarer's contracts."""
    for seat, delta in enumerate(deal.deltas):
        seat_pts[seat] += delta
        if point_share:
            stats[names[seat]].game_points += delta
    if deal.declarer is None:
        return  # no contract (a game without declarers, or a deal annulled before one)
    declarer = stats[names[deal.declarer]]
    if deal.made is not None:
        if deal.made:
            declarer.contracts_made += 1
        else:
            declarer.contracts_failed += 1
    elif deal.record["result"].get("rospis"):
        declarer.rospis += 1  # conceded: a failed contract
        declarer.contracts_failed += 1


def run_arena(
    game: str,
    profile: str | None,
    players: list[str],
    deals: int,
    seed: int,
    duplicate: bool,
    json_path: str | None,
    *,
    deals_per_game: int | None = None,
) -> int:
    """Play at least ``deals`` deals (whole games, each in every seat rotation when
    ``duplicate``), print a summary table, optionally write JSON; return an exit code.
    Interrupted (``KeyboardInterrupt``, which it raises again), it prints and writes the
    figures of the games played so far, the JSON marked ``"interrupted": true``.

    ``deals_per_game`` stops each game after that many deals (default: the game's
    ``GameKind.max_deals``; a game stopped there is won by the leader). With 1 and
    ``duplicate``, every deal is played once in each seat rotation: a paired comparison on
    single deals, whose points-per-deal interval is much narrower than whole games give (the
    match share then only says who led after the deal).
    """
    try:
        game_kind = kind(game)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    profile = profile or game_kind.profiles[0]
    seats = game_kind.seats
    if len(players) != seats:
        print(f"{game} needs {seats} players, got {len(players)}", file=sys.stderr)
        return 2
    stats: dict[str, BotStats] = {n: BotStats(n) for n in players}
    # one count of faults per player over the run: the first failure logged in full once
    fault_counts = {n: FaultCount() for n in players}
    cap = game_kind.max_deals if deals_per_game is None else deals_per_game
    played = 0
    gi = 0
    t_start = time.time()
    rotations = _rotations(players, duplicate)
    from tapete.cli.common import Progress, count

    # the count may pass ``deals``: whole games are played ("78 (at least 60)")
    try:
        with Progress(deals, f"[arena] {game}/{profile} deals") as progress:
            while played < deals:
                game_seed = seed * 100003 + gi
                for r, names in enumerate(rotations):
                    tag = f"{seed}:{gi}:{r}"
                    played += _play_game(
                        game, profile, names, game_seed, tag, stats, cap, gi, fault_counts
                    )
                gi += 1
                elapsed = time.time() - t_start
                progress.update(played, f"{count(gi, 'game')}, {elapsed:.0f} s")
    except KeyboardInterrupt:
        # (Ctrl-C) the figures of the games played so far: a long run stopped early said
        # only "interrupted"; the game under way is left out, its finished seat rotations
        # are not (with --duplicate the last game's cards may not have gone round); the
        # --json file gets them too, marked "interrupted" (it was left unwritten)
        if played:
            summary = _summary(game, profile, played, stats, len(rotations))
            summary["interrupted"] = True
            _write_json(json_path, summary)  # (first: a closed stdout stops the printing)
            print(_table(game, summary))
            print(
                f"(interrupted after {count(played, 'deal')}: the game under way is left out)",
                file=sys.stderr,
            )
        raise
    summary = _summary(game, profile, played, stats, len(rotations))
    _write_json(json_path, summary)
    print(_table(game, summary))
    return 0


def _write_json(path: str | None, summary: dict[str, Any]) -> None:
    """The ``--json`` file (nothing without one)."""
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(summary, f, indent=2)
            f.write("\n")


def _ci(lo: float, hi: float, digits: int) -> list[float] | None:
    """An interval for the summary; None where there is none (a single game)."""
    if math.isnan(lo) or math.isnan(hi):
        return None
    return [round(lo, digits), round(hi, digits)]


def _ci_text(ci: list[float] | None, spec: str, width: int) -> str:
    """``[lo,hi]`` as the table writes it, or ``n/a`` in the same width."""
    if ci is None:
        return f"[{'n/a':^{width}}]"
    return f"[{ci[0]:{spec}},{ci[1]:{spec}}]"


def _summary(
    game: str, profile: str, played: int, stats: dict[str, BotStats], rotations: int
) -> dict[str, Any]:
    """The run's figures (the ``--json`` file); ``rotations``: the seat rotations each
    game is played in (1 without ``--duplicate``). ``interrupted`` is False here; a run
    stopped (Ctrl-C, SIGTERM) before its ``deals`` sets it, its figures those of the games
    played."""
    total_gp = sum(s.game_points for s in stats.values())
    bots = []
    for s in stats.values():
        m, lo, hi = s.points_per_deal()
        sm, slo, shi = s.match_share()
        p50, p95 = s.ms_quantiles()
        entry: dict[str, Any] = {
            "name": s.name,
            "points_per_deal": {"mean": round(m, 2), "ci95": _ci(lo, hi, 2)},
            "match_share": {"mean": round(sm, 3), "ci95": [round(slo, 3), round(shi, 3)]},
            "declarer_success_rate": (
                None if s.declarer_success() is None else round(s.declarer_success() or 0, 3)
            ),
            "contracts": {
                "made": s.contracts_made,
                "failed": s.contracts_failed,
                "rospis": s.rospis,
            },
            "ms_per_decision": {"p50": round(p50, 2), "p95": round(p95, 2)},
            "games": s.games(),
            "plays": s.plays(),
            "faults": s.faults,
        }
        if kind(game).point_share:
            entry["game_points"] = s.game_points
            _, glo, ghi = s.game_point_share()
            entry["game_point_share"] = round(s.game_points / total_gp, 3) if total_gp else None
            entry["game_point_share_ci95"] = _ci(glo, ghi, 3)
        bots.append(entry)
    games = max(s.games() for s in stats.values())
    return {
        "game": game,
        "profile": profile,
        "deals": played,
        "games": games,
        "rotations": rotations,
        "interrupted": False,
        "bots": bots,
    }


def _table(game: str, summary: dict[str, Any]) -> str:
    from tapete.cli.common import count

    # (the names' column as wide as the longest: a bot of your own is module:name)
    width = max(10, *(len(b["name"]) for b in summary["bots"]))
    head = (
        f"{'bot':<{width}} {'pts/deal':>9} {'95% CI':>17} {'share':>6} {'95% CI':>13} "
        f"{'decl ok':>7} {'made/failed':>11} {'ms p50':>7} {'ms p95':>7}"
    )
    point_share = kind(game).point_share
    if point_share:
        head += f" {'gp share':>8} {'95% CI':>13}"
    games, rotations = summary["games"], summary["rotations"]
    played = f"{summary['deals']} deals, {count(games, 'game')}"
    if rotations > 1:
        played += f" in {rotations} seat rotations"
        # (a run stopped by Ctrl-C: the game under way counts its finished rotations)
        last = max(b["plays"] for b in summary["bots"]) - (games - 1) * rotations
        if 0 < last < rotations:
            played += f" (the last game in {last})"
    lines = [f"{summary['game']} / {summary['profile']}: {played}", head]
    for b in summary["bots"]:
        p = b["points_per_deal"]
        s = b["match_share"]
        d = b["declarer_success_rate"]
        c = b["contracts"]
        line = (
            f"{b['name']:<{width}} {p['mean']:>9.2f} {_ci_text(p['ci95'], '>7.2f', 15)} "
            f"{s['mean']:>6.3f} [{s['ci95'][0]:.3f},{s['ci95'][1]:.3f}] "
            f"{'-' if d is None else f'{d:.3f}':>7} {c['made']:>5}/{c['failed']:<5} "
            f"{b['ms_per_decision']['p50']:>7.2f} {b['ms_per_decision']['p95']:>7.2f}"
        )
        if point_share:
            share = b.get("game_point_share")
            ci = _ci_text(b["game_point_share_ci95"], ".3f", 11)
            line += f" {'-' if share is None else f'{share:.3f}':>8} {ci}"
        lines.append(line)
    if any(b["points_per_deal"]["ci95"] is None for b in summary["bots"]):
        lines.append("(n/a: one game gives no interval; play more deals)")
    faulty = [f"{b['name']} {count(b['faults'], 'time')}" for b in summary["bots"] if b["faults"]]
    if faulty:
        lines.append(
            f"(failed, a legal action played instead: {', '.join(faulty)}; "
            "the first failure is logged above)"
        )
    return "\n".join(lines)
