/*
 * _frontier_levels.h — the level count of _frontier.c for one key width and count width.
 *
 * Included once per instantiation with KW (words of a key: 1, 2, 4, 8 or 16) and KC (words
 * of a count: 1, or 0 for a run-time number of residues).  LV(name) makes the names of one
 * instantiation distinct.  See _frontier.c for the algorithm, the key layout, the records
 * and the threads.
 *
 * A record is RW = KW + K words: the key (front bits, then tail bits; see _frontier.c),
 * then the count as K residues (word j modulo mod[j]; mod[0] = 0 stands for 2^64).
 * With KC = 1 the stride is a constant and the compiler unrolls every copy and sum.
 */

#define LV_CAT3(a, b, c) a##_##b##_##c
#define LV_CAT(a, b, c) LV_CAT3(a, b, c)
#define LV(name) LV_CAT(name, KW, KC)

#if KC
#define RW (KW + KC)
#define NK KC
#else
#define RW (r->R)
#define NK (r->K)
#endif

/* ------------------------------------------------------------------ key operations */

static inline int LV(k_isect)(const uint64_t *a, const uint64_t *b) {
    uint64_t x = 0;
    for (int i = 0; i < KW; i++) x |= a[i] & b[i];
    return x != 0;
}

static inline int LV(k_zero)(const uint64_t *a) {
    uint64_t x = 0;
    for (int i = 0; i < KW; i++) x |= a[i];
    return x == 0;
}

static inline int LV(k_eq)(const uint64_t *a, const uint64_t *b) {
    uint64_t x = 0;
    for (int i = 0; i < KW; i++) x |= a[i] ^ b[i];
    return x == 0;
}

/* the lowest set bit of a (a != 0) */
static inline int LV(k_ctz)(const uint64_t *a) {
    for (int i = 0; i < KW - 1; i++)
        if (a[i]) return 64 * i + __builtin_ctzll(a[i]);
    return 64 * (KW - 1) + __builtin_ctzll(a[KW - 1]);
}

/* d = a >> s, 0 <= s < 64 KW */
static inline void LV(k_shr)(uint64_t *d, const uint64_t *a, int s) {
    int q = s >> 6, b = s & 63;
    for (int i = 0; i < KW; i++) {
        uint64_t lo = i + q < KW ? a[i + q] : 0, hi = i + q + 1 < KW ? a[i + q + 1] : 0;
        d[i] = b ? (lo >> b) | (hi << (64 - b)) : lo;
    }
}

/* d = a << s, 0 <= s < 64 KW */
static inline void LV(k_shl)(uint64_t *d, const uint64_t *a, int s) {
    int q = s >> 6, b = s & 63;
    for (int i = KW - 1; i >= 0; i--) {
        uint64_t hi = i - q >= 0 ? a[i - q] : 0, lo = i - q - 1 >= 0 ? a[i - q - 1] : 0;
        d[i] = b ? (hi << b) | (lo >> (64 - b)) : hi;
    }
}

static inline uint64_t LV(k_hash)(const uint64_t *a) {
    uint64_t h = 0;
    for (int i = 0; i < KW; i++) h = (h ^ a[i]) * 0x9E3779B97F4A7C15ull + (uint64_t)i;
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ull;
    return h ^ (h >> 29);
}

/* ------------------------------------------------------------------ the run */

/* One thread's view of a run (thread p owns partition p of every level's states).  Each
 * starts on a cache line of its own and ends with one of padding: the counters a thread
 * bumps on every move would otherwise share a line with the fields the next thread reads
 * on every move (two threads took 1.5x the CPU time of one on a 20x20 domino board). */
typedef struct LV(Thread) {
    _Alignas(64) struct LV(Run) *run;
    int p;
    uint64_t *scratch, *scratch2; /* sorting room, records */
    size_t scratch_cap, scratch2_cap;
    int32_t *table;               /* dedup table (keys of 2+ words), indices into scratch */
    size_t table_cap;
    uint64_t total[MAX_RESIDUES]; /* the solutions this thread counted, residues */
    uint64_t states, leaves, transitions, updates;
    int status;                   /* a reason to stop this thread found (FR_*) */
    int on_main;                  /* its partition is expanded by the caller's thread (it hears signals) */
    char padding[64];
} LV(Thread);

