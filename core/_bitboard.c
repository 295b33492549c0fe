/*
 * _bitboard.c — the cheap search engine for plain polyform covers: the board as one
 * 128-bit word, the pieces still to place as a 64-bit mask.
 *
 * It searches the same kind of cover as core/_kernel.c but only one shape of it: every
 * item primary and 1:1, no colors; at most 128 "cells" and 64 "pieces", every option
 * holding at least one cell and at most one piece (core/bitboard.py classifies the items
 * and refuses anything else).  It keeps the kernel's contract (paths of option ids,
 * weights, budgets, frontiers, limits, splits; see core/search.py) so the two can be
 * swapped and distributed alike.
 *
 * THE TREE
 *
 *   A node is (board, left): the cells covered, the pieces still to place.  The board is
 *   full (every cell covered): a solution if left == 0, else a dead end.  Otherwise:
 *
 *   - depth < mrv_depth ("near the root", MRV): among the empty cells and the pieces left,
 *     the one with the fewest fitting placements (a placement fits when its cells are
 *     empty and its piece is left); ties to cells before pieces, then the lowest bit /
 *     piece.  Zero fits: a dead end.  Branches: its fitting placements, in table order.
 *   - below (the cheap part, FEC): the first empty cell (lowest bit).  Branches: the
 *     fitting placements whose lowest cell it is (every lower cell is full, so no other
 *     placement can cover it) — one contiguous range of the table, in table order —
 *     LESS those that fail the check below.
 *
 *   The check of a candidate placement q (cheap part only): every empty cell next to q
 *   that has at most two empty neighbours once q is placed must not be walled in (no
 *   empty neighbour: dead, one AND) and must still have a fitting placement (some word
 *   of live & ~conflict[q] & cover[c] is not zero).  It finds the dead cells that MRV
 *   finds as items without options, without counting.  A candidate that fails is not a
 *   branch (so it is neither a node nor a leaf).
 *
 *   The branching rule depends only on the node's depth and state, and so does the
 *   check (the per-cell witness word where a scan starts is a cache: it changes how fast
 *   a cell is found alive, never whether it is), so the tree is deterministic, as the
 *   contract asks.
 *
 * DATA LAYOUT
 *
 *   Problem (immutable, built once by core/bitboard.py, shared by every search):
 *     cells: bits 0..n_cells-1 of a u128 in the cover's order (the polyform model numbers
 *       the board along its shortest axis first); bits >= n_cells are always "full".
 *     placement table, sorted by (lowest cell, piece) so that the FEC candidates of cell c
 *       are one contiguous range  lead[c * (n_pieces + 1)] .. lead[(c + 1) * (n_pieces + 1)]
 *       (slot(c, p) = c * (n_pieces + 1) + p + 1 within it, p = -1: cell-only placements):
 *       pl_mask[k]    the placement's cells
 *       pl_around[k]  the cells next to it (not in it): where a dead cell may appear
 *       pl_piece[k]   its piece, -1 for none; pl_option[k] its ExactCover option id
 *     bitsets over the table (OW = n_words 64-bit words each):
 *       conflict[k]   the placements sharing a cell or the piece with k (k included)
 *       cover[c]      the placements over cell c; non-zero only in words cw0[c]..cw1[c)-1
 *       of_piece[p]   the placements of piece p; non-zero in words pw0[p]..pw1[p]-1
 *     nb[c]: cells that every placement over c also covers at least one of (the board
 *       neighbours); iso_ok[c]: nb[c] is such a set (false when a one-cell placement
 *       covers c), so "nb[c] all full" proves c dead.
 *
 *   Search (one per solve() call; no global state except the stop flag):
 *     lv[d]: the node at depth d: board, left, its branches (placement indices, in the
 *       int arena), the next branch to try, the placement that led to it.
 *     live[d] (OW words): the placements that fit node d.  live[d + 1] = live[d] &
 *       ~conflict[chosen], computed from the word of node d's first empty cell's
 *       placements on: a placement whose lowest cell is below the first empty cell is
 *       dead there and in every node below, and nothing reads those words again.
 *     witness[c]: the word of cover[c] where a fit was found last.
 *
 *   INVARIANTS: lv[d + 1].board = lv[d].board | mask(chosen), lv[d + 1].left =
 *   lv[d].left less its piece; live[d] holds exactly the placements fitting node d (from
 *   its first empty cell's word on); the branches of a node are fixed when it is expanded
 *   (so the weight of a child is the parent's / n_branch); a frontier entry is the path of
 *   option ids to a node with the branching factors along it.
 *
 *   "updates" (Stats.updates) counts bitset words read: in the live copy, the MRV counts,
 *   the FEC range and the check — a machine-independent cost.
 *
 * DESIGNS TRIED AND DROPPED (numbers in core/bitboard.py's module docstring): the first
 * empty cell alone (6x10 22 M nodes, pentacube box 5 G); with only the walled-in test
 * (6x10 12.7 M); region sizes by flood fill (8.9 M nodes but 2x the time); "every piece
 * left still fits" (6x10 3.5 M nodes at 600 ns); fewest fits among the next K empty cells
 * (9-11 M); the cell with the fewest empty neighbours (13 M); MRV on cells only (pieces
 * matter in 3D); checks by scanning placement lists (2,500 instructions a node on the
 * 8x8 less its centre); incremental MRV counts; the walled-in test first; SSE2 copies;
 * no check with one or two pieces left (within 0.6% of the instructions either way).
 *
 * COST (the aim was 50-100 ns a node in the cheap part; not met): a cheap-part node
 * costs about 1,000-1,500 instructions, most of them the check's word scans (a dead cell
 * is proved by scanning its whole range) and the live copy.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "_interrupt.h"
#include "_search_common.h"

typedef uint64_t u64;

enum { ST_DONE = 0, ST_BUDGET = 1, ST_LIMIT = 2 };
enum { CHECK_ISOLATED = 1, CHECK_DEAD = 2 };

/* Set by request_stop(), cleared by clear_stop(): a running search under a time budget
 * stops at its next deadline check as if its budget had run out (it hands back its
 * frontier); one without a time budget (a verification's count) runs on. */
