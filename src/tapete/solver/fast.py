"""The fast open-hand solver: alpha-beta with zero-window (MTD(f)) searches.

Two implementations of one algorithm with the same API: the C core
(:mod:`tapete.solver._core`, built by ``pip install``) and :class:`PySearch`, a pure Python
port used when the extension is missing. The algorithm:

- values are the declarer's points *still to gain*, so a position's value does not depend on
  how it was reached and can be stored and reused;
- a transposition table at trick boundaries, keyed by the three hands, the leader, the
  trump and whether marriages may be announced, holds a lower and an upper bound and the
  best lead;
- a quick cut-off: the declarer can gain at most the points of the cards left plus the
  marriages of the pairs they hold;
- move ordering: the table's best lead first, then announcements, winners, smears
  (points to a trick the own side wins) and cheap discards;
- the last trick is scored directly.

No equivalent-card reduction is made: in Mil any two cards of a suit differ in card points,
so swapping "equivalent" cards changes the points a trick carries and is not sound.
"""

from __future__ import annotations

from typing import Final

from tapete.cards import ABOVE, KING, QUEEN, SUIT_MASKS, mask_points
from tapete.solver.position import MARRIAGE_VALUES, MilPosition, is_casa

try:
    from tapete.solver import _core  # type: ignore[attr-defined]
except ImportError:  # not built: the pure Python search does the work, slower
    _core = None

__all__ = ["BACKEND", "INF", "PySearch", "Session", "root_args"]

#: the backend used by default: "c" when the extension is built, else "python"
BACKEND: Final = "c" if _core is not None else "python"

INF: Final = 10_000
_POINTS: Final = tuple(mask_points(1 << c) for c in range(32))
_PAIRS: Final = tuple((1 << (s * 8 + KING)) | (1 << (s * 8 + QUEEN)) for s in range(4))
_MV: Final = MARRIAGE_VALUES
_NO_TRUMP: Final = -1


