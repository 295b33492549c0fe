/*
 * _reachable.h — which bottom rows can still carry the rest of a crossword's clue string:
 * the backward reachability table shared by _transfer.c (drops dead states) and
 * _crossword.c (ends dead branches at a row start).  Pure-Python reference of the same
 * contract: core/crossword/reachable.py (tests compare them).
 *
 * The question reach_ok(t, r, len, j): row r is the last row placed; len[c] is the
 * vertical white run ending in row r at column c, capped at L (the profile: it holds row
 * r, which of its squares have white above and which runs must go on); j is where the
 * letters of row r begin in the clue string.  1 when rows r+1 .. R-1 can be chosen from
 * pats[] so that every run ends legally, every row keeps its numbered-square givens
 * (exact[], need[]) and the letters of rows r .. R-1 are exactly clues[j:].  Connectivity
 * and no-black-lines columns are ignored: a relaxation, so 0 proves a dead end and 1
 * proves nothing — the table only prunes, it never adds grids.  Unfolded kinds only (no
 * symmetry, left-right: the rows below do not depend on the rows above but through the
 * profile).
 *
 * How: a memoised depth-first search over (r, j, len), stopping at the first next row
 * that works, so only what callers ask about (and what that needs) is ever computed.
 * Before recursing it asks a coarser table, `rows_fit`: fit[r] is the bit set of the j
 * from which rows r .. R-1 could carry clues[j:] each on its own (any allowed pattern,
 * any white square a Down start where a Down word fits below, givens kept) — a
 * relaxation of the relaxation, computed bottom-up for every j in R x patterns x C word
 * operations, that ends most dead branches rows before their last row.  Where the
 * pattern pairs are few enough (PAIR_BUDGET), `pair_fit` is finer: pair[r][i] is the bit
 * set of the j from which rows r .. R-1 could carry clues[j:] with row r = pats[r][i]
 * and every row's Down starts only where the row below is white (the square above is
 * not known there: a Down start is optional); the search asks it about each next row.
 *
 * The quick test (checked puzzles, `reach_quick`, 2026-11-28): in a checked grid a square
 * with black above is a run of one, which must go on, so it starts a Down word: the
 * letters of row r are fixed by the profile, and the next rows that may follow are the
 * supersets of `must` among those whose pair_fit holds where row r's letters end.
 * `super[r][j]` holds, for every mask m of the 2^C, whether such a superset exists (4 KB
 * each, 4.2 MB for a 15x15 of 68 clues; where they fit SUPER_BUDGET; each made on first
 * use, so a search that ends at once pays for a few).  So an entry that is dead
 * without asking a row below — nearly all of them — is decided by its letters and one bit
 * in cache, before its key is made, and is never stored: the memo keeps only the entries
 * that ask a row below (and the last row is answered outright).  Exact: it answers 0 only
 * where the full search would find no next row to ask.
 *
 * Memo layout: open addressing, linear probing, kw 64-bit words per slot, the value in
 * the key's first word so one probe reads one cache line:
 *   word 0   bit 63 occupied, bit 62 live (else dead), bits 0..6 r, bits 7..30 j,
 *            bits 31..61 the first len[] fields
 *   then     the other len[] fields, 64 bits a word
 * each len[c] in lb = bits of L fields (2 bits for L = 3: a 15-column key is one word).
 * An all-zero slot is empty.  Invariant: cap is a power of two and at least twice the
 * number of keys.
 *
 * The caller owns pats/npats/exact/need (read only here) and must keep them alive.
 *
 * Measured (2026-11-28, NYT asymmetric 15x15 count, side by side, AMD EPYC 2 cores):
 * before the quick test 2.2-3.0 s, two thirds of it in reach_ok_keyed (memory-bound): of
 * its 4.7 million entries 4.6 million are dead ends decided without asking any row below
 * (21 million look-ups in all; the live entries are about 2,800).  With the quick test:
 * 0.35 s (2.36 s before), of which 0.12 s is the table's making (mostly pair_fit).
 * Dropped: not storing those dead ends but working each out in full again (a 2 MB memo
 * instead of 134 MB), 5.0 s against 3.0 s: each was worked out 4.4 times and a full
 * working-out costs about 200 ns (the quick test costs its letters and one bit).
 * Compacting the candidate words after each square's AND (to end a dead option early)
 * changed nothing measurable.
 */
#ifndef TILECENSUS_REACHABLE_H
#define TILECENSUS_REACHABLE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../_search_common.h" /* hash_words */

#define REACH_MAXC 64

