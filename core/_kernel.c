/*
 * _kernel.c — the tilecensus search kernel: exact cover with colors and multiplicities,
 * on bitsets.
 *
 * The tree searched is the one described in core/reference.py (the pure-Python reference
 * of the same contract); read that docstring first.  In short: at each node branch on a
 * needed primary item (fewest live options, ties to the lowest index; or the lowest
 * needed item with the "first" heuristic), trying its live options in increasing id.
 *
 * DATA LAYOUT
 *
 *   Problem (immutable, built once from an ExactCover, shared by every search):
 *     opt_plain[o * W .. o * W + W)   bitset of the items option o uses WITHOUT a color
 *                                     (W = n_words = ceil(n_items / 64))
 *     opt_start[o] .. opt_start[o+1]  CSR index into opt_item[] / opt_color[]: every entry
 *                                     of option o, in the order given; color 0 = none
 *     opt_colored[o]                  option o has at least one colored entry
 *     item_start[i] .. item_start[i+1]  CSR index into item_opt[]: the options that use
 *                                     item i, in increasing id
 *     lo[i], hi[i]                    multiplicity bounds; 1:1 for plain primary items,
 *                                     0:1 for secondary items
 *     exact_mask (W words)            the plain 1:1 primary items
 *     counters[]                      the primary items whose bounds are not 1:1
 *
 *   Search state (one per call of solve(); no global state, so many threads or processes
 *   may search at once; the GIL is released while searching):
 *     cov (W words, in place)         bit i set iff item i is SATURATED: covered hi times,
 *                                     or (secondary) used plainly or given a color.  Set by
 *                                     descend(), cleared by ascend(): the chosen option's
 *                                     items were all unsaturated before it (it was live).
 *     cnt[i]                          times item i is covered (for multiplicities)
 *     color[i]                        secondary item: 0 unset, -1 used plainly, c >= 1
 *     excluded[o]                     option o is excluded below a multiplicity branch
 *     alive[o], tally[i], trail       MRV outside the lanes: the live set of the last node
 *                                     expanded, live options per item, and the options
 *                                     each level killed (see "The MRV trail" below)
 *     levels[d]                       node at depth d: branching item, its branch list
 *                                     (an offset into one int arena), the next branch to
 *                                     try, the option that led here, its trail mark
 *
 *   MEMORY grows with depth by a Level record (about 128 bytes) and what the level
 *   changed: its branch list and the options it killed, each option at most once along a
 *   path.  Two places keep arrays per level: the lane path below (counts and live bits;
 *   covers of at most 256 items, so at most 256 levels), and the generic MRV path's
 *   copies layout, chosen only where the copies stay under MAX_MRV_COPY_BYTES over the
 *   deepest search (choose_mrv_layout).  solve() reports the search state's peak as
 *   Result.state_bytes.
 *
 *   INVARIANT: an option o is live at a node iff !excluded[o], (opt_plain[o] & cov) == 0,
 *   and every colored entry (i, c) has color[i] in {0, c}.  Liveness is monotone: a live
 *   option of a child was live at its parent, so with the MRV heuristic each node filters
 *   its parent's live list instead of scanning every option ("updates" counts these
 *   liveness tests: a machine-independent cost, like Knuth's mems).
 *
 *   PLAIN COVERS (no colors, no multiplicities) skip cnt/color/excluded altogether: a node
 *   is its cov bitset.  MRV there, on at most 256 items, keeps the live options as a
 *   bitset per level (or the list, when the conflict table would not fit) and the live
 *   counts as uint16 lanes per level; the branches are then live & item_bits[i]; see
 *   expand_plain_mrv().
 *
 * DESIGNS MEASURED AND DROPPED
 *
 *   Measured on 2026-11-26 on the project's 2-core x86_64 machine, on the same trees (same
 *   node counts) as the code above, A/B in one process where the gain was small.  Kept
 *   here so that whoever changes the search sees what has been tried; the timings of the
 *   current code are in docs/performance.md.
 *
 *   MRV on plain covers:
 *   - bit-sliced live counts instead of uint16 lanes: a carry loop per dying option,
 *     2.5x slower (mispredicted);
 *   - wider count lanes: 32-byte AVX2 lanes via target_clones were no faster than SSE2;
 *     32- and 64-byte lanes (AVX2, AVX-512) made the MRV kernel 10% faster at best, not
 *     worth a second code path (the kernel is built for baseline x86-64);
 *   - the dying options summed in bytes before one widening subtract: half the loads, no
 *     faster (the loop is not load-bound);
 *   - the dying options' ids decoded four per word, branch-free, before the subtracts:
 *     30% slower;
 *   - a hitting-set "isolated item" check: fewer nodes, no faster;
 *   - a lookahead for children left with an item without options (two nodes in three are
 *     such dead ends): the parent lists its uncovered items with at most k live options,
 *     and a branch that conflicts with all of one item's options is counted as a leaf
 *     without being expanded (same tree and statistics).  With k = 3, 8, 30 it skips 12%,
 *     50%, 87% of the 6x10 pentomino box's 2.4 M dead ends and takes 1.15, 1.21, 2.13 s
 *     against 1.13 s without: the lists cost what the skipped expansions did;
 *   - MRV's tie-break, by renumbering the items (pieces first; cells by fewest options
 *     first or last; cells reversed): the trees stay within 1.5% of each other (3x4x5
 *     pentacube box 45.8-47.1 M nodes, 6x10 3.61-3.63 M, 8x8 less its centre 289-293 k,
 *     Soma 255-257 k), so the branching order is no lever.
 *
 *   Memory of deep searches (2026-11-28): the generic MRV path copied the live list and a
 *   row of item counts per level (250 KB a level on the 200x200 domino board, 5 GB at
 *   depth 20,000).  The trail alone was 1.6x slower on small covers with multiplicities
 *   (giving the counts back costs more than copying a short row), even scanning only the
 *   items whose state changed, so the copies stay for covers whose copies fit 4 MiB over
 *   the deepest search; the trail is 1.5-2.6x faster on the bigger and the plain ones
 *   (docs/kernel.md).  The lane path keeps its per-level lanes: 256 levels at most, and a
 *   copy of 16-byte vectors is what makes it fast.
 *
 *   First-item branching ("first"):
 *   - occupancy-indexed lead lists: fewer tests, no faster;
 *   - lead lists cut into runs by piece item, so that a placed piece skips its run: fewer
 *     tests, 5-15% slower (the run loop mispredicts).
 *
 *   Counting:
 *   - meeting in the middle: the left half filled first-cell-first, the right half from
 *     the far end with "left for the other side" branches, joined on complementary
 *     states.  The right count, but 1.5 s on the 6x10 at the best cut (the doomed partial
 *     fills of each half are not pruned);
 *   - a full counting memo on the first-empty-cell tree of bench/bitboard.c (every state
 *     stored, a 16 M-entry table): the 6x10 falls from 25.8 M to 5.0 M nodes but costs
 *     1.1 s in cache misses;
 *   - a table for the last pieces of the pentacube box: its MRV tree's 46.4 M nodes (no
 *     memo) lie 76% at depths 8-12 (four pieces or fewer left), 63% are dead ends, and
 *     there is about 1.2 node below each node at depth 8, so such a table would replace
 *     little work.
 *   Level counting's own trials are in the docstring of core/frontier.py.
 *
 * TARGETS NOT YET MET
 *
 *   Issue 7 asked for 10x xcover's time on the 8x8 board less its centre and 20x on the
 *   3x4x5 pentacube box.  The search is 4.9-6.9x xcover on the first and 2.8-3.6x on the
 *   second, which does not fit counting by levels (over 100 M states at a middle level).
 *   Per node, MRV costs 300-500 ns on the pentomino boxes (the machine's speed varies from
 *   day to day); what remains is the live-count update for the ~70 options that die at
 *   each node, which any MRV search pays.  Neither MRV nor first-empty-cell search,
 *   however lean, reaches 20x xcover: that needs a different algorithm, not a faster loop.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "_interrupt.h"
#include "_search_common.h"

typedef uint64_t word_t;
typedef uint16_t v16 __attribute__((vector_size(16)));  /* eight uint16 lanes (GCC/Clang) */
typedef uint64_t v2w __attribute__((vector_size(16)));  /* the same 16 bytes as two words */

/* items at most for the narrow MRV counts (16-byte lanes per option) */
#define MAX_LANE_ITEMS 256
/* memory at most for the option-conflict bitsets (n_options^2 / 8 bytes) */
#define MAX_CONFLICT_BYTES (4u << 20)
/* generic MRV: memory at most for a live list and a row of counts per level, over the
 * deepest a search can go; past it (or on a plain cover) the trail is used instead */
#define MAX_MRV_COPY_BYTES (4u << 20)
enum { LAYOUT_AUTO = 0, LAYOUT_COPIES = 1, LAYOUT_TRAIL = 2 };

enum { H_MRV = 0, H_FIRST = 1 };
enum { ST_DONE = 0, ST_BUDGET = 1, ST_LIMIT = 2 };

/* ------------------------------------------------------------------------- Problem */

typedef struct {
    PyObject_HEAD
    int32_t n_items, n_primary, n_words, n_options, heuristic;
    word_t *opt_plain;
    int32_t *opt_start, *opt_item, *opt_color;
    uint8_t *opt_colored;
    int32_t *item_start, *item_opt;
    int32_t *lead_start, *lead_opt;  /* CSR: options whose lowest exact item is i */
    int32_t *lo, *hi;
    int32_t n_counters, *counters;
    word_t *exact_mask;
    int plain;           /* no colors and no multiplicities: liveness is one bitset test */
    int mrv_trail;       /* generic MRV: one live set and a trail (1), or copies per level (0) */
    int sparse;          /* options have fewer entries than the bitset has words */
    /* narrow MRV counts (plain covers of at most MAX_LANE_ITEMS items, degrees < 0x8000):
     * opt_lanes[o * n_lanes ..] = option o as 0/1 uint16 lanes; lanes_fence = 0xFFFF on
     * every lane that is not a primary item; n_lanes = 0 when unused */
    int32_t n_lanes;
    v16 *opt_lanes, *lanes_fence;
    /* and when the options are few enough (MAX_CONFLICT_BYTES), live options as a bitset:
     * conflict[o * n_owords ..] = the options sharing an item with o (o included), and
     * item_bits[i * n_owords ..] = the options that use item i */
    int32_t n_owords;
    word_t *conflict, *item_bits;
    /* region rule (n_cells == 0: none) */
    int32_t n_cells, *cell_item, *nb_start, *nb;
    int32_t n_pieces, *piece_size, *piece_item;
} Problem;

static void Problem_dealloc(Problem *p) {
    free(p->opt_plain); free(p->opt_start); free(p->opt_item); free(p->opt_color);
    free(p->opt_colored); free(p->item_start); free(p->item_opt); free(p->lead_start); free(p->lead_opt); free(p->lo); free(p->hi);
    free(p->counters); free(p->exact_mask); free(p->cell_item); free(p->nb_start);
    free(p->nb); free(p->piece_size); free(p->piece_item); free(p->opt_lanes); free(p->lanes_fence);
    free(p->conflict); free(p->item_bits);
    Py_TYPE(p)->tp_free((PyObject *)p);
}

/* Read a Python sequence of ints into a fresh int32 array; NULL with an exception set. */
static int32_t *int_array(PyObject *seq, Py_ssize_t *len, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    int32_t *out = malloc(sizeof(int32_t) * (size_t)(n ? n : 1));
    if (!out) { Py_DECREF(fast); PyErr_NoMemory(); return NULL; }
    for (Py_ssize_t k = 0; k < n; k++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, k));
        if (v == -1 && PyErr_Occurred()) { free(out); Py_DECREF(fast); return NULL; }
        if (v < INT32_MIN || v > INT32_MAX) {
            free(out); Py_DECREF(fast);
            PyErr_Format(PyExc_OverflowError, "%s: value out of range", what);
            return NULL;
        }
        out[k] = (int32_t)v;
    }
    Py_DECREF(fast);
    *len = n;
    return out;
}

