/*
 * _transfer.c — the crossword transfer count (core/crossword/transfer.py) in C.
 *
 * The same contract as TransferCounter.count in transfer.py, which stays beside it as the
 * pure-Python reference (tests compare them): the grid is built one row at a time, the
 * rows built so far summed up in a state, equal states merged, and the number of grids
 * per state carried in 128 bits (an overflow is an OverflowError, never a wrong count).
 *
 * What Python decides and hands in: the patterns each row may take (runs allowed by the
 * rules, palindromic rows for left-right, the start and fixed squares, a path's fixed
 * prefix rows), and the numbered-square givens per row.  What C does: the layers.
 *
 * Rows are masks (bit c = column c, C <= 64).  A state is a fixed-size key of NW 64-bit
 * words:
 *   word 0          seen: the columns that had a white square (no_black_lines), else 0
 *   word 1          bit 0 closed (the one white group has ended; only black rows follow),
 *                   bit 1 white (a square so far is white: every grid has one, the
 *                   all-black grid has no words and is not a crossword),
 *                   bits 8..31 kf (clues used from the front), bits 32..55 kb (folded:
 *                   where the mirror rows' clues begin, counted from the back)
 *   words 2..       len[c]: the vertical white run ending in the last row, capped at L
 *                   (one byte per column, 8 per word)
 *   then            lab[c]: the connectivity label of the last row's square c (0 black;
 *                   equal labels are joined above; numbered 1.. left to right)
 * Invariant: a stored count is never 0, so a zero count marks an empty hash slot.
 *
 * Two merges of states whose futures are equal (whole counts of every grid of a size):
 * - `seen` keeps only columns 0 and C-1 when the white squares must be connected: in a
 *   connected grid an all-black inner column would cut it in two, so every column on one
 *   side of it is black too, an edge column among them; so "no all-black column" is
 *   "both edge columns have a white square" (seen_mask).
 * - mirror: with no clue string, no numbered-square givens and every row's patterns closed
 *   under reading right to left, a state and its left-right mirror image have the same
 *   number of completions (every rule and both folds commute with the mirror), so only
 *   the lesser key of the two is stored, with both counts.
 *
 * Folded kinds (fold 1: the bottom half is the top half upside down, "same" columns;
 * fold 2: also reversed left to right) build the top half only: each step places row r
 * and checks the letters of row r-1 from the front of the clue string and those of its
 * mirror row from the back; the middle is joined at the end (join_even / join_odd).
 *
 * Pruning (unfolded kinds with a clue string, 2026-11-28): a new state whose rows below
 * cannot carry the rest of the clue string — reach_ok(r, len, kf) is 0 in the backward
 * reachability table of _reachable.h, built lazily over the same row patterns and givens —
 * is dropped before it is stored: it would reach no grid, so every count is unchanged and
 * far fewer states are made.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "../_interrupt.h"
#include "../_search_common.h"
#include "_state_table.h"
#include "_reachable.h"

#define MAXC 64

/* ------------------------------------------------------------------ the fixed data */
typedef struct {
    int R, C, L, checked, connected, nbl, fold;
    const char *clues; /* NULL: count every grid */
    int nclues;
    uint64_t full;
    int64_t exact[MAXC]; /* per row: the exact numbered mask, or -1 */
    uint64_t need[MAXC]; /* per row: squares that must be numbered */
    uint64_t *pats[MAXC + 1];
    int npats[MAXC + 1];
    int nw, lw; /* words per key; words of len[] (and of lab[]) */
    uint64_t seen_mask; /* the columns `seen` tracks (see the head comment) */
    int mirror;         /* 1: states are kept as the least of a state and its left-right mirror */
} Spec;

static inline uint64_t rev_bits(uint64_t m, int C) {
    uint64_t out = 0;
    for (int c = 0; c < C; c++) out |= ((m >> c) & 1u) << (C - 1 - c);
    return out;
}

/* the mirror row's mask (folded: the bottom half is the top half under this map) */
static inline uint64_t fmap(const Spec *s, uint64_t m) { return s->fold == 2 ? rev_bits(m, s->C) : m; }

/* The numbered squares of row `row` (above/below: neighbouring rows' white squares),
 * split into Across starts and Down starts; 0 when they break row r's givens, else 1. */
