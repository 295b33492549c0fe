/*
 * _frontier_levels.h — the level count of _frontier.c for one key width.
 *
 * Included twice by _frontier.c: with KEY = COUNT = uint64_t (narrow: 16-byte pairs, the
 * common case of packings and tilings) and with KEY = COUNT = u128 (wide: any cover of at
 * most 128 items, and the fall back when a narrow count would pass 2^64).  LV(name) makes
 * the names of one width distinct.  See _frontier.c for the algorithm and the key layout.
 */

typedef struct {
    KEY key;
    COUNT count;
} LV(Pair);

typedef struct {
    LV(Pair) *pairs;
    size_t n, cap;
} LV(Pending);

typedef struct {
    const Layout *lay;
    KEY *group_far; /* per group: its far item as a key bit (0: the lead itself) */
    KEY *rest;      /* per option: its items other than the lead, as a key of its level */
    int32_t *split; /* per level: its groups from split[c] on have a tail far item ... */
    KEY *tail_far;  /* ... whose key bits are these (one group per bit) ... */
    int32_t *group_of_bit; /* ... and group_of_bit[c * KEY_BITS + bit] is that group */
    KEY front_mask; /* the F front bits of a key */
    KEY tail_need;  /* the tail bits that must be set in a solution (primary tail items) */
    int F;
    LV(Pending) *pending;
    size_t bytes, max_bytes;
    uint64_t transitions, max_transitions, states, leaves, updates;
    Interrupt *interrupt;
    COUNT total;
    int status;
} LV(Run);

static inline uint64_t LV(hash)(KEY k) {
    uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull;
#if KEY_BITS > 64
    h ^= (uint64_t)(k >> 64) * 0xC2B2AE3D27D4EB4Full;
#endif
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ull;
    return h ^ (h >> 29);
}

static inline int LV(ctz)(KEY x) {
#if KEY_BITS > 64
    uint64_t lo = (uint64_t)x;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(x >> 64));
#else
    return __builtin_ctzll(x);
#endif
}

/* Send `count` paths to the state of level c with key `key`. */
static inline void LV(send)(LV(Run) *r, int c, KEY key, COUNT count) {
    LV(Pending) *p = &r->pending[c];
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 1024;
        if (r->bytes + (cap - p->cap) * sizeof(LV(Pair)) > r->max_bytes) {
            r->status = FR_DECLINED;
            return;
        }
        LV(Pair) *grown = realloc(p->pairs, cap * sizeof(LV(Pair)));
        if (!grown) {
            r->status = FR_NOMEM;
            return;
        }
        r->bytes += (cap - p->cap) * sizeof(LV(Pair));
        p->pairs = grown;
        p->cap = cap;
    }
    p->pairs[p->n].key = key;
    p->pairs[p->n].count = count;
    p->n++;
}

/* Expand one distinct state of level c reached along `count` paths.  The counters live
 * in locals here (through `r` every increment was a store the compiler could not drop). */