/* The generic MRV path's layout (measured in docs/kernel.md): the trail on plain covers
 * (they come here with more than 256 items, or a region rule; killing costs no liveness
 * test there) and wherever copies per level could pass MAX_MRV_COPY_BYTES; copies on the
 * small covers with colors or multiplicities, where copying a short row beats giving the
 * counts back.  A search is at most sum(hi) + counters levels deep: every level covers
 * a primary item or closes a counter. */
static int choose_mrv_layout(const Problem *p) {
    if (p->plain) return 1;
    double depth = (double)p->n_counters;
    for (int32_t i = 0; i < p->n_primary; i++) depth += (double)p->hi[i];
    double copies = depth * 4.0 * ((double)p->n_items + 1.0 + (double)p->n_options);
    return copies > (double)MAX_MRV_COPY_BYTES;
}

/*
 * Problem(n_items, n_primary, opt_start, opt_item, opt_color, lo, hi, heuristic,
 *         region=None, mrv_layout=0)
 * The option entries come flattened (CSR).  region = (cell_item, nb_start, nb,
 * piece_size, piece_item) or None.  mrv_layout: how the generic MRV path keeps its live
 * options, 0 chosen by size (see choose_mrv_layout), 1 copies per level, 2 the trail
 * (the tests walk both).  Validation of names and shapes is done in Python
 * (core/exact_cover.py); here only what memory safety needs is checked.
 */
static int Problem_init(Problem *p, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"n_items", "n_primary", "opt_start", "opt_item", "opt_color",
                             "lo", "hi", "heuristic", "region", "mrv_layout", NULL};
    int n_items, n_primary, heuristic, layout = LAYOUT_AUTO;
    PyObject *o_start, *o_item, *o_color, *o_lo, *o_hi, *region = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "iiOOOOOi|Oi", kwlist, &n_items, &n_primary,
                                     &o_start, &o_item, &o_color, &o_lo, &o_hi, &heuristic,
                                     &region, &layout))
        return -1;
    if (n_items < 0 || n_primary < 0 || n_primary > n_items || heuristic < 0 || heuristic > 1 ||
        layout < LAYOUT_AUTO || layout > LAYOUT_TRAIL) {
        PyErr_SetString(PyExc_ValueError, "bad problem sizes, heuristic or layout");
        return -1;
    }
    p->n_items = n_items;
    p->n_primary = n_primary;
    p->heuristic = heuristic;
    p->n_words = (n_items + 63) / 64;
    if (p->n_words == 0) p->n_words = 1;
    Py_ssize_t ns, ni, nc, nlo, nhi;
    if (!(p->opt_start = int_array(o_start, &ns, "opt_start"))) return -1;
    if (!(p->opt_item = int_array(o_item, &ni, "opt_item"))) return -1;
    if (!(p->opt_color = int_array(o_color, &nc, "opt_color"))) return -1;
    if (!(p->lo = int_array(o_lo, &nlo, "lo"))) return -1;
    if (!(p->hi = int_array(o_hi, &nhi, "hi"))) return -1;
    if (ns < 1 || ni != nc || nlo != n_items || nhi != n_items || p->opt_start[0] != 0 ||
        p->opt_start[ns - 1] != ni) {
        PyErr_SetString(PyExc_ValueError, "inconsistent option arrays");
        return -1;
    }
    int32_t n_opt = (int32_t)(ns - 1);
    p->n_options = n_opt;
    for (int32_t o = 0; o < n_opt; o++)
        if (p->opt_start[o] > p->opt_start[o + 1]) {
            PyErr_SetString(PyExc_ValueError, "opt_start must not decrease");
            return -1;
        }
    for (Py_ssize_t k = 0; k < ni; k++)
        if (p->opt_item[k] < 0 || p->opt_item[k] >= n_items || p->opt_color[k] < 0) {
            PyErr_SetString(PyExc_ValueError, "option entry out of range");
            return -1;
        }
    for (int32_t i = 0; i < n_items; i++)
        if (p->lo[i] < 0 || p->hi[i] < 1 || p->lo[i] > p->hi[i]) {
            PyErr_SetString(PyExc_ValueError, "bad multiplicity bounds");
            return -1;
        }
    int W = p->n_words;
    p->opt_plain = calloc((size_t)(n_opt ? n_opt : 1) * W, sizeof(word_t));
    p->opt_colored = calloc((size_t)(n_opt ? n_opt : 1), 1);
    p->item_start = calloc((size_t)n_items + 1, sizeof(int32_t));
    p->item_opt = malloc(sizeof(int32_t) * (size_t)(ni ? ni : 1));
    p->exact_mask = calloc((size_t)W, sizeof(word_t));
    p->counters = malloc(sizeof(int32_t) * (size_t)(n_items ? n_items : 1));
    if (!p->opt_plain || !p->opt_colored || !p->item_start || !p->item_opt ||
        !p->exact_mask || !p->counters) {
        PyErr_NoMemory();
        return -1;
    }
    for (int32_t o = 0; o < n_opt; o++)
        for (int32_t k = p->opt_start[o]; k < p->opt_start[o + 1]; k++) {
            int32_t i = p->opt_item[k];
            if (p->opt_color[k]) {
                if (i < n_primary) {
                    PyErr_SetString(PyExc_ValueError, "color on a primary item");
                    return -1;
                }
                p->opt_colored[o] = 1;
            } else {
                p->opt_plain[(size_t)o * W + i / 64] |= (word_t)1 << (i % 64);
            }
            p->item_start[i + 1]++;
        }
    for (int32_t i = 0; i < n_items; i++) p->item_start[i + 1] += p->item_start[i];
    {
        int32_t *fill = malloc(sizeof(int32_t) * (size_t)(n_items ? n_items : 1));
        if (!fill) { PyErr_NoMemory(); return -1; }
        memcpy(fill, p->item_start, sizeof(int32_t) * (size_t)n_items);
        for (int32_t o = 0; o < n_opt; o++)
            for (int32_t k = p->opt_start[o]; k < p->opt_start[o + 1]; k++)
                p->item_opt[fill[p->opt_item[k]]++] = o;
        free(fill);
    }
    p->n_counters = 0;
    for (int32_t i = 0; i < n_items; i++) {
        if (i >= n_primary) {
            if (p->lo[i] != 0 || p->hi[i] != 1) {
                PyErr_SetString(PyExc_ValueError, "secondary items are 0:1");
                return -1;
            }
        } else if (p->lo[i] == 1 && p->hi[i] == 1) {
            p->exact_mask[i / 64] |= (word_t)1 << (i % 64);
        } else {
            p->counters[p->n_counters++] = i;
        }
    }
    /* lead lists: with the "first" heuristic every exact item below the branching item is
     * covered, so only the options whose lowest exact item is the branching item can be
     * live; scanning just those is the bitmask seed's "place at the first empty cell" */
    p->lead_start = calloc((size_t)n_items + 1, sizeof(int32_t));
    p->lead_opt = malloc(sizeof(int32_t) * (size_t)(n_opt ? n_opt : 1));
    if (!p->lead_start || !p->lead_opt) { PyErr_NoMemory(); return -1; }
    {
        int32_t *lead = malloc(sizeof(int32_t) * (size_t)(n_opt ? n_opt : 1));
        if (!lead) { PyErr_NoMemory(); return -1; }
        for (int32_t o = 0; o < n_opt; o++) {
            lead[o] = -1;
            for (int32_t k = p->opt_start[o]; k < p->opt_start[o + 1]; k++) {
                int32_t i = p->opt_item[k];
                if ((p->exact_mask[i / 64] >> (i % 64)) & 1)
                    if (lead[o] < 0 || i < lead[o]) lead[o] = i;
            }
            if (lead[o] >= 0) p->lead_start[lead[o] + 1]++;
        }
        for (int32_t i = 0; i < n_items; i++) p->lead_start[i + 1] += p->lead_start[i];
        int32_t *fill = malloc(sizeof(int32_t) * (size_t)(n_items ? n_items : 1));
        if (!fill) { free(lead); PyErr_NoMemory(); return -1; }
        memcpy(fill, p->lead_start, sizeof(int32_t) * (size_t)n_items);
        for (int32_t o = 0; o < n_opt; o++)
            if (lead[o] >= 0) p->lead_opt[fill[lead[o]]++] = o;
        free(fill);
        free(lead);
    }
    p->plain = p->n_counters == 0;
    p->sparse = n_opt > 0 && (int64_t)ni < (int64_t)n_opt * W;
    for (int32_t o = 0; o < n_opt; o++)
        if (p->opt_colored[o]) p->plain = 0;
    p->mrv_trail = layout == LAYOUT_AUTO ? choose_mrv_layout(p) : layout == LAYOUT_TRAIL;
    if (p->plain && n_items <= MAX_LANE_ITEMS) {
        int32_t max_degree = 0;
        for (int32_t i = 0; i < n_items; i++)
            if (p->item_start[i + 1] - p->item_start[i] > max_degree) max_degree = p->item_start[i + 1] - p->item_start[i];
        if (max_degree < 0x8000) {
            int NV = (n_items + 7) / 8;
            p->opt_lanes = aligned_alloc(sizeof(v16), sizeof(v16) * ((size_t)n_opt + 1) * NV);
            p->lanes_fence = aligned_alloc(sizeof(v16), sizeof(v16) * (size_t)NV);
            if (!p->opt_lanes || !p->lanes_fence) { PyErr_NoMemory(); return -1; }
            memset(p->opt_lanes, 0, sizeof(v16) * ((size_t)n_opt + 1) * NV);
            for (int32_t o = 0; o < n_opt; o++)
                for (int32_t k = p->opt_start[o]; k < p->opt_start[o + 1]; k++)
                    p->opt_lanes[(size_t)o * NV + p->opt_item[k] / 8][p->opt_item[k] % 8] = 1;
            for (int j = 0; j < NV; j++)
                for (int k = 0; k < 8; k++)
                    p->lanes_fence[j][k] = j * 8 + k < n_primary ? 0 : 0xFFFF;
            p->n_lanes = NV;
            int32_t OW = (n_opt + 63) / 64;
            if ((uint64_t)n_opt * OW * sizeof(word_t) <= MAX_CONFLICT_BYTES) {
                p->conflict = calloc((size_t)n_opt * OW + 1, sizeof(word_t));
                p->item_bits = calloc((size_t)n_items * OW + 1, sizeof(word_t));
                if (!p->conflict || !p->item_bits) { PyErr_NoMemory(); return -1; }
                for (int32_t i = 0; i < n_items; i++)
                    for (int32_t e = p->item_start[i]; e < p->item_start[i + 1]; e++)
                        p->item_bits[(size_t)i * OW + p->item_opt[e] / 64] |= (word_t)1 << (p->item_opt[e] % 64);
                /* an option conflicts with the options of each of its items: the OR of
                   their rows (whole words; setting bit by bit took 5 ms of the pentacube
                   box's 8 ms compile) */
                for (int32_t o = 0; o < n_opt; o++) {
                    word_t *row = p->conflict + (size_t)o * OW;
                    for (int32_t k = p->opt_start[o]; k < p->opt_start[o + 1]; k++) {
                        const word_t *bits = p->item_bits + (size_t)p->opt_item[k] * OW;
                        for (int32_t w = 0; w < OW; w++) row[w] |= bits[w];
                    }
                }
                p->n_owords = OW;
            }
        }
    }
    if (region != Py_None) {
        PyObject *ci, *nbs, *nbl, *ps, *pi;
        if (!PyArg_ParseTuple(region, "OOOOO", &ci, &nbs, &nbl, &ps, &pi)) return -1;
        Py_ssize_t n_cells, n_nbs, n_nb, n_ps, n_pi;
        if (!(p->cell_item = int_array(ci, &n_cells, "cell_item"))) return -1;
        if (!(p->nb_start = int_array(nbs, &n_nbs, "nb_start"))) return -1;
        if (!(p->nb = int_array(nbl, &n_nb, "nb"))) return -1;
        if (!(p->piece_size = int_array(ps, &n_ps, "piece_size"))) return -1;
        if (!(p->piece_item = int_array(pi, &n_pi, "piece_item"))) return -1;
        if (n_nbs != n_cells + 1 || n_ps != n_pi || p->nb_start[0] != 0 ||
            p->nb_start[n_cells] != n_nb) {
            PyErr_SetString(PyExc_ValueError, "inconsistent region arrays");
            return -1;
        }
        for (Py_ssize_t c = 0; c < n_cells; c++)
            if (p->cell_item[c] < 0 || p->cell_item[c] >= n_items ||
                p->nb_start[c] > p->nb_start[c + 1]) {
                PyErr_SetString(PyExc_ValueError, "region cell out of range");
                return -1;
            }
        for (Py_ssize_t k = 0; k < n_nb; k++)
            if (p->nb[k] < 0 || p->nb[k] >= n_cells) {
                PyErr_SetString(PyExc_ValueError, "region neighbour out of range");
                return -1;
            }
        for (Py_ssize_t k = 0; k < n_ps; k++)
            if (p->piece_size[k] < 1 || p->piece_item[k] >= n_items) {
                PyErr_SetString(PyExc_ValueError, "region piece out of range");
                return -1;
            }
        p->n_cells = (int32_t)n_cells;
        p->n_pieces = (int32_t)n_ps;
    }
    return 0;
}

