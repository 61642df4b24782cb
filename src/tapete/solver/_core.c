/*
 * tapete.solver._core: the C core of the Mil open-hand solver.
 *
 * The same search as tapete.solver.fast.PySearch (read that file first): fail-soft
 * alpha-beta on the declarer's points still to gain; a transposition table of bounds at
 * trick boundaries; quick cut-offs from the points left and from the points the side on
 * lead is sure to cash; bounds from equivalent cards; move ordering; exact values by
 * bisection over zero-window searches.
 *
 * Cards are ints suit*8+rank (rank 2..7 = 9 J Q K T A), hands are 32-bit masks.
 * Not thread-safe: one global table and context, used with the GIL held. Portable C99 plus
 * the GCC/Clang builtins __builtin_ctz/__builtin_clz; no machine-specific flags.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define INF 10000
#define MAX_GAIN 400 /* 120 card points + 280 in marriages */
#define TT_BITS 16
#define TT_SIZE (1u << TT_BITS)
#define MAX_MOVES 16

/* A table entry: bounds on the declarer's points still to gain at a trick boundary. */
typedef struct {
    uint64_t k1;
    uint32_t k2;
    uint16_t gen;
    int16_t lo, hi;
    uint8_t best;
} Entry;

static Entry *tt = NULL;
static uint16_t tt_gen = 0;
static unsigned long long node_count = 0;

static int POINTS[32];
static int BYTE_POINTS[256];
static uint32_t SUITM[4];
static uint32_t ABOVE[32];
static const int MV[4] = {40, 60, 80, 100};
static const int RANK_POINTS[8] = {0, 0, 0, 2, 3, 4, 10, 11};
#define KING 5
#define QUEEN 4

static uint32_t H[3];
static int DECL;
/* The profile's card-play rules (tapete.solver.position.PlayRules): a follower must head the
 * trick; leading the K or Q of a held pair always announces the marriage. */
static int MUST_HEAD;
static int AUTO_MARRIAGE;

/* Bit count without depending on a popcnt instruction (portable builds, no -m flags). */
static inline int popcount32(uint32_t x) {
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (int)((x * 0x01010101u) >> 24);
}

static inline int mask_points(uint32_t m) {
    return BYTE_POINTS[m & 0xFF] + BYTE_POINTS[(m >> 8) & 0xFF] + BYTE_POINTS[(m >> 16) & 0xFF] +
           BYTE_POINTS[m >> 24];
}

static inline uint32_t pair_mask(int s) { return (1u << (s * 8 + KING)) | (1u << (s * 8 + QUEEN)); }

static inline int beats(int c, int best, int trump) {
    if ((c >> 3) == (best >> 3)) return c > best;
    return (c >> 3) == trump;
}

static inline int top_card(uint32_t m) { return 31 - __builtin_clz(m); }

static uint32_t follow_mask(uint32_t hand, int n, const int *t, int trump) {
    int led = t[0] >> 3;
    uint32_t follow = hand & SUITM[led];
    uint32_t trumps = trump >= 0 ? hand & SUITM[trump] : 0;
    if (!MUST_HEAD) {
        if (follow) return follow;
        if (trumps) return trumps;
        return hand;
    }
    uint32_t table = 0;
    for (int i = 0; i < n; i++) table |= 1u << t[i];
    if (follow) {
        if (trump >= 0 && led != trump && (table & SUITM[trump])) return follow;
        uint32_t higher = follow & ABOVE[top_card(table & SUITM[led])];
        return higher ? higher : follow;
    }
    if (trumps) {
        uint32_t tt_ = table & SUITM[trump];
        if (tt_) {
            uint32_t higher = trumps & ABOVE[top_card(tt_)];
            return higher ? higher : trumps;
        }
        return trumps;
    }
    return hand;
}