static inline int numbers(const Spec *s, int r, uint64_t row, uint64_t above, uint64_t below,
                          uint64_t *across, uint64_t *down) {
    *across = row & ~(row << 1) & (row >> 1);
    *down = row & ~above & below;
    uint64_t nums = *across | *down;
    if (r >= 0 && r < s->R) {
        if (s->exact[r] >= 0 && nums != (uint64_t)s->exact[r]) return 0;
        if ((nums & s->need[r]) != s->need[r]) return 0;
    }
    return 1;
}

/* Whether the row's letters (across/down) match the clue string at k; their number in *n. */
static inline int letters_match(const Spec *s, int k, uint64_t across, uint64_t down, int *n) {
    uint64_t m = across | down;
    int cnt = popcount64(m);
    *n = cnt;
    if (k < 0 || k + cnt > s->nclues) return 0;
    const char *p = s->clues + k;
    while (m) {
        uint64_t bit = m & -m;
        char want = (across & bit) ? ((down & bit) ? 'Z' : 'A') : 'D';
        if (*p++ != want) return 0;
        m ^= bit;
    }
    return 1;
}

static inline int run_ok(int n, const Spec *s) { return n == 0 || (n == 1 && !s->checked) || n >= s->L; }

/* the hash table of states: _state_table.h */

/* ------------------------------------------------------------------ a state, unpacked */
typedef struct {
    uint64_t seen;
    int closed, white, kf, kb;
    uint8_t len[MAXC], lab[MAXC];
} State;

static void unpack(const Spec *s, const uint64_t *k, State *st) {
    st->seen = k[0];
    st->closed = (int)(k[1] & 1u);
    st->white = (int)((k[1] >> 1) & 1u);
    st->kf = (int)((k[1] >> 8) & 0xFFFFFFu);
    st->kb = (int)((k[1] >> 32) & 0xFFFFFFu);
    memcpy(st->len, k + 2, (size_t)s->C);
    memcpy(st->lab, k + 2 + s->lw, (size_t)s->C);
}

static void pack(const Spec *s, const State *st, uint64_t *k) {
    memset(k, 0, sizeof(uint64_t) * (size_t)s->nw);
    k[0] = st->seen;
    k[1] = (uint64_t)st->closed | ((uint64_t)st->white << 1) | ((uint64_t)st->kf << 8) | ((uint64_t)st->kb << 32);
    memcpy(k + 2, st->len, (size_t)s->C);
    memcpy(k + 2 + s->lw, st->lab, (size_t)s->C);
}

/* The left-right mirror image of st into mt (labels renumbered left to right). */
static void mirror_state(const Spec *s, const State *st, State *mt) {
    int C = s->C;
    uint8_t name_of[MAXC + 1];
    memset(name_of, 0, sizeof(name_of));
    int names = 0;
    *mt = *st;
    mt->seen = rev_bits(st->seen, C);
    for (int c = 0; c < C; c++) {
        int m = C - 1 - c;
        mt->len[c] = st->len[m];
        uint8_t l = st->lab[m];
        if (l && !name_of[l]) name_of[l] = (uint8_t)++names;
        mt->lab[c] = l ? name_of[l] : 0;
    }
}

/* Pack st into k; with s->mirror, the lesser of its key and its mirror image's key. */
static void pack_canonical(const Spec *s, const State *st, uint64_t *k) {
    pack(s, st, k);
    if (!s->mirror) return;
    State mt;
    uint64_t mk[2 + 2 * 8];
    mirror_state(s, st, &mt);
    pack(s, &mt, mk);
    for (int w = 0; w < s->nw; w++) {
        if (mk[w] == k[w]) continue;
        if (mk[w] < k[w]) memcpy(k, mk, sizeof(uint64_t) * (size_t)s->nw);
        return;
    }
}

/* (last row, its squares with white above, the columns whose run must go on) */
static inline void derive(const Spec *s, const State *st, uint64_t *row, uint64_t *above, uint64_t *must) {
    uint64_t r = 0, a = 0, m = 0;
    for (int c = 0; c < s->C; c++) {
        int n = st->len[c];
        if (n >= 1) r |= 1ull << c;
        if (n >= 2) a |= 1ull << c;
        if (n >= 1 && n < s->L && (n >= 2 || s->checked)) m |= 1ull << c;
    }
    *row = r;
    *above = a;
    *must = m;
}

