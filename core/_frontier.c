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
 *   Items are renumbered by the caller with the primary items first (in the problem's
 *   order) and the secondary ones after; at most 128 items, so a covered set is one
 *   u128.  An option's LEAD is its lowest primary item.
 *   lead_start[c] .. lead_start[c+1]   the groups of options with lead c; a group holds
 *                                      the options of one lead sharing their highest item
 *                                      ("far" item: a piece item in a packing), so one
 *                                      test skips every placement of a used piece
 *   group_far[g], group_start[g]..group_start[g+1]   the group's far item (shifted like
 *                                      the keys) and its options' rests in rest[]
 *   rest[k]                            the option's items above its lead, shifted right
 *                                      by lead + 1 (the lead itself is implied)
 *   pending[c]                         (key, count) pairs sent to level c by lower levels,
 *                                      duplicates included: key = covered set >> (c + 1),
 *                                      count = the paths along which it was reached
 *
 *   Expanding a level: its pairs are scattered into 256 buckets by a hash of the key, and
 *   each bucket is deduplicated in a small open-addressing table that stays in cache
 *   (hashing straight into one big table per level cost a cache miss per transition:
 *   2.5x slower).  Then every distinct state tries its level's options.
 *
 * INVARIANTS
 *   A key of level c has bit j set iff item c + 1 + j is covered; item c is uncovered and
 *   every primary item below c is covered.  The sum of the counts of all pending pairs
 *   plus the solutions counted equals the number of paths from the start state not yet
 *   ended, so the final total is exact.  Counts are u128; passing 2^128 is reported.
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

typedef unsigned __int128 u128;

typedef struct {
    u128 key;
    u128 count;
} Pair;

typedef struct {
    Pair *pairs;
    size_t n, cap;
} Pending;

enum { FR_DONE = 0, FR_DECLINED = 1, FR_NOMEM = 2, FR_OVERFLOW = 3 };

typedef struct {
    /* the problem, flattened */
    int n_primary;
    int32_t *lead_start;  /* per level: range of groups */
    int32_t *group_start; /* per group: range of rest[] */
    u128 *group_far;      /* per group: its far item as a key bit (0: the lead itself) */
    u128 *rest;
    /* the run */
    Pending *pending;
    size_t bytes, max_bytes;
    uint64_t transitions, max_transitions, states, leaves, updates;
    u128 total;
    int status;
} Run;

static inline int ctz128(u128 x) {
    uint64_t lo = (uint64_t)x;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(x >> 64));
}

static inline uint64_t hash_key(u128 k) {
    uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull ^ (uint64_t)(k >> 64) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ull;
    return h ^ (h >> 29);
}

/* Send `count` paths to the state of level c with key `key`. */
static inline void send(Run *r, int c, u128 key, u128 count) {
    Pending *p = &r->pending[c];
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 1024;
        if (r->bytes + (cap - p->cap) * sizeof(Pair) > r->max_bytes) {
            r->status = FR_DECLINED;
            return;
        }
        Pair *grown = realloc(p->pairs, cap * sizeof(Pair));
        if (!grown) {
            r->status = FR_NOMEM;
            return;
        }
        r->bytes += (cap - p->cap) * sizeof(Pair);
        p->pairs = grown;
        p->cap = cap;
    }
    p->pairs[p->n].key = key;
    p->pairs[p->n].count = count;
    p->n++;
}

/* Expand one distinct state of level c reached along `count` paths.  The counters live
 * in locals here (through `r` every increment was a store the compiler could not drop). */
static void expand(Run *r, int c, u128 key, u128 count) {
    const int32_t g_end = r->lead_start[c + 1];
    const int32_t *restrict group_start = r->group_start;
    const u128 *restrict group_far = r->group_far, *restrict rest = r->rest;
    const int n_primary = r->n_primary;
    uint64_t updates = 0, moved = 0, transitions = r->transitions;
    for (int32_t g = r->lead_start[c]; g < g_end; g++) {
        updates++;
        if (key & group_far[g]) continue; /* e.g. the piece is used already */
        for (int32_t k = group_start[g]; k < group_start[g + 1]; k++) {
            updates++;
            u128 m = rest[k];
            if (key & m) continue;
            moved++;
            if (++transitions > r->max_transitions) {
                r->status = FR_DECLINED;
                goto out;
            }
            u128 next = key | m;
            /* the next level: the lowest uncovered item above c (a secondary item or
               past the end once every primary item is covered) */
            int skip = ~next ? ctz128(~next) : 128;
            int c2 = c + 1 + skip;
            if (c2 >= n_primary) {
                u128 before = r->total;
                r->total += count;
                if (r->total < before) {
                    r->status = FR_OVERFLOW;
                    goto out;
                }
                continue;
            }
            send(r, c2, next >> (skip + 1), count);
            if (r->status != FR_DONE) goto out;
        }
    }
out:
    r->states++;
    r->updates += updates;
    r->transitions = transitions;
    if (!moved) r->leaves++;
}