static inline Entry *tt_slot(uint64_t k1, uint32_t k2) {
    uint64_t x = k1 * 0x9E3779B97F4A7C15ull ^ ((uint64_t)k2 * 0xC2B2AE3D27D4EB4Full);
    x ^= x >> 29;
    return &tt[(x * 0xBF58476D1CE4E5B9ull) >> (64 - TT_BITS)];
}

typedef struct {
    int score;
    uint8_t move; /* card | 32 if announcing */
} Move;

static int search(int leader, int trump, int mok, int n, const int *t, int alpha, int beta);

/* Sum of the points of the j lowest cards of mask m. */
static inline int lowest_points(uint32_t m, int j) {
    int p = 0;
    while (j-- > 0 && m) {
        p += POINTS[__builtin_ctz(m)];
        m &= m - 1;
    }
    return p;
}

/* Sum of the points of the j highest cards of mask m, added to *used. */
static inline int highest_points(uint32_t m, int j, uint32_t *used) {
    int p = 0;
    while (j-- > 0 && m) {
        int c = top_card(m);
        p += POINTS[c];
        *used |= 1u << c;
        m &= ~(1u << c);
    }
    return p;
}

/* Sum of the points of the j lowest-scoring cards of hand h (any suits): card points grow
 * with rank, so take the cards rank by rank from the bottom. */
static inline int lowest_hand_points(uint32_t h, int j) {
    int p = 0;
    for (int r = 2; r < 8 && j > 0; r++) {
        int cnt = popcount32(h & (0x01010101u << r));
        if (cnt > j) cnt = j;
        p += cnt * RANK_POINTS[r];
        j -= cnt;
    }
    return p;
}

/* Points the leader's side is sure to take from a trick boundary by cashing the leader's
 * top cards, the lead staying with the leader: per suit, the cards above every card of the
 * others; in a side suit (when a trump exists) no more of them than any other player who
 * holds a trump has cards of that suit, so nobody can ruff; side suits first, trumps last.
 * The others' cards count at their lowest: a trump holder follows suit in the side suits
 * (lowest cards of that suit); anyone else may discard, so counts as their lowest cards
 * overall. *cashed gets the leader's cards used, *tricks the number of tricks. */
static int sure_points(int leader, int trump, uint32_t *cashed, int *tricks) {
    uint32_t lh = H[leader];
    uint32_t oh[2] = {H[(leader + 1) % 3], H[(leader + 2) % 3]};
    int has_trump[2];
    for (int i = 0; i < 2; i++) has_trump[i] = trump >= 0 && (oh[i] & SUITM[trump]) != 0;
    int total = 0, m_total = 0, m_suit[4] = {0, 0, 0, 0};
    *cashed = 0;
    for (int s = 0; s < 4; s++) {
        uint32_t L = lh & SUITM[s];
        if (!L) continue;
        uint32_t O = (oh[0] | oh[1]) & SUITM[s];
        int m = O ? popcount32(L & ABOVE[top_card(O)]) : popcount32(L);
        if (trump >= 0 && s != trump) {
            for (int i = 0; i < 2; i++) {
                if (has_trump[i]) {
                    int cnt = popcount32(oh[i] & SUITM[s]);
                    if (cnt < m) m = cnt;
                }
            }
        }
        if (m <= 0) continue;
        m_suit[s] = m;
        m_total += m;
        total += highest_points(L, m, cashed);
    }
    if (m_total) {
        for (int i = 0; i < 2; i++) {
            if (has_trump[i]) {
                for (int s = 0; s < 4; s++)
                    if (m_suit[s]) total += lowest_points(oh[i] & SUITM[s], m_suit[s]);
            } else {
                total += lowest_hand_points(oh[i], m_total);
            }
        }
    }
    *tricks = m_total;
    return total;
}


