/*
 * _frontier.c — counting exact covers by dynamic programming over frontier states
 * ("counting by levels").
 *
 * WHY.  The search kernel (_kernel.c) walks the tree node by node; its memo only helps
 * where equal states happen to recur close together.  For COUNTING, the number of
 * solutions below a node depends on nothing but the set of covered items.  Branch always
 * on the lowest uncovered front item: then every node whose lowest uncovered front item
 * is c — a state of LEVEL c — has all items below c covered, and is described by the
 * covered items above c.  Every transition goes from a level to a strictly higher one, so
 * the levels can be expanded in increasing order, breadth-first: when level c is reached,
 * every path into each of its states is known, and each distinct state is expanded ONCE
 * with the number of paths reaching it.  A 10x10 board of pentominoes in any number is 76
 * million states here, where the search has not finished in an hour.
 *
 * KEYS (window terms; the Python side, core/frontier.py, puts the options in them).  The
 * items split into FRONT items 0 .. L-1 (the levels: an option's LEAD, its lowest item,
 * is one of them; the cells, in a packing) and TAIL items (the rest: the pieces of a
 * packing).  A state of level c is the key
 *     bits 0 .. F-1:      front items c+1 .. c+F (the window)
 *     bits F .. F+t-1:    tail items
 * which holds every covered item: items below c are all covered, and no option reaches
 * more than F items past its lead (F is the widest reach, the "band").  Keys are KW words
 * of 64 bits, KW = 1, 2, 4, 8 or 16 (the narrowest that holds F + t bits, and a position
 * more where there are walls): any width up to 1024 bits.
 *
 * COUNTS.  A count is K RESIDUES: residue j modulo mod[j], a prime below 2^63 (an
 * addition and a conditional subtraction), except residue 0 modulo 2^64 where mod[0] is 0
 * (the machine's own wrapping addition).  The caller picks K from a proven upper bound on the count
 * (2^64 times the primes must pass it) and joins the residues by the Chinese remainder
 * theorem; with EXACT set, K = 1 and a carry out of residue 0 is reported as an overflow
 * (the count is then known to pass 2^64, and is taken again with more residues).
 *
 * RECORDS AND LEVELS.  A record is a key and a count: KW + K words.  pending[c] holds the
 * records sent to level c by lower levels, duplicates included; expanding level c sorts
 * them (one-word keys: LSD radix sort; wider keys: buckets by hash, then a small table
 * per bucket), sums the counts of equal keys, and expands each distinct state once: every
 * option of lead c that misses the key is a move to the level of the child's lowest
 * uncovered front item.  A move covering every front item ends a path: a solution if the
 * primary tail items are all covered too.
 *
 * WALLS (optional, from a board or a hitting set of each item's options: core/frontier.py).
 * Every option over cell x also covers one of x's "neighbours", given as offsets in item
 * numbers (x has a neighbour x + shift[s] iff bit s of its neighbour mask is set).  A move
 * whose child leaves an uncovered cell with every neighbour covered is dropped (and, when
 * every piece has 3+ cells, two uncovered cells each of whose only open neighbour is the
 * other).  In the child's terms, position 0 is its level c2 and position j + 1 its key bit
 * j; items below c2 are covered and items past the window open; the per-level masks
 * src_rel / cells_rel place the board's cells in those positions.
 *
 * THREADS.  T threads count together: thread p owns partition p of every level's states
 * (by a hash of the key), so each distinct state is expanded by one thread; a thread
 * sends a record to list pending[c][owner][p], so no two threads write one list; a
 * barrier between levels makes every record sent to level c arrive before c is expanded.
 *
 * SHARES.  With slices > 1 a count keeps, when it reaches its CUT level m, only the
 * records sent to levels >= m (the paths' first states at or past m: each path from the
 * start has exactly one) whose hash falls in its slice; paths that ended before m are
 * slice 0's.  So the slices of one cut partition the count: each state's paths from above
 * times its count from below, summed over the slice's states.
 *
 * PROBES.  A count given `seconds` or `stop_level` stops at a level boundary past them
 * (status STOPPED) and reports, like any count, the distinct states and the records of
 * every level it expanded: the growth the method choice and `estimate` project from.
 *
 * INVARIANTS.  A key of level c has front bit j set iff item c + 1 + j is covered, and tail
 * bit j iff tail item j is; item c is uncovered and every front item below c is covered.
 * The counts of all pending records plus the solutions counted add up (in each residue)
 * to the paths from the start not yet ended, so the final total is exact modulo every
 * modulus.
 *
 * LIMITS.  A count stops with status DECLINED when the memory it holds would pass
 * max_bytes or its moves max_transitions; the caller then splits the count, searches, or
 * says what it would need.
 *
 * CENSUS.  census() counts, beside the total, the solutions that use each option: a
 * forward pass keeping every level's states, and a backward pass (_frontier_census.h).
 *
 * Designs measured and dropped are listed in core/frontier.py beside the Python side.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "_interrupt.h"
#include "_search_common.h"

/* statuses, the worst of the threads' wins (in this order) */
enum { FR_DONE = 0, FR_STOPPED = 1, FR_OVERFLOW = 2, FR_DECLINED = 3, FR_NOTHREAD = 4, FR_INTERRUPTED = 5 };

