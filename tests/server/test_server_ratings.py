"""Ratings (tapete.server.ratings): OpenSkill Plackett–Luce updates checked against values
computed here from the published formulas (Weng & Lin 2011, Algorithm 4, with OpenSkill's
defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300, kappa 1e-4, gamma = sigma / c), the
final order of a game (ties, abandoned seats last), provisional ratings, the finished-game
hook and the pools."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from tapete.server import ratings
from tapete.server.accounts import UserRow
from tapete.server.db import make_engine, upgrade, utcnow
from tapete.server.ratings import RatingHistoryRow, RatingRow

MU, SIGMA = 25.0, 25.0 / 3.0
BETA, TAU, KAPPA = SIGMA / 2.0, 25.0 / 300.0, 1e-4


def plackett_luce(
    players: list[tuple[float, float]], ranks: list[int]
) -> list[tuple[float, float]]:
    """The Plackett–Luce update, written from the paper's formulas (not the library):
    sigma_i^2 += tau^2 first; c = sqrt(sum(sigma_i^2 + beta^2)); for each i, over the q with
    rank_q <= rank_i: C_q = sum of exp(mu_j / c) over the j with rank_j >= rank_q, A_q = the
    number of players sharing q's rank,
    omega_i = sigma_i^2 / c * sum (delta_iq - exp(mu_i/c) / C_q) / A_q,
    delta_i = gamma_i * sigma_i^2 / c^2 * sum (exp(mu_i/c)/C_q)(1 - exp(mu_i/c)/C_q) / A_q,
    mu_i' = mu_i + omega_i, sigma_i' = sigma_i * sqrt(max(1 - delta_i, kappa))."""
    sig2 = [s * s + TAU * TAU for _, s in players]
    c = math.sqrt(sum(s2 + BETA * BETA for s2 in sig2))
    e = [math.exp(mu / c) for mu, _ in players]
    n = len(players)
    big_c = [sum(e[j] for j in range(n) if ranks[j] >= ranks[q]) for q in range(n)]
    a = [sum(1 for j in range(n) if ranks[j] == ranks[q]) for q in range(n)]
    out = []
    for i in range(n):
        omega = delta = 0.0
        for q in range(n):
            if ranks[q] > ranks[i]:
                continue
            p = e[i] / big_c[q]
            omega += ((1.0 if q == i else 0.0) - p) / a[q]
            delta += p * (1.0 - p) / a[q]
        gamma = math.sqrt(sig2[i]) / c
        mu = players[i][0] + sig2[i] / c * omega
        sigma = math.sqrt(sig2[i]) * math.sqrt(max(1.0 - gamma * sig2[i] / c**2 * delta, KAPPA))
        out.append((mu, sigma))
    return out


@pytest.fixture
def sessions(tmp_path: Path) -> sessionmaker[Session]:
    engine = make_engine(f"sqlite:///{tmp_path / 'r.sqlite3'}")
    upgrade(engine)
    return sessionmaker(engine, expire_on_commit=False)


def _users(sessions: sessionmaker[Session], *names: str) -> list[int]:
    with sessions.begin() as s:
        rows = [
            UserRow(name=n, name_key=n.lower(), password_hash="x", created_at=utcnow())
            for n in names
        ]
        s.add_all(rows)
        s.flush()
        return [r.id for r in rows]


def _flat(pairs: Any) -> list[float]:
    return [x for pair in pairs for x in pair]


def _rating(sessions: sessionmaker[Session], uid: int, pool: str) -> RatingRow:
    with sessions() as s:
        row = s.get(RatingRow, (uid, pool))
        assert row is not None
        return row


def test_the_reference_formulas_give_the_hand_computed_three_player_values() -> None:
    # three new players, no ties: c^2 = 3 (sigma^2 + tau^2 + beta^2); the winner's omega is
    # (1 - 1/3) sigma'^2 / c, the last one's -(1/3 + 1/2 + 1) sigma'^2 / c + 1 ... written out:
    s2 = SIGMA**2 + TAU**2
    c = math.sqrt(3 * (s2 + BETA**2))
    winner_mu = MU + s2 / c * (2 / 3)
    last_mu = MU + s2 / c * (-1 / 3 - 1 / 2)  # q = 1, 2 (its own term with q = 3 is 1 - 1 = 0)
    got = plackett_luce([(MU, SIGMA)] * 3, [0, 1, 2])
    assert got[0][0] == pytest.approx(winner_mu)
    assert got[2][0] == pytest.approx(last_mu)
    assert got[0][0] == pytest.approx(27.869, abs=1e-3)  # by hand: 25 + 69.45 / 16.14 * 2/3
    assert got[0][1] == pytest.approx(
        math.sqrt(s2) * math.sqrt(1 - (math.sqrt(s2) / c) * s2 / c**2 * (2 / 9))
    )


def test_rate_game_matches_the_formulas_over_several_games(
    sessions: sessionmaker[Session],
) -> None:
    a, b, c = _users(sessions, "Ana", "Bea", "Caio")
    expected = {uid: (MU, SIGMA) for uid in (a, b, c)}
    games = [([a, b, c], [0, 1, 2]), ([c, a, b], [0, 1, 1]), ([b, c, a], [0, 0, 1])]
    for order, ranks in games:
        with sessions.begin() as s:
            changes = ratings.rate_game(s, "mil-1000", order, ranks)
        new = plackett_luce([expected[u] for u in order], ranks)
        for uid, value in zip(order, new, strict=True):
            expected[uid] = value
        assert [ch.user_id for ch in changes] == order
    for uid in (a, b, c):
        row = _rating(sessions, uid, "mil-1000")
        assert [row.mu, row.sigma] == pytest.approx(list(expected[uid]), abs=1e-9)
        assert row.ordinal == pytest.approx(row.mu - 3 * row.sigma)
        assert row.games == 3
    with sessions() as s:
        history = list(s.scalars(select(RatingHistoryRow).where(RatingHistoryRow.user_id == a)))
    assert [h.place for h in history] == [1, 2, 3]  # 1st, tied 2nd, 3rd
    assert history[0].before == 0.0 and history[1].before == pytest.approx(history[0].ordinal)


def test_a_tie_gives_the_tied_players_the_same_change(sessions: sessionmaker[Session]) -> None:
    a, b, c = _users(sessions, "Ana", "Bea", "Caio")
    with sessions.begin() as s:
        out = ratings.rate_game(s, "mil-500", [a, b, c], [0, 1, 1])
    assert out[1].mu == pytest.approx(out[2].mu) and out[1].sigma == pytest.approx(out[2].sigma)
    assert [ch.place for ch in out] == [1, 2, 2]
    want = plackett_luce([(MU, SIGMA)] * 3, [0, 1, 1])
    assert _flat((ch.mu, ch.sigma) for ch in out) == pytest.approx(_flat(want))


def test_two_player_games_match_the_formulas(sessions: sessionmaker[Session]) -> None:
    a, b = _users(sessions, "Ana", "Bea")
    state = {a: (MU, SIGMA), b: (MU, SIGMA)}
    for order in ([a, b], [a, b], [b, a]):
        with sessions.begin() as s:
            ratings.rate_game(s, "mariage", order)
        for uid, value in zip(order, plackett_luce([state[u] for u in order], [0, 1]), strict=True):
            state[uid] = value
    row = _rating(sessions, a, "mariage")
    assert [row.mu, row.sigma] == pytest.approx(list(state[a]))


def test_bad_calls_are_refused(sessions: sessionmaker[Session]) -> None:
    a, b = _users(sessions, "Ana", "Bea")
    with sessions.begin() as s:
        with pytest.raises(ValueError, match="no rating pool 'chess'"):
            ratings.rate_game(s, "chess", [a, b])
        with pytest.raises(ValueError, match="two different users"):
            ratings.rate_game(s, "mariage", [a, a])
        with pytest.raises(ValueError, match="one rank per user"):
            ratings.rate_game(s, "mariage", [a, b], [1, 0])


def test_final_places_ties_share_and_abandoned_seats_come_last() -> None:
    assert ratings.final_places([1000, 500, 700], 0) == ([0, 2, 1], [0, 1, 2])
    assert ratings.final_places([1000, 600, 600], 0) == ([0, 1, 2], [0, 1, 1])
    # an abandoned seat is last whatever its score; two abandoned share the last place
    assert ratings.final_places([1000, 990, 100], 0, {1}) == ([0, 2, 1], [0, 1, 2])
    assert ratings.final_places([1000, 990, 980], 0, {1, 2}) == ([0, 1, 2], [0, 1, 1])
    # the winner comes first even if another score is as high (the engine decided)
    assert ratings.final_places([4, 7], 1) == ([1, 0], [0, 1])


def test_provisional_until_ten_games_and_a_small_enough_sigma(
    sessions: sessionmaker[Session],
) -> None:
    assert ratings.is_provisional(9, 5.0) and ratings.is_provisional(30, 7.6)
    assert not ratings.is_provisional(10, 7.4)
    a, b = _users(sessions, "Ana", "Bea")
    for game in range(10):
        with sessions.begin() as s:
            out = ratings.rate_game(s, "mariage", [a, b] if game % 2 else [b, a])
        assert out[0].provisional == (game < 9), (game, out[0])
    with sessions() as s:
        board = ratings.leaderboard(s, "mariage")
    assert [r["games"] for r in board] == [10, 10] and not board[0]["provisional"]


def _table(**fields: Any) -> SimpleNamespace:
    base: dict[str, Any] = {
        "rated": True,
        "id": None,
        "game_name": "mil",
        "profile": "club",
        "abandoned": set(),
    }
    return SimpleNamespace(**{**base, **fields})


def test_the_hook_rates_only_rated_tables_in_score_order(sessions: sessionmaker[Session]) -> None:
    a, b, c = _users(sessions, "Ana", "Bea", "Caio")
    record = {"game": "mil", "profile": "club", "winner": 2, "scores": [640, 880, 1005]}
    with sessions.begin() as s:
        assert ratings.hook(s, _table(rated=False, user_ids=[a, b, c]), record) == []
        assert ratings.hook(s, _table(user_ids=[a, None, c]), record) == []  # a guest
    with sessions() as s:
        assert s.scalars(select(RatingRow)).first() is None
    with sessions.begin() as s:
        out = ratings.hook(s, _table(user_ids=[a, b, c]), record)
    assert [(ch.user_id, ch.place) for ch in out] == [(c, 1), (b, 2), (a, 3)]
    want = plackett_luce([(MU, SIGMA)] * 3, [0, 1, 2])
    assert _flat((ch.mu, ch.sigma) for ch in out) == pytest.approx(_flat(want))
    # club and casa share the pool "mil-1000"; casa-500 has its own
    with sessions.begin() as s:
        ratings.hook(s, _table(user_ids=[a, b, c], profile="casa"), {**record, "profile": "casa"})
        ratings.hook(s, _table(user_ids=[a, b, c]), {**record, "profile": "casa-500"})
    assert _rating(sessions, c, "mil-1000").games == 2
    assert _rating(sessions, c, "mil-500").games == 1


def test_the_hook_puts_an_abandoned_seat_last(sessions: sessionmaker[Session]) -> None:
    a, b, c = _users(sessions, "Ana", "Bea", "Caio")
    record = {"game": "mil", "profile": "club", "winner": 0, "scores": [1000, 990, 20]}
    with sessions.begin() as s:
        out = ratings.hook(s, _table(user_ids=[a, b, c], abandoned={1}), record)
    assert [(ch.user_id, ch.place) for ch in out] == [(a, 1), (c, 2), (b, 3)]
    with sessions() as s:
        gave_up = s.scalars(select(RatingHistoryRow).where(RatingHistoryRow.abandoned == 1))
        assert [h.user_id for h in gave_up] == [b]


def test_a_game_every_seat_abandoned_is_not_rated(sessions: sessionmaker[Session]) -> None:
    """Three accounts that all left their rated game to the computers each went from 0 to
    0.4 (one place shared by all: no change of mu, a smaller sigma), above a player who
    finished hers. Nobody played it out: nothing is rated, nothing is written."""
    a, b, c = _users(sessions, "Ana", "Bea", "Caio")
    record = {"game": "mil", "profile": "casa-500", "winner": 0, "scores": [500, 300, 200]}
    with sessions.begin() as s:
        out = ratings.hook(s, _table(user_ids=[a, b, c], abandoned={0, 1, 2}), record)
    assert out == []
    with sessions() as s:
        assert s.scalars(select(RatingRow)).first() is None
        assert s.scalars(select(RatingHistoryRow)).first() is None
    with sessions.begin() as s:  # (two of three gone: the one who stayed is rated first)
        out = ratings.hook(s, _table(user_ids=[a, b, c], abandoned={0, 1}), record)
    assert [(ch.user_id, ch.place) for ch in out] == [(c, 1), (a, 2), (b, 2)]


def test_a_game_stopped_at_the_cap_on_deals_is_not_rated(sessions: sessionmaker[Session]) -> None:
    """A rated game nobody played to its end (the server's cap on deals stopped it, with no
    winner) moved every rating, as a finished game would; it counts in no statistics."""
    a, b, c = _users(sessions, "Ana", "Bea", "Caio")
    record = {"game": "mil", "profile": "club", "winner": None, "scores": [640, 720, 500]}
    with sessions.begin() as s:
        assert ratings.hook(s, _table(user_ids=[a, b, c], capped=True), record) == []
    with sessions() as s:
        assert s.scalars(select(RatingRow)).first() is None
    with sessions.begin() as s:  # (a game its creator limited with max_deals: rated)
        out = ratings.hook(s, _table(user_ids=[a, b, c], capped=False), record)
    assert [(ch.user_id, ch.place) for ch in out] == [(b, 1), (a, 2), (c, 3)]


def test_the_hook_rates_a_mariage_match_winner_first(sessions: sessionmaker[Session]) -> None:
    a, b = _users(sessions, "Ana", "Bea")
    record = {"game": "mariage", "profile": "mariage", "winner": 1, "match": [3, 7]}
    with sessions.begin() as s:
        out = ratings.hook(s, _table(user_ids=[a, b], game_name="mariage"), record)
    assert [ch.user_id for ch in out] == [b, a]
    assert _rating(sessions, b, "mariage").mu > MU > _rating(sessions, a, "mariage").mu


def test_register_adds_the_hook_once_when_the_manager_has_finish_hooks() -> None:
    manager = SimpleNamespace(finish_hooks=[])
    assert ratings.register(manager) and ratings.register(manager)
    assert manager.finish_hooks == [ratings.hook]
    assert not ratings.register(SimpleNamespace())


def test_the_pools_are_one_per_game_and_target() -> None:
    assert ratings.pools() == ["mil-1000", "mil-500", "mariage"]