static int last_trick(int leader, int trump) {
    int a = __builtin_ctz(H[leader]);
    int b = __builtin_ctz(H[(leader + 1) % 3]);
    int c = __builtin_ctz(H[(leader + 2) % 3]);
    int best = a, w = 0;
    if (beats(b, best, trump)) { best = b; w = 1; }
    if (beats(c, best, trump)) w = 2;
    return ((leader + w) % 3 == DECL) ? POINTS[a] + POINTS[b] + POINTS[c] : 0;
}

static int gen_moves(Move *mv, int seat, int leader, int trump, int mok, int n, const int *t,
                     int tt_best) {
    uint32_t hand = H[seat];
    int mine = seat == DECL;
    int k = 0;
    if (n == 0) {
        uint32_t others = H[(seat + 1) % 3] | H[(seat + 2) % 3];
        for (uint32_t m = hand; m; m &= m - 1) {
            int c = __builtin_ctz(m);
            int s = c >> 3, r = c & 7;
            int top = !(others & ABOVE[c]);
            int base = top ? 200 + POINTS[c] : -POINTS[c] - r;
            if (!top && !mine) {
                /* a defender leads low towards the partner's winner */
                uint32_t partner = H[3 - seat - DECL] & SUITM[s];
                uint32_t dsuit = H[DECL] & SUITM[s];
                if (partner && top_card(partner) > (dsuit ? top_card(dsuit) : -1) &&
                    (dsuit || trump < 0 || !(H[DECL] & SUITM[trump])))
                    base = 100 - POINTS[c] - r;
            }
            uint32_t pm = pair_mask(s);
            if (mok && (r == KING || r == QUEEN) && (hand & pm) == pm) {
                mv[k].move = (uint8_t)(c | 32);
                mv[k].score = (c | 32) == tt_best ? 100000 : 1000 + MV[s];
                k++;
                if (!AUTO_MARRIAGE) {
                    mv[k].move = (uint8_t)c;
                    mv[k].score = c == tt_best ? 100000 : base;
                    k++;
                }
            } else {
                mv[k].move = (uint8_t)c;
                mv[k].score = c == tt_best ? 100000 : base;
                k++;
            }
        }
    } else {
        int best = t[0], bi = 0;
        for (int i = 1; i < n; i++)
            if (beats(t[i], best, trump)) { best = t[i]; bi = i; }
        int partner_winning = (((leader + bi) % 3) == DECL) == mine;
        for (uint32_t m = follow_mask(hand, n, t, trump); m; m &= m - 1) {
            int c = __builtin_ctz(m);
            int wins = beats(c, best, trump);
            int score;
            if (n == 2) {
                score = (wins || partner_winning) ? 500 + POINTS[c] : -POINTS[c] - (c & 7);
            } else if (wins) {
                score = 300 + (c & 7);
            } else if (partner_winning) {
                score = 200 + POINTS[c];
            } else {
                score = -POINTS[c] - (c & 7);
            }
            mv[k].move = (uint8_t)c;
            mv[k].score = score;
            k++;
        }
    }
    /* insertion sort, best score first, stable */
    for (int i = 1; i < k; i++) {
        Move x = mv[i];
        int j = i - 1;
        while (j >= 0 && mv[j].score < x.score) { mv[j + 1] = mv[j]; j--; }
        mv[j + 1] = x;
    }
    return k;
}