/* residues of one count at most (4096 x 63 bits: counts of 258,000 bits; the caller
   takes more in groups) */
#define MAX_RESIDUES 4096
/* key words at most (1024 bits of front and tail) */
#define MAX_KEY_WORDS 16
/* neighbour offsets at most for the walls (a 3D box has 6) */
#define MAX_SHIFTS 16
/* states between two looks at the stop flags (a power of two) */
#define STOP_EVERY 4096u
/* the records of a level from which its threads are worth their barriers (see thread_main;
   the default of Count.threads_from: the tests set it low, so small counts run threaded) */
#define THREADS_FROM 32768u

/* A growable array of records (KW + K words each). */
typedef struct {
    uint64_t *v;
    size_t n, cap; /* in records */
} List;

/* The problem, flattened once (see KEYS and WALLS above). */
typedef struct {
    PyObject_HEAD
    int n_levels, n_tail, F, KW, n_options, n_groups;
    int32_t *lead_start;    /* [L + 1]: the groups of lead c are lead_start[c] .. lead_start[c+1] */
    int32_t *group_start;   /* [n_groups + 1]: a group's options (same lead and far item) */
    int32_t *group_far_bit; /* [n_groups]: its far item's key bit, -1 when it is the lead */
    int32_t *split;         /* [L]: the groups of lead c from split[c] on have a tail far item ... */
    uint64_t *tail_far;     /* [L * KW]: ... whose key bits are these ... */
    int32_t *group_of_tail; /* [L * n_tail]: ... and group_of_tail[c * n_tail + bit - F] is that group */
    uint64_t *rest;         /* [n_options * KW]: an option's items other than its lead, as key bits */
    int32_t *row;           /* [n_options]: each option's index among the options given (the plan sorts them) */
    uint64_t tail_need[MAX_KEY_WORDS]; /* the primary tail items, as key bits */
    /* walls */
    int n_shifts, min_piece;
    int shift[MAX_SHIFTS];
    uint64_t pos_mask[MAX_KEY_WORDS];  /* positions 0 .. F */
    uint64_t *beyond;   /* [n_shifts * KW]: positions whose neighbour at shift s is past the window */
    uint64_t *src_rel;  /* [L * n_shifts * KW]: positions c2 + j that are cells with a neighbour at s */
    uint64_t *cells_rel; /* [L * KW]: positions c2 + j that are cells */
} Plan;

/* One count: what it may do, what threads share while it runs, and what it found. */
typedef struct {
    /* asked */
    int K, exact, threads;
    const uint64_t *mod;
    int start_level;
    uint64_t start_key[MAX_KEY_WORDS];
    int cut_level, slices, slice;
    uint64_t threads_from; /* the records of the first level counted on every thread */
    size_t max_bytes;
    uint64_t max_transitions;
    double deadline, hard_deadline; /* monotonic seconds; < 0: none */
    int stop_level;  /* < 0: none */
    Interrupt *interrupt;
    /* shared while it runs (each flag only ever set, never cleared) */
    volatile int abort, interrupted, stopped, nomem, declined;
    int cut_applied; /* the slices were taken (at the cut, or at the start past it) */
    size_t bytes, peak_bytes;
    /* found */
    int status, levels_done;
    uint64_t total[MAX_RESIDUES];
    uint64_t states, leaves, transitions, updates, left_pairs;
    uint64_t *level_states, *level_pairs; /* [L] */
    double *level_clock;                  /* [L]: seconds from the start to the end of level c */
    double started;
} Count;

static inline void atomic_add(uint64_t *at, uint64_t n) { __atomic_fetch_add(at, n, __ATOMIC_RELAXED); }

/* A thread's reason to stop: its status, and every other thread told. */
static inline void fail(Count *o, int *status, int why) {
    *status = why;
    o->abort = 1;
}

/* Take n bytes from the count's allowance; 0 (and the count declined) when it is spent. */
static inline int mem_take(Count *o, size_t n) {
    size_t now = __atomic_add_fetch(&o->bytes, n, __ATOMIC_RELAXED);
    if (now > o->max_bytes) {
        __atomic_sub_fetch(&o->bytes, n, __ATOMIC_RELAXED);
        o->declined = 1;
        o->abort = 1;
        return 0;
    }
    size_t peak = __atomic_load_n(&o->peak_bytes, __ATOMIC_RELAXED);
    while (now > peak && !__atomic_compare_exchange_n(&o->peak_bytes, &peak, now, 1, __ATOMIC_RELAXED,
                                                      __ATOMIC_RELAXED)) {
    }
    return 1;
}

static inline void mem_give(Count *o, size_t n) { __atomic_sub_fetch(&o->bytes, n, __ATOMIC_RELAXED); }