/* ------------------------------------------------------------------ connectivity */
/* The labels of `row` below a row labelled `lab`, into out; returns 1 when a group of
 * the old row has no square in the new row ("vanished"). Ids: old labels 1..C, new runs
 * C+1..2C. */
static int link_row(int C, const uint8_t *lab, uint64_t row, uint8_t *out) {
    int parent[2 * MAXC + 2];
    for (int i = 0; i <= 2 * C + 1; i++) parent[i] = i;
    int seg[MAXC];
    int n = 0;
    for (int c = 0; c < C; c++) {
        seg[c] = 0;
        if (row >> c & 1u) {
            if (c == 0 || !(row >> (c - 1) & 1u)) n++;
            seg[c] = C + n;
            if (lab[c]) parent[uf_find(parent, C + n)] = uf_find(parent, lab[c]);
        }
    }
    int name_of[2 * MAXC + 2];
    memset(name_of, 0, sizeof(name_of));
    int names = 0;
    for (int c = 0; c < C; c++) {
        if (!seg[c]) { out[c] = 0; continue; }
        int root = uf_find(parent, seg[c]);
        if (!name_of[root]) name_of[root] = ++names;
        out[c] = (uint8_t)name_of[root];
    }
    for (int c = 0; c < C; c++)
        if (lab[c] && !name_of[uf_find(parent, lab[c])]) return 1;
    return 0;
}

static int distinct_labels(int C, const uint8_t *lab) {
    int mx = 0;
    for (int c = 0; c < C; c++) if (lab[c] > mx) mx = lab[c];
    return mx; /* labels are 1..n without gaps */
}

/* Whether the top half (labels lab), its mirror (mlab) and the middle row `mid` (or none:
 * has_mid 0) form one group. Ids: top 1..C, mirror C+1..2C, middle runs 2C+1..3C. */
