/*
 * _frontier.c — counting exact covers by dynamic programming over frontier states.
 *
 * WHY.  The search kernel (_kernel.c) walks the tree node by node; its memo only helps
 * where equal states happen to recur close together.  For COUNTING, the number of
 * solutions below a node depends on nothing but the set of covered items.  Branch always
 * on the lowest uncovered primary item (in a fixed item order): then every node whose
 * lowest uncovered primary item is c — a state of LEVEL c — has all items below c
 * covered, and is described by the covered items above c.  Every transition goes from a
 * level to a strictly higher one, so the levels can be expanded in increasing order,
 * breadth-first: when level c is reached, every path into each of its states is known,
 * and each distinct state is expanded ONCE with the number of paths reaching it.  On a
 * pentomino box this is 3.3 million states instead of 26 million nodes (first-item search)
 * or 3.6 million MRV nodes costing ~140 option kills each.  The price is memory for the
 * states of the levels not yet expanded, hence the caps below and a fall back to search.
 *
 * DATA LAYOUT
 *   Items keep the exact cover's numbering (primary items first); at most 128 items, so
 *   an item set is one u128.  An option's LEAD is its lowest primary item.
 *   Layout (the problem, once):
 *     lead_start[c] .. lead_start[c+1]  the groups of options with lead c; a group holds
 *                                       the options of one lead sharing their highest item
 *                                       ("far" item: a piece item in a packing), so one
 *                                       test skips every placement of a used piece
 *     group_start[g] .. group_start[g+1], group_far_item[g]   a group's options, far item
 *     option_lead[k], option_mask[k]    an option's lead and item set
 *   KEYS.  The items split into FRONT items 0 .. n_front-1 (the levels: cells, in a
 *   packing) and TAIL items n_front .. n_items-1 (pieces).  A state of level c is the key
 *       bits 0 .. F-1:   front items c+1 .. c+F (the window)      bits F ..: tail items
 *   which holds every covered item when each option's front items lie within F of its
 *   lead (items below c are all covered; items past c+F cannot be yet).  choose_window()
 *   finds the most tail items for which a 64-bit key works (a 6x10 pentomino box: the 12
 *   pieces and the last cells in the tail, a 48-item window for spans of 24); the count
 *   then runs with 64-bit keys and counts, 16-byte pairs; otherwise, or when a 64-bit
 *   count would overflow, with 128-bit keys and counts (no tail, F = 128).  The two widths
 *   are one template, _frontier_levels.h.
 *   pending[c]  (key, count) pairs sent to level c by lower levels, duplicates included;
 *               count = the paths along which the key was reached
 *
 *   Expanding a level: 64-bit pairs are radix-sorted and each run of equal keys expanded
 *   once; 128-bit pairs are scattered into 256 buckets by hash and deduplicated in small
 *   tables that stay in cache.  Every distinct state then tries its level's options.
 *   With the board's geometry (see Layout) moves that wall in a cell, or two cells when
 *   every piece is bigger, are dropped before they are sent.
 *
 * INVARIANTS
 *   A key of level c has front bit j set iff item c + 1 + j is covered, and tail bit j iff
 *   item n_front + j is; item c is uncovered and every front item below c is covered.
 *   The counts of all pending pairs plus the solutions counted add up to the paths from
 *   the start state not yet ended, so the final total is exact.  Counts are u128 in the
 *   end; passing 2^128 is reported.
 *
 * LIMITS
 *   count() returns None ("declined") when the pairs held would pass max_bytes or the
 *   transitions would pass max_transitions; the caller then searches instead.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "_interrupt.h"
#include "_search_common.h"


enum { FR_DONE = 0, FR_DECLINED = 1, FR_NOMEM = 2, FR_OVERFLOW = 3, FR_INTERRUPTED = 4 };

/* neighbour offsets at most (a 3D box has 6) */
#define MAX_SHIFTS 16