/* Within a level, every STOP_EVERY states: should this thread stop?  The caller's thread
 * (``other`` 0) hears signals, and ends a probe that outruns its hard deadline. */
static inline int poll_stop(Count *o, int other) {
    if (!other) {
        if (o->interrupt && interrupt_check(o->interrupt)) {
            o->interrupted = 1;
            o->abort = 1;
        } else if (o->hard_deadline >= 0 && now_seconds() > o->hard_deadline) {
            o->stopped = 1;
            o->abort = 1;
        }
    }
    return o->abort;
}

/* At the start of level c: does thread p see a reason to stop here (a probe's deadline
 * or last level: thread 0 decides; anyone may have aborted)? */
static inline int level_stop(Count *o, int p, int c) {
    if (o->abort) return 1;
    if (p == 0 && ((o->stop_level >= 0 && c >= o->stop_level) || (o->deadline >= 0 && now_seconds() > o->deadline))) {
        o->stopped = 1;
        return 1;
    }
    return 0;
}

/* The slice of a record of level c (a hash independent of the threads' partition). */
static inline int slice_of(uint64_t hash, int c, int slices) {
    uint64_t h = (hash ^ ((uint64_t)(c + 1) * 0xC2B2AE3D27D4EB4Full)) * 0x94D049BB133111EBull;
    h ^= h >> 31;
    return (int)(((u128)h * (u128)slices) >> 64);
}

/* A barrier that also tells every thread whether any of them asked to stop. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int n, waiting, generation, flag, result, made;
} Barrier;

static int barrier_init(Barrier *b, int n) {
    memset(b, 0, sizeof *b);
    b->n = n;
    if (n == 1) return 0;
    if (pthread_mutex_init(&b->lock, NULL)) return -1;
    if (pthread_cond_init(&b->wake, NULL)) {
        pthread_mutex_destroy(&b->lock);
        return -1;
    }
    b->made = 1;
    return 0;
}

/* Fewer threads than planned came: the barrier waits for the ones there are. */
static void barrier_shrink(Barrier *b, int missing) {
    if (!b->made) return;
    pthread_mutex_lock(&b->lock);
    b->n -= missing;
    pthread_mutex_unlock(&b->lock);
}

static void barrier_destroy(Barrier *b) {
    if (!b->made) return; /* a one-thread barrier made no lock */
    pthread_cond_destroy(&b->wake);
    pthread_mutex_destroy(&b->lock);
}

/* Wait for every thread; 1 when any of them passed flag = 1. */
static int barrier_wait(Barrier *b, int flag) {
    if (!b->made || b->n == 1) return flag;
    pthread_mutex_lock(&b->lock);
    b->flag |= flag;
    int generation = b->generation;
    if (++b->waiting == b->n) {
        b->result = b->flag;
        b->flag = 0;
        b->waiting = 0;
        b->generation++;
        pthread_cond_broadcast(&b->wake);
    } else {
        while (generation == b->generation) pthread_cond_wait(&b->wake, &b->lock);
    }
    int result = b->result;
    pthread_mutex_unlock(&b->lock);
    return result;
}

/* The key masks of a plan's window: the F front bits, and the tail bits past them. */
static void window_masks(const Plan *pl, uint64_t *front, uint64_t *tail) {
    for (int i = 0; i < pl->KW; i++) {
        int lo = 64 * i, hi = lo + 64;
        uint64_t f = pl->F >= hi ? ~0ull : pl->F <= lo ? 0 : (1ull << (pl->F - lo)) - 1;
        int tail_end = pl->F + pl->n_tail;
        uint64_t upto = tail_end >= hi ? ~0ull : tail_end <= lo ? 0 : (1ull << (tail_end - lo)) - 1;
        front[i] = f;
        tail[i] = upto & ~f;
    }
}

/* A census (see _frontier_census.h): what it may use, what it keeps, what it found. */
typedef struct {
    uint64_t *v;
    size_t n, cap; /* in records */
} CensusList;

typedef struct {
    uint64_t *keys;          /* n keys of KW words, distinct */
    u128 *forward;           /* the paths from the start reaching each state */
    u128 *backward;          /* the paths from each state to the end */
    uint32_t *n_moves;       /* each state's transitions, in order from first_transition */
    size_t n, first_transition;
} CensusLevel;

typedef struct {
    int start_level;
    uint64_t start_key[MAX_KEY_WORDS];
    size_t max_bytes, bytes, peak_bytes;
    Interrupt *interrupt;
    CensusList *pending;  /* [L]: the records sent to each level, not yet gathered */
    CensusLevel *levels;  /* [L]: each level's states, kept */
    int status;
    u128 total;
    u128 *census;         /* [n_options]: by the caller's option index (Plan.row) */
    /* the transitions, level by level, state by state: the option (the caller's index),
       the child's level (n_levels: the move ends a path) and its index there */
    int32_t *t_row, *t_level;
    uint32_t *t_child;
    uint64_t states, transitions, updates;
} Census;