/* Expand level c: deduplicate its pairs bucket by bucket, expanding each state once. */
static void expand_level(Run *r, int c, Pair **scratch, size_t *scratch_cap, Pair **table, size_t *table_cap) {
    Pending *p = &r->pending[c];
    size_t n = p->n;
    if (n > *scratch_cap && r->bytes + (n - *scratch_cap) * sizeof(Pair) > r->max_bytes) {
        r->status = FR_DECLINED;
        return;
    }
    if (n > *scratch_cap) {
        r->bytes += (n - *scratch_cap) * sizeof(Pair);
        Pair *grown = realloc(*scratch, n * sizeof(Pair));
        if (!grown) {
            r->status = FR_NOMEM;
            return;
        }
        *scratch = grown;
        *scratch_cap = n;
    }
    size_t start[257] = {0};
    for (size_t i = 0; i < n; i++) start[(hash_key(p->pairs[i].key) >> 56) + 1]++;
    for (int b = 0; b < 256; b++) start[b + 1] += start[b];
    size_t fill[256];
    memcpy(fill, start, sizeof fill);
    for (size_t i = 0; i < n; i++) (*scratch)[fill[hash_key(p->pairs[i].key) >> 56]++] = p->pairs[i];
    /* the level's own pairs are no longer needed: give their memory back first */
    r->bytes -= p->cap * sizeof(Pair);
    free(p->pairs);
    p->pairs = NULL;
    p->n = p->cap = 0;
    for (int b = 0; b < 256 && r->status == FR_DONE; b++) {
        size_t m = start[b + 1] - start[b], size = 16;
        if (!m) continue;
        while (size < 2 * m) size *= 2;
        if (size > *table_cap) {
            Pair *grown = realloc(*table, size * sizeof(Pair));
            if (!grown) {
                r->status = FR_NOMEM;
                return;
            }
            *table = grown;
            *table_cap = size;
        }
        Pair *t = *table;
        /* count 0 marks a free slot: every pair carries at least one path */
        memset(t, 0, size * sizeof(Pair));
        for (size_t i = start[b]; i < start[b + 1]; i++) {
            Pair *e = &(*scratch)[i];
            size_t slot = (size_t)hash_key(e->key) & (size - 1);
            while (t[slot].count && t[slot].key != e->key) slot = (slot + 1) & (size - 1);
            if (t[slot].count) {
                u128 before = t[slot].count;
                t[slot].count += e->count;
                if (t[slot].count < before) {
                    r->status = FR_OVERFLOW;
                    return;
                }
            } else {
                t[slot] = *e;
            }
        }
        for (size_t slot = 0; slot < size && r->status == FR_DONE; slot++)
            if (t[slot].count) expand(r, c, t[slot].key, t[slot].count);
    }
}

static void run_levels(Run *r, int c0, u128 key0) {
    Pair *scratch = NULL, *table = NULL;
    size_t scratch_cap = 0, table_cap = 0;
    send(r, c0, key0, 1);
    for (int c = c0; c < r->n_primary && r->status == FR_DONE; c++)
        if (r->pending[c].n) expand_level(r, c, &scratch, &scratch_cap, &table, &table_cap);
    free(scratch);
    free(table);
}