typedef struct {
    int R, C, L, checked;
    const char *clues;
    int nclues;
    uint64_t *const *pats; /* per row: the patterns it may take */
    const int *npats;
    const int64_t *exact;  /* per row: the exact numbered mask, or -1 */
    const uint64_t *need;  /* per row: squares that must be numbered */
    /* the memo */
    uint64_t *keys;
    int64_t cap, n;
    int kw, lb;
    int error;             /* 1: out of memory (answers are then 1: never a wrong prune) */
    int fw;                /* words of one row's bit set in fit */
    uint64_t *fit;         /* (R + 1) x fw: bit j of row r set when rows r.. may carry clues[j:] */
    uint64_t **pair;       /* NULL, or per row r: npats[r] x fw, the bit sets of pair_fit */
    /* per row r >= 1, NULL when past TRIE_BUDGET: a binary trie of pats[r] by column 0..C-1
     * (node 0 the root; kid[2n + b]: the child taking bit b, -1 none; a node at depth C is a
     * leaf and kid[2n] holds its pattern index), with or[n]: the union of pair_fit (fit
     * where not built) over the patterns below node n — so a walk for the next rows with
     * given squares white and black skips every subtree that cannot go on from j. */
    int32_t **kid;
    uint64_t **orset;
    /* per row r >= 1 with at most PICK_MAX patterns (else NULL: the trie): bit sets over
     * the row's patterns (pw[r] words each) — col[r][(2c + b) * pw]: the patterns with
     * bit c equal to b; at[r][j * pw]: those whose pair_fit (fit) holds at j — so the
     * next rows with given squares white and black that go on from j are one AND each. */
    uint64_t **col, **at;
    int pw[REACH_MAXC];
    /* checked puzzles within SUPER_BUDGET, else NULL (see reach_quick): per row r >= 1,
     * (nclues + 1) bit sets over all 2^C masks m (sw words each): bit m of the j-th set
     * is 1 when some pattern of row r whose pair_fit (fit) holds at j is white on all of m */
    uint64_t **super;
    uint8_t **super_made;  /* per row r >= 1: 1 where the j-th set is made (on first use) */
    int64_t sw;
    int64_t computed;      /* entries computed (a statistic) */
    /* the caller's budget: asked every REACH_STOP_EVERY memo misses; once it says 1,
     * `stopped` is set and every answer is 1 (no prune) and stored nowhere, so the caller
     * can stop at once (its deadline passed, or an interrupt) without a wrong prune */
    int (*stop)(void *ctx);
    void *stop_ctx;
    int stopped;
    int64_t misses;        /* memo misses: the budget is asked every REACH_STOP_EVERY */
} Reach;

#define REACH_STOP_EVERY 4096

/* pattern pairs (of consecutive rows) past which pair_fit is not built */
#define PAIR_BUDGET 40000000

static int fit_row(const Reach *t, int r, uint64_t p, uint64_t downs, uint64_t *cur, const uint64_t *ma,
                   const uint64_t *md, const uint64_t *mz);
static int reach_pair_fit(Reach *t, const uint64_t *ma, const uint64_t *md, const uint64_t *mz);

/* out[j] = in[j + 1] (the positions one letter before), over fw words */
static inline void fit_shift(const uint64_t *in, uint64_t *out, int fw) {
    for (int w = 0; w < fw; w++) out[w] = (in[w] >> 1) | (w + 1 < fw ? in[w + 1] << 63 : 0);
}

/* fit (see the head comment), bottom-up: fit[R] = {nclues}; a row pattern is read right to
 * left, carrying the set of positions from which the rest of the row leads into fit[r+1]:
 * an Across start consumes an A (no Down) or a Z (a Down fits), another white square a D
 * (a Down fits) or nothing, a black square nothing; numbered givens force the choice. */
static int reach_fit(Reach *t) {
    int fw = t->fw, R = t->R;
    uint64_t ma[8], md[8], mz[8], cur[8];
    if (fw > 8) { memset(t->fit, 0xFF, sizeof(uint64_t) * (size_t)((R + 1) * fw)); return 0; } /* > 511 clues */
    memset(ma, 0, sizeof ma); memset(md, 0, sizeof md); memset(mz, 0, sizeof mz);
    for (int j = 0; j < t->nclues; j++) {
        uint64_t bit = 1ull << (j % 64);
        if (t->clues[j] == 'A') ma[j / 64] |= bit;
        else if (t->clues[j] == 'D') md[j / 64] |= bit;
        else if (t->clues[j] == 'Z') mz[j / 64] |= bit;
    }
    t->fit[(int64_t)R * fw + t->nclues / 64] |= 1ull << (t->nclues % 64);
    for (int r = R - 1; r >= 0; r--) {
        uint64_t *out = t->fit + (int64_t)r * fw;
        const uint64_t *below = t->fit + (int64_t)(r + 1) * fw;
        uint64_t downs = r + t->L <= R ? ~0ull : 0;
        for (int i = 0; i < t->npats[r]; i++) {
            memcpy(cur, below, sizeof(uint64_t) * (size_t)fw);
            if (!fit_row(t, r, t->pats[r][i], downs, cur, ma, md, mz)) continue;
            for (int w = 0; w < fw; w++) out[w] |= cur[w];
        }
    }
    int64_t pairs = 0;
    for (int r = 0; r + 1 < R; r++) pairs += (int64_t)t->npats[r] * t->npats[r + 1];
    if (pairs <= PAIR_BUDGET) return reach_pair_fit(t, ma, md, mz);
    return 0;
}

/* Read row pattern p right to left from the positions `cur` (those the rows below lead on
 * from): `downs` are the squares where a Down word may start (optional unless the givens
 * decide it); into cur: the positions from which row p leads into the old cur.  0 when
 * the givens rule p out. */
static int fit_row(const Reach *t, int r, uint64_t p, uint64_t downs, uint64_t *cur, const uint64_t *ma,
                   const uint64_t *md, const uint64_t *mz) {
    int fw = t->fw;
    uint64_t sh[8];
    uint64_t across = p & ~(p << 1) & (p >> 1);
    if (t->exact[r] >= 0 && (across & ~(uint64_t)t->exact[r])) return 0;
    for (int c = t->C - 1; c >= 0; c--) {
        if (!(p >> c & 1u)) continue;
        int num = t->exact[r] >= 0 ? (int)((uint64_t)t->exact[r] >> c & 1u) : -1; /* -1 free */
        if (t->need[r] >> c & 1u) num = 1;
        int down = (int)(downs >> c & 1u);
        uint64_t any = 0;
        for (int w = 0; w < fw; w++) any |= cur[w];
        if (!any) return 1; /* nothing leads on: the row leads nowhere either */
        fit_shift(cur, sh, fw);
        for (int w = 0; w < fw; w++) {
            if (across >> c & 1u) cur[w] = sh[w] & (ma[w] | (down ? mz[w] : 0));
            else {
                uint64_t d = down ? (sh[w] & md[w]) : 0;
                cur[w] = num == 1 ? d : num == 0 ? cur[w] : (cur[w] | d);
            }
        }
    }
    return 1;
}

