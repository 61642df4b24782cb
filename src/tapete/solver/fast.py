"""The fast open-hand solver: alpha-beta with zero-window searches.

Two implementations of one algorithm with the same API: the C core
(:mod:`tapete.solver._core`, built by ``pip install``) and :class:`PySearch`, a pure Python
port used when the extension is missing (same values, nearly the same node counts). The
algorithm:

- values are the declarer's points *still to gain*, so a position's value does not depend on
  how it was reached and can be stored and reused;
- exact values by zero-window searches on ``[0, 400]``, each narrowing the interval by the
  fail-soft value it returns: first 1 point, then a quarter of the interval, then bisection
  (searches below the value are the cheap ones);
- a transposition table at trick boundaries, keyed by the three hands, the leader, the
  trump, whether marriages may be announced, the declarer and the profile's card-play rules
  (:class:`tapete.solver.position.PlayRules`: must head, automatic marriages); it holds a
  lower and an upper bound and the best lead;
- quick cut-offs at trick boundaries: the declarer gains at most the points of the cards
  left plus the marriages of the pairs they hold, minus what the defenders are sure to cash
  when they lead; when the declarer leads, they are sure of what they can cash
  (:func:`sure_points`) plus one marriage they still hold;
- equivalent cards: two cards of the seat to move with no live card between them give
  positions that differ only in which of the two is played now, so their values differ by at
  most the two cards' point difference; a card whose bound from an already searched
  neighbour cannot change the result is not searched. (Mil cards of a suit never have equal
  points, so the usual "search one card of a sequence" reduction is not sound here; cards of a
  K-Q pair the player holds are left out, since playing one breaks the pair.)
- move ordering: the table's best lead first, then announcements, winners, leads towards the
  partner's winner, smears (points to a trick the own side wins) and cheap discards;
- the last trick is scored directly.
"""

from __future__ import annotations

import warnings
from typing import Final

from tapete.cards import ABOVE, KING, PAIR_MASKS, QUEEN, SUIT_MASKS, beats, mask_points
from tapete.mil.state import play_mask_of
from tapete.solver.position import MARRIAGE_VALUES, MilPosition, PlayRules

try:
    import tapete.solver._core as _core  # type: ignore[import-not-found]
except ImportError:  # not built: the pure Python search does the work, slower
    _core = None
#: the calling convention of the C core this module speaks (``_core.ABI``)
CORE_ABI: Final = 2
if _core is not None and getattr(_core, "ABI", None) != CORE_ABI:
    warnings.warn(
        f"{_core.__file__} was built from an older _core.c; the solver uses its Python "
        "search until it is rebuilt (bash scripts/setup)",
        RuntimeWarning,
        stacklevel=1,
    )
    _core = None

__all__ = ["BACKEND", "INF", "MAX_GAIN", "PySearch", "Session", "root_args", "sure_points"]

#: the backend used by default: "c" when the extension is built, else "python"
BACKEND: Final = "c" if _core is not None else "python"

INF: Final = 10_000
#: no deal gives more: 120 card points and all four marriages (280)
MAX_GAIN: Final = 400
_POINTS: Final = tuple(mask_points(1 << c) for c in range(32))
_PAIRS: Final = PAIR_MASKS
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


_beats: Final = beats


_RANK_MASKS: Final = tuple(0x01010101 << r for r in range(8))
_RANK_POINTS: Final = (0, 0, 0, 2, 3, 4, 10, 11)


def _lowest_points(mask: int, j: int) -> int:
    """Points of the ``j`` lowest cards of ``mask`` (card points grow with rank)."""
    p = 0
    while j > 0 and mask:
        low = mask & -mask
        p += _POINTS[low.bit_length() - 1]
        mask ^= low
        j -= 1
    return p


def _lowest_hand_points(hand: int, j: int) -> int:
    """Points of the ``j`` lowest-scoring cards of ``hand``, any suits."""
    p = 0
    for r in range(2, 8):
        if j <= 0:
            break
        cnt = min((hand & _RANK_MASKS[r]).bit_count(), j)
        p += cnt * _RANK_POINTS[r]
        j -= cnt
    return p