typedef struct LV(Run) {
    const Plan *plan;
    Count *out;
    int K, R, T;
    const uint64_t *mod;  /* mod[j], j >= 1: the primes */
    uint64_t mod0;        /* residue 0's modulus: 0 for 2^64 (the wrapping addition), else a prime */
    int exact;            /* K = 1: residue 0 is the count itself; a carry is an overflow */
    List *pending;        /* [(src * (L + 1) + c) * T + dst]: records sent to level c, partition dst, by
                             thread src (each thread's lists together: no line shared between two writers) */
    uint64_t front[KW], tail[KW]; /* key masks: the F front bits, the tail bits */
    Barrier barrier;
    LV(Thread) *threads;
    pthread_t *ids;       /* the threads started (ids[0] unused: the caller's) */
    int parallel;         /* the threads run: every level behind a barrier */
    int joined, started;  /* the level they joined at; threads running, the caller's counted */
    int missing;          /* a thread could not be started: the count is void */
} LV(Run);

/* Room for `n` records in list `l` (memory counted against the run's cap). */
static int LV(list_room)(LV(Run) *r, List *l, size_t n) {
    if (n <= l->cap) return 1;
    size_t cap = l->cap ? 2 * l->cap : 256;
    while (cap < n) cap *= 2;
    size_t add = (cap - l->cap) * sizeof(uint64_t) * (size_t)RW;
    if (!mem_take(r->out, add)) return 0;
    uint64_t *grown = realloc(l->v, cap * sizeof(uint64_t) * (size_t)RW);
    if (!grown) {
        mem_give(r->out, add);
        r->out->nomem = 1;
        return 0;
    }
    l->v = grown;
    l->cap = cap;
    return 1;
}