static int joined(int C, const uint8_t *lab, const uint8_t *mlab, int has_mid, uint64_t mid) {
    int parent[3 * MAXC + 2], present[3 * MAXC + 2];
    for (int i = 0; i <= 3 * C + 1; i++) { parent[i] = i; present[i] = 0; }
    for (int c = 0; c < C; c++) {
        if (lab[c]) present[lab[c]] = 1;
        if (mlab[c]) present[C + mlab[c]] = 1;
    }
    if (!has_mid) {
        for (int c = 0; c < C; c++)
            if (lab[c] && mlab[c]) parent[uf_find(parent, lab[c])] = uf_find(parent, C + mlab[c]);
    } else {
        int n = 0;
        for (int c = 0; c < C; c++) {
            if (!(mid >> c & 1u)) continue;
            if (c == 0 || !(mid >> (c - 1) & 1u)) n++;
            int id = 2 * C + n;
            present[id] = 1;
            if (lab[c]) parent[uf_find(parent, id)] = uf_find(parent, lab[c]);
            if (mlab[c]) parent[uf_find(parent, id)] = uf_find(parent, C + mlab[c]);
        }
    }
    int root = -1;
    for (int i = 1; i <= 3 * C; i++) {
        if (!present[i]) continue;
        int r = uf_find(parent, i);
        if (root < 0) root = r;
        else if (r != root) return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------ the run */
/* one entry of the letters cache of a state (see step) */
typedef struct {
    uint64_t generation, key;
    int kf, kb; /* kf < 0: the letters fail */
} LetterMemo;
#define MEMO_BITS 8

typedef struct {
    Spec s;
    double deadline;           /* < 0: none */
    int64_t max_transitions;   /* < 0: none */
    int64_t transitions, states_max;
    int64_t layer_states[MAXC + 1], layer_moves[MAXC + 1]; /* per step: states made, transitions */
    int layers;                /* steps done */
    int stopped;               /* 1 budget */
    int error;                 /* -1 memory, -2 overflow, -3 interrupted */
    Interrupt it;
    LetterMemo memo[1 << MEMO_BITS];
    uint64_t generation;       /* one per state of a step: memo entries of other states are stale */
    int prune;                 /* 1: drop states the reachability table proves dead */
    Reach reach;
} Run;

static inline int tick(Run *run) {
    return count_tick(&run->transitions, run->deadline, run->max_transitions, &run->stopped, &run->error, &run->it);
}

/* The clue positions after the letters of row r-1 (and, folded, of its mirror row), with
 * row r = q below it, into st2 (kf, kb); 0 when they break a given or the clue string. */
static inline int letters_after(const Spec *s, const State *st, int r, uint64_t row, uint64_t above, uint64_t q,
                                State *st2) {
    uint64_t ta, td;
    if (!numbers(s, r - 1, row, above, q, &ta, &td)) return 0;
    st2->kf = st->kf;
    st2->kb = st->kb;
    if (s->fold) {
        uint64_t ba, bd;
        int rb = s->R - r; /* the mirror row of r-1 */
        if (!numbers(s, rb, fmap(s, row), fmap(s, q), fmap(s, above), &ba, &bd)) return 0;
        if (s->clues) {
            int lt, lb = popcount64(ba | bd);
            if (!letters_match(s, st->kf, ta, td, &lt)) return 0;
            int kb2 = st->kb - lb;
            if (st->kf + lt > kb2 || !letters_match(s, kb2, ba, bd, &lb)) return 0;
            st2->kf = st->kf + lt;
            st2->kb = kb2;
        }
    } else if (s->clues) {
        int lt;
        if (!letters_match(s, st->kf, ta, td, &lt)) return 0;
        st2->kf = st->kf + lt;
    }
    return 1;
}


/* The table's budget (Reach.stop): the run's deadline and interrupts, as count_tick. */
static int reach_budget(void *ctx) {
    Run *run = ctx;
    if (run->deadline >= 0 && now_seconds() >= run->deadline) { run->stopped = 1; return 1; }
    if (interrupt_check(&run->it)) { run->error = -3; return 1; }
    return 0;
}

/* Place row r below every state of `cur`, into `nxt`; 1 to stop. */
static int step(Run *run, Table *cur, Table *nxt, int r) {
    const Spec *s = &run->s;
    int C = s->C;
    State st, st2;
    uint64_t key[2 + 2 * 8];
    LetterMemo *memo = run->memo;
    for (int64_t i = 0; i < cur->cap; i++) {
        u128 v = cur->counts[i];
        if (!v) continue;
        unpack(s, cur->keys + i * cur->nw, &st);
        uint64_t row, above, must;
        derive(s, &st, &row, &above, &must);
        /* the letters of row r-1 depend on q only where a Down word may start (folded: on
         * the whole last row, whose mirror row's Down words end there): a small cache of
         * the clue positions after each value of q there, for this state */
        uint64_t keymask = s->fold ? row : (row & ~above);
        uint64_t generation = ++run->generation;
        for (int j = 0; j < s->npats[r]; j++) {
            uint64_t q = s->pats[r][j];
            if ((q & must) != must) continue;
            if (st.closed && q) continue;
            if (tick(run)) return 1;
            st2 = st;
            uint64_t qk = q & keymask;
            LetterMemo *slot = &memo[(qk * 0x9E3779B97F4A7C15ull) >> (64 - MEMO_BITS)];
            if (slot->generation == generation && slot->key == qk) {
                if (slot->kf < 0) continue;
                st2.kf = slot->kf;
                st2.kb = slot->kb;
            } else {
                slot->generation = generation;
                slot->key = qk;
                slot->kf = -1;
                if (!letters_after(s, &st, r, row, above, q, &st2)) continue;
                slot->kf = st2.kf;
                slot->kb = st2.kb;
            }
            for (int c = 0; c < C; c++) {
                int n = st.len[c];
                st2.len[c] = (q >> c & 1u) ? (uint8_t)(n < s->L ? n + 1 : s->L) : 0;
            }
            if (run->prune && !reach_ok(&run->reach, r, st2.len, st2.kf)) continue;
            if (run->reach.stopped) return 1; /* the budget ran out inside the table */
            st2.seen = s->nbl ? ((st.seen | q) & s->seen_mask) : 0;
            st2.white = st.white || q;
            if (s->connected && !st.closed) {
                if (link_row(C, st.lab, q, st2.lab)) {
                    /* fine only when the one group ends and nothing white follows */
                    if (s->fold || q || distinct_labels(C, st.lab) > 1) continue;
                    st2.closed = 1;
                }
            }
            pack_canonical(s, &st2, key);
            int e = table_add(nxt, key, v);
            if (e) { run->error = e; return 1; }
        }
    }
    if (nxt->n > run->states_max) run->states_max = nxt->n;
    return 0;
}

/* Unfolded: the edge below the last row ends every run and numbers the last row. */
static int finish(Run *run, Table *t, u128 *total) {
    const Spec *s = &run->s;
    State st;
    for (int64_t i = 0; i < t->cap; i++) {
        u128 v = t->counts[i];
        if (!v) continue;
        unpack(s, t->keys + i * t->nw, &st);
        uint64_t row, above, must, ta, td;
        derive(s, &st, &row, &above, &must);
        if (must || !st.white || (s->nbl && st.seen != s->seen_mask)) continue;
        if (s->connected && distinct_labels(s->C, st.lab) + st.closed > 1) continue;
        if (!numbers(s, s->R - 1, row, above, 0, &ta, &td)) continue;
        if (s->clues) {
            int lt;
            if (!letters_match(s, st.kf, ta, td, &lt) || st.kf + lt != s->nclues) continue;
        }
        u128 sum = *total + v;
        if (sum < v) { run->error = -2; return 1; }
        *total = sum;
    }
    return 0;
}

/* Folded: join the top half to its mirror (even rows) or through each middle row. */
static int join(Run *run, Table *t, u128 *total) {
    const Spec *s = &run->s;
    int C = s->C, h = s->R / 2, odd = s->R % 2;
    State st;
    uint8_t mlen[MAXC], mlab[MAXC];
    for (int64_t i = 0; i < t->cap; i++) {
        u128 v = t->counts[i];
        if (!v) continue;
        unpack(s, t->keys + i * t->nw, &st);
        uint64_t row, above, must;
        derive(s, &st, &row, &above, &must);
        uint64_t mrow = fmap(s, row), fabove = fmap(s, above), fseen = fmap(s, st.seen);
        for (int c = 0; c < C; c++) {
            int m = s->fold == 2 ? C - 1 - c : c;
            mlen[c] = st.len[m];
            mlab[c] = st.lab[m];
        }
        int nmid = odd ? s->npats[h] : 1;
        for (int j = 0; j < nmid; j++) {
            if (tick(run)) return 1;
            uint64_t mid = odd ? s->pats[h][j] : 0;
            if (!st.white && !mid) continue;
            if (s->nbl && ((st.seen | fseen | mid) & s->seen_mask) != s->seen_mask) continue;
            int ok = 1;
            for (int c = 0; c < C && ok; c++) {
                int a = st.len[c], b = mlen[c];
                if (odd) ok = (mid >> c & 1u) ? run_ok(a + 1 + b, s) : (run_ok(a, s) && run_ok(b, s));
                else ok = (a && b) ? run_ok(a + b, s) : run_ok(a, s);
            }
            if (!ok) continue;
            if (s->connected && !joined(C, st.lab, mlab, odd, mid)) continue;
            uint64_t a1, d1, a2, d2, a3 = 0, d3 = 0;
            if (odd) {
                if (!numbers(s, h - 1, row, above, mid, &a1, &d1)) continue;
                if (!numbers(s, h, mid, row, mrow, &a2, &d2)) continue;
                if (!numbers(s, h + 1, mrow, mid, fabove, &a3, &d3)) continue;
            } else {
                if (!numbers(s, h - 1, row, above, mrow, &a1, &d1)) continue;
                if (!numbers(s, h, mrow, row, fabove, &a2, &d2)) continue;
            }
            if (s->clues) {
                int n1, n2, n3 = 0, k = st.kf;
                if (!letters_match(s, k, a1, d1, &n1)) continue;
                k += n1;
                if (!letters_match(s, k, a2, d2, &n2)) continue;
                k += n2;
                if (odd) {
                    if (!letters_match(s, k, a3, d3, &n3)) continue;
                    k += n3;
                }
                if (k != st.kb) continue;
            }
            u128 sum = *total + v;
            if (sum < v) { run->error = -2; return 1; }
            *total = sum;
        }
    }
    return 0;
}

/* The whole count; 1 when stopped (budget, error). */
static int count_all(Run *run, u128 *total) {
    Spec *s = &run->s;
    Table a, b;
    int64_t cap = 1024;
    if (table_init(&a, s->nw, cap) || table_init(&b, s->nw, cap)) {
        table_free(&a);
        table_free(&b);
        run->error = -1;
        return 1;
    }
    State st;
    memset(&st, 0, sizeof(st));
    st.kb = s->fold ? s->nclues : 0;
    uint64_t key[2 + 2 * 8];
    pack(s, &st, key);
    table_add(&a, key, 1);
    Table *cur = &a, *nxt = &b;
    int top_rows = s->fold ? s->R / 2 : s->R;
    int stop = 0;
    for (int r = 0; r < top_rows && !stop; r++) {
        table_clear(nxt);
        int64_t before = run->transitions;
        stop = step(run, cur, nxt, r);
        run->layer_states[r] = nxt->n;
        run->layer_moves[r] = run->transitions - before;
        run->layers = r + 1;
        Table *tmp = cur;
        cur = nxt;
        nxt = tmp;
    }
    if (!stop) {
        int64_t before = run->transitions;
        stop = s->fold ? join(run, cur, total) : finish(run, cur, total);
        run->layer_moves[top_rows] = run->transitions - before;
    }
    table_free(&a);
    table_free(&b);
    return stop;
}

/* ------------------------------------------------------------------ Python */
static int read_int_list(PyObject *seq, int n, int64_t *out, const char *what) {
    if (!PyList_Check(seq) || PyList_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "%s must be a list of %d ints", what, n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        PyObject *x = PyList_GET_ITEM(seq, i);
        long long v = PyLong_AsLongLong(x);
        if (v == -1 && PyErr_Occurred()) {
            /* masks of 64 columns pass a signed 64-bit long long */
            PyErr_Clear();
            unsigned long long u = PyLong_AsUnsignedLongLong(x);
            if (PyErr_Occurred()) return -1;
            v = (long long)u;
        }
        out[i] = v;
    }
    return 0;
}

/* Whether the run may keep states as the lesser of a state and its mirror (see the head
 * comment): no clue string, no numbered-square givens, every row's patterns closed under
 * reading right to left. */
static int mirror_allowed(const Spec *s, int rows_in) {
    if (s->clues) return 0;
    for (int r = 0; r < s->R; r++)
        if (s->exact[r] >= 0 || s->need[r]) return 0;
    for (int r = 0; r < rows_in; r++) {
        for (int j = 0; j < s->npats[r]; j++) {
            uint64_t m = rev_bits(s->pats[r][j], s->C);
            int found = 0;
            for (int i = 0; i < s->npats[r] && !found; i++) found = s->pats[r][i] == m;
            if (!found) return 0;
        }
    }
    return 1;
}

/* Parse count()'s arguments, run it; profile 1: also every step's states and transitions. */
static PyObject *run_count(PyObject *args, int profile) {
    int R, C, L, checked, connected, nbl, fold;
    PyObject *clues_obj, *pats_obj, *exact_obj, *need_obj;
    double seconds;
    long long max_transitions;
    int prune = 1;
    if (!PyArg_ParseTuple(args, "iiiiiiiOOOOdL|p", &R, &C, &L, &checked, &connected, &nbl, &fold, &clues_obj,
                          &pats_obj, &exact_obj, &need_obj, &seconds, &max_transitions, &prune))
        return NULL;
    if (R < 1 || R > MAXC || C < 1 || C > MAXC || L < 2 || L > 255 || fold < 0 || fold > 2) {
        PyErr_SetString(PyExc_ValueError, "rows and cols must be 1..64, min word 2..255, fold 0..2");
        return NULL;
    }
    Run run;
    memset(&run, 0, sizeof(run));
    Spec *s = &run.s;
    s->R = R; s->C = C; s->L = L; s->checked = checked; s->connected = connected; s->nbl = nbl; s->fold = fold;
    s->full = C == 64 ? ~0ull : ((1ull << C) - 1);
    s->seen_mask = connected ? (1ull | (1ull << (C - 1))) : s->full;
    s->lw = (C + 7) / 8;
    s->nw = 2 + 2 * s->lw;
    if (clues_obj != Py_None) {
        if (!PyBytes_Check(clues_obj)) { PyErr_SetString(PyExc_TypeError, "clues must be bytes or None"); return NULL; }
        s->clues = PyBytes_AS_STRING(clues_obj);
        s->nclues = (int)PyBytes_GET_SIZE(clues_obj);
        if (s->nclues > 0xFFFFFF) { PyErr_SetString(PyExc_ValueError, "too many clues"); return NULL; }
    }
    int64_t tmp[MAXC];
    if (read_int_list(exact_obj, R, s->exact, "exact")) return NULL;
    if (read_int_list(need_obj, R, tmp, "need")) return NULL;
    for (int r = 0; r < R; r++) s->need[r] = (uint64_t)tmp[r];
    int rows_in = fold ? R / 2 + R % 2 : R;
    if (!PyList_Check(pats_obj) || PyList_GET_SIZE(pats_obj) != rows_in) {
        PyErr_Format(PyExc_ValueError, "patterns must be a list of %d lists", rows_in);
        return NULL;
    }
    PyObject *result = NULL;
    for (int r = 0; r < rows_in; r++) {
        PyObject *lst = PyList_GET_ITEM(pats_obj, r);
        if (!PyList_Check(lst)) { PyErr_SetString(PyExc_TypeError, "patterns of a row must be a list"); goto done; }
        int n = (int)PyList_GET_SIZE(lst);
        s->pats[r] = malloc(sizeof(uint64_t) * (size_t)(n ? n : 1));
        s->npats[r] = n;
        if (!s->pats[r]) { PyErr_NoMemory(); goto done; }
        for (int j = 0; j < n; j++) {
            unsigned long long u = PyLong_AsUnsignedLongLong(PyList_GET_ITEM(lst, j));
            if (PyErr_Occurred()) goto done;
            if (u & ~s->full) { PyErr_SetString(PyExc_ValueError, "a pattern has squares past the last column"); goto done; }
            s->pats[r][j] = u;
        }
    }
    s->mirror = mirror_allowed(s, rows_in);
    double t0 = now_seconds(); /* the table's making counts in the time */
    run.prune = prune && !fold && s->clues;
    if (run.prune && reach_init(&run.reach, R, C, L, checked, s->clues, s->nclues, s->pats, s->npats, s->exact,
                                s->need)) {
        PyErr_NoMemory();
        goto done;
    }
    run.deadline = seconds >= 0 ? t0 + seconds : -1.0;
    run.reach.stop = reach_budget;
    run.reach.stop_ctx = &run;
    run.max_transitions = max_transitions;
    u128 total = 0;
    interrupt_release(&run.it);
    int stopped = count_all(&run, &total);
    interrupt_reacquire(&run.it);
    double elapsed = now_seconds() - t0;
    if (run.error == -1 || run.reach.error) { PyErr_NoMemory(); goto done; }
    if (run.error == -2) { PyErr_SetString(PyExc_OverflowError, "the crossword count passes 2^128"); goto done; }
    if (run.error == -3) goto done; /* the signal handler's exception is set */
    PyObject *count = stopped ? (Py_INCREF(Py_None), Py_None) : u128_to_long(total);
    if (!count) goto done;
    if (!profile) {
        result = Py_BuildValue("(NLLd)", count, (long long)run.states_max, (long long)run.transitions, elapsed);
        goto done;
    }
    /* profile: states after each step, transitions of each step and of the end (join/finish) */
    int steps = fold ? R / 2 : R;
    PyObject *states = PyList_New(run.layers), *moves = PyList_New(0);
    if (!states || !moves) { Py_XDECREF(states); Py_XDECREF(moves); Py_DECREF(count); goto done; }
    for (int r = 0; r < run.layers; r++) PyList_SET_ITEM(states, r, PyLong_FromLongLong(run.layer_states[r]));
    for (int r = 0; r <= steps && (r < run.layers || (r == steps && !stopped)); r++) {
        PyObject *x = PyLong_FromLongLong(run.layer_moves[r]);
        if (!x || PyList_Append(moves, x)) { Py_XDECREF(x); Py_DECREF(states); Py_DECREF(moves); Py_DECREF(count); goto done; }
        Py_DECREF(x);
    }
    result = Py_BuildValue("(NNNd)", count, states, moves, elapsed);
done:
    reach_free(&run.reach);
    for (int r = 0; r < rows_in; r++) free(s->pats[r]);
    return result;
}

static PyObject *py_count(PyObject *self, PyObject *args) {
    (void)self;
    return run_count(args, 0);
}

static PyObject *py_profile(PyObject *self, PyObject *args) {
    (void)self;
    return run_count(args, 1);
}

/* reachable(R, C, clues, (min_word, checked, patterns, exact, need), queries, mode=0,
 * quick=1) -> [bool]: the reachability table's answers (_reachable.h) to queries [(r, len
 * bytes, j)], so tests can compare it with core/crossword/reachable.py; mode 1 picks the
 * next rows by the trie, mode 2 by a scan (as past the limits), 0 as the limits say;
 * quick 0 turns the quick dead-end test (reach_quick) off. */
static PyObject *py_reachable(PyObject *self, PyObject *args) {
    (void)self;
    int R, C;
    PyObject *clues_obj, *spec, *queries;
    int mode = 0, quick = 1;
    if (!PyArg_ParseTuple(args, "iiSO!O!|ip", &R, &C, &clues_obj, &PyTuple_Type, &spec, &PyList_Type, &queries,
                          &mode, &quick))
        return NULL;
    reach_pick_max = mode ? 0 : PICK_MAX;
    reach_trie_budget = mode == 2 ? 0 : TRIE_BUDGET;
    reach_quick_on = quick;
    PyObject *out = NULL;
    Reach t;
    ReachRows rows;
    memset(&t, 0, sizeof(t));
    if (reach_from_python(&t, &rows, R, C, PyBytes_AS_STRING(clues_obj), (int)PyBytes_GET_SIZE(clues_obj), spec))
        goto done;
    Py_ssize_t nq = PyList_GET_SIZE(queries);
    out = PyList_New(nq);
    if (!out) goto done;
    for (Py_ssize_t i = 0; i < nq; i++) {
        int r, j;
        const char *len;
        Py_ssize_t n;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(queries, i), "iy#i", &r, &len, &n, &j)) { Py_CLEAR(out); goto done; }
        if (r < 0 || r >= R || n != C || j < 0 || j > t.nclues) {
            PyErr_SetString(PyExc_ValueError, "a query must be (row, one byte per column, clue position)");
            Py_CLEAR(out);
            goto done;
        }
        int ok = reach_ok(&t, r, (const uint8_t *)len, j);
        if (t.error) { PyErr_NoMemory(); Py_CLEAR(out); goto done; }
        PyList_SET_ITEM(out, i, PyBool_FromLong(ok));
    }
done:
    reach_pick_max = PICK_MAX;
    reach_trie_budget = TRIE_BUDGET;
    reach_quick_on = 1;
    reach_free(&t);
    reach_rows_free(&rows);
    return out;
}

static PyMethodDef methods[] = {
    {"count", py_count, METH_VARARGS,
     "count(R, C, L, checked, connected, no_black_lines, fold, clues, patterns, exact, need, seconds, "
     "max_transitions, prune=True) -> (count or None when a budget stopped it, most states in a layer, "
     "transitions, seconds); prune: drop states the reachability table proves dead (unfolded, with clues)"},
    {"reachable", py_reachable, METH_VARARGS,
     "reachable(R, C, clues, (min_word, checked, patterns, exact, need), queries) -> [bool]: the reachability "
     "table's answers to queries [(row, run length per column as bytes, clue position)] (see _reachable.h); "
     "mode 1: the next rows by the trie, 2: by a scan; quick=False: without the quick dead-end test"},
    {"profile", py_profile, METH_VARARGS,
     "profile(the arguments of count) -> (count or None, states after each step, transitions of each step "
     "and of the end, seconds): the sizes of the layers, e.g. to plan a split"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "core.crossword._transfer",
                                    "The crossword transfer count in C (see core/crossword/transfer.py).", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__transfer(void) { return PyModule_Create(&module); }