def _low(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _cards(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _beats(c: int, best: int, trump: int) -> bool:
    """Whether ``c`` beats the trick's winning card so far ``best``."""
    if c >> 3 == best >> 3:
        return c > best
    return c >> 3 == trump


def root_args(pos: MilPosition) -> tuple[int, int, int, int, int, tuple[int, ...], int, int, int]:
    """The flat arguments both searches take: h0, h1, h2, declarer, leader, trick, trump,
    marriages_allowed, casa."""
    return (
        pos.hands[0],
        pos.hands[1],
        pos.hands[2],
        pos.declarer,
        pos.leader,
        pos.trick,
        _NO_TRUMP if pos.trump is None else pos.trump,
        1 if pos.tricks_played >= 1 else 0,
        1 if is_casa(pos) else 0,
    )


class PySearch:
    """Pure Python alpha-beta over a mutable open-hand position (the C core's twin)."""

    def __init__(self, declarer: int, casa: bool) -> None:
        self.declarer = declarer
        self.casa = casa
        self.h = [0, 0, 0]
        self.tt: dict[tuple[int, int, int, int, int, int], tuple[int, int, int]] = {}
        self.nodes = 0

    # -- move generation -------------------------------------------------------------
    def _follow_mask(self, hand: int, trick: tuple[int, ...], trump: int) -> int:
        led = trick[0] >> 3
        follow = hand & SUIT_MASKS[led]
        trumps = hand & SUIT_MASKS[trump] if trump >= 0 else 0
        if not self.casa:
            return follow or trumps or hand
        if follow:
            if trump >= 0 and led != trump and any(c >> 3 == trump for c in trick):
                return follow
            top = max(c for c in trick if c >> 3 == led)
            return (follow & ABOVE[top]) or follow
        if trumps:
            tops = [c for c in trick if c >> 3 == trump]
            if tops:
                return (trumps & ABOVE[max(tops)]) or trumps
            return trumps
        return hand

    def _ordered(
        self, seat: int, leader: int, trump: int, mok: int, trick: tuple[int, ...], tt_best: int
    ) -> list[tuple[int, bool]]:
        h = self.h
        hand = h[seat]
        scored: list[tuple[int, int, bool]] = []
        mine = seat == self.declarer
        if not trick:
            others = h[(seat + 1) % 3] | h[(seat + 2) % 3]
            for c in _cards(hand):
                s = c >> 3
                pair = _PAIRS[s]
                can_announce = mok and (c & 7) in (KING, QUEEN) and hand & pair == pair
                top = not (others & ABOVE[c])
                base = 200 + _POINTS[c] if top else -_POINTS[c] - (c & 7)
                if can_announce:
                    scored.append((100_000 if c | 32 == tt_best else 1000 + _MV[s], c, True))
                    if not self.casa:
                        scored.append((100_000 if c == tt_best else base, c, False))
                else:
                    scored.append((100_000 if c == tt_best else base, c, False))
        else:
            n = len(trick)
            best = trick[0]
            best_i = 0
            for i in range(1, n):
                if _beats(trick[i], best, trump):
                    best, best_i = trick[i], i
            best_seat = (leader + best_i) % 3
            partner_winning = (best_seat == self.declarer) == mine
            for c in _cards(self._follow_mask(hand, trick, trump)):
                wins = _beats(c, best, trump)
                if n == 2:
                    side_wins = wins or partner_winning
                    score = 500 + _POINTS[c] if side_wins else -_POINTS[c] - (c & 7)
                elif wins:
                    score = 300 + (c & 7)
                elif partner_winning:
                    score = 200 + _POINTS[c]
                else:
                    score = -_POINTS[c] - (c & 7)
                scored.append((score, c, False))
        scored.sort(key=lambda x: -x[0])
        return [(c, a) for _, c, a in scored]

    # -- search ----------------------------------------------------------------------
    def search(
        self, leader: int, trump: int, mok: int, trick: tuple[int, ...], alpha: int, beta: int
    ) -> int:
        """Fail-soft alpha-beta: the declarer's points still to gain from this node."""
        self.nodes += 1
        h = self.h
        n = len(trick)
        seat = (leader + n) % 3
        decl = self.declarer
        key = None
        tt_best = -1
        if n == 0:
            hand = h[leader]
            if not hand:
                return 0
            if hand & (hand - 1) == 0:
                a, b, c = _low(hand), _low(h[(leader + 1) % 3]), _low(h[(leader + 2) % 3])
                best, w = a, 0
                if _beats(b, best, trump):
                    best, w = b, 1
                if _beats(c, best, trump):
                    w = 2
                return _POINTS[a] + _POINTS[b] + _POINTS[c] if (leader + w) % 3 == decl else 0
            key = (h[0], h[1], h[2], leader, trump, mok)
            entry = self.tt.get(key)
            if entry is not None:
                lo, hi, tt_best = entry
                if lo >= beta or lo == hi:
                    return lo
                if hi <= alpha:
                    return hi
                alpha = max(alpha, lo)
                beta = min(beta, hi)
            ub = mask_points(h[0] | h[1] | h[2])
            dh = h[decl]
            for s in range(4):
                if dh & _PAIRS[s] == _PAIRS[s]:
                    ub += _MV[s]
            if ub <= alpha:
                return ub
        maximize = seat == decl
        a0, b0 = alpha, beta
        best_value = -INF if maximize else INF
        best_card = -1
        for c, announce in self._ordered(seat, leader, trump, mok, trick, tt_best):
            h[seat] ^= 1 << c
            if n == 2:
                t = (*trick, c)
                win, w = t[0], 0
                if _beats(t[1], win, trump):
                    win, w = t[1], 1
                if _beats(c, win, trump):
                    w = 2
                winner = (leader + w) % 3
                g = _POINTS[t[0]] + _POINTS[t[1]] + _POINTS[c] if winner == decl else 0
                v = g + self.search(winner, trump, 1, (), alpha - g, beta - g)
            elif announce:
                s = c >> 3
                g = _MV[s] if maximize else 0
                v = g + self.search(leader, s, mok, (c,), alpha - g, beta - g)
            else:
                v = self.search(leader, trump, mok, (*trick, c), alpha, beta)
            h[seat] ^= 1 << c
            if maximize:
                if v > best_value:
                    best_value, best_card = v, c | (32 if announce else 0)
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
            else:
                if v < best_value:
                    best_value, best_card = v, c | (32 if announce else 0)
                    if v < beta:
                        beta = v
                        if alpha >= beta:
                            break
        if key is not None:
            lo, hi = -INF, INF
            entry = self.tt.get(key)
            if entry is not None:
                lo, hi = entry[0], entry[1]
            if best_value <= a0:
                hi = min(hi, best_value)
            elif best_value >= b0:
                lo = max(lo, best_value)
            else:
                lo = hi = best_value
            self.tt[key] = (lo, hi, best_card)
        return best_value

    def mtdf(
        self, leader: int, trump: int, mok: int, trick: tuple[int, ...], guess: int = 0
    ) -> int:
        """The exact value by a sequence of zero-window searches (MTD(f))."""
        lo, hi = -INF, INF
        g = guess
        while lo < hi:
            beta = g + 1 if g == lo else g
            g = self.search(leader, trump, mok, trick, beta - 1, beta)
            if g < beta:
                hi = g
            else:
                lo = g
        return g


class Session:
    """One solving session: a fresh transposition table on the chosen backend.

    ``backend`` is ``"c"`` (the compiled core) or ``"python"`` (:class:`PySearch`).
    Positions searched in one session must share the declarer and the profile.
    """

    def __init__(self, declarer: int, casa: bool, backend: str) -> None:
        self.declarer = declarer
        self.casa = casa
        self.backend = backend
        self._py: PySearch | None = None
        if backend == "c":
            if _core is None:
                raise RuntimeError("the C solver core (tapete.solver._core) is not built")
            _core.reset()
        elif backend == "python":
            self._py = PySearch(declarer, casa)
        else:
            raise ValueError(f"unknown solver backend {backend!r} (expected 'c' or 'python')")

    @property
    def nodes(self) -> int:
        if self._py is not None:
            return self._py.nodes
        assert _core is not None
        return int(_core.nodes())

    def gain(self, pos: MilPosition, guess: int = 0) -> int:
        """The declarer's points still to gain from ``pos`` (exact)."""
        args = root_args(pos)
        if self._py is not None:
            py = self._py
            py.h = [args[0], args[1], args[2]]
            return py.mtdf(args[4], args[6], args[7], args[5], guess)
        assert _core is not None
        return int(_core.mtdf(*args, guess))

    def search(self, pos: MilPosition, alpha: int, beta: int) -> int:
        """Fail-soft alpha-beta on the points still to gain, window ``(alpha, beta)``."""
        args = root_args(pos)
        if self._py is not None:
            py = self._py
            py.h = [args[0], args[1], args[2]]
            return py.search(args[4], args[6], args[7], args[5], alpha, beta)
        assert _core is not None
        return int(_core.search(*args, alpha, beta))