static PyTypeObject ProblemType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "core._kernel.Problem",
    .tp_basicsize = sizeof(Problem),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An exact cover problem compiled for the kernel (immutable).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Problem_init,
    .tp_dealloc = (destructor)Problem_dealloc,
};

/* -------------------------------------------------------------------------- Search */

typedef struct {
    int32_t item;        /* branching item (-1 before the node is expanded) */
    int32_t n_branch;    /* branches at this node; 0 for a leaf */
    int32_t next;        /* index of the next branch to try */
    int32_t n_live;      /* MRV: live options at this node */
    int64_t live_off;    /* arena offset of the live list */
    int64_t branch_off;  /* arena offset of the branch list */
    int32_t chosen;      /* option that led to this node; -1 at the root */
    int32_t color_mark;  /* color undo stack height before `chosen` was applied */
    int64_t trail_mark;  /* MRV trail height when this node was entered (see Search.trail) */
    int32_t sibling;     /* index of `chosen` in the parent's branch list */
    u128 count_in;       /* solutions counted when this node was entered (memo, stop_here) */
    int64_t listed_in;   /* the solutions' record length then (stop_here) */
    uint64_t nodes_in;   /* memo: nodes counted when this node was entered */
    uint8_t multiplicity;/* branching item has bounds other than 1:1 */
    /* memo statistics of this depth (kept across the nodes visited at it) */
    uint64_t memo_lookups, memo_hits, memo_stores, memo_work;
} Level;

static int buf_push(Buf *b, int32_t x) {
    if (buf_reserve(b, 1)) return -1;
    b->v[b->n++] = x;
    return 0;
}


/* -------------------------------------------------------------------------- Memo
 *
 * Counting does not have to visit every solution: for a problem without colors or
 * multiplicities, the subtree below a node depends only on its cov bitset, so the count
 * below a state seen before is reused.  The table is 4-way set associative: a bucket is
 * chosen by a hash of the state, and within it the state is compared IN FULL (never by
 * hash alone — a 32-bit-hash memo miscounts 8x8 domino tilings).  When a bucket is full,
 * the entry that cost the fewest nodes to compute is evicted.
 */
enum { MEMO_WAYS = 4 };
/* The memo starts once a search has visited this many nodes (small subproblems never pay
 * for it), with a small table that doubles while it fills, up to the memory cap. */
#define MEMO_START_NODES ((uint64_t)4096)
#define MEMO_FIRST_BYTES ((uint64_t)1 << 20)
/* A subtree of fewer nodes is not stored: re-searching it costs about what storing and
 * finding it does, and small entries crowd out the big ones. */
#ifndef MEMO_MIN_WORK
#define MEMO_MIN_WORK 4
#endif

/* Tried and dropped: switching the memo off after 2^20 nodes when it had answered fewer
 * than 1 lookup in 64.  Repeats can start late (16x16 dominoes filled row by row), and
 * a memo switched off there turns seconds into years; its cost where states do not
 * repeat is about 15%. */

typedef struct {
    int wanted;           /* allowed for this search (counting a plain problem) */
    int active;           /* table allocated and in use */
    int W;
    uint64_t max_bytes;
    uint64_t n_buckets;   /* a power of two */
    uint64_t used;        /* occupied slots */
    word_t *keys;         /* n_buckets * WAYS * W */
    u128 *counts;
    uint64_t *work;       /* nodes the entry cost; 0 = empty slot */
    uint64_t hits, stores;
} Memo;

static uint64_t memo_hash(const word_t *key, int W) {
    uint64_t h = 0x9E3779B97F4A7C15ULL;
    for (int w = 0; w < W; w++) {
        h ^= key[w];
        h *= 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 31;
    }
    return h;
}

static uint64_t memo_bucket_bytes(int W) {
    return MEMO_WAYS * (sizeof(word_t) * (uint64_t)W + sizeof(u128) + sizeof(uint64_t));
}

/* Allocate a table of n buckets; 0 on success. */
static int memo_alloc(Memo *m, uint64_t n) {
    m->keys = malloc(sizeof(word_t) * n * MEMO_WAYS * m->W);
    m->counts = malloc(sizeof(u128) * n * MEMO_WAYS);
    m->work = calloc(n * MEMO_WAYS, sizeof(uint64_t));
    if (!m->keys || !m->counts || !m->work) {
        free(m->keys); free(m->counts); free(m->work);
        m->keys = NULL; m->counts = NULL; m->work = NULL;
        return -1;
    }
    m->n_buckets = n;
    m->used = 0;
    return 0;
}

static void memo_free(Memo *m) {
    free(m->keys); free(m->counts); free(m->work);
    m->keys = NULL; m->counts = NULL; m->work = NULL;
    m->active = 0;
}

/* Start the memo (if it fits the cap); a failed allocation just leaves it off. */
static void memo_start(Memo *m) {
    uint64_t per = memo_bucket_bytes(m->W), n = 1;
    uint64_t first = MEMO_FIRST_BYTES < m->max_bytes ? MEMO_FIRST_BYTES : m->max_bytes;
    while (n * 2 * per <= first) n *= 2;
    if (n * per > m->max_bytes || n < 2) { m->wanted = 0; return; }
    if (memo_alloc(m, n)) { m->wanted = 0; return; }
    m->active = 1;
}

static void memo_store(Memo *m, const word_t *key, u128 count, uint64_t work);

/* Double the table while it is three-quarters full and the cap allows. */
static void memo_grow(Memo *m) {
    uint64_t n = m->n_buckets * 2;
    if (n * memo_bucket_bytes(m->W) > m->max_bytes) return;
    Memo old = *m;
    if (memo_alloc(m, n)) { *m = old; return; }  /* no memory: keep the table we have */
    for (uint64_t slot = 0; slot < old.n_buckets * MEMO_WAYS; slot++)
        if (old.work[slot]) memo_store(m, old.keys + slot * m->W, old.counts[slot], old.work[slot]);
    free(old.keys); free(old.counts); free(old.work);
}

/* The count below `key`, if stored. */
static int memo_find(Memo *m, const word_t *key, u128 *count) {
    uint64_t b = memo_hash(key, m->W) & (m->n_buckets - 1);
    for (int k = 0; k < MEMO_WAYS; k++) {
        uint64_t slot = b * MEMO_WAYS + k;
        if (m->work[slot] && memcmp(m->keys + slot * m->W, key, sizeof(word_t) * m->W) == 0) {
            *count = m->counts[slot];
            m->hits++;
            return 1;
        }
    }
    return 0;
}

static void memo_store(Memo *m, const word_t *key, u128 count, uint64_t work) {
    uint64_t b = memo_hash(key, m->W) & (m->n_buckets - 1);
    uint64_t victim = b * MEMO_WAYS;
    for (int k = 0; k < MEMO_WAYS; k++) {
        uint64_t slot = b * MEMO_WAYS + k;
        if (m->work[slot] == 0) { victim = slot; break; }
        if (m->work[slot] < m->work[victim]) victim = slot;
    }
    if (m->work[victim] && m->work[victim] > work) return;  /* keep the costlier entry */
    if (!m->work[victim]) m->used++;
    memcpy(m->keys + victim * m->W, key, sizeof(word_t) * m->W);
    m->counts[victim] = count;
    m->work[victim] = work ? work : 1;
    m->stores++;
    if (m->used * 4 > m->n_buckets * MEMO_WAYS * 3) memo_grow(m);
}

typedef struct {
    const Problem *p;
    /* per level */
    Level *lv;
    word_t *cov;          /* W words: the current node's saturated items, updated in place */
    int32_t cap_levels;
    int32_t depth, base;  /* current depth; depth of the replayed path */
    /* per item / option */
    int32_t *cnt, *color;
    int32_t *tally;       /* MRV: live options per item at the last expanded node: one row
                           * (the trail), or one row per level (copies, cap_levels rows) */
    uint8_t *alive;       /* MRV: option is live at the last expanded node of the path */
    Buf trail;            /* MRV: the options each level killed, stacked by level */
    v16 *lanes;           /* MRV, plain covers: the same counts as uint16 lanes, n_lanes per level */
    word_t *livebits;     /* ... and the live options as a bitset, n_owords per level */
    uint8_t *excluded;
    Buf arena;            /* live lists and branch lists, stacked by level */
    Buf color_undo;       /* secondary items given a color, to clear on undo */
    int32_t *cell_seen, *cell_stack; /* region flood fill scratch */
    /* limits */
    int enumerate;
    int64_t limit;        /* -1: none */
    int64_t node_budget;  /* -1: none */
    double deadline;      /* < 0: none */
    uint64_t clock_mask;  /* the clock is read when (nodes & clock_mask) == 0: see clock_mask_for() */
    int32_t max_depth;    /* -1: none */
    Interrupt interrupt;  /* signals heard while the GIL is released (_interrupt.h) */
    /* results */
    u128 count;           /* solutions: 128 bits, since memoised counts grow past 2^64 */
    uint64_t nodes, updates;
    uint64_t leaves;      /* nodes found to have no branches: solutions and dead ends */
    int overflow;         /* a count passed 2^128 */
    u128 *census;         /* census mode (NULL otherwise): census[o] = the solutions counted
                           * below the nodes that chose option o (see ascend()) */
    Memo memo;
    uint64_t *per_depth;  /* nodes per depth (64-bit: one long solve can pass 2^31) */
    int32_t n_depths, cap_depths;
    Buf solutions;        /* flattened: length, then the options */
    Buf frontier;         /* flattened: length d, d options, then d branching factors */
    int status;
    int oom;
} Search;

/* Set by request_stop(), cleared by clear_stop() (another thread, or a signal handler run
 * at the search's interrupt check): a running search under a time budget stops at its
 * next clock reading as if the deadline had passed, handing back its frontier.  The local
 * pool asks a busy process for its frontier this way when another process runs out of
 * work (core/handoff.py). */
static volatile int stop_requested = 0;

/* A stop before the end (a budget, a request for work, a count about to pass 2^128)
 * hands back the rest of the subtree: the current node and the untried siblings along its
 * path, each as a whole path with its branching factors, about d^2 ids at depth d where
 * most levels have a sibling.  On a tree thousands of levels deep that is no hand-over but
 * a flood (the 200x200 domino board, 20,000 levels, its count passing 2^128 within a
 * second by the memo: 611 MB a task; the parent held 13 GB after 45 s and was killed for
 * memory, 2026-12-02).  So a stop is made at the deepest level k whose hand-over fits
 * frontier_cap ids: the node at depth k is handed back whole (what was counted and listed
 * below it is taken back) with the untried siblings above it.  The work below k is done
 * again by whoever takes that node, whose own stop then lands deeper (k > base: at least
 * one level of progress a stop, however small the cap).  frontier_cap() reads and
 * sets the cap (core.kernel.frontier_capped: tests set a small one). */