static void LV(expand)(LV(Run) *r, int c, KEY key, COUNT count) {
    if ((r->states & (INTERRUPT_EVERY - 1)) == 0 && interrupt_check(r->interrupt)) {
        r->status = FR_INTERRUPTED; /* a signal handler raised: every loop ends */
        return;
    }
    const Layout *lay = r->lay;
    const int32_t *restrict group_start = lay->group_start;
    const KEY *restrict group_far = r->group_far, *restrict rest = r->rest;
    const int n_shifts = lay->n_shifts;
    const KEY front = r->front_mask, tail = ~r->front_mask;
    const int F = r->F, n_levels = lay->n_levels;
    uint64_t updates = 0, moved = 0, transitions = r->transitions;
    /* The groups whose far item is in the tail (a piece) are visited by iterating the
     * bits of the unused ones: testing each far bit was a mispredicted branch per group. */
    KEY unused = r->tail_far[c] & ~key;
    int32_t g = lay->lead_start[c], g_split = r->split[c];
    for (;;) {
        if (g < g_split) {
            updates++;
            if (key & group_far[g]) { /* far item taken */
                g++;
                continue;
            }
        } else if (unused) {
            g = r->group_of_bit[(size_t)c * KEY_BITS + LV(ctz)(unused)];
            unused &= unused - 1;
        } else {
            break;
        }
        int32_t k_end = group_start[g + 1];
        for (int32_t k = group_start[g]; k < k_end; k++) {
            updates++;
            KEY m = rest[k];
            if (key & m) continue;
            moved++;
            if (++transitions > r->max_transitions) {
                r->status = FR_DECLINED;
                goto out;
            }
            KEY next = key | m;
            /* the next level: the lowest uncovered front item above c (F when the whole
               window is covered: the item just past it is uncovered) */
            KEY open = ~next & front;
            int skip = open ? LV(ctz)(open) : F;
            int c2 = c + 1 + skip;
            if (n_shifts && c2 < n_levels) {
                /* the child's uncovered items: none up to c, the window's, the tail's */
                u128 had = ((((u128)1 << c) << 1) - 1) | ((u128)(next & front) << c << 1);
                if (r->F < KEY_BITS) had |= (u128)(next >> r->F) << lay->n_front;
                u128 open = ~had, reached = 0, twice = 0;
                for (int s = 0; s < n_shifts; s++) {
                    int d = lay->shift[s];
                    u128 here = (d > 0 ? open >> d : open << -d) & lay->shift_src[s];
                    twice |= reached & here;
                    reached |= here;
                }
                open &= lay->cells;
                if (open & ~reached) continue; /* a cell walled in: no option can cover it */
                if (lay->min_piece > 2) {
                    /* two cells walled in together: each has the other as its only open
                       neighbour */
                    u128 lone = open & reached & ~twice, paired = 0;
                    for (int s = 0; s < n_shifts; s++) {
                        int d = lay->shift[s];
                        paired |= (d > 0 ? lone >> d : lone << -d) & lay->shift_src[s];
                    }
                    if (lone & paired) continue;
                }
            }
            if (c2 >= n_levels) { /* every front primary item is covered */
                if ((next & r->tail_need) == r->tail_need) {
                    COUNT before = r->total;
                    r->total += count;
                    if (r->total < before) {
                        r->status = FR_OVERFLOW;
                        goto out;
                    }
                }
                continue;
            }
            KEY moved_front = skip + 1 >= F ? 0 : (next & front) >> (skip + 1);
            LV(send)(r, c2, moved_front | (next & tail), count);
            if (r->status != FR_DONE) goto out;
        }
        if (g < g_split) g++;
    }
out:
    r->states++;
    r->updates += updates;
    r->transitions = transitions;
    if (!moved) r->leaves++;
}

/* Room for n pairs in the scratch array (counted against the memory cap); 0 when there
 * is none (the run's status says why). */
static int LV(reserve)(LV(Run) *r, LV(Pair) **scratch, size_t *scratch_cap, size_t n) {
    if (n <= *scratch_cap) return 1;
    if (r->bytes + (n - *scratch_cap) * sizeof(LV(Pair)) > r->max_bytes) {
        r->status = FR_DECLINED;
        return 0;
    }
    LV(Pair) *grown = realloc(*scratch, n * sizeof(LV(Pair)));
    if (!grown) {
        r->status = FR_NOMEM;
        return 0;
    }
    r->bytes += (n - *scratch_cap) * sizeof(LV(Pair));
    *scratch = grown;
    *scratch_cap = n;
    return 1;
}

#if KEY_BITS == 64
/* Expand level c, 64-bit keys: sort its pairs (LSD radix, 11-bit digits, skipping the
 * digits no key uses: a packing's keys use about 40 of their 64 bits) and expand each run
 * of equal keys once.  Sequential and branch-free, this beat the bucketed hash tables
 * below by a third on the pentomino boxes. */
