/*
 * _frontier_census.h — the census by levels of _frontier.c for one key width.
 *
 * Included once per KW (after that width's count instantiations, whose KC = 0 key helpers
 * and wall test it calls: LV0(name)).  CN(name) makes this width's names distinct.
 *
 * THE CENSUS.  For every option, the solutions that use it.  A solution is one path of
 * moves from the start to the end (the branching item, the lowest uncovered one, is
 * fixed by the state), so the solutions using the move s -> s' by option o are
 * forward(s) x backward(s'): the paths from the start reaching s times the paths from
 * s' to the end.  Two passes:
 *
 *   FORWARD, the levels in increasing order as in the count (the records sent to a
 *   level sorted, equal keys summed), but every level's distinct states KEPT, with
 *   forward(s), and every move kept as a TRANSITION: its option, the child's level and
 *   (once that level is gathered) the child's index there.  A record carries the index
 *   of the transition that sent it, so gathering a level fills in its transitions'
 *   children.  The total is the sum of forward(s) over the moves that end a path.
 *   BACKWARD, the levels in decreasing order: backward(s) is the sum of backward(s')
 *   over the state's transitions (1 for one that ends a path), and census[o] +=
 *   forward(s) x backward(s') for each transition by o.  No move is made twice and no
 *   state looked up: the transitions hold the way back.
 *
 * MEMORY: every state of every level at once (its key, forward and backward: KW words
 * and two 128-bit counts, and its number of transitions) and every transition (12
 * bytes), where the count holds two levels or so; a census that would pass max_bytes
 * stops with status DECLINED before it is wrong.  One thread.
 *
 * WIDTH: counts are 128 bits.  forward(s) x backward(s') counts distinct solutions, so
 * once the total fits, no product or census passes it; a forward sum past 2^128 (or the
 * total) stops the census with status OVERFLOW.
 */

#define CN_CAT3(a, b, c) a##_##b##_##c
#define CN_CAT(a, b, c) CN_CAT3(a, b, c)
#define CN(name) CN_CAT(name, KW, census)
#define LV0(name) CN_CAT(name, KW, 0)

/* a pending record: the key (KW words), the count (two words, low first), the index of
   the transition that sent it */
#define CREC (KW + 3)
/* a move: its option (plan order), the child's level (n_levels: the move ends a path),
   then the child's key (KW words) */
#define CMOVE (KW + 2)