static volatile int stop_requested = 0;

/* Bits set in x (SWAR: baseline x86-64 has no popcount instruction, and the builtin
 * becomes a library call there). */
static inline int popcount64(u64 x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

static inline int ctz128(u128 x) {
    u64 lo = (u64)x;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((u64)(x >> 64));
}

/* ------------------------------------------------------------------------- Problem */

typedef struct {
    PyObject_HEAD
    int32_t n_cells, n_pieces, n_pl, n_slots, mrv_depth, checks;
    u128 full;                 /* every bit: the board of a finished node */
    u128 *pl_mask, *pl_around;
    int32_t *pl_piece, *pl_option;
    int32_t *lead;             /* n_slots + 1 */
    int32_t n_words;           /* OW: words of a bitset over the placements */
    u64 *conflict;             /* n_pl x OW: the placements sharing a cell or the piece */
    u64 *cover;                /* n_cells x OW: the placements over each cell */
    int32_t cw0[128], cw1[128];/* the words of cover[c] that are not zero: cw0 .. cw1 - 1 */
    u64 *of_piece;             /* n_pieces x OW: the placements of each piece */
    int32_t pw0[64], pw1[64];  /* the words of of_piece[p] that are not zero */
    u128 nb[128];
    uint8_t iso_ok[128];
    int32_t max_option;        /* option ids are below this */
    int32_t *of_option;        /* option id -> placement index, -1 if none */
} Problem;

static void Problem_dealloc(Problem *p) {
    free(p->pl_mask); free(p->pl_around); free(p->pl_piece); free(p->pl_option);
    free(p->lead); free(p->conflict); free(p->cover); free(p->of_piece); free(p->of_option);
    Py_TYPE(p)->tp_free((PyObject *)p);
}

/* A Python sequence of ints as a fresh int64 array (NULL with an exception set). */
static long long *ll_array(PyObject *seq, Py_ssize_t *len, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    long long *out = malloc(sizeof(long long) * (size_t)(n ? n : 1));
    if (!out) { Py_DECREF(fast); PyErr_NoMemory(); return NULL; }
    for (Py_ssize_t k = 0; k < n; k++) {
        out[k] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, k));
        if (out[k] == -1 && PyErr_Occurred()) { free(out); Py_DECREF(fast); return NULL; }
    }
    Py_DECREF(fast);
    *len = n;
    return out;
}

/* A Python sequence of non-negative ints below 2^64 as u64 (NULL with an exception). */
static u64 *u64_array(PyObject *seq, Py_ssize_t *len, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    u64 *out = malloc(sizeof(u64) * (size_t)(n ? n : 1));
    if (!out) { Py_DECREF(fast); PyErr_NoMemory(); return NULL; }
    for (Py_ssize_t k = 0; k < n; k++) {
        out[k] = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(fast, k));
        if (out[k] == (u64)-1 && PyErr_Occurred()) { free(out); Py_DECREF(fast); return NULL; }
    }
    Py_DECREF(fast);
    *len = n;
    return out;
}

static inline u128 join(u64 lo, u64 hi) { return ((u128)hi << 64) | lo; }

/*
 * Problem(n_cells, n_pieces, mask_lo, mask_hi, piece, option, nb_lo, nb_hi, iso_ok,
 *         mrv_depth, checks)
 * One entry per placement (mask = its cells as bits, piece = -1 or 0..n_pieces-1, option
 * = its ExactCover id) in any order; one entry per cell for the neighbours.  The checks
 * here are the ones memory safety needs; core/bitboard.py validates the rest.
 */