typedef unsigned __int128 reach_u128;

/* fit_row for sets of one or two words (at most 127 clues) as one 128-bit integer (bit j:
 * position j): the same reading, without the word loops (pair_fit makes millions). */
static inline int fit_row2(const Reach *t, int r, uint64_t p, uint64_t downs, reach_u128 *cur, reach_u128 ma,
                           reach_u128 md, reach_u128 mz) {
    uint64_t across = p & ~(p << 1) & (p >> 1);
    const int64_t ex = t->exact[r];
    if (ex >= 0 && (across & ~(uint64_t)ex)) return 0;
    const uint64_t num1 = (ex >= 0 ? (uint64_t)ex : 0) | t->need[r];  /* numbered */
    const uint64_t num0 = ex >= 0 ? ~num1 : 0;                          /* not numbered */
    reach_u128 x = *cur;
    for (uint64_t m = p; m && x; ) {
        int c = 63 - __builtin_clzll(m);
        m ^= 1ull << c;
        reach_u128 sh = x >> 1;
        int down = (int)(downs >> c & 1u);
        if (across >> c & 1u) x = sh & (down ? (ma | mz) : ma);
        else if (down) {
            reach_u128 d = sh & md;
            x = (num1 >> c & 1u) ? d : (num0 >> c & 1u) ? x : (x | d);
        } else if (num1 >> c & 1u) x = 0;
    }
    *cur = x;
    return 1;
}

static inline reach_u128 words_to_u128(const uint64_t *w, int fw) {
    return (reach_u128)w[0] | (fw > 1 ? (reach_u128)w[1] << 64 : 0);
}

/* pair_fit (see the head comment), bottom-up; the next rows are grouped by their white
 * squares under p (all that row p's letters see of them).  0 ok, -1 out of memory. */
static int reach_pair_fit(Reach *t, const uint64_t *ma, const uint64_t *md, const uint64_t *mz) {
    int R = t->R, fw = t->fw, most = 1;
    for (int r = 0; r < R; r++) if (t->npats[r] > most) most = t->npats[r];
    t->pair = calloc((size_t)(R > 0 ? R : 1), sizeof(uint64_t *));
    int64_t slots = 1;
    while (slots < 2 * most) slots *= 2;
    uint64_t *gkey = malloc(sizeof(uint64_t) * (size_t)slots);
    int32_t *gidx = malloc(sizeof(int32_t) * (size_t)slots), *gslot = malloc(sizeof(int32_t) * (size_t)slots);
    uint64_t *gset = malloc(sizeof(uint64_t) * (size_t)(most * fw));
    int ok = t->pair && gkey && gidx && gslot && gset;
    if (gidx) for (int64_t g = 0; g < slots; g++) gidx[g] = -1;
    for (int r = 0; r < R && ok; r++) {
        t->pair[r] = calloc((size_t)(t->npats[r] ? t->npats[r] : 1) * (size_t)fw, sizeof(uint64_t));
        ok = t->pair[r] != NULL;
    }
    uint64_t cur[8];
    for (int r = R - 1; r >= 0 && ok; r--) {
        int down_fits = r + t->L <= R;
        for (int i = 0; i < t->npats[r]; i++) {
            uint64_t p = t->pats[r][i], *out = t->pair[r] + (int64_t)i * fw;
            if (r == R - 1) {
                memset(cur, 0, sizeof cur);
                cur[t->nclues / 64] |= 1ull << (t->nclues % 64);
                if (fit_row(t, r, p, 0, cur, ma, md, mz)) memcpy(out, cur, sizeof(uint64_t) * (size_t)fw);
                continue;
            }
            /* group the next row's patterns by their squares under p: union of their sets */
            int groups = 0;
            for (int k = 0; k < t->npats[r + 1]; k++) {
                uint64_t key = down_fits ? (t->pats[r + 1][k] & p) : 0;
                uint64_t g = ((key * 0x9E3779B97F4A7C15ull) >> 20) & (uint64_t)(slots - 1);
                while (gidx[g] >= 0 && gkey[g] != key) g = (g + 1) & (uint64_t)(slots - 1);
                if (gidx[g] < 0) {
                    gidx[g] = groups;
                    gkey[g] = key;
                    gslot[groups] = (int32_t)g;
                    memset(gset + (int64_t)groups * fw, 0, sizeof(uint64_t) * (size_t)fw);
                    groups++;
                }
                const uint64_t *below = t->pair[r + 1] + (int64_t)k * fw;
                uint64_t *u = gset + (int64_t)gidx[g] * fw;
                for (int w = 0; w < fw; w++) u[w] |= below[w];
            }
            if (fw <= 2) { /* the 128-bit reading: the same sets */
                const reach_u128 a = words_to_u128(ma, fw), d = words_to_u128(md, fw), z = words_to_u128(mz, fw);
                reach_u128 all = 0;
                for (int g = 0; g < groups; g++) {
                    reach_u128 x = words_to_u128(gset + (int64_t)g * fw, fw);
                    if (!fit_row2(t, r, p, gkey[gslot[g]], &x, a, d, z)) break;
                    all |= x;
                }
                out[0] = (uint64_t)all;
                if (fw > 1) out[1] = (uint64_t)(all >> 64);
            } else {
                for (int g = 0; g < groups; g++) {
                    memcpy(cur, gset + (int64_t)g * fw, sizeof(uint64_t) * (size_t)fw);
                    if (!fit_row(t, r, p, gkey[gslot[g]], cur, ma, md, mz)) break;
                    for (int w = 0; w < fw; w++) out[w] |= cur[w];
                }
            }
            for (int g = 0; g < groups; g++) gidx[gslot[g]] = -1; /* the slots empty again */
        }
    }
    free(gkey);
    free(gidx);
    free(gslot);
    free(gset);
    return ok ? 0 : -1;
}