/* The problem, flattened once per count (see DATA LAYOUT). */
typedef struct {
    int n_items, n_primary, n_front, n_levels, n_options, n_groups;
    int32_t *lead_start, *group_start, *group_far_item, *option_lead;
    u128 *option_mask; /* the item set (covers of at most 128 items; else unused) */
    /* window terms, what the count reads: option k's front items other than its lead as
       bits item - lead - 1, its tail items as bits item - n_front; the start state's
       lowest uncovered front item, its covered front items above that one (bits item -
       start_level - 1) and its covered tail items */
    u128 *option_front, *option_tail;
    int start_level;
    u128 start_front, start_tail;
    /* walls, when given: every option covering cell x (in `cells`) also covers one of
       x's "neighbours" (on a board of pieces of two cells or more, its neighbours; in
       general, a hitting set of its options), so a move that leaves x uncovered with every
       neighbour covered is dropped.  Neighbours as offsets in item numbers, as on any
       grid: x has a neighbour x + shift[s] iff x is in shift_src[s]; so "the cells with an
       uncovered neighbour" is a few shifts and ANDs.  min_piece > 2 (true neighbours on a
       board whose pieces all have 3+ cells) also drops two cells walled in together */
    int n_shifts;
    int shift[MAX_SHIFTS];
    u128 shift_src[MAX_SHIFTS], cells;
    int min_piece;
} Layout;

/* What a count was allowed and what it did. */
typedef struct {
    uint64_t max_transitions;
    size_t max_bytes;
    Interrupt *interrupt; /* signals heard while the GIL is released (_interrupt.h) */
    int status;
    u128 total;
    uint64_t states, leaves, transitions, updates;
} Tally;

static inline int ctz128(u128 x) {
    uint64_t lo = (uint64_t)x;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(x >> 64));
}

static inline int popcount128(u128 x) {
    return __builtin_popcountll((uint64_t)x) + __builtin_popcountll((uint64_t)(x >> 64));
}

static inline int highest128(u128 x) { /* x != 0 */
    uint64_t hi = (uint64_t)(x >> 64);
    return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll((uint64_t)x);
}

#define KEY uint64_t
#define COUNT uint64_t
#define KEY_BITS 64
#define LV(name) narrow_##name
#include "_frontier_levels.h"
#undef KEY
#undef COUNT
#undef KEY_BITS
#undef LV

#define KEY u128
#define COUNT u128
#define KEY_BITS 128
#define LV(name) wide_##name
#include "_frontier_levels.h"
#undef KEY
#undef COUNT
#undef KEY_BITS
#undef LV

/* The most tail items t (at most 63) for which a 64-bit key holds every state: each
 * option's lead is a front item and its other front items lie within F = 64 - t of it,
 * and so do the start's covered front items past its first level.  The most, because
 * groups with a tail far item are visited bit by bit (see expand).  -1 when none fits. */
static int choose_window(const Layout *lay, u128 covered) {
    for (int t = lay->n_items - 1 < 63 ? lay->n_items - 1 : 63; t >= 0; t--) {
        int n_front = lay->n_items - t, F = 64 - t, fits = 1;
        u128 front = n_front >= 128 ? ~(u128)0 : (((u128)1 << n_front) - 1);
        for (int32_t k = 0; k < lay->n_options && fits; k++) {
            u128 m = lay->option_mask[k] & front;
            int lead = lay->option_lead[k];
            if (lead >= n_front || highest128(m) - lead > F) fits = 0;
        }
        u128 open = ~covered & front;
        if (fits && open) {
            int c0 = ctz128(open);
            u128 above = (covered & front) >> c0 >> 1;
            if (F < 128 && (above >> F)) fits = 0;
        }
        if (fits) return t;
    }
    return -1;
}

/* The options and the start of a cover of at most 128 items in window terms, for a front
 * of n_front items (see Layout). */
static void window_terms(Layout *lay, int n_front, u128 covered) {
    u128 front = n_front >= 128 ? ~(u128)0 : (((u128)1 << n_front) - 1);
    for (int32_t k = 0; k < lay->n_options; k++) {
        u128 m = lay->option_mask[k];
        lay->option_front[k] = (m & front) >> lay->option_lead[k] >> 1;
        lay->option_tail[k] = n_front >= 128 ? 0 : m >> n_front;
    }
    u128 open = ~covered & front;
    lay->start_level = open ? ctz128(open) : lay->n_items;
    lay->start_front = open ? (covered & front) >> lay->start_level >> 1 : 0;
    lay->start_tail = n_front >= 128 ? 0 : covered >> n_front;
}