#define FRONTIER_IDS_AT_MOST ((uint64_t)1 << 22)
static uint64_t frontier_cap = FRONTIER_IDS_AT_MOST;

/* How often a search under a time budget reads the clock: every 1024 nodes, or more often
 * where a node scans many options (a node of the 200x200 domino board's 79,600 options
 * took 7 ms, so 1024 of them overran a 1 s budget by 7 s): about every 2^20 options
 * scanned, at least every node. */
static uint64_t clock_mask_for(int32_t n_options) {
    uint64_t every = 1;
    while (every < 1024 && every * (uint64_t)(n_options > 0 ? n_options : 1) < ((uint64_t)1 << 20)) every <<= 1;
    return every - 1;
}

/* The bytes the search's own state holds (its buffers only grow, so at the end of a call
 * this is its peak): levels, the in-place state, the live sets, counts, trail and
 * arena; not the problem, the memo or the solutions and frontier handed back. */
static uint64_t search_state_bytes(const Search *s) {
    const Problem *p = s->p;
    uint64_t levels = (uint64_t)s->cap_levels, b = 0;
    b += levels * sizeof(Level);
    b += sizeof(word_t) * (uint64_t)p->n_words;                                    /* cov */
    b += sizeof(int32_t) * (p->mrv_trail ? 3 : 2 + levels) * ((uint64_t)p->n_items + 1); /* cnt, color, tally */
    b += 2 * ((uint64_t)p->n_options + 1);                                          /* alive, excluded */
    b += sizeof(v16) * (levels * (uint64_t)p->n_lanes + 1);                         /* lanes */
    b += sizeof(word_t) * (levels * (uint64_t)p->n_owords + 1);                     /* livebits */
    b += sizeof(int32_t) * 2 * ((uint64_t)p->n_cells + 1);                          /* region scratch */
    b += sizeof(int32_t) * (uint64_t)(s->arena.cap + s->trail.cap + s->color_undo.cap);
    b += sizeof(uint64_t) * (uint64_t)s->cap_depths;                                /* per_depth */
    return b;
}

static void search_free(Search *s) {
    free(s->lv); free(s->cov); free(s->cnt); free(s->color); free(s->tally); free(s->alive); free(s->trail.v);
    free(s->lanes); free(s->livebits);
    free(s->excluded); free(s->arena.v); free(s->color_undo.v); free(s->cell_seen);
    free(s->cell_stack); free(s->per_depth); free(s->solutions.v); free(s->frontier.v);
    free(s->census);
    memo_free(&s->memo);
}

static int search_init(Search *s, const Problem *p) {
    memset(s, 0, sizeof *s);
    s->p = p;
    s->cap_levels = 64;
    s->lv = calloc((size_t)s->cap_levels, sizeof(Level));
    s->cov = calloc((size_t)p->n_words, sizeof(word_t));
    s->cnt = calloc((size_t)p->n_items + 1, sizeof(int32_t));
    s->color = calloc((size_t)p->n_items + 1, sizeof(int32_t));
    s->tally = calloc((size_t)(p->mrv_trail ? 1 : s->cap_levels) * (p->n_items + 1), sizeof(int32_t));
    s->alive = calloc((size_t)p->n_options + 1, 1);
    s->lanes = aligned_alloc(sizeof(v16), sizeof(v16) * ((size_t)s->cap_levels * p->n_lanes + 1));
    s->livebits = calloc((size_t)s->cap_levels * p->n_owords + 1, sizeof(word_t));
    s->excluded = calloc((size_t)p->n_options + 1, 1);
    s->cell_seen = calloc((size_t)p->n_cells + 1, sizeof(int32_t));
    s->cell_stack = calloc((size_t)p->n_cells + 1, sizeof(int32_t));
    if (!s->lv || !s->cov || !s->cnt || !s->color || !s->tally || !s->alive || !s->lanes || !s->livebits || !s->excluded ||
        !s->cell_seen || !s->cell_stack)
        return -1;
    return 0;
}

/* Make room for level d (its Level, and the lane path's counts and live bits). */
static int ensure_level(Search *s, int32_t d) {
    if (d < s->cap_levels) return 0;
    int32_t cap = s->cap_levels * 2;
    while (cap <= d) cap *= 2;
    Level *lv = realloc(s->lv, sizeof(Level) * (size_t)cap);
    if (!lv) return -1;
    memset(lv + s->cap_levels, 0, sizeof(Level) * (size_t)(cap - s->cap_levels));
    s->lv = lv;
    if (!s->p->mrv_trail) {
        int32_t *tally = realloc(s->tally, sizeof(int32_t) * (size_t)cap * (s->p->n_items + 1));
        if (!tally) return -1;
        s->tally = tally;
    }
    /* (no aligned realloc: copy into a fresh block) */
    v16 *lanes = aligned_alloc(sizeof(v16), sizeof(v16) * ((size_t)cap * s->p->n_lanes + 1));
    if (!lanes) return -1;
    memcpy(lanes, s->lanes, sizeof(v16) * (size_t)s->cap_levels * s->p->n_lanes);
    free(s->lanes);
    s->lanes = lanes;
    word_t *livebits = realloc(s->livebits, sizeof(word_t) * ((size_t)cap * s->p->n_owords + 1));
    if (!livebits) return -1;
    s->livebits = livebits;
    s->cap_levels = cap;
    return 0;
}

static inline int is_live(const Search *s, const word_t *cov, int32_t o) {
    const Problem *p = s->p;
    if (s->excluded[o]) return 0;
    if (p->sparse) {
        /* few entries, many words: test the option's own items instead of every word */
        for (int32_t k = p->opt_start[o]; k < p->opt_start[o + 1]; k++) {
            int32_t i = p->opt_item[k];
            if (p->opt_color[k] == 0 && ((cov[i / 64] >> (i % 64)) & 1)) return 0;
        }
    } else {
        const word_t *bits = p->opt_plain + (size_t)o * p->n_words;
        for (int w = 0; w < p->n_words; w++)
            if (bits[w] & cov[w]) return 0;
    }
    if (p->opt_colored[o])
        for (int32_t k = p->opt_start[o]; k < p->opt_start[o + 1]; k++) {
            int32_t c = p->opt_color[k];
            if (c) {
                int32_t have = s->color[p->opt_item[k]];
                if (have != 0 && have != c) return 0;
            }
        }
    return 1;
}

/* Apply option o to the state; cov is the (already copied) bitset of the new level. */
static int apply_option(Search *s, word_t *cov, int32_t o) {
    const Problem *p = s->p;
    s->excluded[o] = 1;  /* an option is chosen at most once (matters for multiplicities) */
    for (int32_t k = p->opt_start[o]; k < p->opt_start[o + 1]; k++) {
        int32_t i = p->opt_item[k], c = p->opt_color[k];
        if (c == 0) {
            if (++s->cnt[i] >= p->hi[i]) cov[i / 64] |= (word_t)1 << (i % 64);
            if (i >= p->n_primary) s->color[i] = -1;
        } else if (s->color[i] == 0) {
            s->color[i] = c;
            cov[i / 64] |= (word_t)1 << (i % 64);
            if (buf_push(&s->color_undo, i)) return -1;
        }
    }
    return 0;
}

/* Undo apply_option(o) on the in-place state.  The items o uses plainly were unsaturated
 * before it was applied (it was live), so their bits are cleared; so are those of the
 * items it gave a color (the undo stack above color_mark). */
static void unapply_option(Search *s, word_t *cov, int32_t o, int32_t color_mark) {
    const Problem *p = s->p;
    s->excluded[o] = 0;
    for (int32_t k = p->opt_start[o]; k < p->opt_start[o + 1]; k++) {
        int32_t i = p->opt_item[k];
        if (p->opt_color[k] == 0) {
            s->cnt[i]--;
            cov[i / 64] &= ~((word_t)1 << (i % 64));
            if (i >= p->n_primary) s->color[i] = 0;
        }
    }
    while (s->color_undo.n > color_mark) {
        int32_t i = s->color_undo.v[--s->color_undo.n];
        s->color[i] = 0;
        cov[i / 64] &= ~((word_t)1 << (i % 64));
    }
}

static inline int saturated(const word_t *cov, int32_t i) {
    return (int)((cov[i / 64] >> (i % 64)) & 1);
}

static int32_t gcd32(int32_t a, int32_t b) {
    while (b) { int32_t t = a % b; a = b; b = t; }
    return a;
}

/* The region rule: every connected region of empty cells must be at least as large as
 * the smallest piece still available, and a multiple of the gcd of their sizes. */
static int regions_fillable(Search *s, const word_t *cov) {
    const Problem *p = s->p;
    int32_t g = 0, smallest = INT32_MAX;
    for (int32_t k = 0; k < p->n_pieces; k++) {
        int32_t item = p->piece_item[k];
        if (item >= 0 && saturated(cov, item)) continue;
        g = gcd32(g, p->piece_size[k]);
        if (p->piece_size[k] < smallest) smallest = p->piece_size[k];
    }
    int any_empty = 0;
    for (int32_t c = 0; c < p->n_cells; c++) {
        int32_t i = p->cell_item[c];
        s->cell_seen[c] = saturated(cov, i) || s->color[i] != 0;  /* filled = seen */
        if (!s->cell_seen[c]) any_empty = 1;
    }
    if (!any_empty) return 1;
    if (g == 0) return 0;
    for (int32_t c0 = 0; c0 < p->n_cells; c0++) {
        if (s->cell_seen[c0]) continue;
        int32_t top = 0, size = 0;
        s->cell_seen[c0] = 1;
        s->cell_stack[top++] = c0;
        while (top) {
            int32_t c = s->cell_stack[--top];
            size++;
            for (int32_t k = p->nb_start[c]; k < p->nb_start[c + 1]; k++) {
                int32_t q = p->nb[k];
                if (!s->cell_seen[q]) { s->cell_seen[q] = 1; s->cell_stack[top++] = q; }
            }
        }
        if (size < smallest || size % g) return 0;
    }
    return 1;
}

/* Does the plain option with bitset `bits` miss cov?  W is a constant where inlined. */
static inline int misses(const word_t *restrict bits, const word_t *restrict cov, int W) {
    word_t x = 0;
    for (int w = 0; w < W; w++) x |= bits[w] & cov[w];
    return x == 0;
}

/* Write the live options of lead list `item` into out[]; their number. */
static inline int32_t live_leads(const Problem *p, const word_t *restrict cov, int32_t item,
                                 int32_t *restrict out, int W) {
    int32_t m = 0;
    const word_t *restrict bits = p->opt_plain;
    for (int32_t k = p->lead_start[item]; k < p->lead_start[item + 1]; k++) {
        int32_t o = p->lead_opt[k];
        out[m] = o;
        m += misses(bits + (size_t)o * W, cov, W);  /* branch-free: mispredictions dominate */
    }
    return m;
}

/* expand() for a plain cover (no colors, no multiplicities, no region rule) with the
 * "first" heuristic: the hot path of polyomino-like problems, where a node is one
 * bitset scan and one pass over a short lead list. */
static int expand_plain_first(Search *s, Level *L, const word_t *cov) {
    const Problem *p = s->p;
    const int W = p->n_words;
    int32_t item = -1;
    for (int w = 0; w < W; w++) {
        word_t open = p->exact_mask[w] & ~cov[w];
        if (open) { item = w * 64 + __builtin_ctzll(open); break; }
    }
    if (item < 0) return 1;
    int32_t n = p->lead_start[item + 1] - p->lead_start[item];
    if (buf_reserve(&s->arena, n)) return -1;
    int32_t *out = s->arena.v + s->arena.n;
    int32_t m;
    switch (W) {  /* constant W: the compiler unrolls the bitset test */
    case 1: m = live_leads(p, cov, item, out, 1); break;
    case 2: m = live_leads(p, cov, item, out, 2); break;
    case 3: m = live_leads(p, cov, item, out, 3); break;
    case 4: m = live_leads(p, cov, item, out, 4); break;
    default: m = live_leads(p, cov, item, out, W); break;
    }
    s->updates += (uint64_t)n;
    L->item = item;
    L->n_branch = m;
    L->multiplicity = 0;
    s->arena.n += m;
    return 0;
}