static void LV(expand_level)(LV(Run) *r, int c, LV(Pair) **scratch, size_t *scratch_cap, LV(Pair) **table,
                             size_t *table_cap) {
    (void)table;
    (void)table_cap;
    LV(Pending) *p = &r->pending[c];
    size_t n = p->n;
    if (!LV(reserve)(r, scratch, scratch_cap, n)) return;
    KEY used = 0;
    for (size_t i = 0; i < n; i++) used |= p->pairs[i].key;
    LV(Pair) *src = p->pairs, *dst = *scratch;
    for (int shift = 0; shift < 64; shift += 11) {
        if (!((used >> shift) & 0x7FF)) continue;
        size_t at[2049] = {0};
        for (size_t i = 0; i < n; i++) at[((src[i].key >> shift) & 0x7FF) + 1]++;
        for (int d = 0; d < 2048; d++) at[d + 1] += at[d];
        for (size_t i = 0; i < n; i++) dst[at[(src[i].key >> shift) & 0x7FF]++] = src[i];
        LV(Pair) *swap = src;
        src = dst;
        dst = swap;
    }
    /* expanding sends pairs to higher levels only: this level's arrays stay as they are */
    for (size_t i = 0; i < n && r->status == FR_DONE;) {
        KEY key = src[i].key;
        COUNT count = 0;
        for (; i < n && src[i].key == key; i++) {
            COUNT before = count;
            count += src[i].count;
            if (count < before) {
                r->status = FR_OVERFLOW;
                break;
            }
        }
        if (r->status == FR_DONE) LV(expand)(r, c, key, count);
    }
    r->bytes -= p->cap * sizeof(LV(Pair));
    free(p->pairs);
    p->pairs = NULL;
    p->n = p->cap = 0;
}
#else
/* Expand level c, 128-bit keys: deduplicate its pairs bucket by bucket, expanding each
 * state once. */