static u128 u128_from(PyObject *lo_list, PyObject *hi_list, Py_ssize_t k) {
    unsigned long long lo = PyLong_AsUnsignedLongLong(PyList_GET_ITEM(lo_list, k));
    unsigned long long hi = PyLong_AsUnsignedLongLong(PyList_GET_ITEM(hi_list, k));
    return ((u128)hi << 64) | (u128)lo;
}

static void layout_free(Layout *lay) {
    free(lay->lead_start);
    free(lay->group_start);
    free(lay->group_far_item);
    free(lay->option_lead);
    free(lay->option_mask);
    free(lay->option_front);
    free(lay->option_tail);
}

/* A fresh layout with its arrays for n_opt options; 0 on success (else a MemoryError is
 * set and the layout freed). */
static int layout_alloc(Layout *lay, int n_items, int n_primary, Py_ssize_t n_opt) {
    memset(lay, 0, sizeof *lay);
    lay->n_items = n_items;
    lay->n_primary = n_primary;
    lay->n_options = (int)n_opt;
    lay->lead_start = calloc((size_t)n_primary + 2, sizeof(int32_t));
    lay->group_start = malloc(sizeof(int32_t) * ((size_t)n_opt + 1));
    lay->group_far_item = malloc(sizeof(int32_t) * ((size_t)n_opt + 1));
    lay->option_lead = malloc(sizeof(int32_t) * ((size_t)n_opt + 1));
    lay->option_mask = malloc(sizeof(u128) * ((size_t)n_opt + 1));
    lay->option_front = malloc(sizeof(u128) * ((size_t)n_opt + 1));
    lay->option_tail = malloc(sizeof(u128) * ((size_t)n_opt + 1));
    if (!lay->lead_start || !lay->group_start || !lay->group_far_item || !lay->option_lead || !lay->option_mask ||
        !lay->option_front || !lay->option_tail) {
        layout_free(lay);
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* Option k's lead and far item into the groups (runs of options with the same lead and
 * far item; options must come in lead / far order); -1 when the order is broken or an
 * item is out of range (a ValueError set, the layout freed).  *prev: the last lead. */
static int layout_group(Layout *lay, Py_ssize_t k, long lead, long far, int32_t *prev_lead, int32_t *prev_far) {
    if (lead < 0 || lead >= lay->n_primary || far < lead || far >= lay->n_items || lead < *prev_lead ||
        (lead == *prev_lead && far < *prev_far)) {
        layout_free(lay);
        PyErr_Format(PyExc_ValueError, "frontier count: option %zd is not in lead / far order", k);
        return -1;
    }
    if (lead != *prev_lead || far != *prev_far) {
        lay->group_start[lay->n_groups] = (int32_t)k;
        lay->group_far_item[lay->n_groups] = (int32_t)far;
        for (long c = *prev_lead + 1; c <= lead; c++) lay->lead_start[c] = lay->n_groups;
        lay->n_groups++;
        *prev_lead = (int32_t)lead;
        *prev_far = (int32_t)far;
    }
    lay->option_lead[k] = (int32_t)lead;
    return 0;
}

/* The count's result as count() returns it (see there). */
static PyObject *count_result(const Tally *tally, double elapsed, int key_bits) {
    if (tally->status == FR_INTERRUPTED) return NULL; /* a signal handler's exception is set */
    if (tally->status == FR_NOMEM) return PyErr_NoMemory();
    if (tally->status == FR_OVERFLOW) {
        PyErr_SetString(PyExc_OverflowError, "the count passed 2^128");
        return NULL;
    }
    if (tally->status == FR_DECLINED) Py_RETURN_NONE;
    return Py_BuildValue("KKKKKKdi", (unsigned long long)(tally->total >> 64), (unsigned long long)tally->total,
                         (unsigned long long)tally->states, (unsigned long long)tally->leaves,
                         (unsigned long long)tally->transitions, (unsigned long long)tally->updates, elapsed,
                         key_bits);
}

/* Fix the front at n_front items (the rest is the tail): the levels, the groups of the
 * levels past the last lead (none), and, for a cover given by absolute masks, the window
 * terms of its options and of the start `covered`. */
static void set_front(Layout *lay, int n_front, int32_t last_lead, int absolute, u128 covered) {
    lay->n_front = n_front;
    lay->n_levels = lay->n_primary < n_front ? lay->n_primary : n_front;
    for (long c = last_lead + 1; c <= lay->n_levels; c++) lay->lead_start[c] = lay->n_groups;
    if (absolute) window_terms(lay, n_front, covered);
}

/* Count with 64-bit keys and a tail of t64 items when t64 >= 0; else, or when that count
 * passed 2^64, with 128-bit keys and a tail of t128 items.  The key width used. */
static int count_widths(Layout *lay, int t64, int t128, int32_t last_lead, int absolute, u128 covered,
                        Tally *tally) {
    const Tally caps = *tally;
    if (t64 >= 0) {
        set_front(lay, lay->n_items - t64, last_lead, absolute, covered);
        narrow_count(lay, 64 - t64, tally);
        if (tally->status != FR_OVERFLOW) return 64;
    }
    set_front(lay, lay->n_items - t128, last_lead, absolute, covered);
    *tally = caps;
    wide_count(lay, 128 - t128, tally);
    return 128;
}

/*
 * count(n_items, n_primary, leads, far, lo, hi, start_lo, start_hi, max_transitions, max_bytes,
 *       narrow)
 *   -> None (declined: a cap was reached) or
 *      (count >> 64, count & (2^64 - 1), states, leaves, transitions, updates, seconds, key_bits)
 *
 * leads[k]: option k's lead (its lowest primary item); far[k]: its highest item;
 * lo[k] / hi[k]: the low and high 64 bits of its item set.  Options must come grouped by
 * lead and, within a lead, by far item.  start_lo/hi: the items covered at the start
 * (the options of a path), none of them overlapping.  narrow=0 forces 128-bit keys.
 * shifts, src_lo, src_hi, cells_lo, cells_hi, min_piece (optional): the walls — neighbour
 * offsets in item numbers, the cells having a neighbour at each, the cells checked — and
 * the smallest piece's size (2 when the neighbours are not a board's).
 */
static PyObject *frontier_count(PyObject *self, PyObject *args) {
    (void)self;
    int n_items, n_primary, narrow;
    PyObject *leads, *fars, *los, *his, *shifts = NULL, *src_lo = NULL, *src_hi = NULL;
    unsigned long long start_lo, start_hi, max_transitions, max_bytes, cells_lo = 0, cells_hi = 0;
    int min_piece = 2;
    if (!PyArg_ParseTuple(args, "iiO!O!O!O!KKKKp|O!O!O!KKi", &n_items, &n_primary, &PyList_Type, &leads, &PyList_Type,
                          &fars, &PyList_Type, &los, &PyList_Type, &his, &start_lo, &start_hi, &max_transitions,
                          &max_bytes, &narrow, &PyList_Type, &shifts, &PyList_Type, &src_lo, &PyList_Type, &src_hi,
                          &cells_lo, &cells_hi, &min_piece))
        return NULL;
    Py_ssize_t n_shifts = shifts ? PyList_GET_SIZE(shifts) : 0;
    if (shifts && (n_shifts > MAX_SHIFTS || !src_lo || !src_hi || PyList_GET_SIZE(src_lo) != n_shifts ||
                   PyList_GET_SIZE(src_hi) != n_shifts)) {
        PyErr_SetString(PyExc_ValueError, "frontier count: at most 16 neighbour shifts, each with its cells");
        return NULL;
    }
    Py_ssize_t n_opt = PyList_GET_SIZE(leads);
    if (n_items < 1 || n_items > 128 || n_primary < 1 || n_primary > n_items || PyList_GET_SIZE(fars) != n_opt ||
        PyList_GET_SIZE(los) != n_opt || PyList_GET_SIZE(his) != n_opt || n_opt > INT32_MAX - 1) {
        PyErr_SetString(PyExc_ValueError, "frontier count: 1..128 items, and one lead, far item and mask per option");
        return NULL;
    }
    Layout lay;
    if (layout_alloc(&lay, n_items, n_primary, n_opt)) return NULL;
    lay.n_shifts = (int)n_shifts;
    lay.min_piece = min_piece < 2 ? 2 : min_piece;
    lay.cells = ((u128)cells_hi << 64) | (u128)cells_lo;
    for (Py_ssize_t k = 0; k < n_shifts; k++) {
        long d = PyLong_AsLong(PyList_GET_ITEM(shifts, k));
        lay.shift_src[k] = u128_from(src_lo, src_hi, k);
        if (PyErr_Occurred()) {
            layout_free(&lay);
            return NULL;
        }
        if (d == 0 || d <= -n_items || d >= n_items) {
            layout_free(&lay);
            PyErr_Format(PyExc_ValueError, "frontier count: neighbour shift %ld is outside the items", d);
            return NULL;
        }
        lay.shift[k] = (int)d;
    }
    /* groups: runs of options with the same (lead, far item) */
    int32_t prev_lead = -1, prev_far = -1;
    for (Py_ssize_t k = 0; k < n_opt; k++) {
        long lead = PyLong_AsLong(PyList_GET_ITEM(leads, k));
        long far = PyLong_AsLong(PyList_GET_ITEM(fars, k));
        u128 mask = u128_from(los, his, k);
        if (PyErr_Occurred()) {
            layout_free(&lay);
            return NULL;
        }
        if (layout_group(&lay, k, lead, far, &prev_lead, &prev_far)) return NULL;
        if (!((mask >> lead) & 1) || !((mask >> far) & 1) || (lead && (mask & (((u128)1 << lead) - 1))) ||
            (mask >> far >> 1)) {
            layout_free(&lay);
            PyErr_Format(PyExc_ValueError, "frontier count: option %zd's items do not match its lead and far item", k);
            return NULL;
        }
        lay.option_mask[k] = mask;
    }
    lay.group_start[lay.n_groups] = (int32_t)n_opt;

    u128 covered = ((u128)start_hi << 64) | (u128)start_lo;
    u128 all = n_items == 128 ? ~(u128)0 : (((u128)1 << n_items) - 1);
    if (covered & ~all) {
        layout_free(&lay);
        PyErr_SetString(PyExc_ValueError, "frontier count: start state names an item that does not exist");
        return NULL;
    }
    Interrupt interrupt;
    Tally tally = {.max_transitions = max_transitions, .max_bytes = max_bytes, .interrupt = &interrupt};
    int key_bits = 128;
    double started = now_seconds();
    interrupt_release(&interrupt);
    /* a 64-bit window when one fits; else 128-bit keys over every item (no tail) */
    key_bits = count_widths(&lay, narrow ? choose_window(&lay, covered) : -1, 0, prev_lead, 1, covered, &tally);
    interrupt_reacquire(&interrupt);
    double elapsed = now_seconds() - started;
    layout_free(&lay);
    return count_result(&tally, elapsed, key_bits);
}

static int highest_or_minus1(u128 x) { return x ? highest128(x) : -1; }

/*
 * count_window(n_items, n_primary, n_front, leads, fars, front_lo, front_hi, tail_lo, tail_hi,
 *              start_level, start_front_lo, start_front_hi, start_tail_lo, start_tail_hi,
 *              max_transitions, max_bytes, narrow) -> as count()
 *
 * The same count for a cover of ANY number of items whose options fit one window: items
 * below n_front are front items (every lead among them), the t = n_items - n_front others
 * the tail (t <= 127).  Each option comes in window terms (see Layout): its front items
 * other than the lead as bits item - lead - 1 (front_lo/hi), its tail items as bits
 * item - n_front (tail_lo/hi); so does the start.  No walls.  Keys of 64 bits when the
 * front bits used and the tail fit them, else of 128; None (declined) also when they do
 * not fit 128 bits.
 */
static PyObject *frontier_count_window(PyObject *self, PyObject *args) {
    (void)self;
    int n_items, n_primary, n_front, start_level, narrow;
    PyObject *leads, *fars, *front_lo, *front_hi, *tail_lo, *tail_hi;
    unsigned long long sf_lo, sf_hi, st_lo, st_hi, max_transitions, max_bytes;
    if (!PyArg_ParseTuple(args, "iiiO!O!O!O!O!O!iKKKKKKp", &n_items, &n_primary, &n_front, &PyList_Type, &leads,
                          &PyList_Type, &fars, &PyList_Type, &front_lo, &PyList_Type, &front_hi, &PyList_Type,
                          &tail_lo, &PyList_Type, &tail_hi, &start_level, &sf_lo, &sf_hi, &st_lo, &st_hi,
                          &max_transitions, &max_bytes, &narrow))
        return NULL;
    Py_ssize_t n_opt = PyList_GET_SIZE(leads);
    int t = n_items - n_front;
    if (n_items < 1 || n_primary < 1 || n_primary > n_items || n_front < 1 || t < 0 || t > 127 ||
        start_level < 0 || PyList_GET_SIZE(fars) != n_opt || PyList_GET_SIZE(front_lo) != n_opt ||
        PyList_GET_SIZE(front_hi) != n_opt || PyList_GET_SIZE(tail_lo) != n_opt || PyList_GET_SIZE(tail_hi) != n_opt ||
        n_opt > INT32_MAX - 1) {
        PyErr_SetString(PyExc_ValueError,
                        "frontier count_window: a front of 1.. items, a tail of at most 127, one lead, far item, "
                        "front and tail bits per option, a start level of 0 or more");
        return NULL;
    }
    Layout lay;
    if (layout_alloc(&lay, n_items, n_primary, n_opt)) return NULL;
    int32_t prev_lead = -1, prev_far = -1;
    int reach = highest_or_minus1(((u128)sf_hi << 64) | (u128)sf_lo); /* the front bits any key uses */
    for (Py_ssize_t k = 0; k < n_opt; k++) {
        long lead = PyLong_AsLong(PyList_GET_ITEM(leads, k));
        long far = PyLong_AsLong(PyList_GET_ITEM(fars, k));
        u128 front = u128_from(front_lo, front_hi, k), tail = u128_from(tail_lo, tail_hi, k);
        if (PyErr_Occurred()) {
            layout_free(&lay);
            return NULL;
        }
        if (layout_group(&lay, k, lead, far, &prev_lead, &prev_far)) return NULL;
        int far_bit = far < n_front ? (int)(far - lead - 1) : (int)(far - n_front);
        u128 far_set = far < n_front ? front : tail;
        if (lead >= n_front || (t ? tail >> t : tail) != 0 ||
            (far != lead && (far_bit > 127 || !((far_set >> far_bit) & 1))) ||
            (far < n_front ? (tail != 0 || (far == lead ? front != 0 : front >> far_bit >> 1 != 0))
                           : tail >> far_bit >> 1 != 0)) {
            layout_free(&lay);
            PyErr_Format(PyExc_ValueError, "frontier count_window: option %zd's bits do not match its lead and far item", k);
            return NULL;
        }
        int h = highest_or_minus1(front);
        if (h > reach) reach = h;
        lay.option_front[k] = front;
        lay.option_tail[k] = tail;
    }
    lay.group_start[lay.n_groups] = (int32_t)n_opt;
    lay.start_level = start_level;
    lay.start_front = ((u128)sf_hi << 64) | (u128)sf_lo;
    lay.start_tail = ((u128)st_hi << 64) | (u128)st_lo;
    if ((t ? lay.start_tail >> t : lay.start_tail) != 0) {
        layout_free(&lay);
        PyErr_SetString(PyExc_ValueError, "frontier count_window: the start names a tail item that does not exist");
        return NULL;
    }
    /* a key holds F = KEY_BITS - t front bits: every front bit used must be below F */
    if (reach >= 128 - t) {
        layout_free(&lay);
        Py_RETURN_NONE;
    }
    Interrupt interrupt;
    Tally tally = {.max_transitions = max_transitions, .max_bytes = max_bytes, .interrupt = &interrupt};
    int key_bits = 128;
    double started = now_seconds();
    interrupt_release(&interrupt);
    int fits64 = narrow && t <= 63 && reach < 64 - t;
    key_bits = count_widths(&lay, fits64 ? t : -1, t, prev_lead, 0, 0, &tally);
    interrupt_reacquire(&interrupt);
    double elapsed = now_seconds() - started;
    layout_free(&lay);
    return count_result(&tally, elapsed, key_bits);
}

static PyMethodDef frontier_methods[] = {
    {"count", frontier_count, METH_VARARGS, "Count exact covers level by level; see core/frontier.py."},
    {"count_window", frontier_count_window, METH_VARARGS,
     "Count exact covers of any size level by level, in window terms; see core/frontier.py."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef frontier_module = {
    PyModuleDef_HEAD_INIT, "core._frontier",
    "Counting exact covers by dynamic programming over frontier states.", -1, frontier_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__frontier(void) { return PyModule_Create(&frontier_module); }