/* expand() for a plain cover with the MRV heuristic, on narrow counts.  The live-option
 * count of every item is a uint16 lane of a few 16-byte vectors (NV = n_items / 8 rounded
 * up), and each option has the same shape of 0/1 lanes (opt_lanes), so an option that dies
 * costs NV vector subtractions instead of one dependent scalar decrement per entry.  Lanes
 * that must never win the minimum (covered items, secondary items, padding) are held at
 * or above 0x8000: set to 0xFFFF when the item is covered, then at most `degree` <= 0x7FFF
 * decrements follow.  The winner is the lowest lane holding the minimum, which is the
 * scalar rule: fewest live options, ties to the lowest index. */
static inline void lanes_sub(v16 *restrict t, const v16 *restrict x, int NV) {
    for (int j = 0; j < NV; j++) t[j] -= x[j];
}

/* Split the parent's live list: survivors to out[] (in order), the dying ones to dead[]
 * (branch-free: whether an option survives is a coin toss the predictor cannot learn),
 * then take the dying ones off the counts. */
static inline int32_t filter_lanes(const Problem *p, const word_t *restrict cov, const int32_t *restrict src,
                                   int32_t n_src, int32_t *restrict out, int32_t *restrict dead,
                                   v16 *restrict t, int W, int NV) {
    const word_t *restrict bits = p->opt_plain;
    int32_t m = 0, n = 0;
    for (int32_t k = 0; k < n_src; k++) {
        int32_t o = src[k];
        int keep = misses(bits + (size_t)o * W, cov, W);
        out[m] = o;
        dead[n] = o;
        m += keep;
        n += !keep;
    }
    for (int32_t k = 0; k < n; k++) lanes_sub(t, p->opt_lanes + (size_t)dead[k] * NV, NV);
    return m;
}

/* The same step on a live bitset: the options that die are the parent's live options
 * that conflict with the chosen one (a few word operations, no test per live option). */
static inline int32_t kill_bits(const Problem *p, const word_t *restrict parent, const word_t *restrict conf,
                                word_t *restrict live, v16 *restrict t, int OW, int NV) {
    int32_t died = 0;  /* counted one by one: popcount is a library call on baseline x86-64 */
    v16 acc[NV];       /* the counts in registers while the options die (NV is a constant) */
    for (int j = 0; j < NV; j++) acc[j] = t[j];
    for (int w = 0; w < OW; w++) {
        word_t dying = parent[w] & conf[w];
        live[w] = parent[w] & ~conf[w];
        while (dying) {
            died++;
            int32_t q = w * 64 + __builtin_ctzll(dying);
            dying &= dying - 1;
            lanes_sub(acc, p->opt_lanes + (size_t)q * NV, NV);
        }
    }
    for (int j = 0; j < NV; j++) t[j] = acc[j];
    return died;
}

/* At the root, the items a given partial cover (solve's `given`) has covered: fenced off
 * like the items a chosen option covers below (0xFFFF never wins the minimum). */
static inline void fence_covered(v16 *t, const word_t *cov, int32_t n_items) {
    for (int32_t i = 0; i < n_items; i++)
        if ((cov[i / 64] >> (i % 64)) & 1) t[i / 8][i % 8] = 0xFFFF;
}

static int expand_plain_mrv(Search *s, Level *L, const word_t *cov) {
    const Problem *p = s->p;
    const int W = p->n_words, NV = p->n_lanes;
    const int32_t d = s->depth;
    v16 *t = s->lanes + (size_t)d * NV;
    int32_t n_src, m = 0;
    if (p->conflict) {
        const int OW = p->n_owords;
        word_t *live = s->livebits + (size_t)d * OW;
        if (d == 0) {
            n_src = p->n_options;
            memset(t, 0, sizeof(v16) * (size_t)NV);
            memset(live, 0, sizeof(word_t) * (size_t)OW);
            for (int32_t o = 0; o < n_src; o++) {
                if (!misses(p->opt_plain + (size_t)o * W, cov, W)) continue;
                live[o / 64] |= (word_t)1 << (o % 64);
                m++;
                for (int j = 0; j < NV; j++) t[j] += p->opt_lanes[(size_t)o * NV + j];
            }
            for (int j = 0; j < NV; j++) t[j] |= p->lanes_fence[j];
            fence_covered(t, cov, p->n_items);
        } else {
            n_src = s->lv[d - 1].n_live;
            const v16 *parent = t - NV, *chosen = p->opt_lanes + (size_t)L->chosen * NV;
            for (int j = 0; j < NV; j++) t[j] = parent[j] | (v16)(-chosen[j]);
            const word_t *conf = p->conflict + (size_t)L->chosen * OW;
            switch (NV) {
#define LANES(N) case N: m = n_src - kill_bits(p, live - OW, conf, live, t, OW, N); break;
            LANES(1) LANES(2) LANES(3) LANES(4) LANES(5) LANES(6) LANES(7) LANES(8)
            LANES(9) LANES(10) LANES(11) LANES(12) LANES(13) LANES(14) LANES(15) LANES(16)
#undef LANES
            default: m = n_src - kill_bits(p, live - OW, conf, live, t, OW, NV); break;
            }
        }
    } else if (d == 0) {
        n_src = p->n_options;
        if (buf_reserve(&s->arena, n_src)) return -1;
        int32_t *live = s->arena.v + s->arena.n;
        memset(t, 0, sizeof(v16) * (size_t)NV);
        for (int32_t o = 0; o < n_src; o++) {
            if (!misses(p->opt_plain + (size_t)o * W, cov, W)) continue;
            live[m++] = o;
            for (int j = 0; j < NV; j++) t[j] += p->opt_lanes[(size_t)o * NV + j];
        }
        for (int j = 0; j < NV; j++) t[j] |= p->lanes_fence[j];  /* fence after counting */
        fence_covered(t, cov, p->n_items);
    } else {
        n_src = s->lv[d - 1].n_live;
        if (buf_reserve(&s->arena, 2 * (int64_t)n_src)) return -1;  /* live list, then scratch */
        int32_t *dead = s->arena.v + s->arena.n + n_src;
        /* the parent's counts, with the items just covered fenced off */
        const v16 *parent = t - NV, *chosen = p->opt_lanes + (size_t)L->chosen * NV;
        for (int j = 0; j < NV; j++) t[j] = parent[j] | (v16)(-chosen[j]);
        const int32_t *src = s->arena.v + s->lv[d - 1].live_off;
        int32_t *live = s->arena.v + s->arena.n;
        switch (NV) {  /* constant shapes (W = NV/8 rounded up): the loops unroll */
#define LANES(N) case N: m = filter_lanes(p, cov, src, n_src, live, dead, t, (N + 7) / 8, N); break;
        LANES(1) LANES(2) LANES(3) LANES(4) LANES(5) LANES(6) LANES(7) LANES(8)
        LANES(9) LANES(10) LANES(11) LANES(12) LANES(13) LANES(14) LANES(15) LANES(16)
#undef LANES
        default: m = filter_lanes(p, cov, src, n_src, live, dead, t, W, NV); break;
        }
    }
    s->updates += (uint64_t)n_src;
    L->n_live = m;
    if (!p->conflict) s->arena.n += m;  /* the live list stays for the children */
    int any = 0;
    for (int w = 0; w < W; w++) any |= (p->exact_mask[w] & ~cov[w]) != 0;
    if (!any) return 1;
    /* the minimum lane, then the first lane holding it */
    v16 low = t[0];
    for (int j = 1; j < NV; j++) {
        v16 lower = (v16)(t[j] < low);  /* all-ones lanes where t[j] is smaller */
        low = (t[j] & lower) | (low & ~lower);
    }
    uint16_t best = low[0];
    for (int k = 1; k < 8; k++) best = low[k] < best ? low[k] : best;
    int32_t item = -1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    {   /* a vector compare per 8 lanes; the first equal lane is the lowest set bit */
        const v16 want = (v16){0} + best;
        for (int j = 0; j < NV; j++) {
            v2w eq = (v2w)(t[j] == want);
            if (eq[0] | eq[1]) {
                item = j * 8 + (eq[0] ? __builtin_ctzll(eq[0]) : 64 + __builtin_ctzll(eq[1])) / 16;
                break;
            }
        }
    }
#else
    for (int j = 0; j < NV && item < 0; j++)
        for (int k = 0; k < 8; k++)
            if (t[j][k] == best) { item = j * 8 + k; break; }
#endif
    L->item = item;
    L->multiplicity = 0;
    if (best == 0) return 0;
    /* branches: the live options of item (exactly `best` of them), in increasing id: from
     * the live bitset and the item's option bitset, or from whichever list is shorter */
    if (buf_reserve(&s->arena, best)) return -1;
    int32_t *out = s->arena.v + s->arena.n;
    int32_t nb = 0;
    const int32_t deg = p->item_start[item + 1] - p->item_start[item];
    if (p->conflict) {
        const int OW = p->n_owords;
        const word_t *live = s->livebits + (size_t)d * OW, *mine = p->item_bits + (size_t)item * OW;
        for (int w = 0; w < OW; w++)
            for (word_t x = live[w] & mine[w]; x; x &= x - 1) out[nb++] = w * 64 + __builtin_ctzll(x);
    } else if (deg < m) {
        for (int32_t e = p->item_start[item]; e < p->item_start[item + 1]; e++) {
            int32_t o = p->item_opt[e];
            out[nb] = o;
            nb += misses(p->opt_plain + (size_t)o * W, cov, W);
        }
    } else {
        const int32_t *live = s->arena.v + L->live_off;
        const int wi = item / 64, bit = item % 64;
        for (int32_t k = 0; k < m; k++) {
            int32_t o = live[k];
            out[nb] = o;
            nb += (int32_t)((p->opt_plain[(size_t)o * W + wi] >> bit) & 1);
        }
    }
    L->branch_off = s->arena.n;
    L->n_branch = nb;
    s->arena.n += nb;
    return 0;
}

/* ------------------------------------------------------------------ The MRV trail
 *
 * Where choose_mrv_layout() picks it, the generic MRV path (colors, multiplicities, the
 * region rule, or more items than the lanes take) keeps ONE live set for the whole
 * search: alive[o] and tally[i] (the live options using item i, counting every entry)
 * describe the last node expanded on the current path.  Expanding a child kills the
 * options its step made dead and pushes them on `trail`; leaving the child pops them back
 * (LIFO, so tally returns to the parent's exactly).  Memory grows with depth by the
 * options each level killed, not by a copy of the live list and the counts per level (the
 * 200x200 domino board: about 24 bytes a level instead of 250 KB).
 *
 * INVARIANT (at the start of expand() at depth d > 0): alive[]/tally[] are those of the
 * parent at d - 1, because every sibling expanded before has popped its trail.  Between
 * the two only the chosen option's items change (cov, cnt, color) and some options become
 * excluded (the chosen one, and a multiplicity branch's earlier siblings); mrv_kill()
 * goes through exactly those changes, so it finds every option that died.
 */

/* At the root: every option tested once. */
static void mrv_root(Search *s, const word_t *cov) {
    const Problem *p = s->p;
    memset(s->tally, 0, sizeof(int32_t) * (size_t)p->n_items);
    for (int32_t o = 0; o < p->n_options; o++) {
        s->alive[o] = (uint8_t)is_live(s, cov, o);
        if (s->alive[o])
            for (int32_t e = p->opt_start[o]; e < p->opt_start[o + 1]; e++) s->tally[p->opt_item[e]]++;
    }
    s->updates += (uint64_t)p->n_options;
}

/* Take live option q off the live set, onto the trail; -1 when out of memory. */
static inline int mrv_kill_option(Search *s, int32_t q) {
    const Problem *p = s->p;
    if (buf_push(&s->trail, q)) return -1;
    s->alive[q] = 0;
    for (int32_t x = p->opt_start[q]; x < p->opt_start[q + 1]; x++) s->tally[p->opt_item[x]]--;
    return 0;
}