static int Problem_init(Problem *p, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"n_cells", "n_pieces", "mask_lo", "mask_hi", "piece", "option",
                             "nb_lo", "nb_hi", "iso_ok", "mrv_depth", "checks", NULL};
    int n_cells, n_pieces, mrv_depth, checks;
    PyObject *o_lo, *o_hi, *o_piece, *o_option, *o_nlo, *o_nhi, *o_iso;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "iiOOOOOOOii", kwlist, &n_cells, &n_pieces, &o_lo,
                                     &o_hi, &o_piece, &o_option, &o_nlo, &o_nhi, &o_iso,
                                     &mrv_depth, &checks))
        return -1;
    if (p->pl_mask) { PyErr_SetString(PyExc_ValueError, "Problem is already initialised"); return -1; }
    if (n_cells < 0 || n_cells > 128 || n_pieces < 0 || n_pieces > 64 || mrv_depth < 0 || checks < 0) {
        PyErr_SetString(PyExc_ValueError, "bitboard: at most 128 cells and 64 pieces");
        return -1;
    }
    Py_ssize_t n_lo, n_hi, n_pc, n_op, n_nlo, n_nhi, n_iso;
    u64 *lo = u64_array(o_lo, &n_lo, "mask_lo"), *hi = lo ? u64_array(o_hi, &n_hi, "mask_hi") : NULL;
    long long *pc = hi ? ll_array(o_piece, &n_pc, "piece") : NULL;
    long long *op = pc ? ll_array(o_option, &n_op, "option") : NULL;
    u64 *nlo = op ? u64_array(o_nlo, &n_nlo, "nb_lo") : NULL;
    u64 *nhi = nlo ? u64_array(o_nhi, &n_nhi, "nb_hi") : NULL;
    long long *iso = nhi ? ll_array(o_iso, &n_iso, "iso_ok") : NULL;
    int ok = 0;
    int32_t *order = NULL, *fill = NULL;
    if (!iso) goto done;
    if (n_hi != n_lo || n_pc != n_lo || n_op != n_lo || n_nlo != n_cells || n_nhi != n_cells ||
        n_iso != n_cells || n_lo > INT32_MAX / 8) {
        PyErr_SetString(PyExc_ValueError, "bitboard: inconsistent placement or cell arrays");
        goto done;
    }
    const int32_t NPL = (int32_t)n_lo, NS = n_cells * (n_pieces + 1);
    const u128 cells = n_cells == 128 ? ~(u128)0 : (((u128)1 << n_cells) - 1);
    p->n_cells = n_cells;
    p->n_pieces = n_pieces;
    p->n_pl = NPL;
    p->n_slots = NS;
    p->mrv_depth = mrv_depth;
    p->checks = checks;
    p->full = ~(u128)0;
    p->max_option = 0;
    for (int32_t k = 0; k < NPL; k++) {
        u128 m = join(lo[k], hi[k]);
        if (!m || (m & ~cells) || pc[k] < -1 || pc[k] >= n_pieces || op[k] < 0 || op[k] >= INT32_MAX) {
            PyErr_SetString(PyExc_ValueError, "bitboard: a placement is empty or out of range");
            goto done;
        }
        if (op[k] + 1 > p->max_option) p->max_option = (int32_t)op[k] + 1;
    }
    for (int c = 0; c < n_cells; c++) {
        p->nb[c] = join(nlo[c], nhi[c]) & cells;
        p->iso_ok[c] = iso[c] != 0 && p->nb[c] != 0;
    }
    p->pl_mask = malloc(sizeof(u128) * (size_t)(NPL + 1));
    p->pl_around = malloc(sizeof(u128) * (size_t)(NPL + 1));
    p->pl_piece = malloc(sizeof(int32_t) * (size_t)(NPL + 1));
    p->pl_option = malloc(sizeof(int32_t) * (size_t)(NPL + 1));
    p->lead = calloc((size_t)NS + 2, sizeof(int32_t));
    p->of_option = malloc(sizeof(int32_t) * (size_t)(p->max_option + 1));
    order = malloc(sizeof(int32_t) * (size_t)(NPL + 1));
    fill = malloc(sizeof(int32_t) * ((size_t)NS + 2));
    if (!p->pl_mask || !p->pl_around || !p->pl_piece || !p->pl_option || !p->lead ||
        !p->of_option || !order || !fill) {
        PyErr_NoMemory();
        goto done;
    }
    /* the table sorted by slot(lowest cell, piece), stable (counting sort) */
    for (int32_t k = 0; k < NPL; k++) {
        int c = ctz128(join(lo[k], hi[k]));
        p->lead[c * (n_pieces + 1) + (int)pc[k] + 1 + 1]++;
    }
    for (int32_t s = 0; s < NS; s++) p->lead[s + 1] += p->lead[s];
    memcpy(fill, p->lead, sizeof(int32_t) * ((size_t)NS + 1));
    for (int32_t k = 0; k < NPL; k++) {
        int c = ctz128(join(lo[k], hi[k]));
        order[fill[c * (n_pieces + 1) + (int)pc[k] + 1]++] = k;
    }
    for (int32_t o = 0; o <= p->max_option; o++) p->of_option[o] = -1;
    size_t total = 0;
    for (int32_t j = 0; j < NPL; j++) {
        int32_t k = order[j];
        u128 m = join(lo[k], hi[k]), around = 0;
        p->pl_mask[j] = m;
        p->pl_piece[j] = (int32_t)pc[k];
        p->pl_option[j] = (int32_t)op[k];
        p->of_option[op[k]] = j;
        for (u128 x = m; x; x &= x - 1) {
            around |= p->nb[ctz128(x)];
            total++;
        }
        p->pl_around[j] = around & ~m;
    }
    /* bitsets over the table: the placements over each cell, then each placement's
     * conflicts (those over one of its cells, or of its piece; itself included) */
    (void)total;
    const int32_t OW = (NPL + 63) / 64 ? (NPL + 63) / 64 : 1;
    p->n_words = OW;
    p->cover = calloc((size_t)(n_cells ? n_cells : 1) * OW, sizeof(u64));
    p->conflict = calloc((size_t)(NPL ? NPL : 1) * OW, sizeof(u64));
    u64 *by_piece = p->of_piece = calloc((size_t)(n_pieces ? n_pieces : 1) * OW, sizeof(u64));
    if (!p->cover || !p->conflict || !by_piece) { PyErr_NoMemory(); goto done; }
    for (int32_t j = 0; j < NPL; j++) {
        for (u128 x = p->pl_mask[j]; x; x &= x - 1) p->cover[(size_t)ctz128(x) * OW + j / 64] |= (u64)1 << (j % 64);
        if (p->pl_piece[j] >= 0) by_piece[(size_t)p->pl_piece[j] * OW + j / 64] |= (u64)1 << (j % 64);
    }
    for (int c = 0; c < n_cells; c++) {
        const u64 *row = p->cover + (size_t)c * OW;
        int32_t a = 0, z = OW;
        while (a < OW && !row[a]) a++;
        while (z > a && !row[z - 1]) z--;
        p->cw0[c] = a;
        p->cw1[c] = z;
    }
    for (int q = 0; q < n_pieces; q++) {
        const u64 *row = p->of_piece + (size_t)q * OW;
        int32_t a = 0, z = OW;
        while (a < OW && !row[a]) a++;
        while (z > a && !row[z - 1]) z--;
        p->pw0[q] = a;
        p->pw1[q] = z;
    }
    for (int32_t j = 0; j < NPL; j++) {
        u64 *row = p->conflict + (size_t)j * OW;
        for (u128 x = p->pl_mask[j]; x; x &= x - 1) {
            const int c = ctz128(x);
            const u64 *cov = p->cover + (size_t)c * OW;
            for (int32_t w = p->cw0[c]; w < p->cw1[c]; w++) row[w] |= cov[w];
        }
        if (p->pl_piece[j] >= 0) {
            const u64 *mine = by_piece + (size_t)p->pl_piece[j] * OW;
            for (int32_t w = 0; w < OW; w++) row[w] |= mine[w];
        }
    }
    ok = 1;