/* 64-bit words of trie bit sets past which rows are scanned instead */
#define TRIE_BUDGET 16000000

/* the limits in force (the tests lower them to reach the trie and the scan on small
 * puzzles: _transfer.reachable's `mode`) */
static int64_t reach_pick_max = 4096 /* PICK_MAX */, reach_trie_budget = TRIE_BUDGET;

/* The tries (see Reach); 0 ok (or past the budget: no tries), -1 out of memory. */
static int reach_tries(Reach *t) {
    int64_t words = 0;
    for (int r = 1; r < t->R; r++) words += ((int64_t)t->npats[r] * t->C + 1) * t->fw;
    if (words > reach_trie_budget) return 0;
    t->kid = calloc((size_t)t->R, sizeof(int32_t *));
    t->orset = calloc((size_t)t->R, sizeof(uint64_t *));
    if (!t->kid || !t->orset) return -1;
    int fw = t->fw;
    for (int r = 1; r < t->R; r++) {
        int64_t most = (int64_t)t->npats[r] * t->C + 1;
        int32_t *kid = t->kid[r] = malloc(sizeof(int32_t) * (size_t)(2 * most));
        uint64_t *ors = t->orset[r] = calloc((size_t)(most * fw), sizeof(uint64_t));
        if (!kid || !ors) return -1;
        kid[0] = kid[1] = -1;
        int32_t nodes = 1;
        for (int i = 0; i < t->npats[r]; i++) {
            uint64_t q = t->pats[r][i];
            const uint64_t *set = t->pair ? t->pair[r] + (int64_t)i * fw : t->fit + (int64_t)r * fw;
            int32_t n = 0;
            for (int c = 0; c <= t->C; c++) {
                for (int w = 0; w < fw; w++) ors[(int64_t)n * fw + w] |= set[w];
                if (c == t->C) { kid[2 * n] = i; break; }
                int b = (int)(q >> c & 1u);
                if (kid[2 * n + b] < 0) {
                    kid[2 * n + b] = nodes;
                    kid[2 * nodes] = kid[2 * nodes + 1] = -1;
                    nodes++;
                }
                n = kid[2 * n + b];
            }
        }
    }
    return 0;
}

/* patterns of a row past which its next-row picks walk the trie instead of bit sets */
#define PICK_MAX 4096

/* The bit sets of the rows with few patterns (see Reach): 0 ok, -1 out of memory. */
static int reach_picks(Reach *t) {
    t->col = calloc((size_t)t->R, sizeof(uint64_t *));
    t->at = calloc((size_t)t->R, sizeof(uint64_t *));
    if (!t->col || !t->at) return -1;
    for (int r = 1; r < t->R; r++) {
        int n = t->npats[r], pw = t->pw[r] = (n + 63) / 64;
        if (n > reach_pick_max || !n) continue;
        uint64_t *col = t->col[r] = calloc((size_t)(2 * t->C * pw), sizeof(uint64_t));
        uint64_t *at = t->at[r] = calloc((size_t)((t->nclues + 1) * pw), sizeof(uint64_t));
        if (!col || !at) return -1;
        for (int i = 0; i < n; i++) {
            uint64_t q = t->pats[r][i], bit = 1ull << (i % 64);
            for (int c = 0; c < t->C; c++) col[(int64_t)(2 * c + (int)(q >> c & 1u)) * pw + i / 64] |= bit;
            const uint64_t *set = t->pair ? t->pair[r] + (int64_t)i * t->fw : t->fit + (int64_t)r * t->fw;
            for (int w = 0; w < t->fw; w++)
                for (uint64_t m = set[w]; m; m &= m - 1) {
                    int j = w * 64 + __builtin_ctzll(m);
                    if (j <= t->nclues) at[(int64_t)j * pw + i / 64] |= bit;
                }
        }
    }
    return 0;
}

/* bytes of the superset sets (see Reach.super) past which reach_quick is not used */
#define SUPER_BUDGET (64ll << 20)

/* the quick dead-end test in force (the tests turn it off: _transfer.reachable's `quick`) */
static int reach_quick_on = 1;

/* Close one 2^C-bit set under subsets: bit m set when some set bit is a superset of m. */
static void super_close(uint64_t *set, int C, int64_t sw) {
    static const uint64_t upper[6] = {0xAAAAAAAAAAAAAAAAull, 0xCCCCCCCCCCCCCCCCull, 0xF0F0F0F0F0F0F0F0ull,
                                      0xFF00FF00FF00FF00ull, 0xFFFF0000FFFF0000ull, 0xFFFFFFFF00000000ull};
    for (int c = 0; c < C && c < 6; c++)
        for (int64_t w = 0; w < sw; w++) set[w] |= (set[w] & upper[c]) >> (1u << c);
    for (int c = 6; c < C; c++) {
        int64_t stride = (int64_t)1 << (c - 6);
        for (int64_t w = 0; w < sw; w++)
            if (w & stride) set[w ^ stride] |= set[w];
    }
}