static void LV(expand_level)(LV(Run) *r, int c, LV(Pair) **scratch, size_t *scratch_cap, LV(Pair) **table,
                             size_t *table_cap) {
    LV(Pending) *p = &r->pending[c];
    size_t n = p->n;
    if (!LV(reserve)(r, scratch, scratch_cap, n)) return;
    size_t start[257] = {0};
    for (size_t i = 0; i < n; i++) start[(LV(hash)(p->pairs[i].key) >> 56) + 1]++;
    for (int b = 0; b < 256; b++) start[b + 1] += start[b];
    size_t fill[256];
    memcpy(fill, start, sizeof fill);
    for (size_t i = 0; i < n; i++) (*scratch)[fill[LV(hash)(p->pairs[i].key) >> 56]++] = p->pairs[i];
    /* the level's own pairs are no longer needed: give their memory back first */
    r->bytes -= p->cap * sizeof(LV(Pair));
    free(p->pairs);
    p->pairs = NULL;
    p->n = p->cap = 0;
    for (int b = 0; b < 256 && r->status == FR_DONE; b++) {
        size_t m = start[b + 1] - start[b], size = 16;
        if (!m) continue;
        while (size < 2 * m) size *= 2;
        if (size > *table_cap) {
            LV(Pair) *grown = realloc(*table, size * sizeof(LV(Pair)));
            if (!grown) {
                r->status = FR_NOMEM;
                return;
            }
            *table = grown;
            *table_cap = size;
        }
        LV(Pair) *t = *table;
        /* count 0 marks a free slot: every pair carries at least one path */
        memset(t, 0, size * sizeof(LV(Pair)));
        for (size_t i = start[b]; i < start[b + 1]; i++) {
            LV(Pair) *e = &(*scratch)[i];
            size_t slot = (size_t)LV(hash)(e->key) & (size - 1);
            while (t[slot].count && t[slot].key != e->key) slot = (slot + 1) & (size - 1);
            if (t[slot].count) {
                COUNT before = t[slot].count;
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
            if (t[slot].count) LV(expand)(r, c, t[slot].key, t[slot].count);
    }
}
#endif

/* Count from the layout's start state with front window F and tail t = n_items - n_front
 * bits; the layout's options and start must fit (see window_fits). */
static void LV(count)(const Layout *lay, int F, Tally *out) {
    LV(Run) r;
    memset(&r, 0, sizeof r);
    r.lay = lay;
    r.F = F;
    r.max_bytes = out->max_bytes;
    r.max_transitions = out->max_transitions;
    r.interrupt = out->interrupt;
    int n_front = lay->n_front, t = lay->n_items - n_front;
    r.front_mask = F >= KEY_BITS ? ~(KEY)0 : (((KEY)1 << F) - 1);
    for (int i = n_front; i < lay->n_primary; i++) r.tail_need |= (KEY)1 << (F + i - n_front);
    r.group_far = malloc(sizeof(KEY) * ((size_t)lay->n_groups + 1));
    r.rest = malloc(sizeof(KEY) * ((size_t)lay->n_options + 1));
    r.pending = calloc((size_t)lay->n_levels + 1, sizeof(LV(Pending)));
    r.split = malloc(sizeof(int32_t) * ((size_t)lay->n_levels + 1));
    r.tail_far = calloc((size_t)lay->n_levels + 1, sizeof(KEY));
    r.group_of_bit = t ? malloc(sizeof(int32_t) * (size_t)lay->n_levels * KEY_BITS) : NULL;
    if (!r.group_far || !r.rest || !r.pending || !r.split || !r.tail_far || (t && !r.group_of_bit)) {
        r.status = FR_NOMEM;
        goto done;
    }
    /* window terms as a key: the front bits (items above the level), then the tail */
    #define AS_KEY(front, tail) ((KEY)(front) | (t ? (KEY)(tail) << F : 0))
    for (int32_t g = 0; g < lay->n_groups; g++) {
        int lead = lay->option_lead[lay->group_start[g]], far = lay->group_far_item[g];
        r.group_far[g] = far == lead ? 0 : far < n_front ? (KEY)1 << (far - lead - 1) : (KEY)1 << (F + far - n_front);
    }
    for (int32_t k = 0; k < lay->n_options; k++) r.rest[k] = AS_KEY(lay->option_front[k], lay->option_tail[k]);
    for (int c = 0; c < lay->n_levels; c++) { /* groups come by far item: the tail ones last */
        int32_t g = lay->lead_start[c];
        while (g < lay->lead_start[c + 1] && lay->group_far_item[g] < n_front) g++;
        r.split[c] = g;
        for (; g < lay->lead_start[c + 1]; g++) {
            int bit = F + lay->group_far_item[g] - n_front;
            r.tail_far[c] |= (KEY)1 << bit;
            r.group_of_bit[(size_t)c * KEY_BITS + bit] = g;
        }
    }
    int c0 = lay->start_level;
    if (c0 >= lay->n_levels) { /* the start covers every front primary item */
        r.total = (AS_KEY(0, lay->start_tail) & r.tail_need) == r.tail_need;
    } else {
        LV(Pair) *scratch = NULL, *table = NULL;
        size_t scratch_cap = 0, table_cap = 0;
        LV(send)(&r, c0, AS_KEY(lay->start_front, lay->start_tail), 1);
        for (int c = c0; c < lay->n_levels && r.status == FR_DONE; c++)
            if (r.pending[c].n) LV(expand_level)(&r, c, &scratch, &scratch_cap, &table, &table_cap);
        free(scratch);
        free(table);
    }
    #undef AS_KEY
done:
    if (r.pending)
        for (int c = 0; c <= lay->n_levels; c++) free(r.pending[c].pairs);
    free(r.pending);
    free(r.split);
    free(r.tail_far);
    free(r.group_of_bit);
    free(r.group_far);
    free(r.rest);
    out->status = r.status;
    out->total = (u128)r.total;
    out->states = r.states;
    out->leaves = r.leaves;
    out->transitions = r.transitions;
    out->updates = r.updates;
}