done:
    free(lo); free(hi); free(pc); free(op); free(nlo); free(nhi); free(iso); free(order); free(fill);
    return ok ? 0 : -1;
}

static PyTypeObject ProblemType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "core._bitboard.Problem",
    .tp_basicsize = sizeof(Problem),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A plain polyform cover compiled for the bitboard engine (immutable).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Problem_init,
    .tp_dealloc = (destructor)Problem_dealloc,
};

/* -------------------------------------------------------------------------- Search */

typedef struct {
    u128 board;
    u64 left;
    int32_t n_branch;    /* branches (0: a leaf, or not expanded) */
    int32_t next;        /* index of the next branch to try */
    int64_t branch_off;  /* arena offset of the branch list (placement indices) */
    int32_t chosen;      /* placement that led here; -1 at the root */
} Level;

typedef struct {
    const Problem *p;
    Level *lv;               /* n_cells + 2 levels: every placement covers a cell */
    u64 *live;               /* (n_cells + 2) x OW: the placements that fit each level's node */
    int32_t depth, base;
    Buf arena;
    int32_t *witness;        /* per cell: the word of cover[c] where a fit was found last */
    /* limits */
    int enumerate;
    int64_t limit, node_budget;
    double deadline;
    int32_t max_depth;
    Interrupt interrupt;     /* signals heard while the GIL is released (_interrupt.h) */
    /* results */
    u128 count;
    u64 nodes, leaves, updates;
    u64 *per_depth;
    int32_t n_depths;
    Buf solutions, frontier;
    int status, oom;
} Search;

static void search_free(Search *s) {
    free(s->lv); free(s->live); free(s->arena.v); free(s->witness); free(s->per_depth);
    free(s->solutions.v); free(s->frontier.v);
}

static int search_init(Search *s, const Problem *p) {
    memset(s, 0, sizeof *s);
    s->p = p;
    s->lv = calloc((size_t)p->n_cells + 2, sizeof(Level));
    s->witness = malloc(sizeof(int32_t) * ((size_t)p->n_cells + 1));
    s->per_depth = calloc((size_t)p->n_cells + 2, sizeof(u64));
    s->live = calloc(((size_t)p->n_cells + 2) * p->n_words, sizeof(u64));
    if (!s->lv || !s->witness || !s->per_depth || !s->live) return -1;
    for (int c = 0; c < p->n_cells; c++) s->witness[c] = p->cw0[c];
    return 0;
}

/* Does some placement fit cell c once placement q is placed at a node whose fitting
 * placements are `live`?  Those are live & ~conflict[q]; the words of cover[c] from word
 * `from` on are tried (the cheap part's live placements all lie there: a placement whose
 * lowest cell is below the first empty cell is dead), starting from the one that answered
 * last time for c (a cache: the answer does not depend on it). */
static inline int coverable(Search *s, const u64 *restrict live, const u64 *restrict conf, int c,
                            int32_t from) {
    const Problem *p = s->p;
    const u64 *restrict cov = p->cover + (size_t)c * p->n_words;
    const int32_t a = p->cw0[c] > from ? p->cw0[c] : from, z = p->cw1[c];
    int32_t w0 = s->witness[c];
    if (w0 < a || w0 >= z) w0 = a;
    for (int32_t w = w0; w < z; w++)
        if (live[w] & ~conf[w] & cov[w]) { s->witness[c] = w; s->updates += (u64)(w - w0 + 1); return 1; }
    for (int32_t w = a; w < w0; w++)
        if (live[w] & ~conf[w] & cov[w]) { s->witness[c] = w; s->updates += (u64)(z - w0 + w - a + 1); return 1; }
    s->updates += (u64)(z - a);
    return 0;
}