/* Kill the live options of item i: all of them (`test` = 0: i was just saturated, and
 * every option using it plainly or with a color is dead), or those is_live() rejects
 * (`test` = 1: i was just given a color). */
static inline int mrv_kill_users(Search *s, const word_t *cov, int32_t i, int test) {
    const Problem *p = s->p;
    for (int32_t e = p->item_start[i]; e < p->item_start[i + 1]; e++) {
        int32_t q = p->item_opt[e];
        if (!s->alive[q]) continue;
        s->updates++;
        if (test && is_live(s, cov, q)) continue;
        if (mrv_kill_option(s, q)) return -1;
    }
    return 0;
}

/* Below the parent: kill what the step to node L made dead; -1 when out of memory.  Only
 * items whose saturation changed can kill: the chosen option's plain items (unsaturated
 * before it, since it was live) that are saturated now — a counter below hi is not —,
 * the items it gave a color (the color undo stack above L->color_mark), or the skipped
 * item.  Exclusion kills the rest: the chosen option itself and, below a multiplicity
 * branch, the siblings tried before it. */
static int mrv_kill(Search *s, const word_t *cov, const Level *L, const Level *parent) {
    const Problem *p = s->p;
    int32_t o = L->chosen;
    if (o >= p->n_options) {
        if (mrv_kill_users(s, cov, o - p->n_options, 0)) return -1;
    } else {
        for (int32_t k = p->opt_start[o]; k < p->opt_start[o + 1]; k++) {
            int32_t i = p->opt_item[k];
            if (p->opt_color[k] == 0 && saturated(cov, i) && mrv_kill_users(s, cov, i, 0)) return -1;
        }
        for (int64_t u = L->color_mark; u < s->color_undo.n; u++)
            if (mrv_kill_users(s, cov, s->color_undo.v[u], 1)) return -1;
        if (s->alive[o] && mrv_kill_option(s, o)) return -1;
    }
    if (parent->multiplicity)
        for (int32_t b = 0; b < L->sibling; b++) {
            int32_t q = s->arena.v[parent->branch_off + b];
            if (q < p->n_options && s->alive[q] && mrv_kill_option(s, q)) return -1;
        }
    return 0;
}

/* Leaving a node: revive the options killed since `mark`, last first. */
static void mrv_revive(Search *s, int64_t mark) {
    const Problem *p = s->p;
    while (s->trail.n > mark) {
        int32_t q = s->trail.v[--s->trail.n];
        s->alive[q] = 1;
        for (int32_t x = p->opt_start[q]; x < p->opt_start[q + 1]; x++) s->tally[p->opt_item[x]]++;
    }
}

/* The copies layout: this level's live list (in the arena, kept for the children) is the
 * parent's filtered (at the root, every option tested), and its row of counts the
 * parent's, less the options that die here.  The row; NULL when out of memory. */
static int32_t *mrv_filter(Search *s, Level *L, const word_t *cov) {
    const Problem *p = s->p;
    const int W = p->n_words;
    const int32_t d = s->depth;
    const size_t NI = (size_t)p->n_items + 1;
    int32_t *restrict tally = s->tally + (size_t)d * NI;
    const int32_t *restrict opt_item = p->opt_item;
    const int32_t *restrict opt_start = p->opt_start;
    if (d > 0) memcpy(tally, tally - NI, sizeof(int32_t) * NI);
    int32_t m = 0, n_src;
    if (d == 0) {
        n_src = p->n_options;
        if (buf_reserve(&s->arena, n_src)) return NULL;
        int32_t *live = s->arena.v + s->arena.n;
        memset(tally, 0, sizeof(int32_t) * (size_t)p->n_items);
        for (int32_t o = 0; o < n_src; o++) {
            if (!is_live(s, cov, o)) continue;
            live[m++] = o;
            for (int32_t e = p->opt_start[o]; e < p->opt_start[o + 1]; e++) tally[p->opt_item[e]]++;
        }
    } else {
        n_src = s->lv[d - 1].n_live;
        if (buf_reserve(&s->arena, n_src)) return NULL;
        const int32_t *restrict src = s->arena.v + s->lv[d - 1].live_off;  /* after any realloc */
        int32_t *restrict live = s->arena.v + s->arena.n;
#define FILTER(LIVE_TEST)                                                               \
        for (int32_t k = 0; k < n_src; k++) {                                           \
            int32_t o = src[k];                                                         \
            if (LIVE_TEST) {                                                            \
                live[m++] = o;                                                          \
            } else {                                                                    \
                const int32_t *e = opt_item + opt_start[o];                             \
                const int32_t *end = opt_item + opt_start[o + 1];                       \
                for (; e < end; e++) tally[*e]--;                                       \
            }                                                                           \
        }
        /* The hot loop.  Without colors or multiplicities an option is live iff its
         * bitset misses cov; one and two words are unrolled. */
        const word_t *bits = p->opt_plain;
        if (p->plain && W == 1) {
            const word_t c0 = cov[0];
            FILTER(!(bits[o] & c0))
        } else if (p->plain && W == 2) {
            const word_t c0 = cov[0], c1 = cov[1];
            FILTER(!((bits[2 * o] & c0) | (bits[2 * o + 1] & c1)))
        } else {
            FILTER(is_live(s, cov, o))
        }
#undef FILTER
    }
    s->updates += (uint64_t)n_src;
    L->n_live = m;
    s->arena.n += m;
    return tally;
}

/* Expand the node at the current depth: decide solution / dead end / branches.
 * Returns 1 for a solution, 0 otherwise (branches in lv[depth], possibly none);
 * -1 when out of memory. */
static int expand(Search *s) {
    const Problem *p = s->p;
    const int W = p->n_words;
    int32_t d = s->depth;
    Level *L = &s->lv[d];
    word_t *cov = s->cov;
    L->item = -1;
    L->n_branch = 0;
    L->next = 0;
    L->n_live = 0;
    L->live_off = L->branch_off = s->arena.n;
    if (p->plain && !p->n_cells) {
        if (p->heuristic == H_FIRST) return expand_plain_first(s, L, cov);
        if (p->n_lanes) return expand_plain_mrv(s, L, cov);
    }

    /* needed items: the first exact item not covered, and counters below lo; a counter
     * at or above lo but not saturated has slack (it may take more options) */
    int32_t first_needed = -1;
    for (int w = 0; w < W; w++) {
        word_t open = p->exact_mask[w] & ~cov[w];
        if (open) { first_needed = w * 64 + __builtin_ctzll(open); break; }
    }
    int any_slack = 0;
    for (int32_t k = 0; k < p->n_counters; k++) {
        int32_t i = p->counters[k];
        if (s->cnt[i] < p->lo[i]) {
            if (first_needed < 0 || i < first_needed) first_needed = i;
        } else if (!saturated(cov, i)) {
            any_slack = 1;
        }
    }
    if (first_needed < 0 && !any_slack) return 1;
    if (p->n_cells && !regions_fillable(s, cov)) return 0;

    int32_t item = -1, slack = 0;
    if (p->heuristic == H_FIRST) {
        if (first_needed >= 0) {
            item = first_needed;
        } else {
            /* the lowest counter with slack and a live option */
            for (int32_t k = 0; k < p->n_counters && item < 0; k++) {
                int32_t i = p->counters[k];
                if (saturated(cov, i)) continue;
                for (int32_t e = p->item_start[i]; e < p->item_start[i + 1]; e++) {
                    s->updates++;
                    if (is_live(s, cov, p->item_opt[e])) { item = i; break; }
                }
            }
            if (item < 0) return 1;
            slack = 1;
        }
        /* branch list: the live options of item, from its lead list when it is exact */
        const int exact = (p->exact_mask[item / 64] >> (item % 64)) & 1;
        const int32_t *list = exact ? p->lead_opt : p->item_opt;
        int32_t from = exact ? p->lead_start[item] : p->item_start[item];
        int32_t to = exact ? p->lead_start[item + 1] : p->item_start[item + 1];
        int32_t n = to - from;
        if (buf_reserve(&s->arena, n + 1)) return -1;
        int32_t *out = s->arena.v + s->arena.n;
        int32_t m = 0;
        if (slack) out[m++] = p->n_options + item;  /* "take no more options of item" */
        if (p->plain && W == 2) {
            const word_t c0 = cov[0], c1 = cov[1];
            for (int32_t k = from; k < to; k++) {
                int32_t o = list[k];
                if (!((p->opt_plain[2 * o] & c0) | (p->opt_plain[2 * o + 1] & c1))) out[m++] = o;
            }
        } else {
            for (int32_t k = from; k < to; k++) {
                int32_t o = list[k];
                if (is_live(s, cov, o)) out[m++] = o;
            }
        }
        s->updates += (uint64_t)n;
        L->n_branch = m;
        s->arena.n += m;
    } else {
        /* Two layouts (choose_mrv_layout).  The trail: alive[] and tally[] (live options
         * per item) describe the parent, the last node expanded on this path; the
         * options that the step here killed are taken off them and pushed on the trail,
         * and ascend() brings them back, so a level costs what it killed.  Copies: the
         * parent's live list filtered into this level's, and its row of counts copied and
         * decremented for the options that die. */
        int32_t *restrict tally;
        if (p->mrv_trail) {
            tally = s->tally;
            if (d == 0) {
                mrv_root(s, cov);
            } else if (mrv_kill(s, cov, L, &s->lv[d - 1])) {
                return -1;
            }
        } else {
            tally = mrv_filter(s, L, cov);
            if (!tally) return -1;
        }
        /* choose: fewest live options among needed items, ties to the lowest index */
        int32_t best = INT32_MAX;
        if (first_needed >= 0) {
            for (int w = 0; w < W; w++) {
                word_t open = p->exact_mask[w] & ~cov[w];
                while (open) {
                    int32_t i = w * 64 + __builtin_ctzll(open);
                    open &= open - 1;
                    if (tally[i] < best) { best = tally[i]; item = i; if (best == 0) goto chosen; }
                }
            }
            for (int32_t k = 0; k < p->n_counters; k++) {
                int32_t i = p->counters[k];
                if (s->cnt[i] < p->lo[i] && (tally[i] < best || (tally[i] == best && i < item))) {
                    best = tally[i];
                    item = i;
                }
            }
        } else {
            /* nothing needed: the counter with slack and the fewest live options */
            for (int32_t k = 0; k < p->n_counters; k++) {
                int32_t i = p->counters[k];
                if (!saturated(cov, i) && tally[i] > 0 && tally[i] < best) { best = tally[i]; item = i; }
            }
            if (item < 0) return 1;
            slack = 1;
        }
    chosen:
        if (best == 0) { L->item = item; return 0; }
        if (buf_reserve(&s->arena, best + 1)) return -1;
        int32_t *out = s->arena.v + s->arena.n;
        int32_t nb = 0;
        if (slack) out[nb++] = p->n_options + item;
        /* the live options that use item plainly, in increasing id: from the item's
         * option list (sorted), or from the live list */
        const word_t mask = (word_t)1 << (item % 64);
        const int wi = item / 64;
        if (p->mrv_trail) {
            int32_t last = -1;
            for (int32_t e = p->item_start[item]; e < p->item_start[item + 1]; e++) {
                int32_t o = p->item_opt[e];
                if (o != last && s->alive[o] && (p->opt_plain[(size_t)o * W + wi] & mask)) out[nb++] = o;
                last = o;
            }
        } else {
            const int32_t *live = s->arena.v + L->live_off;
            for (int32_t k = 0; k < L->n_live; k++) {
                int32_t o = live[k];
                if (p->opt_plain[(size_t)o * W + wi] & mask) out[nb++] = o;
            }
        }
        L->branch_off = s->arena.n;
        L->n_branch = nb;
        s->arena.n += nb;
    }
    L->item = item;
    L->multiplicity = !(p->lo[item] == 1 && p->hi[item] == 1);
    return 0;
}