/* Take n bytes from the census's allowance; 0 (status DECLINED) when it is spent. */
static int census_take(Census *o, size_t n) {
    if (o->bytes + n > o->max_bytes) {
        o->status = FR_DECLINED;
        return 0;
    }
    o->bytes += n;
    if (o->bytes > o->peak_bytes) o->peak_bytes = o->bytes;
    return 1;
}

static void census_give(Census *o, size_t n) { o->bytes -= n; }

/* Room for `need` transitions in the three arrays (*cap of each now); 0 (status
 * DECLINED) when there is none. */
static int transitions_room(Census *o, size_t *cap, size_t need) {
    size_t want = *cap ? 2 * *cap : 4096;
    while (want < need) want *= 2;
    size_t each = 2 * sizeof(int32_t) + sizeof(uint32_t);
    if (!census_take(o, (want - *cap) * each)) return 0;
    int32_t *row = realloc(o->t_row, want * sizeof(int32_t));
    if (row) o->t_row = row;
    int32_t *level = row ? realloc(o->t_level, want * sizeof(int32_t)) : NULL;
    if (level) o->t_level = level;
    uint32_t *child = level ? realloc(o->t_child, want * sizeof(uint32_t)) : NULL;
    if (!child) {
        o->status = FR_DECLINED;
        return 0;
    }
    o->t_child = child;
    *cap = want;
    return 1;
}

/* the template: one instantiation per key width, counts of one residue or of K; and the
   census for each width */
#define KW 1
#define KC 1
#include "_frontier_levels.h"
#undef KC
#define KC 0
#include "_frontier_levels.h"
#undef KC
#include "_frontier_census.h"
#undef KW

#define KW 2
#define KC 1
#include "_frontier_levels.h"
#undef KC
#define KC 0
#include "_frontier_levels.h"
#undef KC
#include "_frontier_census.h"
#undef KW

#define KW 4
#define KC 0
#include "_frontier_levels.h"
#undef KC
#include "_frontier_census.h"
#undef KW

#define KW 8
#define KC 0
#include "_frontier_levels.h"
#undef KC
#include "_frontier_census.h"
#undef KW

#define KW 16
#define KC 0
#include "_frontier_levels.h"
#undef KC
#include "_frontier_census.h"
#undef KW

/* ------------------------------------------------------------------ the Plan type */

static void plan_dealloc(Plan *pl) {
    free(pl->lead_start);
    free(pl->group_start);
    free(pl->group_far_bit);
    free(pl->split);
    free(pl->tail_far);
    free(pl->group_of_tail);
    free(pl->rest);
    free(pl->row);
    free(pl->beyond);
    free(pl->src_rel);
    free(pl->cells_rel);
    Py_TYPE(pl)->tp_free((PyObject *)pl);
}

static int bit_of(const uint64_t *k, int b) { return (int)((k[b >> 6] >> (b & 63)) & 1); }
static void set_bit(uint64_t *k, int b) { k[b >> 6] |= 1ull << (b & 63); }

/* A buffer argument as a read-only byte span of exactly `size` bytes; -1 (ValueError set)
 * otherwise. */
static int span_of(Py_buffer *view, Py_ssize_t size, const char *what) {
    if (view->len != size) {
        PyErr_Format(PyExc_ValueError, "frontier plan: %s has %zd bytes, not %zd", what, view->len, size);
        return -1;
    }
    return 0;
}

/* An option in window terms, while a plan is built: its lead, its far bit, its index. */
typedef struct {
    int32_t lead, far_bit, k;
} Entry;

static int entry_order(const void *a, const void *b) {
    const Entry *x = a, *y = b;
    if (x->lead != y->lead) return x->lead < y->lead ? -1 : 1;
    if (x->far_bit != y->far_bit) return x->far_bit < y->far_bit ? -1 : 1;
    return (x->k > y->k) - (x->k < y->k);
}

/*
 * Plan(n_levels, n_tail, F, key_words, n_primary, option_start, option_items, walls)
 *
 * The options as flat item lists (option_start: int32 per option and one past the last;
 * option_items: int32 item ids), put in window terms here: an option's lead is its lowest
 * item (options without a primary item are left out), its other items are key bits (item
 * - lead - 1 below n_levels, F + item - n_levels past it), its far bit the highest;
 * grouped by (lead, far bit).  walls: None or (shifts, neighbour masks: uint16 per front
 * item, cells: uint8 per front item, smallest piece).
 */