static u128 u128_from(PyObject *lo_list, PyObject *hi_list, Py_ssize_t k) {
    unsigned long long lo = PyLong_AsUnsignedLongLong(PyList_GET_ITEM(lo_list, k));
    unsigned long long hi = PyLong_AsUnsignedLongLong(PyList_GET_ITEM(hi_list, k));
    return ((u128)hi << 64) | (u128)lo;
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/*
 * count(n_items, n_primary, leads, far, lo, hi, start_lo, start_hi, max_transitions, max_bytes)
 *   -> None (declined: a cap was reached) or
 *      (count >> 64, count & (2^64 - 1), states, leaves, transitions, updates, seconds)
 *
 * leads[k]: option k's lead (its lowest primary item; items renumbered primary first);
 * far[k]: its highest item; lo[k] / hi[k]: the low and high 64 bits of its item set.
 * Options must come grouped by lead and, within a lead, by far item.  start_lo/hi: the
 * items covered at the start (the options of a path), none of them overlapping.
 */
static PyObject *frontier_count(PyObject *self, PyObject *args) {
    (void)self;
    int n_items, n_primary;
    PyObject *leads, *fars, *los, *his;
    unsigned long long start_lo, start_hi, max_transitions, max_bytes;
    if (!PyArg_ParseTuple(args, "iiO!O!O!O!KKKK", &n_items, &n_primary, &PyList_Type, &leads, &PyList_Type, &fars,
                          &PyList_Type, &los, &PyList_Type, &his, &start_lo, &start_hi, &max_transitions,
                          &max_bytes))
        return NULL;
    Py_ssize_t n_opt = PyList_GET_SIZE(leads);
    if (n_items < 1 || n_items > 128 || n_primary < 1 || n_primary > n_items || PyList_GET_SIZE(fars) != n_opt ||
        PyList_GET_SIZE(los) != n_opt || PyList_GET_SIZE(his) != n_opt) {
        PyErr_SetString(PyExc_ValueError, "frontier count: 1..128 items, and one lead, far item and mask per option");
        return NULL;
    }
    Run r;
    memset(&r, 0, sizeof r);
    r.n_primary = n_primary;
    r.max_bytes = max_bytes;
    r.max_transitions = max_transitions;
    r.lead_start = calloc((size_t)n_primary + 1, sizeof(int32_t));
    r.group_start = malloc(sizeof(int32_t) * ((size_t)n_opt + 1));
    r.group_far = malloc(sizeof(u128) * ((size_t)n_opt + 1));
    r.rest = malloc(sizeof(u128) * ((size_t)n_opt + 1));
    r.pending = calloc((size_t)n_primary + 1, sizeof(Pending));
    if (!r.lead_start || !r.group_start || !r.group_far || !r.rest || !r.pending) goto nomem;

    /* groups: runs of options with the same (lead, far item) */
    int32_t n_groups = 0, prev_lead = -1, prev_far = -1;
    for (Py_ssize_t k = 0; k < n_opt; k++) {
        long lead = PyLong_AsLong(PyList_GET_ITEM(leads, k));
        long far = PyLong_AsLong(PyList_GET_ITEM(fars, k));
        u128 mask = u128_from(los, his, k);
        if (PyErr_Occurred()) goto fail;
        if (lead < 0 || lead >= n_primary || far < lead || far >= n_items || lead < prev_lead ||
            (lead == prev_lead && far < prev_far) || !((mask >> lead) & 1) || !((mask >> far) & 1) ||
            (lead && (mask & (((u128)1 << lead) - 1))) || (far < 127 && (mask >> far >> 1))) {
            PyErr_Format(PyExc_ValueError, "frontier count: option %zd is not in lead / far order", k);
            goto fail;
        }
        if (lead != prev_lead || far != prev_far) {
            r.group_start[n_groups] = (int32_t)k;
            r.group_far[n_groups] = far > lead ? (u128)1 << (far - lead - 1) : 0;
            for (long c = prev_lead + 1; c <= lead; c++) r.lead_start[c] = n_groups;
            n_groups++;
            prev_lead = (int32_t)lead;
            prev_far = (int32_t)far;
        }
        r.rest[k] = mask >> lead >> 1;
    }
    r.group_start[n_groups] = (int32_t)n_opt;
    for (long c = prev_lead + 1; c <= n_primary; c++) r.lead_start[c] = n_groups;

    u128 covered = ((u128)start_hi << 64) | (u128)start_lo;
    u128 all = n_items == 128 ? ~(u128)0 : (((u128)1 << n_items) - 1);
    if (covered & ~all) {
        PyErr_SetString(PyExc_ValueError, "frontier count: start state names an item that does not exist");
        goto fail;
    }
    double started = now_seconds();
    int c0 = ~covered ? ctz128(~covered) : 128;
    Py_BEGIN_ALLOW_THREADS
    if (c0 >= n_primary)
        r.total = 1; /* the start already covers every primary item */
    else
        run_levels(&r, c0, covered >> c0 >> 1);
    Py_END_ALLOW_THREADS
    double elapsed = now_seconds() - started;
    for (int c = 0; c <= n_primary; c++) free(r.pending[c].pairs);

    PyObject *result = NULL;
    if (r.status == FR_NOMEM) {
        PyErr_NoMemory();
    } else if (r.status == FR_OVERFLOW) {
        PyErr_SetString(PyExc_OverflowError, "the count passed 2^128");
    } else if (r.status == FR_DECLINED) {
        result = Py_NewRef(Py_None);
    } else {
        result = Py_BuildValue("KKKKKKd", (unsigned long long)(r.total >> 64), (unsigned long long)r.total,
                               (unsigned long long)r.states, (unsigned long long)r.leaves,
                               (unsigned long long)r.transitions, (unsigned long long)r.updates, elapsed);
    }
    free(r.lead_start);
    free(r.group_start);
    free(r.group_far);
    free(r.rest);
    free(r.pending);
    return result;

nomem:
    PyErr_NoMemory();
fail:
    free(r.lead_start);
    free(r.group_start);
    free(r.group_far);
    free(r.rest);
    free(r.pending);
    return NULL;
}

static PyMethodDef frontier_methods[] = {
    {"count", frontier_count, METH_VARARGS, "Count exact covers level by level; see core/frontier.py."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef frontier_module = {
    PyModuleDef_HEAD_INIT, "core._frontier",
    "Counting exact covers by dynamic programming over frontier states.", -1, frontier_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__frontier(void) { return PyModule_Create(&frontier_module); }