def sure_points(lead: int, others: tuple[int, int], trump: int) -> tuple[int, int, int]:
    """``(points, tricks, cashed)``: what the leader's side is sure to take at a trick
    boundary by cashing the leader's top cards while keeping the lead.

    Per suit, the leader's cards above every card the others hold; in a side suit (when a
    trump exists) no more of them than any other player holding a trump has cards of that
    suit, so nobody can ruff. Side suits are cashed first, trumps last. The others' cards
    count at their lowest: a trump holder follows suit in the side suits; anyone else may
    discard, so counts as their lowest cards overall. ``cashed`` is the mask of the
    leader's cards used.
    """
    has_trump = [trump >= 0 and bool(o & SUIT_MASKS[trump]) for o in others]
    total = m_total = cashed = 0
    m_suit = [0, 0, 0, 0]
    both = others[0] | others[1]
    for s in range(4):
        lead_s = lead & SUIT_MASKS[s]
        if not lead_s:
            continue
        other_s = both & SUIT_MASKS[s]
        m = (
            (lead_s & ABOVE[other_s.bit_length() - 1]).bit_count()
            if other_s
            else lead_s.bit_count()
        )
        if trump >= 0 and s != trump:
            for i in range(2):
                if has_trump[i]:
                    m = min(m, (others[i] & SUIT_MASKS[s]).bit_count())
        if m <= 0:
            continue
        m_suit[s] = m
        m_total += m
        for _ in range(m):
            top = lead_s.bit_length() - 1
            total += _POINTS[top]
            cashed |= 1 << top
            lead_s ^= 1 << top
    if m_total:
        for i in range(2):
            if has_trump[i]:
                for s in range(4):
                    if m_suit[s]:
                        total += _lowest_points(others[i] & SUIT_MASKS[s], m_suit[s])
            else:
                total += _lowest_hand_points(others[i], m_total)
    return total, m_total, cashed


def root_args(
    pos: MilPosition,
) -> tuple[int, int, int, int, int, tuple[int, ...], int, int, int, int]:
    """The flat arguments both searches take: h0, h1, h2, declarer, leader, trick, trump,
    marriages_allowed, must_head, auto_marriage (the last two from the profile)."""
    rules = pos.rules
    return (
        pos.hands[0],
        pos.hands[1],
        pos.hands[2],
        pos.declarer,
        pos.leader,
        pos.trick,
        _NO_TRUMP if pos.trump is None else pos.trump,
        1 if pos.tricks_played >= 1 else 0,
        1 if rules.must_head else 0,
        1 if rules.auto_marriage else 0,
    )


def _neighbour_bound(c: int, live: int, done: dict[int, int], maximize: bool) -> int | None:
    """A bound on the value of playing ``c`` from an equivalent card searched before: the
    nearest live card of the suit below or above ``c``, if it was searched from this node.
    Two such cards differ only in card points, so the values differ by at most that."""
    bounds = []
    below = live & SUIT_MASKS[c >> 3] & ((1 << c) - 1)
    if below:
        x = below.bit_length() - 1
        if x in done:
            bounds.append(done[x] + abs(_POINTS[c] - _POINTS[x]) * (1 if maximize else -1))
    above = live & ABOVE[c]
    if above:
        x = _low(above)
        if x in done:
            bounds.append(done[x] + abs(_POINTS[c] - _POINTS[x]) * (1 if maximize else -1))
    if not bounds:
        return None
    return min(bounds) if maximize else max(bounds)