/* Descend into branch j of the node at the current depth. */
static int descend(Search *s, int32_t j) {
    const Problem *p = s->p;
    const int W = p->n_words;
    Level *L = &s->lv[s->depth];
    int32_t o = s->arena.v[L->branch_off + j];
    if (L->multiplicity && j > 0) {
        int32_t prev = s->arena.v[L->branch_off + j - 1];
        if (prev < p->n_options) s->excluded[prev] = 1;
    }
    L->next = j + 1;
    if (ensure_level(s, s->depth + 1)) return -1;
    L = &s->lv[s->depth];
    int32_t d = ++s->depth;
    s->lv[d].chosen = o;
    s->lv[d].sibling = j;
    s->lv[d].color_mark = (int32_t)s->color_undo.n;
    s->lv[d].trail_mark = s->trail.n;
    s->lv[d].item = -1;
    s->lv[d].n_branch = 0;
    s->lv[d].next = 0;
    s->lv[d].n_live = 0;
    s->lv[d].multiplicity = 0;
    if (o >= p->n_options) {  /* skip: the counter takes no more options below here */
        int32_t i = o - p->n_options;
        s->cov[i / 64] |= (word_t)1 << (i % 64);
        return 0;
    }
    if (p->plain) {  /* no counts or colors to keep: the option's bits are the whole update */
        const word_t *bits = p->opt_plain + (size_t)o * W;
        for (int w = 0; w < W; w++) s->cov[w] |= bits[w];
        return 0;
    }
    return apply_option(s, s->cov, o);
}

/* Leave the node at the current depth (all its branches done).  In census mode the
 * solutions counted below it (every one of them uses the option that led here) go to that
 * option's census: summed over the tree, census[o] is the solutions that use o below the
 * root, each counted once per option on its path.  A census search has no memo (a memo
 * hit's subtree would go uncredited) and no stop (a stop takes the count back: see
 * stop_here), so every node is ascended exactly once. */
static void ascend(Search *s) {
    Level *L = &s->lv[s->depth];
    if (s->census && L->chosen < s->p->n_options) s->census[L->chosen] += s->count - L->count_in;
    if (s->memo.active && L->n_branch > 0) {
        uint64_t work = s->nodes - L->nodes_in;
        if (work >= MEMO_MIN_WORK) {
            memo_store(&s->memo, s->cov, s->count - L->count_in, work);
            L->memo_stores++;
            L->memo_work += work;
        }
    }
    if (L->multiplicity)
        for (int32_t j = 0; j + 1 < L->n_branch; j++) {
            int32_t o = s->arena.v[L->branch_off + j];
            if (o < s->p->n_options) s->excluded[o] = 0;
        }
    s->arena.n = L->live_off < L->branch_off ? L->live_off : L->branch_off;
    mrv_revive(s, L->trail_mark);
    /* undo the step that led here on the in-place cov: the chosen option's items were
     * all unsaturated before it (it was live), and so was a skipped item */
    const Problem *p = s->p;
    if (L->chosen >= p->n_options) {
        int32_t i = L->chosen - p->n_options;
        s->cov[i / 64] &= ~((word_t)1 << (i % 64));
    } else if (p->plain) {
        const word_t *bits = p->opt_plain + (size_t)L->chosen * p->n_words;
        for (int w = 0; w < p->n_words; w++) s->cov[w] &= ~bits[w];
    } else {
        unapply_option(s, s->cov, L->chosen, L->color_mark);
    }
    s->depth--;
}

/* Is a memo lookup at this depth worth its cost (a cache miss, about half a node)?
 * Expected nodes saved = the depth's hit rate x its mean stored subtree.  Where that is
 * small (states that never repeat, or subtrees of a node or two) lookups are skipped,
 * except one node in 64, which keeps the estimate honest: repeats that start late
 * (16x16 dominoes filled row by row) still turn the lookups back on. */
static inline int memo_pays(const Level *L, uint64_t nodes) {
    if (L->memo_lookups < 256) return 1;
    double hit_rate = (double)L->memo_hits / (double)L->memo_lookups;
    double subtree = (double)L->memo_work / (double)(L->memo_stores ? L->memo_stores : 1);
    return hit_rate * subtree >= 0.5 || (nodes & 63) == 0;
}

/* Record the path to the current node (depth d) and, for frontier records, the
 * branching factors along it. */