/* The superset sets (see Reach.super) of a checked puzzle within SUPER_BUDGET, empty: each
 * is made on first use (super_set; a search that ends at once makes a few).  0 ok (or none
 * made), -1 out of memory.  Made all at once here they cost 4 ms (the left-right NYT
 * 15x15s by the default solve: 0.002 s to 0.006 s; lazily 0.003 s). */
static int reach_supers(Reach *t) {
    if (!t->checked || t->C > 40) return 0;
    int64_t sw = t->C >= 6 ? (int64_t)1 << (t->C - 6) : 1, per = (int64_t)(t->nclues + 1) * sw;
    if ((int64_t)t->R * per * 8 > SUPER_BUDGET) return 0;
    t->sw = sw;
    t->super = calloc((size_t)t->R, sizeof(uint64_t *));
    t->super_made = calloc((size_t)t->R, sizeof(uint8_t *));
    if (!t->super || !t->super_made) return -1;
    for (int r = 1; r < t->R; r++) {
        t->super[r] = calloc((size_t)per, sizeof(uint64_t));
        t->super_made[r] = calloc((size_t)(t->nclues + 1), 1);
        if (!t->super[r] || !t->super_made[r]) return -1;
    }
    return 0;
}

/* The superset set of row r (>= 1) at clue position j, made now if it is not yet: the
 * patterns whose pair_fit (fit) holds at j, closed under subsets. */
static const uint64_t *super_set(Reach *t, int r, int j) {
    uint64_t *set = t->super[r] + (int64_t)j * t->sw;
    if (t->super_made[r][j]) return set;
    for (int i = 0; i < t->npats[r]; i++) {
        const uint64_t q = t->pats[r][i];
        const uint64_t *at = t->pair ? t->pair[r] + (int64_t)i * t->fw : t->fit + (int64_t)r * t->fw;
        if (at[j / 64] >> (j % 64) & 1u) set[q >> 6] |= 1ull << (q & 63);
    }
    super_close(set, t->C, t->sw);
    t->super_made[r][j] = 1;
    return set;
}

/* An empty table over the caller's data: 0 ok, -1 out of memory. */
static int reach_init(Reach *t, int R, int C, int L, int checked, const char *clues, int nclues,
                      uint64_t *const *pats, const int *npats, const int64_t *exact, const uint64_t *need) {
    memset(t, 0, sizeof(*t));
    t->R = R; t->C = C; t->L = L; t->checked = checked;
    t->clues = clues; t->nclues = nclues;
    t->pats = pats; t->npats = npats; t->exact = exact; t->need = need;
    t->lb = 1;
    while ((1 << t->lb) <= L) t->lb++;
    int extra = C * t->lb - 31;
    t->kw = 1 + (extra > 0 ? (extra + 63) / 64 : 0);
    t->cap = 1 << 12;
    t->keys = calloc((size_t)(t->cap * t->kw), sizeof(uint64_t));
    t->fw = (nclues + 1 + 63) / 64;
    t->fit = calloc((size_t)((R + 1) * t->fw), sizeof(uint64_t));
    if (!t->keys || !t->fit) return -1;
    if (reach_fit(t)) return -1;
    return reach_tries(t) || reach_picks(t) || reach_supers(t) ? -1 : 0;
}

/* Free a per-row array of R rows (each row, then the array) and clear the pointer. */
#define REACH_FREE_ROWS(rows, R)                                  \
    do {                                                          \
        if (rows)                                                 \
            for (int r_ = 0; r_ < (R); r_++) free((rows)[r_]);    \
        free(rows);                                               \
        (rows) = NULL;                                            \
    } while (0)

static void reach_free(Reach *t) {
    free(t->keys);
    free(t->fit);
    t->keys = NULL;
    t->fit = NULL;
    REACH_FREE_ROWS(t->super, t->R);
    REACH_FREE_ROWS(t->super_made, t->R);
    REACH_FREE_ROWS(t->pair, t->R);
    REACH_FREE_ROWS(t->kid, t->R);
    REACH_FREE_ROWS(t->orset, t->R);
    REACH_FREE_ROWS(t->col, t->R);
    REACH_FREE_ROWS(t->at, t->R);
}

static inline int reach_fits(const Reach *t, int r, int j) {
    return (int)((t->fit[(int64_t)r * t->fw + j / 64] >> (j % 64)) & 1u);
}

/* pair_fit of row r taking its i-th pattern (fit where pair_fit was not built) */
static inline int reach_pair_fits(const Reach *t, int r, int i, int j) {
    if (!t->pair) return reach_fits(t, r, j);
    return (int)((t->pair[r][(int64_t)i * t->fw + j / 64] >> (j % 64)) & 1u);
}

#define REACH_USED (1ull << 63)
#define REACH_LIVE (1ull << 62)

/* The key of (r, len, j) into key (kw words; see the memo layout), flags clear. */
static inline void reach_key(const Reach *t, int r, const uint8_t *len, int j, uint64_t *key) {
    memset(key, 0, sizeof(uint64_t) * (size_t)t->kw);
    key[0] = (uint64_t)r | ((uint64_t)j << 7);
    int bit = 31, w = 0;
    for (int c = 0; c < t->C; c++) {
        int room = (w == 0 ? 62 : 64) - bit;
        if (room < t->lb) { w++; bit = 0; }
        key[w] |= (uint64_t)len[c] << bit;
        bit += t->lb;
    }
}