/* The check of the cheap part, for candidate q at a node (board b, fitting placements
 * live): no empty cell next to q may be dead once q is placed.  A cell walled in (no
 * empty neighbour) is dead at once; one with one or two empty neighbours left is dead if
 * no placement over it still fits; one with more is taken as alive (measured: checking
 * those too prunes almost nothing more and costs a third of the time). */
static inline int neighbours_alive(Search *s, u128 b, const u64 *live, int32_t q, int32_t from) {
    const Problem *p = s->p;
    const u128 nb = b | p->pl_mask[q];
    const u64 *conf = p->conflict + (size_t)q * p->n_words;
    for (u128 x = p->pl_around[q] & ~nb; x; x &= x - 1) {
        const int c = ctz128(x);
        const u128 e = p->nb[c] & ~nb, e1 = e & (e - 1);
        if (e1 & (e1 - 1)) continue;  /* three empty neighbours or more */
        if (!e) {
            if ((p->checks & CHECK_ISOLATED) && p->iso_ok[c]) return 0;
        }
        if ((p->checks & CHECK_DEAD) && !coverable(s, live, conf, c, from)) return 0;
    }
    return 1;
}

/* The same check on a board of at most 64 cells: the high words are always full, so
 * the low words say it all (half the work on the hot path). */
static inline int neighbours_alive64(Search *s, u64 b, const u64 *live, int32_t q, int32_t from) {
    const Problem *p = s->p;
    const u64 nb = b | (u64)p->pl_mask[q];
    const u64 *conf = p->conflict + (size_t)q * p->n_words;
    for (u64 x = (u64)p->pl_around[q] & ~nb; x; x &= x - 1) {
        const int c = __builtin_ctzll(x);
        const u64 e = (u64)p->nb[c] & ~nb, e1 = e & (e - 1);
        if (e1 & (e1 - 1)) continue;
        if (!e) {
            if ((p->checks & CHECK_ISOLATED) && p->iso_ok[c]) return 0;
        }
        if ((p->checks & CHECK_DEAD) && !coverable(s, live, conf, c, from)) return 0;
    }
    return 1;
}

/* Expand the cheap part's node L (depth d): branches on its first empty cell — the
 * fitting placements whose lowest cell it is: the live bits of one range of the table.
 * 0, or -1 (out of memory). */
static int expand_fec(Search *s, Level *L, int32_t d) {
    const Problem *p = s->p;
    const u128 b = L->board;
    const u64 *live = s->live + (size_t)d * p->n_words;
    const int c = ctz128(~b);
    const int32_t r0 = p->lead[c * (p->n_pieces + 1)], r1 = p->lead[(c + 1) * (p->n_pieces + 1)];
    if (buf_reserve(&s->arena, r1 - r0)) return -1;
    int32_t *out = s->arena.v + s->arena.n;
    int32_t n = 0;
    const int checks = p->checks, narrow = p->n_cells <= 64;
    for (int32_t w = r0 / 64; r0 < r1 && w <= (r1 - 1) / 64; w++) {
        u64 x = live[w];
        s->updates++;
        if (w == r0 / 64) x &= ~(u64)0 << (r0 % 64);
        if (w == (r1 - 1) / 64 && r1 % 64) x &= ~(~(u64)0 << (r1 % 64));
        for (; x; x &= x - 1) {
            const int32_t k = w * 64 + __builtin_ctzll(x);
            if (checks && !(narrow ? neighbours_alive64(s, (u64)b, live, k, r0 / 64)
                                   : neighbours_alive(s, b, live, k, r0 / 64)))
                continue;
            out[n++] = k;
        }
    }
    L->branch_off = s->arena.n;
    L->n_branch = n;
    s->arena.n += n;
    return 0;
}

/* How many of the live placements in `set` (words w0 .. w1 - 1), counted only up to
 * `most` (the fewest found so far: a count that reaches it cannot win). */
static inline int32_t count_upto(Search *s, const u64 *restrict live, const u64 *restrict set,
                                 int32_t w0, int32_t w1, int32_t most) {
    int32_t n = 0;
    for (int32_t w = w0; w < w1; w++) {
        const u64 x = live[w] & set[w];
        if (x && (n += popcount64(x)) >= most) { s->updates += (u64)(w - w0 + 1); return n; }
    }
    s->updates += (u64)(w1 - w0);
    return n;
}

/* Expand an MRV node L (depth d): the empty cell or piece left with the fewest live
 * placements (ties: cells first, the lowest), its live placements as branches.  Counts
 * stop at the fewest found so far, so most cells cost a word or two.  0, or -1 (oom). */
static int expand_mrv(Search *s, Level *L, int32_t d) {
    const Problem *p = s->p;
    const int32_t OW = p->n_words;
    const u128 b = L->board;
    const u64 *live = s->live + (size_t)d * OW;
    const u128 cells = p->n_cells == 128 ? ~(u128)0 : (((u128)1 << p->n_cells) - 1);
    /* no placement whose lowest cell is below the first empty cell fits: start there */
    const int32_t from = p->lead[ctz128(~b) * (p->n_pieces + 1)] / 64;
    int32_t best = INT32_MAX, cell = -1, piece = -1;
    for (u128 x = ~b & cells; x && best; x &= x - 1) {
        const int c = ctz128(x);
        const int32_t n = count_upto(s, live, p->cover + (size_t)c * OW, p->cw0[c] > from ? p->cw0[c] : from,
                                     p->cw1[c], best);
        if (n < best) { best = n; cell = c; }
    }
    for (u64 t = L->left; t && best; t &= t - 1) {
        const int q = __builtin_ctzll(t);
        const int32_t n = count_upto(s, live, p->of_piece + (size_t)q * OW, p->pw0[q] > from ? p->pw0[q] : from,
                                     p->pw1[q], best);
        if (n < best) { best = n; piece = q; cell = -1; }
    }
    L->branch_off = s->arena.n;
    L->n_branch = 0;
    if (best == 0 || best == INT32_MAX) return 0;
    if (buf_reserve(&s->arena, best)) return -1;
    int32_t *out = s->arena.v + s->arena.n;
    int32_t n = 0;
    const u64 *mine = cell >= 0 ? p->cover + (size_t)cell * OW : p->of_piece + (size_t)piece * OW;
    for (int32_t w = from; w < OW; w++)
        for (u64 x = live[w] & mine[w]; x; x &= x - 1) out[n++] = w * 64 + __builtin_ctzll(x);
    L->n_branch = n;
    s->arena.n += n;
    return 0;
}