static int CN(key_order)(const void *a, const void *b) {
    const uint64_t *x = a, *y = b;
    for (int i = KW - 1; i >= 0; i--)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* The moves of the state `key` of level c into `out` (CMOVE words each): those that
 * end a path with the primary tail items covered, and those to a child no wall rules
 * out; the others lead to no solution.  The same moves, in the same order, as
 * LV(expand) of _frontier_levels.h makes. */
static size_t CN(moves)(const Plan *pl, const uint64_t *front, const uint64_t *tail, int c, const uint64_t *key,
                        uint64_t *out, uint64_t *updates) {
    const int F = pl->F, L = pl->n_levels;
    size_t n = 0;
    uint64_t unused[KW];
    const uint64_t *tail_far = pl->tail_far + (size_t)c * KW;
    for (int i = 0; i < KW; i++) unused[i] = tail_far[i] & ~key[i];
    int32_t front_g = pl->lead_start[c];
    for (int32_t g; (g = LV0(next_group)(pl, c, key, unused, &front_g, updates)) >= 0;) {
        for (int32_t k = pl->group_start[g]; k < pl->group_start[g + 1]; k++) {
            ++*updates;
            const uint64_t *m = pl->rest + (size_t)k * KW;
            if (LV0(k_isect)(key, m)) continue;
            uint64_t next[KW], open[KW], *mv = out + n * CMOVE;
            for (int i = 0; i < KW; i++) {
                next[i] = key[i] | m[i];
                open[i] = ~next[i] & front[i];
            }
            int skip = LV0(k_zero)(open) ? F : LV0(k_ctz)(open);
            int c2 = c + 1 + skip;
            mv[0] = (uint64_t)k;
            if (c2 >= L) {
                int whole = 1;
                for (int i = 0; i < KW; i++) whole &= (next[i] & pl->tail_need[i]) == pl->tail_need[i];
                if (!whole) continue;
                mv[1] = (uint64_t)L;
                n++;
                continue;
            }
            uint64_t moved_front[KW];
            for (int i = 0; i < KW; i++) open[i] = next[i] & front[i];
            LV0(k_shr)(moved_front, open, skip + 1);
            for (int i = 0; i < KW; i++) mv[2 + i] = moved_front[i] | (next[i] & tail[i]);
            if (pl->n_shifts && LV0(walled)(pl, c2, mv + 2)) continue;
            mv[1] = (uint64_t)c2;
            n++;
        }
    }
    return n;
}

/* Room for `more` entries in a growable array of `size`-byte entries (counted against
 * the census's allowance); 0 (status DECLINED) when there is none. */
static int CN(grow)(Census *o, void **v, size_t *cap, size_t n, size_t more, size_t size) {
    if (n + more <= *cap) return 1;
    size_t want = *cap ? 2 * *cap : 256;
    while (want < n + more) want *= 2;
    if (!census_take(o, (want - *cap) * size)) return 0;
    void *grown = realloc(*v, want * size);
    if (!grown) {
        o->status = FR_DECLINED;
        return 0;
    }
    *v = grown;
    *cap = want;
    return 1;
}

#if KW == 1
/* Sort n records by key: LSD radix, 11-bit digits, the digits no key uses skipped (as
 * the count does); `tmp` holds n records.  Returns where the sorted records are. */
static uint64_t *CN(sort)(uint64_t *v, uint64_t *tmp, size_t n) {
    uint64_t used = 0;
    for (size_t i = 0; i < n; i++) used |= v[i * CREC];
    size_t at[2049];
    uint64_t *src = v, *dst = tmp;
    for (int shift = 0; shift < 64; shift += 11) {
        if (!((used >> shift) & 0x7FF)) continue;
        memset(at, 0, sizeof at);
        for (size_t i = 0; i < n; i++) at[((src[i * CREC] >> shift) & 0x7FF) + 1]++;
        for (int d = 0; d < 2048; d++) at[d + 1] += at[d];
        for (size_t i = 0; i < n; i++)
            memcpy(dst + at[(src[i * CREC] >> shift) & 0x7FF]++ * CREC, src + i * CREC, CREC * sizeof(uint64_t));
        uint64_t *swap = src;
        src = dst;
        dst = swap;
    }
    return src;
}
#else
static uint64_t *CN(sort)(uint64_t *v, uint64_t *tmp, size_t n) {
    (void)tmp;
    qsort(v, n, CREC * sizeof(uint64_t), CN(key_order));
    return v;
}
#endif

/* Level c's records: sorted, equal keys summed into its kept states with their forward
 * counts, and the transitions that sent them given their child's index; 0 when out of
 * memory or past 2^128. */
static int CN(gather)(Census *o, int c) {
    CensusList *l = &o->pending[c];
    CensusLevel *lv = &o->levels[c];
    if (!l->n) return 1;
    size_t bytes = l->n * CREC * sizeof(uint64_t);
    if (!census_take(o, bytes)) return 0;
    uint64_t *tmp = malloc(bytes);
    if (!tmp) {
        census_give(o, bytes);
        o->status = FR_DECLINED;
        return 0;
    }
    const uint64_t *v = CN(sort)(l->v, tmp, l->n);
    size_t distinct = 1;
    for (size_t i = 1; i < l->n; i++) distinct += CN(key_order)(v + (i - 1) * CREC, v + i * CREC) != 0;
    int ok = 0;
    if (distinct > UINT32_MAX ||
        !census_take(o, distinct * (KW * sizeof(uint64_t) + 2 * sizeof(u128) + sizeof(uint32_t))))
        goto out;
    lv->keys = malloc(distinct * KW * sizeof(uint64_t));
    lv->forward = malloc(distinct * sizeof(u128));
    lv->backward = calloc(distinct, sizeof(u128));
    lv->n_moves = calloc(distinct, sizeof(uint32_t));
    if (!lv->keys || !lv->forward || !lv->backward || !lv->n_moves) {
        o->status = FR_DECLINED;
        goto out;
    }
    size_t at = 0;
    for (size_t i = 0; i < l->n; i++) {
        const uint64_t *rec = v + i * CREC;
        u128 count = (u128)rec[KW] | ((u128)rec[KW + 1] << 64);
        if (!i || CN(key_order)(rec - CREC, rec) != 0) {
            memcpy(lv->keys + at * KW, rec, KW * sizeof(uint64_t));
            lv->forward[at++] = count;
        } else {
            u128 before = lv->forward[at - 1];
            lv->forward[at - 1] += count;
            if (lv->forward[at - 1] < before) {
                o->status = FR_OVERFLOW;
                goto out;
            }
        }
        if (rec[KW + 2] != UINT64_MAX) o->t_child[rec[KW + 2]] = (uint32_t)(at - 1);
    }
    lv->n = distinct;
    ok = 1;
out:
    free(tmp);
    census_give(o, bytes + l->cap * CREC * sizeof(uint64_t));
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
    return ok;
}

/* The census from o->start_level / o->start_key: the two passes above.  o->status says
 * how it ended (FR_DONE, FR_OVERFLOW, FR_DECLINED, FR_INTERRUPTED). */
static void CN(run)(const Plan *pl, Census *o) {
    const int L = pl->n_levels;
    uint64_t front[KW], tail[KW];
    window_masks(pl, front, tail);
    int32_t most = 1; /* the options of one lead at most: room for a state's moves */
    for (int c = 0; c < L; c++) {
        int32_t n = pl->group_start[pl->lead_start[c + 1]] - pl->group_start[pl->lead_start[c]];
        most = n > most ? n : most;
    }
    uint64_t *moves = malloc((size_t)most * CMOVE * sizeof(uint64_t));
    if (!moves) {
        o->status = FR_DECLINED;
        return;
    }
    int c0 = o->start_level;
    if (c0 >= L) { /* the start covers every front item */
        int whole = 1;
        for (int i = 0; i < KW; i++) whole &= (o->start_key[i] & pl->tail_need[i]) == pl->tail_need[i];
        o->total = (u128)whole;
        goto done;
    }
    CensusList *first = &o->pending[c0];
    if (!CN(grow)(o, (void **)&first->v, &first->cap, 0, 1, CREC * sizeof(uint64_t))) goto done;
    memcpy(first->v, o->start_key, KW * sizeof(uint64_t));
    first->v[KW] = 1;
    first->v[KW + 1] = 0;
    first->v[KW + 2] = UINT64_MAX; /* sent by no transition */
    first->n = 1;
    /* forward: the transitions of level c follow those of the levels below, state by state */
    size_t n_trans = 0, trans_cap = 0;
    for (int c = c0; c < L; c++) {
        if (!CN(gather)(o, c)) goto done;
        CensusLevel *lv = &o->levels[c];
        lv->first_transition = n_trans;
        for (size_t s = 0; s < lv->n; s++) {
            if ((++o->states & (INTERRUPT_EVERY - 1)) == 0 && interrupt_check(o->interrupt)) {
                o->status = FR_INTERRUPTED;
                goto done;
            }
            u128 f = lv->forward[s];
            size_t n = CN(moves)(pl, front, tail, c, lv->keys + s * KW, moves, &o->updates);
            if (n_trans + n > trans_cap && !transitions_room(o, &trans_cap, n_trans + n)) goto done;
            lv->n_moves[s] = (uint32_t)n;
            o->transitions += n;
            for (size_t j = 0; j < n; j++, n_trans++) {
                const uint64_t *mv = moves + j * CMOVE;
                int c2 = (int)mv[1];
                o->t_row[n_trans] = pl->row[mv[0]];
                o->t_level[n_trans] = c2;
                if (c2 == L) {
                    u128 before = o->total;
                    o->total += f;
                    if (o->total < before) {
                        o->status = FR_OVERFLOW;
                        goto done;
                    }
                    continue;
                }
                CensusList *to = &o->pending[c2];
                if (!CN(grow)(o, (void **)&to->v, &to->cap, to->n, 1, CREC * sizeof(uint64_t))) goto done;
                uint64_t *rec = to->v + to->n++ * CREC;
                memcpy(rec, mv + 2, KW * sizeof(uint64_t));
                rec[KW] = (uint64_t)f;
                rec[KW + 1] = (uint64_t)(f >> 64);
                rec[KW + 2] = n_trans;
            }
        }
    }
    /* backward */
    for (int c = L - 1; c >= c0; c--) {
        CensusLevel *lv = &o->levels[c];
        size_t t = lv->first_transition;
        for (size_t s = 0; s < lv->n; s++) {
            u128 f = lv->forward[s], b = 0;
            for (uint32_t j = 0; j < lv->n_moves[s]; j++, t++) {
                int c2 = o->t_level[t];
                u128 after = c2 == L ? 1 : o->levels[c2].backward[o->t_child[t]];
                if (!after) continue;
                b += after;
                o->census[o->t_row[t]] += f * after;
            }
            lv->backward[s] = b;
        }
    }
    o->status = FR_DONE;
done:
    free(moves);
}

#undef CREC
#undef CMOVE
#undef CN
#undef LV0
#undef CN_CAT
#undef CN_CAT3