/* The slot of key (flags clear): where it is, or the empty slot where it would go. */
static inline int64_t reach_slot(const Reach *t, const uint64_t *key) {
    uint64_t mask = (uint64_t)t->cap - 1;
    uint64_t i = hash_words(key, t->kw) & mask;
    const uint64_t flags = REACH_USED | REACH_LIVE;
    for (;; i = (i + 1) & mask) {
        const uint64_t *k = t->keys + i * (uint64_t)t->kw;
        if (!(k[0] & REACH_USED)) return (int64_t)i;
        int same = (k[0] & ~flags) == key[0];
        for (int w = 1; w < t->kw && same; w++) same = k[w] == key[w];
        if (same) return (int64_t)i;
    }
}

static int reach_grow(Reach *t) {
    int64_t cap = t->cap * 2, ocap = t->cap;
    uint64_t *keys = calloc((size_t)(cap * t->kw), sizeof(uint64_t));
    if (!keys) return -1;
    uint64_t *ok = t->keys;
    t->keys = keys;
    t->cap = cap;
    uint64_t key[1 + REACH_MAXC / 8];
    for (int64_t i = 0; i < ocap; i++) {
        const uint64_t *k = ok + i * t->kw;
        if (!(k[0] & REACH_USED)) continue;
        memcpy(key, k, sizeof(uint64_t) * (size_t)t->kw);
        key[0] &= ~(REACH_USED | REACH_LIVE);
        int64_t s = reach_slot(t, key);
        memcpy(t->keys + s * t->kw, k, sizeof(uint64_t) * (size_t)t->kw);
    }
    free(ok);
    return 0;
}

/* Row r's letters (row: its squares, above/below: the rows next to it) matched against
 * clues[j..]: their number, or -1 when they differ or break row r's numbered givens. */
static inline int reach_letters(const Reach *t, int r, uint64_t row, uint64_t above, uint64_t below, int j) {
    uint64_t across = row & ~(row << 1) & (row >> 1);
    uint64_t down = row & ~above & below;
    uint64_t m = across | down;
    if (t->exact[r] >= 0 && m != (uint64_t)t->exact[r]) return -1;
    if ((m & t->need[r]) != t->need[r]) return -1;
    int cnt = 0;
    while (m) {
        uint64_t bit = m & -m;
        char want = (across & bit) ? ((down & bit) ? 'Z' : 'A') : 'D';
        if (j + cnt >= t->nclues || t->clues[j + cnt] != want) return -1;
        cnt++;
        m ^= bit;
    }
    return cnt;
}

/* The clue positions a row's letters may end at, and the next row's squares under the
 * row's possible Down starts that give them: row r (row, above) read left to right from
 * clue j; a square with black above (keymask) starts a Down word exactly when the next
 * row is white there, so where the clue letter allows both the choice branches.  Out:
 * up to `most` pairs (qk: the next row's squares in keymask, n: letters); their number. */
typedef struct { uint64_t qk; int n; } RowLetters;

static void row_options(const Reach *t, int r, uint64_t row, uint64_t keymask, int c, int k, uint64_t qk,
                        RowLetters *out, int *nout, int most) {
    const int C = t->C;
    uint64_t across = row & ~(row << 1) & (row >> 1);
    if ((t->exact[r] >= 0 && ((uint64_t)t->exact[r] & ~row)) || (t->need[r] & ~row)) return; /* numbered black */
    for (; c < C; c++) {
        if (!(row >> c & 1u)) continue;
        int ex = t->exact[r] >= 0 ? (int)((uint64_t)t->exact[r] >> c & 1u) : -1; /* -1: free */
        int nd = (int)(t->need[r] >> c & 1u);
        int elig = (int)(keymask >> c & 1u);
        char want = k < t->nclues ? t->clues[k] : 0;
        if (across >> c & 1u) {
            if (ex == 0) return;
            if (want == 'A') { k++; continue; }            /* no Down start: the next row black here */
            if (want == 'Z' && elig) { qk |= 1ull << c; k++; continue; }
            return;
        }
        if (!elig) { if (ex == 1 || nd) return; continue; }
        int can_skip = ex != 1 && !nd, can_down = ex != 0 && want == 'D';
        if (can_down && can_skip) {                       /* both: branch on the Down start */
            row_options(t, r, row, keymask, c + 1, k + 1, qk | (1ull << c), out, nout, most);
            continue;
        }
        if (can_down) { qk |= 1ull << c; k++; continue; }
        if (!can_skip) return;
    }
    if (*nout < most) { out[*nout].qk = qk; out[*nout].n = k; (*nout)++; }
}

/* The run lengths after row q below runs len (capped at L), into len2. */
static inline void reach_extend(int C, int L, const uint8_t *len, uint64_t q, uint8_t *len2) {
    for (int c = 0; c < C; c++) {
        int m = len[c];
        len2[c] = (q >> c & 1u) ? (uint8_t)(m < L ? m + 1 : L) : 0;
    }
}

static int reach_ok_keyed(Reach *t, int r, const uint8_t *len, int j, const uint64_t *key);

/* The quick test (checked puzzles with the superset sets; see the head comment) of the
 * entry whose row r is `row` (above: its squares with white above; must: the runs that
 * must go on): 0 when it is dead without asking a row below, 1 when it is live (the last
 * row only), -1 when the rows below must be asked (the memo).  Checked, a square with
 * black above is a run of one that must go on, so it starts a Down word: the letters of
 * row r are fixed, and so the only next rows are the supersets of `must` that go on from
 * where they end. */
static inline int reach_quick(Reach *t, int r, uint64_t row, uint64_t above, uint64_t must, int j) {
    if (!reach_fits(t, r, j)) return 0;
    if (r == t->R - 1) {
        int n = must ? -1 : reach_letters(t, r, row, above, 0, j);
        return n >= 0 && j + n == t->nclues;
    }
    int n = reach_letters(t, r, row, above, row & ~above, j);
    if (n < 0 || !reach_fits(t, r + 1, j + n)) return 0;
    const uint64_t *set = super_set(t, r + 1, j + n);
    return (set[must >> 6] >> (must & 63) & 1u) ? -1 : 0;
}