static int search(int leader, int trump, int mok, int n, const int *t, int alpha, int beta) {
    node_count++;
    int seat = (leader + n) % 3;
    Entry *e = NULL;
    uint64_t k1 = 0;
    uint32_t k2 = 0;
    int tt_best = -1;
    if (n == 0) {
        uint32_t hand = H[leader];
        if (!hand) return 0;
        if (!(hand & (hand - 1))) return last_trick(leader, trump);
        /* bits 0 and 1 of a hand are the 7 and 8 of spades, never Mil cards: the rules, as
         * must_head and (must_head != auto_marriage), so that club (0, 0) and casa (1, 0)
         * hash as they did when the key held one casa bit */
        k1 = (uint64_t)H[0] | ((uint64_t)H[1] << 32) | (uint64_t)MUST_HEAD |
             ((uint64_t)(MUST_HEAD ^ AUTO_MARRIAGE) << 1);
        k2 = H[2] | (uint32_t)leader | ((uint32_t)(trump + 1) & 3u) << 8 |
             ((uint32_t)(trump + 1) >> 2) << 16 | (uint32_t)mok << 17 | (uint32_t)DECL << 24;
        e = tt_slot(k1, k2);
        if (e->gen == tt_gen && e->k1 == k1 && e->k2 == k2) {
            int lo = e->lo, hi = e->hi;
            tt_best = e->best;
            if (lo >= beta || lo == hi) return lo;
            if (hi <= alpha) return hi;
            if (lo > alpha) alpha = lo;
            if (hi < beta) beta = hi;
        }
        int ub = mask_points(H[0] | H[1] | H[2]);
        uint32_t dh = H[DECL];
        int best_pair = 0;
        for (int s = 0; s < 4; s++)
            if ((dh & pair_mask(s)) == pair_mask(s)) ub += MV[s];
        {
            uint32_t cashed;
            int tricks;
            int sure = sure_points(leader, trump, &cashed, &tricks);
            if (leader == DECL) {
                if (mok || tricks) {
                    for (int s = 0; s < 4; s++)
                        if ((dh & pair_mask(s)) == pair_mask(s) && !(cashed & pair_mask(s)) &&
                            MV[s] > best_pair)
                            best_pair = MV[s];
                }
                sure += best_pair;
                if (sure >= beta) return sure;
            } else {
                ub -= sure;
            }
        }
        if (ub <= alpha) return ub;
    }
    int maximize = seat == DECL;
    int a0 = alpha, b0 = beta;
    int best_value = maximize ? -INF : INF;
    int best_move = 255;
    Move mv[MAX_MOVES];
    int k = gen_moves(mv, seat, leader, trump, mok, n, t, tt_best);
    int nt[3];
    uint32_t live = H[0] | H[1] | H[2];
    for (int i = 0; i < n; i++) {
        nt[i] = t[i];
        live |= 1u << t[i];
    }
    /* Equivalent cards: two cards of the seat with no live card between them lead to
     * positions that differ only in which of the two is played now, so their values differ
     * by at most their point difference. done_val holds the bound found for each card
     * searched (upper for the declarer, lower for a defender). Cards of a held K-Q pair are
     * left out: playing one breaks the pair, playing a neighbour does not. */
    int done_val[32];
    uint32_t done = 0;
    uint32_t paired = 0;
    {
        uint32_t hand = H[seat];
        for (int s = 0; s < 4; s++)
            if ((hand & pair_mask(s)) == pair_mask(s)) paired |= pair_mask(s);
    }
    for (int i = 0; i < k; i++) {
        int code = mv[i].move;
        int c = code & 31;
        int v;
        if (!(code & 32) && !(paired >> c & 1) && done) {
            int have = 0, bound = 0;
            uint32_t below = live & SUITM[c >> 3] & ((1u << c) - 1u);
            uint32_t above = live & ABOVE[c];
            if (below) {
                int x = top_card(below);
                if (done >> x & 1) {
                    int d = POINTS[c] - POINTS[x];
                    if (d < 0) d = -d;
                    bound = maximize ? done_val[x] + d : done_val[x] - d;
                    have = 1;
                }
            }
            if (above) {
                int x = __builtin_ctz(above);
                if (done >> x & 1) {
                    int d = POINTS[c] - POINTS[x];
                    if (d < 0) d = -d;
                    int b2 = maximize ? done_val[x] + d : done_val[x] - d;
                    if (!have || (maximize ? b2 < bound : b2 > bound)) bound = b2;
                    have = 1;
                }
            }
            if (have && (maximize ? bound <= alpha : bound >= beta)) {
                done |= 1u << c;
                done_val[c] = bound;
                if (maximize ? bound > best_value : bound < best_value) best_value = bound;
                continue;
            }
        }
        H[seat] ^= 1u << c;
        if (n == 2) {
            int win = t[0], w = 0;
            if (beats(t[1], win, trump)) { win = t[1]; w = 1; }
            if (beats(c, win, trump)) w = 2;
            int winner = (leader + w) % 3;
            int g = winner == DECL ? POINTS[t[0]] + POINTS[t[1]] + POINTS[c] : 0;
            v = g + search(winner, trump, 1, 0, nt, alpha - g, beta - g);
        } else if (code & 32) {
            int s = c >> 3;
            int g = maximize ? MV[s] : 0;
            nt[0] = c;
            v = g + search(leader, s, mok, 1, nt, alpha - g, beta - g);
        } else {
            nt[n] = c;
            v = search(leader, trump, mok, n + 1, nt, alpha, beta);
        }
        H[seat] ^= 1u << c;
        if (!(code & 32) && !(paired >> c & 1)) {
            done |= 1u << c;
            done_val[c] = v;
        }
        if (maximize) {
            if (v > best_value) {
                best_value = v;
                best_move = code;
                if (v > alpha) {
                    alpha = v;
                    if (alpha >= beta) break;
                }
            }
        } else {
            if (v < best_value) {
                best_value = v;
                best_move = code;
                if (v < beta) {
                    beta = v;
                    if (alpha >= beta) break;
                }
            }
        }
    }
    if (e) {
        int lo = -INF, hi = INF;
        if (e->gen == tt_gen && e->k1 == k1 && e->k2 == k2) {
            lo = e->lo;
            hi = e->hi;
        }
        if (best_value <= a0) {
            if (best_value < hi) hi = best_value;
        } else if (best_value >= b0) {
            if (best_value > lo) lo = best_value;
        } else {
            lo = hi = best_value;
        }
        e->k1 = k1;
        e->k2 = k2;
        e->gen = tt_gen;
        e->lo = (int16_t)lo;
        e->hi = (int16_t)hi;
        e->best = (uint8_t)best_move;
    }
    return best_value;
}