static int record_path(Search *s, Buf *b, int32_t d, int32_t extra_option, int factors) {
    int32_t len = d + (extra_option >= 0);
    if (buf_reserve(b, 1 + 2 * (int64_t)len)) return -1;
    if (!factors) {  /* a solution: the real options only, not the "skip" branches */
        int64_t at = b->n++;
        int32_t n = 0;
        for (int32_t k = 1; k <= d; k++)
            if (s->lv[k].chosen < s->p->n_options) { b->v[b->n++] = s->lv[k].chosen; n++; }
        b->v[at] = n;
        return 0;
    }
    b->v[b->n++] = len;
    for (int32_t k = 1; k <= d; k++) b->v[b->n++] = s->lv[k].chosen;
    if (extra_option >= 0) b->v[b->n++] = extra_option;
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

/* The level a stop hands back from: the deepest k in base+1..depth where the node at k
 * (1 + 2k ids: its path, factors and length) and the untried siblings at levels
 * base..k-1 (each 3 + 2d ids at level d) fit frontier_cap; base + 1 when none does. */
static int32_t stop_level(const Search *s) {
    uint64_t above = 0;
    int32_t best = s->base + 1;
    for (int32_t k = s->base + 1; k <= s->depth; k++) {
        const Level *L = &s->lv[k - 1];  /* its untried children: the siblings at depth k */
        above += (uint64_t)(L->n_branch - L->next) * (3 + 2 * (uint64_t)(k - 1));
        if (above + 1 + 2 * (uint64_t)k > frontier_cap) break;
        best = k;
    }
    return best;
}

/* Stop the search here (see frontier_cap): hand back the node at stop_level() whole and
 * the untried siblings above it, the count and the solutions listed taken back to what
 * they were when that node was entered (the current node has not been expanded: for it
 * they are what they are now). */
static int stop_here(Search *s) {
    int32_t k = stop_level(s);
    s->status = ST_BUDGET;
    if (k < s->depth) {
        s->count = s->lv[k].count_in;
        s->solutions.n = s->lv[k].listed_in;
    }
    if (record_path(s, &s->frontier, k, -1, 1)) return -1;
    s->depth = k - 1;
    return record_siblings(s);
}

static int count_node(Search *s) {
    s->nodes++;
    int32_t d = s->depth;
    if (d >= s->cap_depths) {
        int32_t cap = s->cap_depths ? 2 * s->cap_depths : 64;
        while (cap <= d) cap *= 2;
        uint64_t *v = realloc(s->per_depth, sizeof(uint64_t) * (size_t)cap);
        if (!v) return -1;
        memset(v + s->cap_depths, 0, sizeof(uint64_t) * (size_t)(cap - s->cap_depths));
        s->per_depth = v;
        s->cap_depths = cap;
    }
    if (d >= s->n_depths) s->n_depths = d + 1;
    s->per_depth[d]++;
    return 0;
}

/* The search loop (GIL released).  The node at s->depth == s->base has been replayed but
 * not expanded. */
static void run(Search *s) {
    int entering = 1;
    s->status = ST_DONE;
    for (;;) {
        if (entering) {
            entering = 0;
            if (s->depth > s->base) {
                if ((s->node_budget >= 0 && s->nodes >= (uint64_t)s->node_budget) ||
                    (s->deadline >= 0 && (s->nodes & s->clock_mask) == 0 &&
                     (stop_requested || now_seconds() >= s->deadline)) ||
                    ((s->nodes & (INTERRUPT_EVERY - 1)) == 0 && interrupt_check(&s->interrupt))) {
                    if (s->interrupt.raised) return; /* a signal: kernel_solve raises, no frontier wanted */
                    if (stop_here(s)) goto oom;
                    return;
                }
            }
            if (count_node(s)) goto oom;
            {
                Level *L = &s->lv[s->depth];
                L->count_in = s->count;
                L->listed_in = s->solutions.n;
                L->nodes_in = s->nodes;
                if (s->memo.wanted && !s->memo.active && s->nodes == MEMO_START_NODES)
                    memo_start(&s->memo);
                u128 below;
                if (s->memo.active && memo_pays(L, s->nodes) && (L->memo_lookups++, 1) &&
                    memo_find(&s->memo, s->cov, &below)) {
                    L->memo_hits++;
                    u128 before = s->count;
                    if (before + below < before && s->depth > s->base &&
                        (s->node_budget >= 0 || s->deadline >= 0)) {
                        /* the count would pass 2^128: a budgeted caller takes frontiers, so
                           hand this node and the rest on as a budget stop would (each part
                           counts below 2^128; the ledger sums them in Python integers) */
                        s->nodes--;
                        s->per_depth[s->depth]--;
                        if (stop_here(s)) goto oom;
                        return;
                    }
                    s->count += below;
                    if (s->count < before) s->overflow = 1;
                    L->n_branch = 0;
                    L->live_off = L->branch_off = s->arena.n;
                    goto next;
                }
            }
            if (s->max_depth >= 0 && s->depth >= s->max_depth) {
                if (record_path(s, &s->frontier, s->depth, -1, 1)) goto oom;
                s->lv[s->depth].n_branch = 0;
                s->lv[s->depth].live_off = s->lv[s->depth].branch_off = s->arena.n;
            } else {
                int r = expand(s);
                if (r < 0) goto oom;
                if (r == 1 || s->lv[s->depth].n_branch == 0) {
                    Level *L = &s->lv[s->depth];
                    L->n_branch = 0;
                    if (s->max_depth >= 0) {
                        if (record_path(s, &s->frontier, s->depth, -1, 1)) goto oom;
                    } else {
                        s->leaves++;
                        if (r == 1) {
                            s->count += 1;
                            if (s->enumerate && record_path(s, &s->solutions, s->depth, -1, 0)) goto oom;
                            if (s->limit >= 0 && s->count >= (u128)s->limit) {
                                s->status = ST_LIMIT;
                                if (s->depth > s->base) {
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
    next:;
        Level *L = &s->lv[s->depth];
        if (L->next < L->n_branch) {
            if (descend(s, L->next)) goto oom;
            entering = 1;
        } else {
            if (s->depth == s->base) return;
            ascend(s);
        }
    }
oom:
    s->oom = 1;
}

/* Replay a path from the root; 0 on success, 1 if illegal (message in *why), -1 oom. */
static int replay(Search *s, const int32_t *path, int32_t n, int32_t *bad_depth) {
    for (int32_t k = 0; k < n; k++) {
        int r = expand(s);
        if (r < 0) return -1;
        Level *L = &s->lv[s->depth];
        if (r == 1) L->n_branch = 0;
        int32_t j = -1;
        for (int32_t b = 0; b < L->n_branch; b++)
            if (s->arena.v[L->branch_off + b] == path[k]) { j = b; break; }
        if (j < 0) { *bad_depth = k; return 1; }
        if (L->multiplicity)
            for (int32_t b = 0; b + 1 < j; b++) {
                int32_t o = s->arena.v[L->branch_off + b];
                if (o < s->p->n_options) s->excluded[o] = 1;
            }
        if (descend(s, j)) return -1;
        s->lv[s->depth - 1].next = s->lv[s->depth - 1].n_branch;  /* no siblings above base */
    }
    s->base = s->depth;
    return 0;
}

/* What solve() returns: a named structure (core._kernel.Result), read by field name. */
static PyStructSequence_Field result_fields[] = {
    {"status", "0 searched to the end, 1 stopped by a budget, 2 stopped by the limit"},
    {"count", "solutions counted (a Python int, below 2^128)"},
    {"solutions", "the solutions as paths (listing), else None"},
    {"frontier", "the unexplored nodes: [(path, branching factors along it)]"},
    {"nodes", "nodes entered"},
    {"leaves", "solutions and dead ends reached"},
    {"updates", "liveness tests made (a machine-independent cost)"},
    {"nodes_per_depth", "nodes entered at each depth"},
    {"path_factors", "the branching factor at each step of the replayed path"},
    {"seconds", "wall time of the call"},
    {"memo_hits", "counts taken from the memo"},
    {"state_bytes", "bytes the search's own state held at its peak (not the problem, memo or results)"},
    {"census", "census mode: per option, the solutions below that use it (16 bytes each, little-endian); else None"},
    {NULL, NULL},
};
enum { RESULT_FIELDS = 13 };
static PyStructSequence_Desc result_desc = {
    "core._kernel.Result", "The outcome of one kernel solve() call.", result_fields, RESULT_FIELDS,
};
static PyTypeObject *ResultType;

/*
 * solve(problem, path, listing, limit, node_budget, seconds, max_depth, memo_bytes=0, given=(),
 *       census=False) -> Result (see result_fields)
 * limit / node_budget / max_depth: -1 for none; seconds: negative for none.  given: options
 * covered before the root (a partial cover the search starts from; paths are relative to
 * it, and the solutions returned leave it out).  census: a whole count (no listing, limit,
 * budget or split) that also returns Result.census, without the memo; the options of the
 * path and of given are not in it (every solution counted uses them: the caller adds them).
 */
static PyObject *kernel_solve(PyObject *self, PyObject *args) {
    (void)self;
    Problem *p;
    PyObject *path_obj;
    int enumerate_;
    long long limit, node_budget;
    double seconds;
    int max_depth;
    unsigned long long memo_bytes = 0;
    PyObject *given_obj = NULL;
    int census = 0;
    if (!PyArg_ParseTuple(args, "O!OpLLdi|KOp", &ProblemType, &p, &path_obj, &enumerate_, &limit,
                          &node_budget, &seconds, &max_depth, &memo_bytes, &given_obj, &census))
        return NULL;
    if (p->opt_start == NULL) {
        PyErr_SetString(PyExc_ValueError, "problem is not initialised");
        return NULL;
    }
    if (census && (enumerate_ || limit >= 0 || node_budget >= 0 || seconds >= 0 || max_depth >= 0)) {
        PyErr_SetString(PyExc_ValueError, "a census is a whole count: no listing, limit, budget or split");
        return NULL;
    }
    Py_ssize_t n_path;
    int32_t *path = int_array(path_obj, &n_path, "path");
    if (!path) return NULL;
    for (Py_ssize_t k = 0; k < n_path; k++)
        if (path[k] < 0 || path[k] >= p->n_options + p->n_items) {
            int bad = (int)path[k];
            free(path);
            PyErr_Format(PyExc_ValueError, "path names option %d, outside 0..%d", bad,
                         (int)(p->n_options + p->n_items) - 1);
            return NULL;
        }
    Py_ssize_t n_given = 0;
    int32_t *given = NULL;
    if (given_obj != NULL && given_obj != Py_None) {
        if (!(given = int_array(given_obj, &n_given, "given"))) { free(path); return NULL; }
        for (Py_ssize_t k = 0; k < n_given; k++)
            if (given[k] < 0 || given[k] >= p->n_options) {
                int bad = (int)given[k];
                free(path); free(given);
                PyErr_Format(PyExc_ValueError, "given names option %d, outside 0..%d", bad, (int)p->n_options - 1);
                return NULL;
            }
    }
    Search s;
    if (search_init(&s, p) || (census && !(s.census = calloc((size_t)p->n_options + 1, sizeof(u128))))) {
        search_free(&s); free(path); free(given); return PyErr_NoMemory();
    }
    /* the given options: applied to the root's state, as if chosen before it */
    for (Py_ssize_t k = 0; k < n_given; k++) {
        int32_t o = given[k];
        if (!is_live(&s, s.cov, o)) {
            search_free(&s); free(path); free(given);
            PyErr_Format(PyExc_ValueError, "the given options conflict (option %d)", (int)o);
            return NULL;
        }
        if (p->plain) {
            for (int w = 0; w < p->n_words; w++) s.cov[w] |= p->opt_plain[(size_t)o * p->n_words + w];
        } else if (apply_option(&s, s.cov, o)) {
            search_free(&s); free(path); free(given);
            return PyErr_NoMemory();
        }
    }
    free(given);
    s.enumerate = enumerate_;
    s.limit = limit;
    s.node_budget = node_budget;
    s.max_depth = max_depth;
    s.lv[0].chosen = -1;
    /* the memo is exact only where the bitset is the whole state, and is for counting (not
       for a census: the options below a memo hit would go uncredited) */
    if (memo_bytes && p->plain && !enumerate_ && limit < 0 && max_depth < 0 && !census) {
        s.memo.wanted = 1;
        s.memo.W = p->n_words;
        s.memo.max_bytes = memo_bytes;
    }
    double started = now_seconds();
    s.deadline = seconds >= 0 ? started + seconds : -1.0;
    s.clock_mask = clock_mask_for(p->n_options);
    int32_t bad_depth = -1;
    int r;
    interrupt_release(&s.interrupt);
    r = replay(&s, path, (int32_t)n_path, &bad_depth);
    if (r == 0) {
        if (max_depth >= 0 && s.depth > max_depth) {
            /* the path is already deeper than the split: it is its own frontier */
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
    } else if (s.overflow) {
        PyErr_SetString(PyExc_OverflowError, "the count passed 2^128");
    } else {
        PyObject *sols = s.enumerate ? records_to_list(&s.solutions, 0) : (Py_INCREF(Py_None), Py_None);
        PyObject *front = records_to_list(&s.frontier, 1);
        PyObject *per = PyList_New(s.n_depths);
        PyObject *fac = PyTuple_New(n_path);
        if (sols && front && per && fac) {
            for (int32_t k = 0; k < s.n_depths; k++) PyList_SET_ITEM(per, k, PyLong_FromUnsignedLongLong(s.per_depth[k]));
            for (Py_ssize_t k = 0; k < n_path; k++) PyTuple_SET_ITEM(fac, k, PyLong_FromLong(s.lv[k].n_branch));
            PyObject *count = u128_to_long(s.count);
            PyObject *cen = census ? PyBytes_FromStringAndSize((const char *)s.census,
                                                               (Py_ssize_t)(sizeof(u128) * (size_t)p->n_options))
                                   : Py_NewRef(Py_None);
            PyObject *fields[RESULT_FIELDS] = {
                PyLong_FromLong(s.status), count, Py_NewRef(sols), Py_NewRef(front),
                PyLong_FromUnsignedLongLong(s.nodes), PyLong_FromUnsignedLongLong(s.leaves),
                PyLong_FromUnsignedLongLong(s.updates), Py_NewRef(per), Py_NewRef(fac),
                PyFloat_FromDouble(elapsed), PyLong_FromUnsignedLongLong(s.memo.hits),
                PyLong_FromUnsignedLongLong(search_state_bytes(&s)), cen,
            };
            int ok = 1;
            for (int k = 0; k < RESULT_FIELDS; k++) ok = ok && fields[k] != NULL;
            result = ok ? PyStructSequence_New(ResultType) : NULL;
            if (result) {
                for (int k = 0; k < RESULT_FIELDS; k++) PyStructSequence_SET_ITEM(result, k, fields[k]);
            } else {
                for (int k = 0; k < RESULT_FIELDS; k++) Py_XDECREF(fields[k]);
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

static PyObject *kernel_request_stop(PyObject *self, PyObject *unused) {
    (void)self; (void)unused;
    stop_requested = 1;
    Py_RETURN_NONE;
}

static PyObject *kernel_clear_stop(PyObject *self, PyObject *unused) {
    (void)self; (void)unused;
    stop_requested = 0;
    Py_RETURN_NONE;
}

static PyObject *kernel_frontier_cap(PyObject *self, PyObject *args) {
    (void)self;
    long long ids = -1;
    if (!PyArg_ParseTuple(args, "|L", &ids)) return NULL;
    uint64_t before = frontier_cap;
    if (ids >= 0) frontier_cap = (uint64_t)ids;
    return PyLong_FromUnsignedLongLong(before);
}

static PyObject *kernel_stop_is_requested(PyObject *self, PyObject *unused) {
    (void)self; (void)unused;
    return PyBool_FromLong(stop_requested);
}

/* A signal that requests a stop from C (core/handoff.py: handle_signal).  Python runs its
 * own signal handlers only at a search's interrupt check, every INTERRUPT_EVERY nodes
 * (16,384: 6.5 ms on the pentacube box), and the search then stops at its next clock
 * reading; this handler sets the stop flags at once, so the search stops at its next
 * clock reading (at most 1,024 nodes).  It sets the kernel's flag and those of the other
 * engines (their capsules, given once): writes of volatile ints, async-signal-safe. */
#define MAX_STOP_FLAGS 4
static volatile int *other_stop_flags[MAX_STOP_FLAGS];
static int n_other_stop_flags = 0;

static void on_stop_signal(int signum) {
    (void)signum;
    stop_requested = 1;
    for (int i = 0; i < n_other_stop_flags; i++) *other_stop_flags[i] = 1;
}

static PyObject *kernel_handle_stop_signal(PyObject *self, PyObject *args) {
    (void)self;
    int signum;
    PyObject *capsules;
    if (!PyArg_ParseTuple(args, "iO", &signum, &capsules)) return NULL;
    PyObject *seq = PySequence_Fast(capsules, "the other engines' stop flags must be a sequence of capsules");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > MAX_STOP_FLAGS) {
        Py_DECREF(seq);
        return PyErr_Format(PyExc_ValueError, "at most %d other stop flags", MAX_STOP_FLAGS);
    }
    volatile int *flags[MAX_STOP_FLAGS];
    for (Py_ssize_t i = 0; i < n; i++) {
        flags[i] = PyCapsule_GetPointer(PySequence_Fast_GET_ITEM(seq, i), "tilecensus.stop_flag");
        if (!flags[i]) {
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;  /* none while the flags are swapped in */
    sigemptyset(&sa.sa_mask);
    if (sigaction(signum, &sa, NULL) != 0) return PyErr_SetFromErrno(PyExc_OSError);
    for (Py_ssize_t i = 0; i < n; i++) other_stop_flags[i] = flags[i];
    n_other_stop_flags = (int)n;
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESTART;  /* a blocking read between two tasks goes on */
    if (sigaction(signum, &sa, NULL) != 0) return PyErr_SetFromErrno(PyExc_OSError);
    Py_RETURN_NONE;
}

static PyMethodDef kernel_methods[] = {
    {"solve", kernel_solve, METH_VARARGS, "Search below a path; see core/kernel.py."},
    {"request_stop", kernel_request_stop, METH_NOARGS,
     "Make every running and later search under a time budget stop as if its deadline passed "
     "(until clear_stop())."},
    {"clear_stop", kernel_clear_stop, METH_NOARGS, "Undo request_stop()."},
    {"frontier_cap", kernel_frontier_cap, METH_VARARGS,
     "frontier_cap([ids]): about the most ids a stop before the end hands back (set when given); the one before."},
    {"stop_is_requested", kernel_stop_is_requested, METH_NOARGS,
     "Whether a stop was requested (by request_stop() or the signal) since clear_stop()."},
    {"handle_stop_signal", kernel_handle_stop_signal, METH_VARARGS,
     "handle_stop_signal(signum, other_flags): the signal requests a stop, from C (see core/handoff.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT, "core._kernel",
    "The tilecensus search kernel (exact cover on bitsets).", -1, kernel_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__kernel(void) {
    if (PyType_Ready(&ProblemType) < 0) return NULL;
    PyObject *m = PyModule_Create(&kernel_module);
    if (!m) return NULL;
    Py_INCREF(&ProblemType);
    if (PyModule_AddObject(m, "Problem", (PyObject *)&ProblemType) < 0) {
        Py_DECREF(&ProblemType);
        Py_DECREF(m);
        return NULL;
    }
    ResultType = PyStructSequence_NewType(&result_desc);
    if (!ResultType || PyModule_AddObject(m, "Result", Py_NewRef((PyObject *)ResultType)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "MRV", H_MRV);
    PyModule_AddIntConstant(m, "FIRST", H_FIRST);
    return m;
}