/* See the head comment: 1 rows r+1.. can finish with rows r.. carrying clues[j:], 0 not. */
static int reach_ok(Reach *t, int r, const uint8_t *len, int j) {
    if (t->super && reach_quick_on && !t->stopped && !t->error) {
        uint64_t row = 0, above = 0, must = 0;
        for (int c = 0; c < t->C; c++) {
            int n = len[c];
            if (n >= 1) row |= 1ull << c;
            if (n >= 2) above |= 1ull << c;
            if (n >= 1 && n < t->L) must |= 1ull << c;
        }
        int quick = reach_quick(t, r, row, above, must, j);
        if (quick >= 0) return quick;
    }
    uint64_t key[1 + REACH_MAXC / 8];
    reach_key(t, r, len, j, key);
    return reach_ok_keyed(t, r, len, j, key);
}

/* reach_ok with the key of (r, len, j) made */
static int reach_ok_keyed(Reach *t, int r, const uint8_t *len, int j, const uint64_t *key) {
    int64_t s = reach_slot(t, key);
    uint64_t head = t->keys[s * t->kw];
    if (head & REACH_USED) return (head & REACH_LIVE) != 0;
    if (t->stopped) return 1;
    if (t->stop && (++t->misses & (REACH_STOP_EVERY - 1)) == 0 && t->stop(t->stop_ctx)) {
        t->stopped = 1;
        return 1;
    }
    const int64_t n_before = t->n;
    if (t->error) return 1;
    if (!reach_fits(t, r, j)) return 0;
    const int C = t->C, L = t->L, fw = t->fw;
    uint64_t row = 0, above = 0, must = 0, long_runs = 0; /* long_runs: len >= L - 1 */
    for (int c = 0; c < C; c++) {
        int n = len[c];
        if (n >= 1) row |= 1ull << c;
        if (n >= 2) above |= 1ull << c;
        if (n >= 1 && n < L && (n >= 2 || t->checked)) must |= 1ull << c;
        if (n >= L - 1) long_runs |= 1ull << c;
    }
    int ok = 0;
    if (r == t->R - 1) {
        int n = must ? -1 : reach_letters(t, r, row, above, 0, j);
        ok = n >= 0 && j + n == t->nclues;
    } else {
        /* the row's letters fix the next row on the squares with black above (keymask),
         * up to the branches of row_options; for each, the next rows that also continue
         * every run in `must`, picked by the next row's bit sets (past PICK_MAX patterns
         * its trie; past TRIE_BUDGET a scan) */
        uint64_t keymask = row & ~above;
        RowLetters opts[64];
        int nopts = 0;
        row_options(t, r, row, keymask, 0, j, 0, opts, &nopts, 64);
        uint8_t len2[REACH_MAXC];
        if (nopts == 64) { /* too many branches to list: scan every next row instead */
            for (int i = 0; i < t->npats[r + 1] && !ok; i++) {
                uint64_t q = t->pats[r + 1][i];
                if ((q & must) != must) continue;
                int cnt = reach_letters(t, r, row, above, q, j);
                if (cnt < 0 || !reach_pair_fits(t, r + 1, i, j + cnt)) continue;
                reach_extend(C, L, len, q, len2);
                ok = reach_ok(t, r + 1, len2, j + cnt);
            }
            nopts = 0;
        }
        for (int o = 0; o < nopts && !ok; o++) {
            int j2 = opts[o].n;
            if (!reach_fits(t, r + 1, j2)) continue;
            uint64_t one = must | opts[o].qk, zero = keymask & ~opts[o].qk;
            if (t->col[r + 1]) {
                /* the bit sets: those that go on from j2, AND per square fixed white or black */
                const int pw = t->pw[r + 1];
                const uint64_t *col = t->col[r + 1];
                uint64_t cand[PICK_MAX / 64];
                memcpy(cand, t->at[r + 1] + (int64_t)j2 * pw, sizeof(uint64_t) * (size_t)pw);
                for (uint64_t m = one; m; m &= m - 1) {
                    const uint64_t *b = col + (int64_t)(2 * __builtin_ctzll(m) + 1) * pw;
                    for (int w = 0; w < pw; w++) cand[w] &= b[w];
                }
                for (uint64_t m = zero; m; m &= m - 1) {
                    const uint64_t *b = col + (int64_t)(2 * __builtin_ctzll(m)) * pw;
                    for (int w = 0; w < pw; w++) cand[w] &= b[w];
                }
                /* in batches: the keys made and their slots fetched ahead (the memo is big
                 * and probed at random: the fetches overlap) */
                enum { BATCH = 8 };
                uint8_t lens[BATCH][REACH_MAXC];
                uint64_t keys[BATCH][1 + REACH_MAXC / 8];
                int w = 0;
                uint64_t m = pw ? cand[0] : 0;
                const int quick = t->super && reach_quick_on;
                while (!ok) {
                    int nb = 0;
                    while (nb < BATCH && !ok) {
                        while (!m && ++w < pw) m = cand[w];
                        if (!m) break;
                        const uint64_t q = t->pats[r + 1][w * 64 + __builtin_ctzll(m)];
                        m &= m - 1;
                        if (quick) { /* the next row's entry: most are dead without a probe */
                            int got = reach_quick(t, r + 1, q, q & row, q & ~long_runs, j2);
                            if (got >= 0) { ok = got; continue; }
                        }
                        reach_extend(C, L, len, q, lens[nb]);
                        reach_key(t, r + 1, lens[nb], j2, keys[nb]);
                        __builtin_prefetch(t->keys + (hash_words(keys[nb], t->kw) & (uint64_t)(t->cap - 1)) * t->kw);
                        nb++;
                    }
                    for (int b = 0; b < nb && !ok; b++) ok = reach_ok_keyed(t, r + 1, lens[b], j2, keys[b]);
                    if (nb < BATCH) break;
                }
                continue;
            }
            if (!t->kid) {
                for (int i = 0; i < t->npats[r + 1] && !ok; i++) {
                    uint64_t q = t->pats[r + 1][i];
                    if ((q & one) != one || (q & zero) || !reach_pair_fits(t, r + 1, i, j2)) continue;
                    reach_extend(C, L, len, q, len2);
                    ok = reach_ok(t, r + 1, len2, j2);
                }
                continue;
            }
            /* the trie: column by column, the children the squares allow whose patterns
             * below can go on from j2 */
            const int32_t *kid = t->kid[r + 1];
            const uint64_t *ors = t->orset[r + 1];
            int64_t jw = j2 / 64;
            uint64_t jb = 1ull << (j2 % 64);
            int32_t stack[2 * REACH_MAXC + 2];
            int8_t depth[2 * REACH_MAXC + 2];
            int sp = 0;
            if (ors[jw] & jb) { stack[sp] = 0; depth[sp++] = 0; }
            while (sp && !ok) {
                --sp;
                int32_t n = stack[sp];
                int c = depth[sp];
                if (c == C) {
                    reach_extend(C, L, len, t->pats[r + 1][kid[2 * n]], len2);
                    ok = reach_ok(t, r + 1, len2, j2);
                    continue;
                }
                for (int b = 0; b < 2; b++) {
                    if (b ? (zero >> c & 1u) : (one >> c & 1u)) continue;
                    int32_t k = kid[2 * n + b];
                    if (k >= 0 && (ors[(int64_t)k * fw + jw] & jb)) { stack[sp] = k; depth[sp++] = (int8_t)(c + 1); }
                }
            }
        }
    }
    t->computed++;
    if (t->stopped) return 1; /* an answer below may be a stopped one's: keep none */
    /* the recursion may have added keys (and grown the table): then find the slot again */
    if (t->n != n_before || 2 * (t->n + 1) > t->cap) {
        if (2 * (t->n + 1) > t->cap && reach_grow(t)) { t->error = 1; return 1; }
        s = reach_slot(t, key);
    }
    memcpy(t->keys + s * t->kw, key, sizeof(uint64_t) * (size_t)t->kw);
    t->keys[s * t->kw] |= REACH_USED | (ok ? REACH_LIVE : 0);
    t->n++;
    return ok;
}