static void LV(list_free)(LV(Run) *r, List *l) {
    mem_give(r->out, l->cap * sizeof(uint64_t) * (size_t)RW);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

/* Room for n records in a thread's sorting buffer. */
static int LV(buffer_room)(LV(Run) *r, uint64_t **buf, size_t *cap, size_t n) {
    if (n <= *cap) return 1;
    size_t add = (n - *cap) * sizeof(uint64_t) * (size_t)RW;
    if (!mem_take(r->out, add)) return 0;
    uint64_t *grown = realloc(*buf, n * sizeof(uint64_t) * (size_t)RW);
    if (!grown) {
        mem_give(r->out, add);
        r->out->nomem = 1;
        return 0;
    }
    *buf = grown;
    *cap = n;
    return 1;
}

static inline void LV(copy_rec)(const LV(Run) *r, uint64_t *d, const uint64_t *s) {
    (void)r;
    for (int i = 0; i < RW; i++) d[i] = s[i];
}

/* count a += count b (residues); 0 when an exact count overflows */
static inline int LV(add_count)(const LV(Run) *r, uint64_t *a, const uint64_t *b) {
    uint64_t before = a[0];
    a[0] += b[0];
    if (r->mod0) { /* residue 0 modulo a prime (a group of moduli without 2^64) */
        if (a[0] >= r->mod0) a[0] -= r->mod0;
    } else if (r->exact && a[0] < before) {
        return 0;
    }
    for (int j = 1; j < NK; j++) {
        uint64_t s = a[j] + b[j], p = r->mod[j];
        a[j] = s >= p ? s - p : s;
    }
    return 1;
}

/* The partition (thread) that owns a key. */
static inline int LV(owner)(const LV(Run) *r, const uint64_t *key) {
    if (r->T == 1) return 0;
    return (int)(((u128)LV(k_hash)(key) * (u128)r->T) >> 64);
}

/* The list of records sent to level c, partition dst, by thread src. */
static inline List *LV(list)(const LV(Run) *r, int src, int c, int dst) {
    return &r->pending[((size_t)src * (size_t)(r->plan->n_levels + 1) + (size_t)c) * (size_t)r->T + (size_t)dst];
}

/* Send `count` paths to the state `key` of level c (from thread t). */
static inline int LV(send)(LV(Run) *r, LV(Thread) *t, int c, const uint64_t *key, const uint64_t *count) {
    List *l = LV(list)(r, t->p, c, LV(owner)(r, key));
    if (l->n == l->cap && !LV(list_room)(r, l, l->n + 1)) return 0;
    uint64_t *rec = l->v + l->n * (size_t)RW;
    for (int i = 0; i < KW; i++) rec[i] = key[i];
    for (int j = 0; j < NK; j++) rec[KW + j] = count[j];
    l->n++;
    return 1;
}

/* Would the child state (level c2, key `key`) leave a cell walled in?  Positions: 0 is
 * item c2 (uncovered), j + 1 is key bit j (item c2 + 1 + j); items past the window are
 * open, items below c2 covered.  See _frontier.c, WALLS. */
static inline int LV(walled)(const Plan *pl, int c2, const uint64_t *key) {
    uint64_t open[KW], reached[KW] = {0}, twice[KW] = {0}, here[KW], t[KW];
    const uint64_t *pos = pl->pos_mask, *cells = pl->cells_rel + (size_t)c2 * KW;
    const uint64_t *src = pl->src_rel + (size_t)c2 * pl->n_shifts * KW;
    LV(k_shl)(t, key, 1);
    for (int i = 0; i < KW; i++) open[i] = ~t[i] & pos[i];
    for (int s = 0; s < pl->n_shifts; s++) {
        int d = pl->shift[s];
        if (d > 0) {
            LV(k_shr)(t, open, d);
            for (int i = 0; i < KW; i++) t[i] |= pl->beyond[s * KW + i];
        } else {
            LV(k_shl)(t, open, -d);
        }
        for (int i = 0; i < KW; i++) {
            here[i] = t[i] & src[s * KW + i];
            twice[i] |= reached[i] & here[i];
            reached[i] |= here[i];
        }
    }
    uint64_t dead = 0;
    for (int i = 0; i < KW; i++) {
        open[i] &= cells[i];
        dead |= open[i] & ~reached[i];
    }
    if (dead) return 1; /* a cell no option can cover any more */
    if (pl->min_piece > 2) {
        /* two cells walled in together: each has the other as its only open neighbour */
        uint64_t lone[KW], paired[KW] = {0}, both = 0;
        for (int i = 0; i < KW; i++) lone[i] = open[i] & reached[i] & ~twice[i];
        for (int s = 0; s < pl->n_shifts; s++) {
            int d = pl->shift[s];
            if (d > 0) LV(k_shr)(t, lone, d);
            else LV(k_shl)(t, lone, -d);
            for (int i = 0; i < KW; i++) paired[i] |= t[i] & src[s * KW + i];
        }
        for (int i = 0; i < KW; i++) both |= lone[i] & paired[i];
        if (both) return 1;
    }
    return 0;
}

/* The next group of lead c to try on the state `key`, or -1 when none is left: the groups
 * whose far item is a front item in turn from *front (those whose far item the key covers
 * skipped), then those whose far item is a tail item (a piece) through the key's unused
 * tail bits, one per group (`unused`, each cleared as it is taken: a test per group was a
 * mispredicted branch).  Shared by the count and the census (_frontier_census.h). */
static inline int32_t LV(next_group)(const Plan *pl, int c, const uint64_t *key, uint64_t *unused, int32_t *front,
                                     uint64_t *updates) {
    for (int32_t g_split = pl->split[c]; *front < g_split;) {
        int32_t g = (*front)++;
        ++*updates;
        int32_t b = pl->group_far_bit[g];
        if (b < 0 || !((key[b >> 6] >> (b & 63)) & 1)) return g;
    }
    if (LV(k_zero)(unused)) return -1;
    int b = LV(k_ctz)(unused);
    unused[b >> 6] &= unused[b >> 6] - 1;
    return pl->group_of_tail[(size_t)c * pl->n_tail + (size_t)(b - pl->F)];
}

/* Expand one distinct state of level c, reached along `count` paths (thread t). */
static void LV(expand)(LV(Run) *r, LV(Thread) *t, int c, const uint64_t *key, const uint64_t *count) {
    const Plan *pl = r->plan;
    const int32_t *restrict group_start = pl->group_start;
    const uint64_t *restrict rest = pl->rest;
    const int F = pl->F, L = pl->n_levels;
    uint64_t updates = 0, moved = 0;
    uint64_t unused[KW];
    const uint64_t *tail_far = pl->tail_far + (size_t)c * KW;
    for (int i = 0; i < KW; i++) unused[i] = tail_far[i] & ~key[i];
    int32_t front_g = pl->lead_start[c];
    for (int32_t g; (g = LV(next_group)(pl, c, key, unused, &front_g, &updates)) >= 0;) {
        int32_t k_end = group_start[g + 1];
        for (int32_t k = group_start[g]; k < k_end; k++) {
            updates++;
            const uint64_t *m = rest + (size_t)k * KW;
            if (LV(k_isect)(key, m)) continue;
            moved++;
            if (++t->transitions > r->out->max_transitions) {
                r->out->declined = 1;
                fail(r->out, &t->status, FR_DECLINED);
                goto out;
            }
            uint64_t next[KW], open[KW];
            for (int i = 0; i < KW; i++) {
                next[i] = key[i] | m[i];
                open[i] = ~next[i] & r->front[i];
            }
            /* the next level: the lowest uncovered front item above c (c + 1 + F when the
               whole window is covered: the item just past it is uncovered) */
            int skip = LV(k_zero)(open) ? F : LV(k_ctz)(open);
            int c2 = c + 1 + skip;
            if (c2 >= L) { /* every front item is covered: a solution if the tail is */
                int whole = 1;
                for (int i = 0; i < KW; i++) whole &= (next[i] & pl->tail_need[i]) == pl->tail_need[i];
                if (whole && !LV(add_count)(r, t->total, count)) {
                    fail(r->out, &t->status, FR_OVERFLOW);
                    goto out;
                }
                continue;
            }
            uint64_t moved_front[KW], child[KW];
            for (int i = 0; i < KW; i++) open[i] = next[i] & r->front[i];
            LV(k_shr)(moved_front, open, skip + 1);
            for (int i = 0; i < KW; i++) child[i] = moved_front[i] | (next[i] & r->tail[i]);
            if (pl->n_shifts && LV(walled)(pl, c2, child)) continue;
            if (!LV(send)(r, t, c2, child, count)) {
                fail(r->out, &t->status, FR_DECLINED);
                goto out;
            }
        }
    }
out:
    t->states++;
    t->updates += updates;
    if (!moved) t->leaves++;
}

/* The lists of level c, partition p (one per sender): their records in all. */
static size_t LV(level_size)(LV(Run) *r, int c, int p) {
    size_t n = 0;
    for (int s = 0; s < r->T; s++) n += LV(list)(r, s, c, p)->n;
    return n;
}

static void LV(free_level)(LV(Run) *r, int c, int p) {
    for (int s = 0; s < r->T; s++) LV(list_free)(r, LV(list)(r, s, c, p));
}

#if KW == 1
/* Expand level c, partition p, one-word keys: sort its records (LSD radix, 11-bit digits,
 * skipping the digits no key uses: a packing's keys use about 40 of their 64 bits) and
 * expand each run of equal keys once.  Sequential and branch-free, this beat hash tables
 * by a third on the pentomino boxes.  The first pass reads every sender's list; one
 * thread's records sort between its list and one buffer, several threads' between two
 * buffers. */
static void LV(expand_level)(LV(Run) *r, LV(Thread) *t, int c) {
    size_t n = LV(level_size)(r, c, t->p);
    if (!n) return;
    atomic_add(&r->out->level_pairs[c], n);
    List *only = NULL;
    int senders = 0;
    uint64_t used = 0;
    for (int s = 0; s < r->T; s++) {
        List *l = LV(list)(r, s, c, t->p);
        if (!l->n) continue;
        senders++;
        only = l;
        for (size_t i = 0; i < l->n; i++) used |= l->v[i * RW];
    }
    if (!LV(buffer_room)(r, &t->scratch, &t->scratch_cap, n) ||
        (senders > 1 && !LV(buffer_room)(r, &t->scratch2, &t->scratch2_cap, n))) {
        fail(r->out, &t->status, FR_DECLINED);
        return;
    }
    /* src: where the records are (NULL: still in the senders' lists); dst: where the next
       pass puts them.  One sender: its list and scratch take turns; several: scratch
       and scratch2, the lists freed after the first pass. */
    uint64_t *src = senders > 1 ? NULL : only->v, *dst = t->scratch;
    size_t at[2049];
    if (!used && senders > 1) used = 1; /* every key 0: one pass gathers them all */
    for (int shift = 0; shift < 64; shift += 11) {
        if (!((used >> shift) & 0x7FF)) continue;
        memset(at, 0, sizeof at);
        if (src) {
            for (size_t i = 0; i < n; i++) at[((src[i * RW] >> shift) & 0x7FF) + 1]++;
            for (int d = 0; d < 2048; d++) at[d + 1] += at[d];
            for (size_t i = 0; i < n; i++)
                LV(copy_rec)(r, dst + at[(src[i * RW] >> shift) & 0x7FF]++ * RW, src + i * RW);
            uint64_t *swap = src;
            src = dst;
            dst = swap;
        } else {
            for (int s = 0; s < r->T; s++) {
                const List *l = LV(list)(r, s, c, t->p);
                for (size_t i = 0; i < l->n; i++) at[((l->v[i * RW] >> shift) & 0x7FF) + 1]++;
            }
            for (int d = 0; d < 2048; d++) at[d + 1] += at[d];
            for (int s = 0; s < r->T; s++) {
                const List *l = LV(list)(r, s, c, t->p);
                for (size_t i = 0; i < l->n; i++)
                    LV(copy_rec)(r, dst + at[(l->v[i * RW] >> shift) & 0x7FF]++ * RW, l->v + i * RW);
            }
            LV(free_level)(r, c, t->p);
            src = dst;
            dst = t->scratch2;
        }
    }
    /* expanding sends records to higher levels only: these arrays stay as they are */
    uint64_t sum[MAX_RESIDUES];
    uint64_t distinct = 0;
    for (size_t i = 0; i < n && t->status == FR_DONE;) {
        uint64_t key = src[i * RW];
        for (int j = 0; j < NK; j++) sum[j] = src[i * RW + 1 + j];
        for (i++; i < n && src[i * RW] == key; i++)
            if (!LV(add_count)(r, sum, src + i * RW + 1)) {
                fail(r->out, &t->status, FR_OVERFLOW);
                break;
            }
        if (t->status != FR_DONE) break;
        distinct++;
        LV(expand)(r, t, c, &key, sum);
        if ((t->states & (STOP_EVERY - 1)) == 0 && poll_stop(r->out, !t->on_main)) break;
    }
    atomic_add(&r->out->level_states[c], distinct);
    LV(free_level)(r, c, t->p);
}
#else
/* Expand level c, partition p, keys of 2+ words: scatter its records into 256 buckets by
 * hash, then deduplicate each bucket in a small table of indices that stays in cache,
 * expanding each state once. */
static void LV(expand_level)(LV(Run) *r, LV(Thread) *t, int c) {
    size_t n = LV(level_size)(r, c, t->p);
    if (!n) return;
    atomic_add(&r->out->level_pairs[c], n);
    if (!LV(buffer_room)(r, &t->scratch, &t->scratch_cap, n)) {
        fail(r->out, &t->status, FR_DECLINED);
        return;
    }
    size_t start[257] = {0};
    for (int s = 0; s < r->T; s++) {
        const List *l = LV(list)(r, s, c, t->p);
        for (size_t i = 0; i < l->n; i++) start[(LV(k_hash)(l->v + i * RW) >> 56) + 1]++;
    }
    for (int b = 0; b < 256; b++) start[b + 1] += start[b];
    size_t fill[256];
    memcpy(fill, start, sizeof fill);
    for (int s = 0; s < r->T; s++) {
        const List *l = LV(list)(r, s, c, t->p);
        for (size_t i = 0; i < l->n; i++) {
            const uint64_t *rec = l->v + i * RW;
            LV(copy_rec)(r, t->scratch + fill[LV(k_hash)(rec) >> 56]++ * RW, rec);
        }
    }
    LV(free_level)(r, c, t->p); /* give the level's own memory back first */
    uint64_t distinct = 0;
    for (int b = 0; b < 256 && t->status == FR_DONE; b++) {
        size_t m = start[b + 1] - start[b], size = 16;
        if (!m) continue;
        while (size < 2 * m) size *= 2;
        if (size > t->table_cap) {
            if (!mem_take(r->out, (size - t->table_cap) * sizeof(int32_t))) {
                fail(r->out, &t->status, FR_DECLINED);
                return;
            }
            int32_t *grown = realloc(t->table, size * sizeof(int32_t));
            if (!grown) {
                r->out->nomem = 1;
                fail(r->out, &t->status, FR_DECLINED);
                return;
            }
            t->table = grown;
            t->table_cap = size;
        }
        int32_t *tab = t->table;
        memset(tab, 0xFF, size * sizeof(int32_t)); /* -1: a free slot */
        uint64_t *base = t->scratch + start[b] * RW;
        size_t firsts = 0; /* the first record of each key moves to the front of the bucket */
        for (size_t i = 0; i < m; i++) {
            uint64_t *rec = base + i * RW;
            size_t slot = (size_t)LV(k_hash)(rec) & (size - 1);
            while (tab[slot] >= 0 && !LV(k_eq)(base + (size_t)tab[slot] * RW, rec)) slot = (slot + 1) & (size - 1);
            if (tab[slot] >= 0) {
                if (!LV(add_count)(r, base + (size_t)tab[slot] * RW + KW, rec + KW)) {
                    fail(r->out, &t->status, FR_OVERFLOW);
                    return;
                }
            } else {
                if (firsts != i) LV(copy_rec)(r, base + firsts * RW, rec);
                tab[slot] = (int32_t)firsts++;
            }
        }
        for (size_t i = 0; i < firsts && t->status == FR_DONE; i++) {
            LV(expand)(r, t, c, base + i * RW, base + i * RW + KW);
            if ((t->states & (STOP_EVERY - 1)) == 0 && poll_stop(r->out, !t->on_main)) break;
        }
        distinct += firsts;
    }
    atomic_add(&r->out->level_states[c], distinct);
}
#endif

/* Keep, of the records sent to levels c.. (partition p), those of slice `slice` of
 * `slices` (see _frontier.c, SHARES). */
static void LV(cut)(LV(Run) *r, int c, int p) {
    const Count *o = r->out;
    /* the paths that ended before the cut are share 0's */
    if (o->slice != 0) memset(r->threads[p].total, 0, sizeof r->threads[p].total);
    for (int c2 = c; c2 < r->plan->n_levels; c2++)
        for (int s = 0; s < r->T; s++) {
            List *l = LV(list)(r, s, c2, p);
            size_t kept = 0;
            for (size_t i = 0; i < l->n; i++) {
                const uint64_t *rec = l->v + i * RW;
                if (slice_of(LV(k_hash)(rec), c2, o->slices) != o->slice) continue;
                if (kept != i) LV(copy_rec)(r, l->v + kept * RW, rec);
                kept++;
            }
            l->n = kept;
        }
}

static int LV(start_threads)(LV(Run) *r, int c);

/* The records sent to level c, every partition. */
static size_t LV(level_records)(LV(Run) *r, int c) {
    size_t n = 0;
    for (int p = 0; p < r->T; p++) n += LV(level_size)(r, c, p);
    return n;
}

/* Level c's bookkeeping, once expanded (thread 0). */
static inline void LV(level_done)(LV(Run) *r, int c) {
    if (!r->out->abort) {
        r->out->levels_done = c + 1;
        r->out->level_clock[c] = now_seconds() - r->out->started;
    }
}

/* One thread's count: the levels in order, each partition by its thread, a barrier
 * between levels (every record sent to level c is there once every thread has expanded
 * the levels below c).  Thread 0 starts alone, expanding every partition itself, and
 * starts the others at the first level of o->threads_from records or more: a small count
 * pays no thread and no barrier (an 8x8 domino board on two threads took 5 ms against
 * 0.9 ms on one, in its 64 barriers). */
static void *LV(thread_main)(void *arg) {
    LV(Thread) *t = arg;
    LV(Run) *r = t->run;
    Count *o = r->out;
    const int L = r->plan->n_levels;
    for (int c = t->p == 0 ? o->start_level : r->joined; c < L; c++) {
        if (t->p == 0 && !r->parallel) { /* thread 0 alone (only thread 0 reads or writes
                                              r->parallel: a thread it starts must not see
                                              it unset and start the others again) */
            int failed = 0;
            for (int p = 0; p < r->T; p++) failed |= r->threads[p].status != FR_DONE;
            if (failed || level_stop(o, 0, c)) break;
            if (r->T > 1 && LV(level_records)(r, c) >= o->threads_from && LV(start_threads)(r, c)) {
                r->parallel = 1; /* the others start at this level: join them at its barrier */
            } else {
                if (c == o->cut_level && o->slices > 1 && !o->cut_applied) {
                    for (int p = 0; p < r->T; p++) LV(cut)(r, c, p);
                    o->cut_applied = 1;
                }
                for (int p = 0; p < r->T && !o->abort; p++) LV(expand_level)(r, &r->threads[p], c);
                if (t->status == FR_DONE && o->interrupted) t->status = FR_INTERRUPTED;
                LV(level_done)(r, c);
                continue;
            }
        }
        int stop = barrier_wait(&r->barrier, t->status != FR_DONE || level_stop(o, t->p, c));
        if (stop) break;
        if (c == o->cut_level && o->slices > 1 && !o->cut_applied) {
            LV(cut)(r, c, t->p);
            barrier_wait(&r->barrier, 0);
            if (t->p == 0) o->cut_applied = 1;
        }
        LV(expand_level)(r, t, c);
        if (t->status == FR_DONE && o->interrupted) t->status = FR_INTERRUPTED;
        if (t->p == 0) LV(level_done)(r, c);
    }
    /* every thread leaves at the same barrier: its result is the same for all */
    return NULL;
}

/* Start threads 1 .. T-1 at level c; 0 (none started, the count goes on alone) when the
 * first cannot be. */
static int LV(start_threads)(LV(Run) *r, int c) {
    r->joined = c;
    for (int p = 1; p < r->T; p++) {
        r->threads[p].on_main = 0;
        if (pthread_create(&r->ids[p], NULL, LV(thread_main), &r->threads[p])) {
            r->threads[p].on_main = 1;
            if (p == 1) return 0;
            /* some started: the barrier waits for those there are; the partitions of the
               others are nobody's, so the count is lost: said by its status */
            barrier_shrink(&r->barrier, r->T - p);
            r->missing = 1;
            return 1;
        }
        r->started = p + 1;
    }
    return 1;
}

/* The whole count (see count() in _frontier.c): Count holds the inputs and gets the
 * results. */
static void LV(count)(const Plan *pl, Count *o) {
    LV(Run) r;
    memset(&r, 0, sizeof r);
    r.plan = pl;
    r.out = o;
    r.K = o->K;
    r.R = KW + o->K;
    r.T = o->threads;
    r.mod = o->mod;
    r.mod0 = o->mod[0];
    r.exact = o->exact;
    window_masks(pl, r.front, r.tail);
    const int L = pl->n_levels, T = r.T;
    r.pending = calloc((size_t)(L + 1) * T * T, sizeof(List));
    r.threads = aligned_alloc(64, (size_t)T * sizeof(LV(Thread)));
    if (r.threads) memset(r.threads, 0, (size_t)T * sizeof(LV(Thread)));
    if (!r.pending || !r.threads) {
        o->nomem = 1;
        o->status = FR_DECLINED;
        goto done;
    }
    for (int p = 0; p < T; p++) {
        r.threads[p].run = &r;
        r.threads[p].p = p;
    }
    int c0 = o->start_level;
    if (c0 >= L) { /* the start covers every front item */
        int whole = 1;
        for (int i = 0; i < KW; i++) whole &= (o->start_key[i] & pl->tail_need[i]) == pl->tail_need[i];
        o->total[0] = (uint64_t)(whole && (o->slices == 1 || o->slice == 0));
        for (int j = 1; j < r.K; j++) o->total[j] = o->total[0];
        o->status = FR_DONE;
        goto done;
    }
    uint64_t one[MAX_RESIDUES];
    for (int j = 0; j < r.K; j++) one[j] = 1;
    if (!LV(send)(&r, &r.threads[0], c0, o->start_key, one)) {
        o->status = FR_DECLINED;
        goto done;
    }
    if (o->slices > 1 && o->cut_level <= c0) { /* the start is its own path's first state past the cut */
        LV(cut)(&r, c0, LV(owner)(&r, o->start_key));
        o->cut_applied = 1;
    }
    if (barrier_init(&r.barrier, T)) {
        o->nomem = 1;
        o->status = FR_DECLINED;
        goto done;
    }
    r.ids = T > 1 ? calloc((size_t)T, sizeof(pthread_t)) : NULL;
    if (T > 1 && !r.ids) {
        barrier_destroy(&r.barrier);
        o->nomem = 1;
        o->status = FR_DECLINED;
        goto done;
    }
    for (int p = 0; p < T; p++) r.threads[p].on_main = 1;
    r.started = 1;
    LV(thread_main)(&r.threads[0]);
    for (int p = 1; p < r.started; p++) pthread_join(r.ids[p], NULL);
    free(r.ids);
    barrier_destroy(&r.barrier);
    if (r.missing) {
        o->status = FR_NOTHREAD;
        goto done;
    }
    /* the threads' results: the worst status, the totals summed */
    o->status = FR_DONE;
    for (int p = 0; p < T; p++) {
        LV(Thread) *t = &r.threads[p];
        if (t->status > o->status) o->status = t->status;
        if (p == 0) {
            for (int j = 0; j < r.K; j++) o->total[j] = t->total[j];
        } else if (!LV(add_count)(&r, o->total, t->total) && o->status < FR_OVERFLOW) {
            o->status = FR_OVERFLOW;
        }
        o->states += t->states;
        o->leaves += t->leaves;
        o->transitions += t->transitions;
        o->updates += t->updates;
    }
    if (o->slices > 1 && !o->cut_applied && o->slice != 0) /* no path reached the cut: all slice 0's */
        memset(o->total, 0, sizeof o->total);
    if (o->interrupted && o->status == FR_DONE) o->status = FR_INTERRUPTED;
    if (o->status == FR_DONE && o->stopped) o->status = FR_STOPPED;
    if (o->status == FR_DONE && o->levels_done < L) {
        /* the threads all stopped at a level boundary without a reason: cannot happen */
        o->status = FR_STOPPED;
    }
done:
    if (r.pending)
        for (size_t i = 0; i < (size_t)(L + 1) * r.T * r.T; i++) {
            /* the records still waiting: what the levels not reached would have had */
            if (r.pending[i].n) o->left_pairs += r.pending[i].n;
            LV(list_free)(&r, &r.pending[i]);
        }
    if (r.threads)
        for (int p = 0; p < r.T; p++) {
            LV(Thread) *t = &r.threads[p];
            mem_give(o, (t->scratch_cap + t->scratch2_cap) * sizeof(uint64_t) * (size_t)r.R +
                            t->table_cap * sizeof(int32_t));
            free(t->scratch);
            free(t->scratch2);
            free(t->table);
        }
    free(r.pending);
    free(r.threads);
}

#undef RW
#undef NK
#undef LV
#undef LV_CAT
#undef LV_CAT3
