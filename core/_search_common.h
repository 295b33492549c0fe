/*
 * _search_common.h — what the C searches (_kernel.c, _bitboard.c, _frontier.c) share:
 * the 128-bit count type, the monotonic clock their time budgets read, the growable
 * int32 buffer their paths, solutions and frontiers are recorded in, and the two
 * conversions of those records into Python objects; and the hash of a multi-word key
 * that the crossword counters' tables share.
 *
 * A record buffer holds records one after another: a length L, then L option ids (a
 * path), then, where the record has factors, L branching factors (the weight along it).
 */
#ifndef TILECENSUS_SEARCH_COMMON_H
#define TILECENSUS_SEARCH_COMMON_H

#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* counts: 128 bits, since memoised and weighted counts pass 2^64 */
typedef unsigned __int128 u128;

/* A hash of a key of n 64-bit words (the crossword state tables and reachability memo). */
static inline uint64_t hash_words(const uint64_t *k, int n) {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < n; i++) {
        h ^= k[i] + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
        h *= 0xBF58476D1CE4E5B9ull;
    }
    return h ^ (h >> 31);
}

/* A growable int32 buffer. */
typedef struct { int32_t *v; int64_t n, cap; } Buf;

/* Room for `extra` more values; -1 when out of memory (the buffer is unchanged). */
static inline int buf_reserve(Buf *b, int64_t extra) {
    if (b->n + extra <= b->cap) return 0;
    int64_t cap = b->cap ? b->cap : 1024;
    while (cap < b->n + extra) cap *= 2;
    int32_t *v = realloc(b->v, sizeof(int32_t) * (size_t)cap);
    if (!v) return -1;
    b->v = v;
    b->cap = cap;
    return 0;
}

/* Seconds on the monotonic clock (deadlines; not the time of day). */
static inline double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A 128-bit count as a Python int (a new reference, or NULL with an exception set). */
static inline PyObject *u128_to_long(u128 v) {
    PyObject *hi = PyLong_FromUnsignedLongLong((unsigned long long)(v >> 64));
    PyObject *lo = PyLong_FromUnsignedLongLong((unsigned long long)v);
    PyObject *sixty_four = PyLong_FromLong(64);
    PyObject *shifted = (hi && sixty_four) ? PyNumber_Lshift(hi, sixty_four) : NULL;
    PyObject *out = (shifted && lo) ? PyNumber_Or(shifted, lo) : NULL;
    Py_XDECREF(hi); Py_XDECREF(lo); Py_XDECREF(sixty_four); Py_XDECREF(shifted);
    return out;
}

/* One Python int per distinct value of a record buffer, shared by every tuple that holds
 * it: a frontier handed back 20,000 levels deep holds about 2 x 10^8 option ids, and an
 * int object each (32 bytes) was 6 GB of the 11 GB its conversion took.  Used when the
 * buffer has more entries than distinct values could take (cache off: ints made one by
 * one, as CPython shares only the small ones). */
typedef struct { PyObject **v; int32_t n; } IntCache;

static inline void int_cache_init(IntCache *c, const Buf *b) {
    int32_t top = 0;
    c->v = NULL;
    c->n = 0;
    for (int64_t k = 0; k < b->n; k++) top = b->v[k] > top ? b->v[k] : top;
    if ((int64_t)top + 1 > b->n) return;
    c->v = calloc((size_t)top + 1, sizeof(PyObject *));
    if (c->v) c->n = top + 1;
}

/* A new reference to the int v (NULL with an exception set). */
static inline PyObject *int_cache_get(IntCache *c, int32_t v) {
    if (v < 0 || v >= c->n) return PyLong_FromLong(v);
    if (!c->v[v] && !(c->v[v] = PyLong_FromLong(v))) return NULL;
    return Py_NewRef(c->v[v]);
}

static inline void int_cache_free(IntCache *c) {
    for (int32_t k = 0; k < c->n; k++) Py_XDECREF(c->v[k]);
    free(c->v);
}

/* Values b->v[*k ..] as a tuple of len ints; NULL with an exception set. */
static inline PyObject *record_tuple(const Buf *b, int64_t *k, int32_t len, IntCache *c) {
    PyObject *t = PyTuple_New(len);
    if (!t) return NULL;
    for (int32_t j = 0; j < len; j++) {
        PyObject *x = int_cache_get(c, b->v[(*k)++]);
        if (!x) { Py_DECREF(t); return NULL; }
        PyTuple_SET_ITEM(t, j, x);
    }
    return t;
}

/* A record buffer as a list of tuples (paths), or of (path, factors) pairs. */
static inline PyObject *records_to_list(const Buf *b, int with_factors) {
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    IntCache cache;
    int_cache_init(&cache, b);
    for (int64_t k = 0; k < b->n;) {
        int32_t len = b->v[k++];
        PyObject *item = record_tuple(b, &k, len, &cache);
        if (item && with_factors) {
            PyObject *path = item, *fac = record_tuple(b, &k, len, &cache);
            item = fac ? PyTuple_Pack(2, path, fac) : NULL;
            Py_DECREF(path);
            Py_XDECREF(fac);
        }
        if (!item || PyList_Append(out, item)) {
            Py_XDECREF(item);
            Py_DECREF(out);
            int_cache_free(&cache);
            return NULL;
        }
        Py_DECREF(item);
    }
    int_cache_free(&cache);
    return out;
}

#endif