/* Expand the node at the current depth.  1: a solution; 0: branches (maybe none) in
 * lv[depth]; -1: out of memory. */
static int expand(Search *s) {
    const int32_t d = s->depth;
    Level *L = &s->lv[d];
    L->n_branch = 0;
    L->next = 0;
    L->branch_off = s->arena.n;
    if (L->board == s->p->full) return L->left == 0;
    if (d < s->p->mrv_depth) return expand_mrv(s, L, d);
    return expand_fec(s, L, d);
}

/* Step into branch j of the current node. */
static inline void descend(Search *s, int32_t j) {
    const Problem *p = s->p;
    Level *L = &s->lv[s->depth];
    int32_t k = s->arena.v[L->branch_off + j];
    L->next = j + 1;
    Level *C = L + 1;
    C->board = L->board | p->pl_mask[k];
    C->left = p->pl_piece[k] >= 0 ? L->left & ~((u64)1 << p->pl_piece[k]) : L->left;
    C->chosen = k;
    /* the child's fitting placements: the parent's less those in conflict with k.  Only
     * from the word of the parent's first empty cell's placements on: below it every
     * placement is dead at this node and every node under it, and nothing reads there. */
    const int32_t OW = p->n_words, from = p->lead[ctz128(~L->board) * (p->n_pieces + 1)] / 64;
    const u64 *restrict conf = p->conflict + (size_t)k * OW, *restrict up = s->live + (size_t)s->depth * OW;
    u64 *restrict down = s->live + ((size_t)s->depth + 1) * OW;
    for (int32_t w = from; w < OW; w++) down[w] = up[w] & ~conf[w];
    s->updates += (u64)(OW - from);
    s->depth++;
}

static inline void ascend(Search *s) {
    s->depth--;
    Level *L = &s->lv[s->depth];
    s->arena.n = L->branch_off + L->n_branch;  /* drop what the child stacked */
}

/* Append the path to depth d (option ids), plus `extra` placement if >= 0, and with
 * factors the branching factors along it; a solution (factors = 0) is the options only. */
static int record_path(Search *s, Buf *b, int32_t d, int32_t extra, int factors) {
    const Problem *p = s->p;
    int32_t len = d + (extra >= 0);
    if (buf_reserve(b, 1 + 2 * (int64_t)len)) return -1;
    b->v[b->n++] = len;
    for (int32_t k = 1; k <= d; k++) b->v[b->n++] = p->pl_option[s->lv[k].chosen];
    if (extra >= 0) b->v[b->n++] = p->pl_option[extra];
    if (factors)
        for (int32_t k = 0; k < len; k++) b->v[b->n++] = s->lv[k].n_branch;
    return 0;
}

/* Hand back the untried siblings at every level from the current depth up to base. */
static int record_siblings(Search *s) {
    for (int32_t d = s->depth; d >= s->base; d--) {
        Level *L = &s->lv[d];
        for (int32_t j = L->next; j < L->n_branch; j++)
            if (record_path(s, &s->frontier, d, s->arena.v[L->branch_off + j], 1)) return -1;
    }
    return 0;
}

/* Whether the search must stop here for its budget, its deadline or a stop request (the
 * clock and the flag are read once in 1024 nodes), or for a signal whose handler raised
 * (heard once in INTERRUPT_EVERY nodes; bitboard_solve then raises). */
static inline int out_of_budget(Search *s) {
    if (s->node_budget >= 0 && s->nodes >= (u64)s->node_budget) return 1;
    if ((s->nodes & 1023) == 0 && s->deadline >= 0 && (stop_requested || now_seconds() >= s->deadline))
        return 1;
    return (s->nodes & (INTERRUPT_EVERY - 1)) == 0 && interrupt_check(&s->interrupt);
}

/* The search loop (GIL released).  The node at s->depth == s->base has been replayed but
 * not expanded. */
