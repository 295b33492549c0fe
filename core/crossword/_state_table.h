/*
 * _state_table.h — the hash table a crossword transfer count merges its states in.
 *
 * Open addressing with linear probing; a key is a fixed number nw of 64-bit words (the
 * packed state), its value the number of grids that reach it, in 128 bits.
 * Invariant: a stored count is never 0, so a zero count marks an empty slot; the
 * capacity is a power of two and at least twice the number of keys.
 */
#ifndef TILECENSUS_STATE_TABLE_H
#define TILECENSUS_STATE_TABLE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../_interrupt.h"
#include "../_search_common.h"

/* One transition of a count: 1 to stop — past `max_transitions` (< 0: none) with
 * `*stopped` = 1, or, every 4,096 transitions, past `deadline` (< 0: none; `*stopped` = 1)
 * or interrupted (`*error` = -3).  Shared by the row and layer counts' inner loops. */
static inline int count_tick(int64_t *transitions, double deadline, int64_t max_transitions, int *stopped,
                             int *error, Interrupt *it) {
    ++*transitions;
    if ((*transitions & 4095) == 0) {
        if (deadline >= 0 && now_seconds() >= deadline) { *stopped = 1; return 1; }
        if (interrupt_check(it)) { *error = -3; return 1; }
    }
    if (max_transitions >= 0 && *transitions >= max_transitions) { *stopped = 1; return 1; }
    return 0;
}

typedef struct {
    uint64_t *keys; /* cap * nw words */
    u128 *counts;   /* 0: empty slot */
    int64_t cap, n;
    int nw;
} Table;

/* An empty table of `cap` slots (a power of two): 0 ok, -1 out of memory. */
static int table_init(Table *t, int nw, int64_t cap) {
    t->nw = nw;
    t->cap = cap;
    t->n = 0;
    t->keys = malloc(sizeof(uint64_t) * (size_t)(cap * nw));
    t->counts = calloc((size_t)cap, sizeof(u128));
    return (t->keys && t->counts) ? 0 : -1;
}

static void table_free(Table *t) {
    free(t->keys);
    free(t->counts);
    t->keys = NULL;
    t->counts = NULL;
}

/* Add v to the count of key (inserted if new): 0 ok, -1 out of memory, -2 overflow. */
static int table_add(Table *t, const uint64_t *key, u128 v);

static int table_grow(Table *t) {
    Table bigger;
    if (table_init(&bigger, t->nw, t->cap * 2)) { table_free(&bigger); return -1; }
    for (int64_t i = 0; i < t->cap; i++)
        if (t->counts[i]) table_add(&bigger, t->keys + i * t->nw, t->counts[i]);
    table_free(t);
    *t = bigger;
    return 0;
}

static int table_add(Table *t, const uint64_t *key, u128 v) {
    if (2 * (t->n + 1) > t->cap && table_grow(t)) return -1;
    int nw = t->nw;
    uint64_t mask = (uint64_t)t->cap - 1;
    uint64_t i = hash_words(key, nw) & mask;
    for (;; i = (i + 1) & mask) {
        if (!t->counts[i]) {
            memcpy(t->keys + i * nw, key, sizeof(uint64_t) * (size_t)nw);
            t->counts[i] = v;
            t->n++;
            return 0;
        }
        const uint64_t *k = t->keys + i * nw;
        int same = 1;
        for (int w = 0; w < nw && same; w++) same = k[w] == key[w];
        if (same) {
            u128 sum = t->counts[i] + v;
            if (sum < v) return -2;
            t->counts[i] = sum;
            return 0;
        }
    }
}

static void table_clear(Table *t) {
    memset(t->counts, 0, sizeof(u128) * (size_t)t->cap);
    t->n = 0;
}

/* bits set in m (portable: no popcnt instruction assumed) */
static inline int popcount64(uint64_t m) {
    m = m - ((m >> 1) & 0x5555555555555555ull);
    m = (m & 0x3333333333333333ull) + ((m >> 2) & 0x3333333333333333ull);
    m = (m + (m >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (int)((m * 0x0101010101010101ull) >> 56);
}

/* The root of x in a union-find forest (with path halving). */
static inline int uf_find(int *parent, int x) {
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/* The Python result of a count: (count, or None when a budget stopped it; most states in
 * a layer; transitions; seconds), or NULL with the exception set: error -1 out of memory,
 * -2 past 2^128, -3 a signal handler's exception (already set). */
static inline PyObject *count_result(int error, int stopped, u128 total, int64_t states_max, int64_t transitions,
                                     double elapsed) {
    if (error == -1) return PyErr_NoMemory();
    if (error == -2) { PyErr_SetString(PyExc_OverflowError, "the crossword count passes 2^128"); return NULL; }
    if (error == -3) return NULL;
    PyObject *count = stopped ? (Py_INCREF(Py_None), Py_None) : u128_to_long(total);
    if (!count) return NULL;
    return Py_BuildValue("(NLLd)", count, (long long)states_max, (long long)transitions, elapsed);
}

#endif