/* The exact value by zero-window searches, narrowing the interval [lo, hi] that holds it
 * with the fail-soft value each search returns. A search below the value is cheap (one good
 * line for the declarer proves it), one above it is not (every try must be refuted), so the
 * first search asks for 1 point and the next ones for a quarter of the interval until it is
 * small; then bisection. */
static int solve_exact(int leader, int trump, int mok, int n, const int *t) {
    int lo = 0, hi = MAX_GAIN, beta = 1;
    while (lo < hi) {
        int g = search(leader, trump, mok, n, t, beta - 1, beta);
        if (g >= beta)
            lo = g;
        else
            hi = g;
        beta = hi - lo > 8 ? lo + (hi - lo) / 4 : (lo + hi + 1) / 2;
    }
    return lo;
}

/* ---- Python glue -------------------------------------------------------------------- */

static void new_generation(void) {
    tt_gen++;
    if (tt_gen == 0) {
        memset(tt, 0, sizeof(Entry) * TT_SIZE);
        tt_gen = 1;
    }
    node_count = 0;
}

/* Parse (h0, h1, h2, declarer, leader, trick, trump, mok, must_head, auto_marriage[, alpha,
 * beta]) into the globals and the root trick. */
static int parse_root(PyObject *args, int *leader, int *trump, int *mok, int *n, int *t,
                      int *alpha, int *beta, int want_window) {
    unsigned long h0, h1, h2;
    int decl, must_head, auto_marriage;
    PyObject *trick;
    if (want_window) {
        if (!PyArg_ParseTuple(args, "kkkiiOiiiiii", &h0, &h1, &h2, &decl, leader, &trick, trump,
                              mok, &must_head, &auto_marriage, alpha, beta))
            return -1;
    } else {
        if (!PyArg_ParseTuple(args, "kkkiiOiiii", &h0, &h1, &h2, &decl, leader, &trick, trump,
                              mok, &must_head, &auto_marriage))
            return -1;
    }
    PyObject *seq = PySequence_Fast(trick, "trick must be a sequence of cards");
    if (!seq) return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    if (len > 2 || decl < 0 || decl > 2 || *leader < 0 || *leader > 2 || *trump < -1 ||
        *trump > 3 || ((h0 | h1 | h2) & 0x03030303ul) || (h0 & h1) || (h0 & h2) || (h1 & h2) ||
        ((h0 | h1 | h2) >> 32)) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "invalid solver position");
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        long c = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (c == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (c < 0 || c > 31) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "a card must be in 0..31");
            return -1;
        }
        t[i] = (int)c;
    }
    Py_DECREF(seq);
    *n = (int)len;
    H[0] = (uint32_t)h0;
    H[1] = (uint32_t)h1;
    H[2] = (uint32_t)h2;
    DECL = decl;
    MUST_HEAD = must_head ? 1 : 0;
    AUTO_MARRIAGE = auto_marriage ? 1 : 0;
    return 0;
}