static void run(Search *s) {
    int entering = 1;
    s->status = ST_DONE;
    for (;;) {
        if (entering) {
            entering = 0;
            const int32_t d = s->depth;
            if (d > s->base && out_of_budget(s)) {
                s->status = ST_BUDGET;
                if (record_path(s, &s->frontier, d, -1, 1)) goto oom;
                s->lv[d].n_branch = 0;  /* not expanded: nothing below to hand back */
                s->lv[d].next = 0;
                s->depth--;
                if (record_siblings(s)) goto oom;
                return;
            }
            s->nodes++;
            s->per_depth[d]++;
            if (d >= s->n_depths) s->n_depths = d + 1;
            Level *L = &s->lv[d];
            if (s->max_depth >= 0 && d >= s->max_depth) {
                if (record_path(s, &s->frontier, d, -1, 1)) goto oom;
                L->n_branch = 0;
                L->next = 0;
                L->branch_off = s->arena.n;
            } else {
                int r = expand(s);
                if (r < 0) goto oom;
                if (r == 1 || L->n_branch == 0) {
                    L->n_branch = 0;
                    if (s->max_depth >= 0) {  /* a leaf above the split: its own subproblem */
                        if (record_path(s, &s->frontier, d, -1, 1)) goto oom;
                    } else {
                        s->leaves++;
                        if (r == 1) {
                            s->count += 1;
                            if (s->enumerate && record_path(s, &s->solutions, d, -1, 0)) goto oom;
                            if (s->limit >= 0 && s->count >= (u128)s->limit) {
                                s->status = ST_LIMIT;
                                if (d > s->base) {
                                    ascend(s);
                                    if (record_siblings(s)) goto oom;
                                }
                                return;
                            }
                        }
                    }
                }
            }
        }
        Level *L = &s->lv[s->depth];
        if (L->next < L->n_branch) {
            descend(s, L->next);
            entering = 1;
        } else {
            if (s->depth == s->base) return;
            ascend(s);
        }
    }
oom:
    s->oom = 1;
}

/* Replay a path from the root: 0 on success, 1 if illegal (*bad_depth set), -1 oom. */
static int replay(Search *s, const int32_t *path, int32_t n, int32_t *bad_depth) {
    const Problem *p = s->p;
    for (int32_t k = 0; k < n; k++) {
        int r = expand(s);
        if (r < 0) return -1;
        Level *L = &s->lv[s->depth];
        if (r == 1) L->n_branch = 0;
        int32_t want = path[k] < p->max_option ? p->of_option[path[k]] : -1, j = -1;
        for (int32_t b = 0; want >= 0 && b < L->n_branch; b++)
            if (s->arena.v[L->branch_off + b] == want) { j = b; break; }
        if (j < 0) { *bad_depth = k; return 1; }
        descend(s, j);
        s->lv[s->depth - 1].next = s->lv[s->depth - 1].n_branch;  /* no siblings above base */
    }
    s->base = s->depth;
    return 0;
}

static PyStructSequence_Field result_fields[] = {
    {"status", "0 searched to the end, 1 stopped by a budget, 2 stopped by the limit"},
    {"count", "solutions counted (a Python int)"},
    {"solutions", "the solutions as paths (listing), else None"},
    {"frontier", "the unexplored nodes: [(path, branching factors along it)]"},
    {"nodes", "nodes entered"},
    {"leaves", "solutions and dead ends reached"},
    {"updates", "placement tests made (a machine-independent cost)"},
    {"nodes_per_depth", "nodes entered at each depth"},
    {"path_factors", "the branching factor at each step of the replayed path"},
    {"seconds", "wall time of the call"},
    {NULL, NULL},
};
static PyStructSequence_Desc result_desc = {
    "core._bitboard.Result", "The outcome of one bitboard solve() call.", result_fields, 10,
};
static PyTypeObject *ResultType;

/*
 * solve(problem, board_lo, board_hi, left, path, listing, limit, node_budget, seconds,
 *       max_depth) -> Result
 * (board, left) is the root: the cells and pieces taken before it (the caller's `given`
 * options).  limit / node_budget / max_depth: -1 for none; seconds: negative for none.
 */