static int plan_init(Plan *pl, PyObject *args, PyObject *kwds) {
    (void)kwds;
    int L, t, F, KW, n_primary;
    Py_buffer starts = {0}, items = {0};
    PyObject *walls;
    if (!PyArg_ParseTuple(args, "iiiiiy*y*O", &L, &t, &F, &KW, &n_primary, &starts, &items, &walls)) return -1;
    int ok = -1;
    Py_buffer nb = {0}, cells = {0};
    Entry *entries = NULL;
    uint64_t *masks = NULL;
    if (L < 1 || t < 0 || F < 1 || (KW != 1 && KW != 2 && KW != 4 && KW != 8 && KW != 16) || F + t > 64 * KW ||
        n_primary < 1 || n_primary > L + t) {
        PyErr_SetString(PyExc_ValueError, "frontier plan: 1.. levels, a window of 1.. bits, key words 1, 2, 4, 8 or 16 "
                                          "holding the window and the tail, 1.. primary items");
        goto out;
    }
    Py_ssize_t n_all = starts.len / 4 - 1;
    const int32_t *start = starts.buf, *item = items.buf;
    if (starts.len % 4 || n_all < 0 || items.len % 4 || start[0] != 0 || start[n_all] != items.len / 4 ||
        n_all > INT32_MAX - 1) {
        PyErr_SetString(PyExc_ValueError, "frontier plan: option_start holds each option's first item and one past "
                                          "the last");
        goto out;
    }
    entries = malloc(sizeof(Entry) * ((size_t)n_all + 1));
    masks = calloc((size_t)n_all * KW + 1, sizeof(uint64_t));
    if (!entries || !masks) {
        PyErr_NoMemory();
        goto out;
    }
    Py_ssize_t n = 0;
    for (Py_ssize_t k = 0; k < n_all; k++) {
        int32_t lo = start[k], hi = start[k + 1];
        if (hi < lo || lo < 0) {
            PyErr_Format(PyExc_ValueError, "frontier plan: option %zd's items run backwards", k);
            goto out;
        }
        int32_t lead = INT32_MAX;
        for (int32_t j = lo; j < hi; j++) lead = item[j] < lead ? item[j] : lead;
        if (lo == hi || lead >= n_primary) continue; /* no primary item: never chosen */
        if (lead < 0 || lead >= L) {
            PyErr_Format(PyExc_ValueError, "frontier plan: option %zd's lead is not a level", k);
            goto out;
        }
        uint64_t *m = masks + (size_t)n * KW;
        int32_t far = -1;
        for (int32_t j = lo; j < hi; j++) {
            int32_t i = item[j];
            if (i == lead) continue;
            int32_t b = i < L ? i - lead - 1 : F + i - L;
            if (i >= L + t || (i < L && b >= F) || bit_of(m, b)) {
                PyErr_Format(PyExc_ValueError, "frontier plan: option %zd reaches past the window, or names an item "
                                               "twice or one that does not exist", k);
                goto out;
            }
            set_bit(m, b);
            far = b > far ? b : far;
        }
        entries[n].lead = lead;
        entries[n].far_bit = far;
        entries[n].k = (int32_t)n;
        n++;
    }
    qsort(entries, (size_t)n, sizeof(Entry), entry_order);
    pl->n_levels = L;
    pl->n_tail = t;
    pl->F = F;
    pl->KW = KW;
    pl->n_options = (int)n;
    pl->lead_start = calloc((size_t)L + 2, sizeof(int32_t));
    pl->group_start = malloc(sizeof(int32_t) * ((size_t)n + 1));
    pl->group_far_bit = malloc(sizeof(int32_t) * ((size_t)n + 1));
    pl->split = calloc((size_t)L + 1, sizeof(int32_t));
    pl->tail_far = calloc((size_t)L * KW + 1, sizeof(uint64_t));
    pl->group_of_tail = t ? malloc(sizeof(int32_t) * (size_t)L * (size_t)t) : NULL;
    pl->rest = malloc(sizeof(uint64_t) * ((size_t)n * KW + 1));
    pl->row = malloc(sizeof(int32_t) * ((size_t)n + 1));
    if (!pl->lead_start || !pl->group_start || !pl->group_far_bit || !pl->split || !pl->tail_far ||
        (t && !pl->group_of_tail) || !pl->rest || !pl->row) {
        PyErr_NoMemory();
        goto out;
    }
    for (int i = L; i < n_primary; i++) set_bit(pl->tail_need, F + i - L);
    int32_t prev_lead = -1, prev_far = -2;
    for (Py_ssize_t e = 0; e < n; e++) {
        int32_t c = entries[e].lead, b = entries[e].far_bit;
        memcpy(pl->rest + (size_t)e * KW, masks + (size_t)entries[e].k * KW, sizeof(uint64_t) * (size_t)KW);
        pl->row[e] = entries[e].k;
        if (c != prev_lead || b != prev_far) {
            pl->group_start[pl->n_groups] = (int32_t)e;
            pl->group_far_bit[pl->n_groups] = b;
            for (int32_t x = prev_lead + 1; x <= c; x++) pl->lead_start[x] = pl->n_groups;
            pl->n_groups++;
            prev_lead = c;
            prev_far = b;
        }
    }
    pl->group_start[pl->n_groups] = (int32_t)n;
    for (int32_t x = prev_lead + 1; x <= L; x++) pl->lead_start[x] = pl->n_groups;
    for (int c = 0; c < L; c++) { /* groups come by far bit: the tail ones last */
        int32_t g = pl->lead_start[c];
        while (g < pl->lead_start[c + 1] && pl->group_far_bit[g] < F) g++;
        pl->split[c] = g;
        for (; g < pl->lead_start[c + 1]; g++) {
            int b = pl->group_far_bit[g];
            set_bit(pl->tail_far + (size_t)c * KW, b);
            pl->group_of_tail[(size_t)c * t + (size_t)(b - F)] = g;
        }
    }
    if (walls != Py_None) {
        PyObject *shifts;
        int min_piece;
        if (!PyArg_ParseTuple(walls, "O!y*y*i", &PyList_Type, &shifts, &nb, &cells, &min_piece)) goto out;
        Py_ssize_t S = PyList_GET_SIZE(shifts);
        if (S < 1 || S > MAX_SHIFTS || F + 1 > 64 * KW || span_of(&nb, 2 * (Py_ssize_t)L, "neighbour masks") ||
            span_of(&cells, L, "cells")) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "frontier plan: 1..16 neighbour shifts and a position past the window");
            goto out;
        }
        pl->n_shifts = (int)S;
        pl->min_piece = min_piece < 2 ? 2 : min_piece;
        for (Py_ssize_t s = 0; s < S; s++) {
            long d = PyLong_AsLong(PyList_GET_ITEM(shifts, s));
            if (PyErr_Occurred()) goto out;
            if (d == 0 || d <= -64 * KW || d >= 64 * KW) {
                PyErr_Format(PyExc_ValueError, "frontier plan: neighbour shift %ld is outside the key", d);
                goto out;
            }
            pl->shift[s] = (int)d;
        }
        for (int j = 0; j <= F; j++) set_bit(pl->pos_mask, j);
        pl->beyond = calloc((size_t)S * KW, sizeof(uint64_t));
        pl->src_rel = calloc((size_t)L * S * KW, sizeof(uint64_t));
        pl->cells_rel = calloc((size_t)L * KW, sizeof(uint64_t));
        if (!pl->beyond || !pl->src_rel || !pl->cells_rel) {
            PyErr_NoMemory();
            goto out;
        }
        const uint16_t *mask = nb.buf;
        const uint8_t *cell = cells.buf;
        for (int s = 0; s < S; s++)
            for (int j = 0; j <= F; j++)
                if (pl->shift[s] > 0 && j + pl->shift[s] > F) set_bit(pl->beyond + (size_t)s * KW, j);
        for (int c = 0; c < L; c++)
            for (int j = 0; j <= F && c + j < L; j++) {
                if (!cell[c + j]) continue;
                set_bit(pl->cells_rel + (size_t)c * KW, j);
                for (int s = 0; s < S; s++)
                    if ((mask[c + j] >> s) & 1) set_bit(pl->src_rel + ((size_t)c * S + s) * KW, j);
            }
    }
    ok = 0;