static PyObject *py_solve(PyObject *self, PyObject *args) {
    int leader, trump, mok, n, t[3], alpha, beta;
    if (parse_root(args, &leader, &trump, &mok, &n, t, &alpha, &beta, 0) < 0) return NULL;
    return PyLong_FromLong(solve_exact(leader, trump, mok, n, t));
}

static PyObject *py_search(PyObject *self, PyObject *args) {
    int leader, trump, mok, n, t[3], alpha, beta;
    if (parse_root(args, &leader, &trump, &mok, &n, t, &alpha, &beta, 1) < 0) return NULL;
    return PyLong_FromLong(search(leader, trump, mok, n, t, alpha, beta));
}

static PyObject *py_reset(PyObject *self, PyObject *unused) {
    new_generation();
    Py_RETURN_NONE;
}

static PyObject *py_nodes(PyObject *self, PyObject *unused) {
    return PyLong_FromUnsignedLongLong(node_count);
}

static PyMethodDef methods[] = {
    {"solve", py_solve, METH_VARARGS,
     "solve(h0, h1, h2, declarer, leader, trick, trump, mok, must_head, auto_marriage) -> the "
     "declarer's points still to gain (exact)"},
    {"search", py_search, METH_VARARGS,
     "search(h0, h1, h2, declarer, leader, trick, trump, mok, must_head, auto_marriage, alpha, "
     "beta) -> fail-soft alpha-beta value"},
    {"reset", py_reset, METH_NOARGS, "reset() -> None: forget the table, zero the node count"},
    {"nodes", py_nodes, METH_NOARGS, "nodes() -> nodes searched since the last reset()"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_core", "C core of the Mil open-hand solver.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void) {
    tt = (Entry *)calloc(TT_SIZE, sizeof(Entry));
    if (!tt) return PyErr_NoMemory();
    tt_gen = 1;
    for (int c = 0; c < 32; c++) POINTS[c] = RANK_POINTS[c & 7];
    for (int b = 0; b < 256; b++) {
        int p = 0;
        for (int r = 0; r < 8; r++)
            if (b >> r & 1) p += RANK_POINTS[r];
        BYTE_POINTS[b] = p;
    }
    for (int s = 0; s < 4; s++) SUITM[s] = 0xFFu << (8 * s);
    for (int c = 0; c < 32; c++) ABOVE[c] = SUITM[c >> 3] & ~((2u << c) - 1u);
    PyObject *m = PyModule_Create(&module);
    /* the calling convention: 2 = the rules as two flags (must_head, auto_marriage); an
     * extension without ABI was built from an older _core.c (one casa flag) */
    if (m && PyModule_AddIntConstant(m, "ABI", 2) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