class PySearch:
    """Pure Python alpha-beta over a mutable open-hand position (the C core's twin)."""

    def __init__(self, declarer: int, rules: PlayRules, *, plain: bool = False) -> None:
        self.declarer = declarer
        self.must_head = rules.must_head
        self.auto_marriage = rules.auto_marriage
        #: plain alpha-beta: no sure-points bounds, no equivalent-card bounds (only the table
        #: and the points-left cut-off), to check those shortcuts on whole deals
        self.plain = plain
        self.h = [0, 0, 0]
        self.tt: dict[tuple[int, int, int, int, int, int], tuple[int, int, int]] = {}
        self.nodes = 0

    # -- move generation -------------------------------------------------------------
    def _follow_mask(self, hand: int, trick: tuple[int, ...], trump: int) -> int:
        return play_mask_of(hand, list(trick), trump, self.must_head)

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
                if not top and not mine:
                    # a defender leads low towards the partner's winner
                    partner = h[3 - seat - self.declarer] & SUIT_MASKS[s]
                    dsuit = h[self.declarer] & SUIT_MASKS[s]
                    if (
                        partner
                        and partner.bit_length() > dsuit.bit_length()
                        and (dsuit or trump < 0 or not h[self.declarer] & SUIT_MASKS[trump])
                    ):
                        base = 100 - _POINTS[c] - (c & 7)
                if can_announce:
                    scored.append((100_000 if c | 32 == tt_best else 1000 + _MV[s], c, True))
                    if not self.auto_marriage:
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
            sure, tricks, cashed = (
                (0, 0, 0)
                if self.plain
                else sure_points(hand, (h[(leader + 1) % 3], h[(leader + 2) % 3]), trump)
            )
            if self.plain:
                pass
            elif leader == decl:
                if mok or tricks:
                    sure += max(
                        (
                            _MV[s]
                            for s in range(4)
                            if dh & _PAIRS[s] == _PAIRS[s] and not cashed & _PAIRS[s]
                        ),
                        default=0,
                    )
                if sure >= beta:
                    return sure
            else:
                ub -= sure
            if ub <= alpha:
                return ub
        maximize = seat == decl
        a0, b0 = alpha, beta
        best_value = -INF if maximize else INF
        best_card = -1
        live = h[0] | h[1] | h[2]
        for played in trick:
            live |= 1 << played
        paired = 0
        for s in range(4):
            if h[seat] & _PAIRS[s] == _PAIRS[s]:
                paired |= _PAIRS[s]
        # Equivalent cards (see the module docstring): bound found for each card searched,
        # upper for the declarer, lower for a defender.
        done: dict[int, int] = {}
        for c, announce in self._ordered(seat, leader, trump, mok, trick, tt_best):
            if not announce and not paired >> c & 1 and done and not self.plain:
                bound = _neighbour_bound(c, live, done, maximize)
                if bound is not None and (bound <= alpha if maximize else bound >= beta):
                    done[c] = bound
                    if (bound > best_value) if maximize else (bound < best_value):
                        best_value = bound
                    continue
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
            if not announce and not paired >> c & 1:
                done[c] = v
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

    def solve(self, leader: int, trump: int, mok: int, trick: tuple[int, ...]) -> int:
        """The exact value by zero-window searches, narrowing the interval that holds it
        with the fail-soft value each search returns. A search below the value is cheap (one
        good line proves it), one above it is not (every try must be refuted): the first
        search asks for 1 point, the next ones for a quarter of the interval until it is
        small, then bisection."""
        lo, hi, beta = 0, MAX_GAIN, 1
        while lo < hi:
            g = self.search(leader, trump, mok, trick, beta - 1, beta)
            if g >= beta:
                lo = g
            else:
                hi = g
            beta = lo + (hi - lo) // 4 if hi - lo > 8 else (lo + hi + 1) // 2
        return lo


class Session:
    """One solving session: a fresh transposition table on the chosen backend.

    ``backend`` is ``"c"`` (the compiled core) or ``"python"`` (:class:`PySearch`).
    Positions searched in one session must share the declarer and the card-play rules.
    """

    def __init__(self, declarer: int, rules: PlayRules, backend: str) -> None:
        self.declarer = declarer
        self.rules = rules
        self.backend = backend
        self._py: PySearch | None = None
        if backend == "c":
            if _core is None:
                raise RuntimeError("the C solver core (tapete.solver._core) is not built")
            _core.reset()
        elif backend == "python":
            self._py = PySearch(declarer, rules)
        else:
            raise ValueError(f"unknown solver backend {backend!r} (expected 'c' or 'python')")

    @property
    def nodes(self) -> int:
        if self._py is not None:
            return self._py.nodes
        assert _core is not None
        return int(_core.nodes())

    def gain(self, pos: MilPosition) -> int:
        """The declarer's points still to gain from ``pos`` (exact)."""
        args = root_args(pos)
        if self._py is not None:
            py = self._py
            py.h = [args[0], args[1], args[2]]
            return py.solve(args[4], args[6], args[7], args[5])
        assert _core is not None
        return int(_core.solve(*args))

    def search(self, pos: MilPosition, alpha: int, beta: int) -> int:
        """Fail-soft alpha-beta on the points still to gain, window ``(alpha, beta)``."""
        args = root_args(pos)
        if self._py is not None:
            py = self._py
            py.h = [args[0], args[1], args[2]]
            return py.search(args[4], args[6], args[7], args[5], alpha, beta)
        assert _core is not None
        return int(_core.search(*args, alpha, beta))