#ifdef Py_PYTHON_H
/* The rows' data of a table owned by it (see reach_from_python). */
typedef struct {
    uint64_t *pats[REACH_MAXC];
    int npats[REACH_MAXC];
    int64_t exact[REACH_MAXC];
    uint64_t need[REACH_MAXC];
    int R;
} ReachRows;

static void reach_rows_free(ReachRows *rows) {
    for (int r = 0; r < rows->R; r++) free(rows->pats[r]);
    rows->R = 0;
}

/* A table from Python's spec (min_word, checked, patterns per row, exact per row, need per
 * row: the transfer's own per-row data) into t, its rows into rows (free both after):
 * 0 ok, -1 with the exception set. */
static int reach_from_python(Reach *t, ReachRows *rows, int R, int C, const char *clues, int nclues,
                             PyObject *spec) {
    int L, checked;
    PyObject *pats, *exact, *need;
    memset(rows, 0, sizeof(*rows));
    if (R < 1 || R > REACH_MAXC || C < 1 || C > REACH_MAXC || !clues) {
        PyErr_SetString(PyExc_ValueError, "a reachability table needs 1..64 rows and columns and a clue string");
        return -1;
    }
    if (!PyArg_ParseTuple(spec, "iiO!O!O!", &L, &checked, &PyList_Type, &pats, &PyList_Type, &exact, &PyList_Type,
                          &need))
        return -1;
    if (L < 2 || L > 255 || PyList_GET_SIZE(pats) != R || PyList_GET_SIZE(exact) != R || PyList_GET_SIZE(need) != R) {
        PyErr_SetString(PyExc_ValueError, "a reachability table's spec: min word 2..255 and one entry a row");
        return -1;
    }
    for (int r = 0; r < R; r++) {
        PyObject *lst = PyList_GET_ITEM(pats, r);
        if (!PyList_Check(lst)) { PyErr_SetString(PyExc_TypeError, "patterns of a row must be a list"); return -1; }
        int n = (int)PyList_GET_SIZE(lst);
        rows->pats[r] = malloc(sizeof(uint64_t) * (size_t)(n ? n : 1));
        rows->R = r + 1;
        if (!rows->pats[r]) { PyErr_NoMemory(); return -1; }
        rows->npats[r] = n;
        for (int i = 0; i < n; i++) {
            rows->pats[r][i] = PyLong_AsUnsignedLongLong(PyList_GET_ITEM(lst, i));
            if (PyErr_Occurred()) return -1;
        }
        rows->exact[r] = PyLong_AsLongLong(PyList_GET_ITEM(exact, r));
        rows->need[r] = PyLong_AsUnsignedLongLong(PyList_GET_ITEM(need, r));
        if (PyErr_Occurred()) return -1;
    }
    if (reach_init(t, R, C, L, checked, clues, nclues, rows->pats, rows->npats, rows->exact, rows->need)) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}
#endif

#endif