static PyObject *bitboard_solve(PyObject *self, PyObject *args) {
    (void)self;
    Problem *p;
    unsigned long long blo, bhi, left;
    PyObject *path_obj;
    int enumerate_, max_depth;
    long long limit, node_budget;
    double seconds;
    if (!PyArg_ParseTuple(args, "O!KKKOpLLdi", &ProblemType, &p, &blo, &bhi, &left, &path_obj,
                          &enumerate_, &limit, &node_budget, &seconds, &max_depth))
        return NULL;
    if (!p->pl_mask) {
        PyErr_SetString(PyExc_ValueError, "bitboard: the problem is not initialised");
        return NULL;
    }
    Py_ssize_t n_path;
    long long *raw = ll_array(path_obj, &n_path, "path");
    if (!raw) return NULL;
    if (n_path > p->n_cells) n_path = p->n_cells + 1;  /* longer than any path: fails below */
    int32_t *path = malloc(sizeof(int32_t) * (size_t)(n_path + 1));
    if (!path) { free(raw); return PyErr_NoMemory(); }
    for (Py_ssize_t k = 0; k < n_path; k++)
        path[k] = raw[k] < 0 || raw[k] > INT32_MAX ? INT32_MAX : (int32_t)raw[k];
    free(raw);
    Search s;
    if (search_init(&s, p)) { search_free(&s); free(path); return PyErr_NoMemory(); }
    const u128 cells = p->n_cells == 128 ? ~(u128)0 : (((u128)1 << p->n_cells) - 1);
    s.lv[0].board = join(blo, bhi) | ~cells;
    s.lv[0].left = left & (p->n_pieces == 64 ? ~(u64)0 : (((u64)1 << p->n_pieces) - 1));
    s.lv[0].chosen = -1;
    for (int32_t k = 0; k < p->n_pl; k++) {
        const int q = p->pl_piece[k];
        if (!(p->pl_mask[k] & s.lv[0].board) && (q < 0 || ((s.lv[0].left >> q) & 1)))
            s.live[k / 64] |= (u64)1 << (k % 64);
    }
    s.enumerate = enumerate_;
    s.limit = limit;
    s.node_budget = node_budget;
    s.max_depth = max_depth;
    double started = now_seconds();
    s.deadline = seconds >= 0 ? started + seconds : -1.0;
    int32_t bad_depth = -1;
    int r;
    interrupt_release(&s.interrupt);
    r = replay(&s, path, (int32_t)n_path, &bad_depth);
    if (r == 0) {
        if (max_depth >= 0 && s.depth > max_depth) {
            if (record_path(&s, &s.frontier, s.depth, -1, 1)) s.oom = 1;
        } else {
            run(&s);
        }
    }
    interrupt_reacquire(&s.interrupt);
    double elapsed = now_seconds() - started;
    PyObject *result = NULL;
    if (s.interrupt.raised) {
        /* a signal handler raised: its exception stands for the result */
    } else if (r < 0 || s.oom) {
        PyErr_NoMemory();
    } else if (r == 1) {
        PyObject *mod = PyImport_ImportModule("core.errors");
        PyObject *exc = mod ? PyObject_GetAttrString(mod, "PathError") : NULL;
        Py_XDECREF(mod);
        if (exc) {
            PyErr_Format(exc, "option %d is not a branch at depth %d of the path",
                         (int)path[bad_depth], (int)bad_depth);
            Py_DECREF(exc);
        }
    } else {
        PyObject *sols = s.enumerate ? records_to_list(&s.solutions, 0) : Py_NewRef(Py_None);
        PyObject *front = records_to_list(&s.frontier, 1);
        PyObject *per = PyList_New(s.n_depths);
        PyObject *fac = PyTuple_New(n_path);
        if (sols && front && per && fac) {
            for (int32_t k = 0; k < s.n_depths; k++)
                PyList_SET_ITEM(per, k, PyLong_FromUnsignedLongLong(s.per_depth[k]));
            for (Py_ssize_t k = 0; k < n_path; k++) PyTuple_SET_ITEM(fac, k, PyLong_FromLong(s.lv[k].n_branch));
            PyObject *fields[10] = {
                PyLong_FromLong(s.status), u128_to_long(s.count), Py_NewRef(sols), Py_NewRef(front),
                PyLong_FromUnsignedLongLong(s.nodes), PyLong_FromUnsignedLongLong(s.leaves),
                PyLong_FromUnsignedLongLong(s.updates), Py_NewRef(per), Py_NewRef(fac),
                PyFloat_FromDouble(elapsed),
            };
            int ok = 1;
            for (int k = 0; k < 10; k++) ok = ok && fields[k] != NULL;
            result = ok ? PyStructSequence_New(ResultType) : NULL;
            if (result) {
                for (int k = 0; k < 10; k++) PyStructSequence_SET_ITEM(result, k, fields[k]);
            } else {
                for (int k = 0; k < 10; k++) Py_XDECREF(fields[k]);
            }
        }
        Py_XDECREF(sols);
        Py_XDECREF(front);
        Py_XDECREF(per);
        Py_XDECREF(fac);
    }
    search_free(&s);
    free(path);
    return result;
}

static PyObject *bitboard_request_stop(PyObject *self, PyObject *unused) {
    (void)self; (void)unused;
    stop_requested = 1;
    Py_RETURN_NONE;
}

static PyObject *bitboard_clear_stop(PyObject *self, PyObject *unused) {
    (void)self; (void)unused;
    stop_requested = 0;
    Py_RETURN_NONE;
}

/* The stop flag's address, for the kernel's handoff signal handler (core/_kernel.c:
 * kernel_handle_handoff_signal), which sets it with its own. */
static PyObject *bitboard_stop_flag(PyObject *self, PyObject *unused) {
    (void)self; (void)unused;
    return PyCapsule_New((void *)&stop_requested, "tilecensus.stop_flag", NULL);
}

static PyMethodDef bitboard_methods[] = {
    {"solve", bitboard_solve, METH_VARARGS, "Search below a path; see core/bitboard.py."},
    {"request_stop", bitboard_request_stop, METH_NOARGS,
     "Make every running and later search stop as if its budget ran out (until clear_stop())."},
    {"clear_stop", bitboard_clear_stop, METH_NOARGS, "Undo request_stop()."},
    {"stop_flag", bitboard_stop_flag, METH_NOARGS, "The stop flag, as a capsule (see core/handoff.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef bitboard_module = {
    PyModuleDef_HEAD_INIT, "core._bitboard",
    "The cheap search engine for plain polyform covers (one 128-bit board).", -1, bitboard_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__bitboard(void) {
    if (PyType_Ready(&ProblemType) < 0) return NULL;
    PyObject *m = PyModule_Create(&bitboard_module);
    if (!m) return NULL;
    if (PyModule_AddObject(m, "Problem", Py_NewRef((PyObject *)&ProblemType)) < 0) {
        Py_DECREF(&ProblemType);
        Py_DECREF(m);
        return NULL;
    }
    ResultType = PyStructSequence_NewType(&result_desc);
    if (!ResultType || PyModule_AddObject(m, "Result", Py_NewRef((PyObject *)ResultType)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "CHECK_ISOLATED", CHECK_ISOLATED);
    PyModule_AddIntConstant(m, "CHECK_DEAD", CHECK_DEAD);
    return m;
}