out:
    free(entries);
    free(masks);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&items);
    if (nb.obj) PyBuffer_Release(&nb);
    if (cells.obj) PyBuffer_Release(&cells);
    return ok;
}

static PyObject *plan_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    (void)args;
    (void)kwds;
    Plan *pl = (Plan *)type->tp_alloc(type, 0);
    return (PyObject *)pl; /* every field zero until __init__ fills it */
}

static PyObject *plan_get_key_words(Plan *pl, void *closure) {
    (void)closure;
    return PyLong_FromLong(pl->KW);
}

static PyObject *plan_get_bytes(Plan *pl, void *closure) {
    (void)closure;
    size_t L = (size_t)pl->n_levels, KW = (size_t)pl->KW;
    size_t bytes = sizeof(int32_t) * (3 * L + 3 * (size_t)pl->n_options + L * (size_t)pl->n_tail) +
                   sizeof(uint64_t) * (L * KW + (size_t)pl->n_options * KW) +
                   (pl->n_shifts ? sizeof(uint64_t) * (L * (size_t)pl->n_shifts * KW + L * KW) : 0);
    return PyLong_FromSize_t(bytes);
}

static PyGetSetDef plan_getset[] = {
    {"key_words", (getter)plan_get_key_words, NULL, "64-bit words of a state's key", NULL},
    {"nbytes", (getter)plan_get_bytes, NULL, "bytes the plan's tables take", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject PlanType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "core._frontier.Plan",
    .tp_basicsize = sizeof(Plan),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An exact cover flattened for counting by levels (see core/frontier.py).",
    .tp_new = plan_new,
    .tp_init = (initproc)plan_init,
    .tp_dealloc = (destructor)plan_dealloc,
    .tp_getset = plan_getset,
};

/* ------------------------------------------------------------------ count() */

static void dispatch(const Plan *pl, Count *o) {
    int one = o->K == 1;
    switch (pl->KW) {
    case 1:
        if (one) count_1_1(pl, o);
        else count_1_0(pl, o);
        break;
    case 2:
        if (one) count_2_1(pl, o);
        else count_2_0(pl, o);
        break;
    case 4: count_4_0(pl, o); break;
    case 8: count_8_0(pl, o); break;
    default: count_16_0(pl, o); break;
    }
}

static PyObject *bytes_of(const void *v, size_t n) { return PyBytes_FromStringAndSize(v, (Py_ssize_t)n); }

/*
 * count(plan, start_level, start_key, moduli, exact, threads, threads_from, cut_level, slices,
 *       slice, max_bytes, max_transitions, seconds, stop_level)
 *   -> (status, residues, states, leaves, transitions, updates, seconds, peak_bytes,
 *       levels_done, level_states, level_pairs, left_pairs, level_clock)
 *
 * start_key: key_words uint64 (the start's covered items above start_level, in key
 * terms); moduli: K uint64, primes below 2^63 (moduli[0] may be 0: 2^64);
 * exact: K = 1 and an overflow past 2^64 is a status; cut_level < 0: no cut; seconds < 0,
 * stop_level < 0: no probe limit; threads_from: the records of the first level counted on
 * every thread (THREADS_FROM by default).  residues, level_states and level_pairs come as
 * bytes of uint64, level_clock (the seconds from the start to each level's end) of double.
 * Statuses: 0 done, 1 stopped (probe), 2 overflow, 3 declined (memory or moves), 4 no
 * thread could be started; an interrupt raises the handler's exception.
 */
static PyObject *frontier_count(PyObject *self, PyObject *args) {
    (void)self;
    Plan *pl;
    int start_level, exact, threads, cut_level, slices, slice, stop_level;
    Py_buffer key = {0}, mods = {0};
    unsigned long long max_bytes, max_transitions, threads_from;
    double seconds;
    if (!PyArg_ParseTuple(args, "O!iy*y*piKiiiKKdi", &PlanType, &pl, &start_level, &key, &mods, &exact, &threads,
                          &threads_from, &cut_level, &slices, &slice, &max_bytes, &max_transitions, &seconds,
                          &stop_level))
        return NULL;
    PyObject *result = NULL;
    Count *o = NULL;
    int L = pl->n_levels;
    Py_ssize_t K = mods.len / 8;
    if (!pl->rest) {
        PyErr_SetString(PyExc_ValueError, "frontier count: the plan was not initialised");
        goto out;
    }
    if (key.len != 8 * pl->KW || mods.len % 8 || K < 1 || K > MAX_RESIDUES || (exact && K != 1) || threads < 1 ||
        threads > 256 || slices < 1 || slice < 0 || slice >= slices || start_level < 0) {
        PyErr_SetString(PyExc_ValueError, "frontier count: a start key of the plan's words, 1..4096 moduli (one when "
                                          "exact), 1..256 threads, a slice among the slices");
        goto out;
    }
    const uint64_t *m = mods.buf;
    for (Py_ssize_t j = 0; j < K; j++)
        if ((j > 0 || m[j]) && (m[j] < 2 || m[j] >> 63 || (exact && j == 0))) {
            PyErr_SetString(PyExc_ValueError, "frontier count: moduli are 0 (2^64, the first only) or below 2^63; "
                                              "an exact count has the one modulus 0");
            goto out;
        }
    o = calloc(1, sizeof(Count));
    if (!o) {
        PyErr_NoMemory();
        goto out;
    }
    o->level_states = calloc((size_t)L, sizeof(uint64_t));
    o->level_pairs = calloc((size_t)L, sizeof(uint64_t));
    o->level_clock = calloc((size_t)L, sizeof(double));
    if (!o->level_states || !o->level_pairs || !o->level_clock) {
        PyErr_NoMemory();
        goto out;
    }
    o->K = (int)K;
    o->exact = exact;
    o->threads = threads;
    o->threads_from = threads_from;
    o->mod = m;
    o->start_level = start_level;
    memcpy(o->start_key, key.buf, (size_t)key.len);
    o->cut_level = slices > 1 ? cut_level : -1;
    o->slices = slices;
    o->slice = slice;
    o->max_bytes = (size_t)max_bytes;
    o->max_transitions = max_transitions;
    o->stop_level = stop_level;
    Interrupt interrupt;
    o->interrupt = &interrupt;
    double started = o->started = now_seconds();
    /* a probe stops at the first level boundary past `seconds`, or within a level past
       half as long again */
    o->deadline = seconds < 0 ? -1.0 : started + seconds;
    o->hard_deadline = seconds < 0 ? -1.0 : started + 1.5 * seconds + 0.05;
    interrupt_release(&interrupt);
    dispatch(pl, o);
    interrupt_reacquire(&interrupt);
    double elapsed = now_seconds() - started;
    if (o->interrupted || interrupt.raised) goto out; /* the handler's exception is set */
    result = Py_BuildValue("(iNKKKKdnKNNKN)", o->status, bytes_of(o->total, 8 * (size_t)K),
                           (unsigned long long)o->states, (unsigned long long)o->leaves,
                           (unsigned long long)o->transitions, (unsigned long long)o->updates, elapsed,
                           (Py_ssize_t)o->peak_bytes, (unsigned long long)o->levels_done,
                           bytes_of(o->level_states, 8 * (size_t)L), bytes_of(o->level_pairs, 8 * (size_t)L),
                           (unsigned long long)o->left_pairs, bytes_of(o->level_clock, sizeof(double) * (size_t)L));
out:
    if (o) {
        free(o->level_states);
        free(o->level_pairs);
        free(o->level_clock);
        free(o);
    }
    PyBuffer_Release(&key);
    PyBuffer_Release(&mods);
    return result;
}

static void census_dispatch(const Plan *pl, Census *o) {
    switch (pl->KW) {
    case 1: run_1_census(pl, o); break;
    case 2: run_2_census(pl, o); break;
    case 4: run_4_census(pl, o); break;
    case 8: run_8_census(pl, o); break;
    default: run_16_census(pl, o); break;
    }
}

/*
 * census(plan, start_level, start_key, max_bytes)
 *   -> (status, total, census, states, transitions, updates, seconds, peak_bytes)
 *
 * The census by levels from the start (see _frontier_census.h).  total: 16 bytes, census:
 * 16 bytes per option given to the plan (by its index there), little-endian.  Statuses:
 * 0 done, 2 overflow (past 2^128), 3 declined (max_bytes); an interrupt raises the
 * handler's exception.
 */
static PyObject *frontier_census(PyObject *self, PyObject *args) {
    (void)self;
    Plan *pl;
    int start_level;
    Py_buffer key = {0};
    unsigned long long max_bytes;
    if (!PyArg_ParseTuple(args, "O!iy*K", &PlanType, &pl, &start_level, &key, &max_bytes)) return NULL;
    PyObject *result = NULL;
    Census o;
    memset(&o, 0, sizeof o);
    int L = pl->n_levels;
    if (!pl->rest || key.len != 8 * pl->KW || start_level < 0) {
        PyErr_SetString(PyExc_ValueError, "frontier census: an initialised plan and a start key of its words");
        PyBuffer_Release(&key);
        return NULL;
    }
    o.start_level = start_level;
    memcpy(o.start_key, key.buf, (size_t)key.len);
    PyBuffer_Release(&key);
    o.max_bytes = (size_t)max_bytes;
    o.pending = calloc((size_t)L + 1, sizeof(CensusList));
    o.levels = calloc((size_t)L + 1, sizeof(CensusLevel));
    o.census = calloc((size_t)pl->n_options + 1, sizeof(u128));
    if (!o.pending || !o.levels || !o.census) {
        PyErr_NoMemory();
        goto out;
    }
    Interrupt interrupt;
    o.interrupt = &interrupt;
    double started = now_seconds();
    interrupt_release(&interrupt);
    census_dispatch(pl, &o);
    interrupt_reacquire(&interrupt);
    double elapsed = now_seconds() - started;
    if (interrupt.raised) goto out; /* the handler's exception is set */
    result = Py_BuildValue("(iNNKKKdn)", o.status, bytes_of(&o.total, sizeof(u128)),
                           bytes_of(o.census, sizeof(u128) * (size_t)pl->n_options), (unsigned long long)o.states,
                           (unsigned long long)o.transitions, (unsigned long long)o.updates, elapsed,
                           (Py_ssize_t)o.peak_bytes);
out:
    if (o.pending)
        for (int c = 0; c <= L; c++) free(o.pending[c].v);
    if (o.levels)
        for (int c = 0; c <= L; c++) {
            free(o.levels[c].keys);
            free(o.levels[c].forward);
            free(o.levels[c].backward);
            free(o.levels[c].n_moves);
        }
    free(o.t_row);
    free(o.t_level);
    free(o.t_child);
    free(o.pending);
    free(o.levels);
    free(o.census);
    return result;
}

static PyMethodDef frontier_methods[] = {
    {"count", frontier_count, METH_VARARGS, "Count exact covers level by level; see core/frontier.py."},
    {"census", frontier_census, METH_VARARGS, "The census of a count by levels: a forward and a backward pass."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef frontier_module = {
    PyModuleDef_HEAD_INIT, "core._frontier",
    "Counting exact covers by dynamic programming over frontier states.", -1, frontier_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__frontier(void) {
    if (PyType_Ready(&PlanType) < 0) return NULL;
    PyObject *m = PyModule_Create(&frontier_module);
    if (!m) return NULL;
    Py_INCREF(&PlanType);
    if (PyModule_AddObject(m, "Plan", (PyObject *)&PlanType) < 0) {
        Py_DECREF(&PlanType);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "MAX_RESIDUES", MAX_RESIDUES);
    PyModule_AddIntConstant(m, "MAX_KEY_WORDS", MAX_KEY_WORDS);
    PyModule_AddIntConstant(m, "MAX_SHIFTS", MAX_SHIFTS);
    PyModule_AddIntConstant(m, "THREADS_FROM", THREADS_FROM);
    return m;
}
