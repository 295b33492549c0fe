/*
 * _search_common.h — what the C searches (_kernel.c, _bitboard.c, _frontier.c) share:
 * the 128-bit count type, the monotonic clock their time budgets read, the growable
 * int32 buffer their paths, solutions and frontiers are recorded in, and the two
 * conversions of those records into Python objects.
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

/* A record buffer as a list of tuples (paths), or of (path, factors) pairs. */
static inline PyObject *records_to_list(const Buf *b, int with_factors) {
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    for (int64_t k = 0; k < b->n;) {
        int32_t len = b->v[k++];
        PyObject *path = PyTuple_New(len);
        if (!path) { Py_DECREF(out); return NULL; }
        for (int32_t j = 0; j < len; j++) PyTuple_SET_ITEM(path, j, PyLong_FromLong(b->v[k++]));
        PyObject *item = path;
        if (with_factors) {
            PyObject *fac = PyTuple_New(len);
            if (!fac) { Py_DECREF(path); Py_DECREF(out); return NULL; }
            for (int32_t j = 0; j < len; j++) PyTuple_SET_ITEM(fac, j, PyLong_FromLong(b->v[k++]));
            item = PyTuple_Pack(2, path, fac);
            Py_DECREF(path);
            Py_DECREF(fac);
            if (!item) { Py_DECREF(out); return NULL; }
        }
        if (PyList_Append(out, item)) { Py_DECREF(item); Py_DECREF(out); return NULL; }
        Py_DECREF(item);
    }
    return out;
}

#endif
