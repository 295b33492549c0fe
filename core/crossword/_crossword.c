/*
 * _crossword.c — the crossword search of core/crossword/search.py, compiled.
 *
 * The same tree, node for node: squares decided in reading order, one label per square
 * (0 black, 1 white without a number, 2 Across start, 3 Down start, 4 both); a square
 * where one label survives is taken without a node; the clue string is checked square
 * by square, its end against the squares a symmetry has already decided.  The Python
 * module is the reference: tests/core/test_crossword_compiled.py compares counts,
 * listings, nodes per depth, budget stops and frontiers of the two.
 *
 * Data layout.  Squares are row-major ints 0..n-1.  `color[q]` is UNKNOWN, WHITE or
 * BLACK; `rb[r]` / `cb[c]` count the black squares of each row and column (the
 * no-black-lines rule).  The orbit of square q under the symmetry is
 * `orb[orb_at[q] .. orb_at[q + 1])`; every square of an orbit has the same colour
 * (invariant: set() colours whole orbits), so one colour test stands for the orbit.
 * `trail` lists the squares coloured, in order, for undo; `k` is the number of clues
 * used by the squares decided in reading order.
 *
 * solve(R, C, orb_at, orb, clues, numbered, start, min_word, checked, no_black_lines,
 *       connected, path, listing, limit, node_budget, seconds, max_depth)
 *   -> (status, count, solutions, frontier, nodes, leaves, nodes_per_depth,
 *       path_factors, seconds, bad_step, bad_options)
 * status: 0 searched to the end, 1 a budget stopped it, 2 the limit did, 3 the path
 * goes below a leaf at bad_step, 4 the path's step bad_step is not one of bad_options.
 * An optional last argument, reach (None, or the transfer's rows: (min_word, checked,
 * patterns, exact, need); unfolded kinds with a clue string), turns on the reachability
 * table of _reachable.h: at the start of each row r >= 1 the rows decided so far (their
 * profile: the vertical runs ending in row r-1) and where the letters of row r-1 begin
 * must be able to carry the rest of the clue string, or the branch ends there
 * (reach_row_ok; the Python search's _State.reach_ok, node for node).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "../_interrupt.h"
#include "../_search_common.h"
#include "_reachable.h"

enum { UNKNOWN = 0, WHITE = 1, BLACK = 2 };
enum { MAX_LABELS = 5 };

typedef struct {
    /* the puzzle: read only while searching */
    int R, C, n, L;
    int checked, nbl, connected, line_bounds;
    const int32_t *orb_at, *orb;
    const char *clues;             /* NULL: count every legal grid */
    int nclues;                    /* -1 without clues */
    const uint8_t *numbered;       /* NULL, or 0/1 per square (a JSON's gridnums) */
    int start;                     /* 0-based square of number 1, or -1 */
    int32_t *across_left;          /* [nclues + 1]: Across (A, Z) clues from clue k on */
    int32_t *a_before, *d_before;  /* [nclues + 1]: Across (A, Z) / Down (D, Z) clues before clue k */
    /* the state */
    uint8_t *color;
    int32_t *rb, *cb, *trail;
    int32_t ntrail, k;
    int32_t scan_q, scan_j;        /* suffix_scan(): squares after scan_q carry clues[scan_j:] */
    /* the run */
    int listing, max_depth;
    long long limit, node_budget;
    double deadline;               /* < 0: none */
    int32_t *path, *fac;           /* the labels and branching factors from the root */
    int32_t depth;
    unsigned long long nodes, leaves, expanded;
    u128 count;
    unsigned long long *per_depth;
    int32_t n_depths, cap_depths;
    Buf solutions, stop_frontier, split_frontier;
    int status, oom;
    Interrupt interrupt;
    uint8_t *seen;                 /* connectivity scratch */
    int32_t *todo;
    int reach_on;                  /* 1: the reachability table ends dead rows (see the head) */
    Reach *reach;                  /* &own_reach, or a kept table's (reach_table): NULL when off */
    Reach own_reach;               /* a table made for this call alone (a spec tuple), freed with it */
    ReachRows own_rows;
} Xw;

/* ---- colours ------------------------------------------------------------------- */

/* Colour square q and its orbit; 0 on a clash or an all-black line (the colours are
 * set all the same: undo() takes them back). */
static int set_color(Xw *s, int q, int col) {
    const int cur = s->color[q];
    if (cur) return cur == col;
    int ok = 1;
    for (int32_t i = s->orb_at[q]; i < s->orb_at[q + 1]; i++) {
        const int x = s->orb[i];
        s->color[x] = (uint8_t)col;
        s->trail[s->ntrail++] = x;
        if (col == BLACK) {
            const int r = x / s->C, c = x % s->C;
            s->rb[r]++;
            s->cb[c]++;
            if (s->nbl && (s->rb[r] == s->C || s->cb[c] == s->R)) ok = 0;
        }
    }
    return ok;
}

static void undo(Xw *s, int32_t mark, int32_t k) {
    while (s->ntrail > mark) {
        const int x = s->trail[--s->ntrail];
        if (s->color[x] == BLACK) {
            s->rb[x / s->C]--;
            s->cb[x % s->C]--;
        }
        s->color[x] = UNKNOWN;
    }
    s->k = k;
}

/* What the puzzle gives before any choice: the start, the numbered squares. */
static int root(Xw *s) {
    if (s->start >= 0) {
        for (int q = 0; q < s->start; q++)
            if (!set_color(s, q, BLACK)) return 0;
        if (!set_color(s, s->start, WHITE)) return 0;
    }
    if (s->numbered)
        for (int q = 0; q < s->n; q++)
            if (s->numbered[q] && !set_color(s, q, WHITE)) return 0;
    return 1;
}

/* ---- labels -------------------------------------------------------------------- */

static inline char letter(int a, int d) { return a && d ? 'Z' : a ? 'A' : 'D'; }

/* Labels at square p that pass the cheap tests (colour, clue letter), in the Python
 * order: black, then (across, down) over (no, yes) x (no, yes). */
static int candidates(const Xw *s, int p, int8_t *out) {
    const int col = s->color[p], C = s->C;
    const int r = p / C, c = p % C;
    const int has_num = s->numbered != NULL;
    const int num = has_num && s->numbered[p];
    int m = 0;
    if (col != WHITE && p != s->start && !num) out[m++] = 0;
    if (col == BLACK) return m;
    const int lb = c == 0 || s->color[p - 1] == BLACK;
    const int ab = r == 0 || s->color[p - C] == BLACK;
    const int a_lo = lb && s->checked ? 1 : 0, a_hi = lb ? 1 : 0;
    const int d_lo = ab && s->checked ? 1 : 0, d_hi = ab ? 1 : 0;
    for (int a = a_lo; a <= a_hi; a++)
        for (int d = d_lo; d <= d_hi; d++) {
            if (a || d) {
                if (p == s->start && s->k != 0) continue;
                if (has_num && !num) continue;
                if (s->clues && (s->k >= s->nclues || s->clues[s->k] != letter(a, d))) continue;
                out[m++] = (int8_t)(a && d ? 4 : a ? 2 : 3);
            } else {
                if (p == s->start || num) continue;
                out[m++] = 1;
            }
        }
    return m;
}

/* Set label lab at square p and what it forces; 0 if that clashes. */
static int apply(Xw *s, int p, int lab) {
    if (lab == 0) return set_color(s, p, BLACK);
    if (!set_color(s, p, WHITE)) return 0;
    const int C = s->C, L = s->L;
    const int r = p / C, c = p % C;
    const int a = lab == 2 || lab == 4, d = lab == 3 || lab == 4;
    if (a) {
        if (c + L > C) return 0;
        for (int j = 1; j < L; j++)
            if (!set_color(s, p + j, WHITE)) return 0;
    } else if ((c == 0 || s->color[p - 1] == BLACK) && c + 1 < C) {
        if (!set_color(s, p + 1, BLACK)) return 0;
    }
    if (d) {
        if (r + L > s->R) return 0;
        for (int j = 1; j < L; j++)
            if (!set_color(s, p + j * C, WHITE)) return 0;
    } else if ((r == 0 || s->color[p - C] == BLACK) && r + 1 < s->R) {
        if (!set_color(s, p + C, BLACK)) return 0;
    }
    if (a || d) s->k++;
    return 1;
}

/* The labels at square p that survive apply().  With `keep`: when the last label tried
 * is the only one to survive, its colours stay set and *kept is 1 (descend() would set
 * them again at once: most squares have one label). */
static int options(Xw *s, int p, int8_t *out, int *kept) {
    int8_t cand[MAX_LABELS];
    const int m = candidates(s, p, cand);
    int n_out = 0;
    if (kept) *kept = 0;
    for (int i = 0; i < m; i++) {
        const int32_t mark = s->ntrail, k = s->k;
        const int ok = apply(s, p, cand[i]);
        if (ok) out[n_out++] = cand[i];
        if (ok && kept && i == m - 1 && n_out == 1) {
            *kept = 1;
            break;
        }
        undo(s, mark, k);
    }
    return n_out;
}

/* Whether a white square q starts an Across word (*a) and a Down word (*d), from what is
 * decided around it; 0 while that is still open.  A square starts an Across word when
 * its left is black (or the edge) and its right white; it cannot when its left is
 * white or its right black; the same downwards. */
static int starts_known(const Xw *s, int q, int *a, int *d) {
    const uint8_t *color = s->color;
    const int C = s->C, R = s->R, r = q / C, c = q % C;
    const int left = c == 0 ? BLACK : color[q - 1], right = c + 1 == C ? BLACK : color[q + 1];
    const int up = r == 0 ? BLACK : color[q - C], down = r + 1 == R ? BLACK : color[q + C];
    if (left == WHITE || right == BLACK) *a = 0;
    else if (left == BLACK && right == WHITE) *a = 1;
    else return 0;
    if (up == WHITE || down == BLACK) *d = 0;
    else if (up == BLACK && down == WHITE) *d = 1;
    else return 0;
    return 1;
}

/* The end of the clue string against the end of the grid.  From the last square back,
 * the squares whose numbers are already known (a symmetry that maps the top rows to the
 * bottom ones decides them early) must carry the end of the clue string: the scan stops
 * at the first square not known yet, `scan_q`, having matched clues[scan_j:].  Colours
 * are only added below a node, so a square known stays known: the scan resumes where
 * the parent's stopped (node() saves and restores scan_q, scan_j).  0 on a mismatch. */
static int suffix_scan(Xw *s, int p) {
    const uint8_t *color = s->color;
    int j = s->scan_j, q = s->scan_q;
    for (; q >= p; q--) {
        if (color[q] == UNKNOWN) break;
        if (color[q] == WHITE) {
            int a, d;
            if (!starts_known(s, q, &a, &d)) break;
            if (a || d) {
                j--;
                if (j < s->k || s->clues[j] != letter(a, d)) return 0;
            }
        }
    }
    s->scan_q = q;
    s->scan_j = j;
    return 1;
}

/* Past the end of suffix_scan(): the squares before scan_q whose colour is decided but
 * whose number is still open (a neighbour undecided) may or may not start a word; each
 * such square's possible letters are tried, keeping the set of clue positions the end of
 * the clue string could have reached (bit i: clues[scan_j - i:] matched).  0 when no
 * position is left: no way to number those squares fits the clue string.  Not resumed
 * (open squares close later): it runs to the first undecided colour. */
static int open_scan_ok(const Xw *s, int p) {
    const uint8_t *color = s->color;
    const int C = s->C, R = s->R, k = s->k, j0 = s->scan_j;
    uint64_t set = 1;
    for (int q = s->scan_q; q >= p; q--) {
        if (color[q] == UNKNOWN) break;
        if (color[q] == BLACK) continue;
        const int r = q / C, c = q % C;
        const int left = c == 0 ? BLACK : color[q - 1], right = c + 1 == C ? BLACK : color[q + 1];
        const int up = r == 0 ? BLACK : color[q - C], down = r + 1 == R ? BLACK : color[q + C];
        int a_lo, a_hi, d_lo, d_hi;
        if (left == WHITE || right == BLACK) a_lo = a_hi = 0;
        else if (left == BLACK && right == WHITE) a_lo = a_hi = 1;
        else a_lo = 0, a_hi = 1;
        if (up == WHITE || down == BLACK) d_lo = d_hi = 0;
        else if (up == BLACK && down == WHITE) d_lo = d_hi = 1;
        else d_lo = 0, d_hi = 1;
        uint64_t next = 0;
        for (int a = a_lo; a <= a_hi; a++)
            for (int d = d_lo; d <= d_hi; d++) {
                if (!a && !d) {
                    next |= set;
                    continue;
                }
                const char want = letter(a, d);
                for (uint64_t b = set; b; b &= b - 1) {
                    const int i = __builtin_ctzll(b), j = j0 - i - 1;
                    if (i == 63) return 1; /* too many open squares to follow: say nothing */
                    if (j >= k && s->clues[j] == want) next |= (uint64_t)1 << (i + 1);
                }
            }
        set = next;
        if (!set) return 0;
    }
    return 1;
}

/* At the start of a row (square p), after suffix_scan(): squares p..scan_q hold exactly
 * clues[k:scan_j] — no more Across, Down or both letters than squares there could start
 * such words, and (checked, no black lines) an Across word in every whole row there. */
static int middle_ok(const Xw *s, int p) {
    const uint8_t *color = s->color;
    const int C = s->C, R = s->R, L = s->L, q = s->scan_q;
    int can_a = 0, can_d = 0, can_z = 0, can_any = 0;
    for (int x = p; x <= q; x++) {
        if (color[x] == BLACK) continue;
        const int r = x / C, c = x % C;
        const int left = c == 0 ? BLACK : color[x - 1], right = c + 1 == C ? BLACK : color[x + 1];
        const int up = r == 0 ? BLACK : color[x - C], down = r + 1 == R ? BLACK : color[x + C];
        const int a = left != WHITE && right != BLACK && c + L <= C;
        const int d = up != WHITE && down != BLACK && r + L <= R;
        can_a += a;
        can_d += d;
        can_z += a && d;
        can_any += a || d;
    }
    const int k = s->k, j = s->scan_j, want = j - k;
    const int want_a = s->a_before[j] - s->a_before[k], want_d = s->d_before[j] - s->d_before[k];
    const int want_z = want_a + want_d - want;
    if (want > can_any || want_a > can_a || want_d > can_d || want_z > can_z) return 0;
    if (s->line_bounds) {
        const int whole_rows = (q + 1) / C - (p + C - 1) / C;
        if (whole_rows > 0 && want_a < whole_rows) return 0;
    }
    return 1;
}

/* The table's budget (Reach.stop): the search's deadline and interrupts.  Once it stops,
 * out_of_budget() stops the search at its next node, whose path goes to the frontier
 * (a path names a choice: a subtree the table would have found empty is searched again
 * as an empty leaf). */
static int reach_budget(void *ctx) {
    Xw *s = ctx;
    if (s->deadline >= 0 && now_seconds() >= s->deadline) return 1;
    return interrupt_check(&s->interrupt);
}

/* At the start of row r = p / C (r >= 1): the rows below can carry the clue string from
 * where row r-1's letters begin (k less its letters; its Down starts are decided, since
 * every label forces the square below it), by the reachability table. */
static int reach_row_ok(Xw *s, int p) {
    if (!s->reach_on || p == 0) return 1;
    const int C = s->C, r = p / C, L = s->reach->L;
    uint8_t len[REACH_MAXC];
    uint64_t row = 0, above = 0, below = 0;
    for (int c = 0; c < C; c++) {
        int n = 0;
        while (n < L && r - 1 - n >= 0 && s->color[(r - 1 - n) * C + c] == WHITE) n++;
        len[c] = (uint8_t)n;
        if (n >= 1) row |= 1ull << c;
        if (n >= 2) above |= 1ull << c;
        if (s->color[r * C + c] == WHITE) below |= 1ull << c;
    }
    uint64_t nums = (row & ~(row << 1) & (row >> 1)) | (row & ~above & below);
    int j = s->k;
    for (; nums; nums &= nums - 1) j--;
    return reach_ok(s->reach, r - 1, len, j);
}

static inline int lines_ok(const Xw *s, int p) {
    return !s->line_bounds || s->across_left[s->k] >= s->R - (p + s->C - 1) / s->C;
}

/* Take every forced label from square p on; returns the node's square (n: all decided)
 * and fills its labels (none: a dead end, or every square decided). */
static int descend(Xw *s, int p, int8_t *opts, int *nopts) {
    while (p < s->n) {
        if (s->nclues >= 0 && !(suffix_scan(s, p) && lines_ok(s, p) && (p % s->C || (open_scan_ok(s, p) && middle_ok(s, p) && reach_row_ok(s, p))))) {
            *nopts = 0;
            return p;
        }
        int kept;
        const int m = options(s, p, opts, &kept);
        if (m != 1) {
            *nopts = m;
            return p;
        }
        if (!kept) apply(s, p, opts[0]);
        p++;
    }
    *nopts = 0;
    return s->n;
}

/* At p == n: every clue used, a white square (the all-black grid has no words, it is not
 * a crossword) and the white squares connected. */
static int is_solution(Xw *s) {
    if (s->nclues >= 0 && s->k != s->nclues) return 0;
    int black = 0;
    for (int r = 0; r < s->R; r++) black += s->rb[r];
    if (black == s->n) return 0;
    if (!s->connected) return 1;
    const int n = s->n, C = s->C, R = s->R;
    int first = -1, whites = 0;
    for (int q = 0; q < n; q++)
        if (s->color[q] == WHITE) {
            whites++;
            if (first < 0) first = q;
        }
    if (first < 0) return 0;
    memset(s->seen, 0, (size_t)n);
    int top = 0, reached = 1;
    s->seen[first] = 1;
    s->todo[top++] = first;
    while (top) {
        const int q = s->todo[--top];
        const int r = q / C, c = q % C;
        const int nb[4] = {c > 0 ? q - 1 : -1, c + 1 < C ? q + 1 : -1, r > 0 ? q - C : -1, r + 1 < R ? q + C : -1};
        for (int i = 0; i < 4; i++) {
            const int x = nb[i];
            if (x >= 0 && !s->seen[x] && s->color[x] == WHITE) {
                s->seen[x] = 1;
                reached++;
                s->todo[top++] = x;
            }
        }
    }
    return reached == whites;
}

/* ---- the run ------------------------------------------------------------------- */

/* Append path[0..len) (and, with factors, fac[0..len)) to a record buffer. */
static void record(Xw *s, Buf *b, int32_t len, int with_factors) {
    if (buf_reserve(b, 1 + (int64_t)len * (with_factors ? 2 : 1))) {
        s->oom = 1;
        return;
    }
    b->v[b->n++] = len;
    memcpy(b->v + b->n, s->path, sizeof(int32_t) * (size_t)len);
    b->n += len;
    if (with_factors) {
        memcpy(b->v + b->n, s->fac, sizeof(int32_t) * (size_t)len);
        b->n += len;
    }
}

static void visit(Xw *s, int32_t depth) {
    s->nodes++;
    if (depth >= s->cap_depths) {
        int32_t cap = s->cap_depths ? s->cap_depths * 2 : 64;
        while (cap <= depth) cap *= 2;
        unsigned long long *v = realloc(s->per_depth, sizeof(*v) * (size_t)cap);
        if (!v) {
            s->oom = 1;
            return;
        }
        memset(v + s->cap_depths, 0, sizeof(*v) * (size_t)(cap - s->cap_depths));
        s->per_depth = v;
        s->cap_depths = cap;
    }
    if (depth >= s->n_depths) s->n_depths = depth + 1;
    s->per_depth[depth]++;
}

static int out_of_budget(Xw *s) {
    if (s->oom || (s->reach && s->reach->stopped)) return 1;
    if ((s->expanded & (INTERRUPT_EVERY - 1)) == 0 && interrupt_check(&s->interrupt)) return 1;
    if (s->node_budget >= 0 && s->nodes >= (unsigned long long)s->node_budget) return 1;
    if (s->deadline >= 0 && s->expanded % 64 == 0 && now_seconds() >= s->deadline) return 1;
    return 0;
}

/* Search the node at square p with labels opts (path[0..depth) leads to it); 1 when
 * the run must stop (a budget, the limit, a signal, no memory): the unexplored
 * siblings are then recorded on the way up, deepest first, as search.py does. */
static int node(Xw *s, int p, const int8_t *opts, int nopts) {
    const int32_t depth = s->depth;
    if (s->max_depth >= 0 && (nopts == 0 || depth >= s->max_depth)) {
        record(s, &s->split_frontier, depth, 1);
        return s->oom;
    }
    if (nopts == 0) {
        visit(s, depth);
        s->leaves++;
        if (p == s->n && is_solution(s)) {
            s->count++;
            if (s->listing) record(s, &s->solutions, depth, 0);
            if (s->limit >= 0 && s->count >= (u128)s->limit) {
                s->status = 2;
                return 1;
            }
        }
        return s->oom;
    }
    if (s->expanded && out_of_budget(s)) {
        s->status = 1;
        record(s, &s->stop_frontier, depth, 1);
        return 1;
    }
    visit(s, depth);
    s->expanded++;
    for (int i = 0; i < nopts; i++) {
        const int32_t mark = s->ntrail, k = s->k, scan_q = s->scan_q, scan_j = s->scan_j;
        apply(s, p, opts[i]);
        s->path[depth] = opts[i];
        s->fac[depth] = nopts;
        s->depth = depth + 1;
        int8_t o2[MAX_LABELS];
        int n2;
        const int p2 = descend(s, p + 1, o2, &n2);
        const int stop = node(s, p2, o2, n2);
        s->depth = depth;
        undo(s, mark, k);
        s->scan_q = scan_q;
        s->scan_j = scan_j;
        if (stop) {
            for (int j = i + 1; j < nopts; j++) {
                s->path[depth] = opts[j];
                s->fac[depth] = nopts;
                record(s, &s->stop_frontier, depth + 1, 1);
            }
            return 1;
        }
    }
    return 0;
}

/* ---- Python --------------------------------------------------------------------- */

static void xw_free(Xw *s) {
    free(s->across_left);
    free(s->a_before);
    free(s->d_before);
    free(s->color);
    free(s->rb);
    free(s->cb);
    free(s->trail);
    free(s->path);
    free(s->fac);
    free(s->per_depth);
    free(s->seen);
    free(s->todo);
    if (s->reach) {  /* a kept table outlives the call: it must not call back into it */
        s->reach->stop = NULL;
        s->reach->stop_ctx = NULL;
    }
    reach_free(&s->own_reach);
    reach_rows_free(&s->own_rows);
    free(s->solutions.v);
    free(s->stop_frontier.v);
    free(s->split_frontier.v);
}

/* ---- a reachability table kept between calls ----------------------------------------
 * Making the table (its relaxations, the rows' patterns read from Python) costs tens of
 * milliseconds on a big grid (the NYT 23x23 left-right: 54 ms), which every subproblem of
 * a run paid again: 43 of them took 2.3 s of a 0.87 s listing.  reach_table() makes it
 * once, in a capsule the Python solver keeps and passes to solve(); its memo is then kept
 * too.  Sound across calls: an entry is a fact about the puzzle's rows below, whatever
 * the path; a call the budget stops stores nothing (reach_ok); solve() clears the
 * table's callback to its own frame before it returns. */
#define KEPT_REACH "tilecensus.crossword.reach"

typedef struct {
    Reach t;
    ReachRows rows;
    int R, C, nclues;
    char *clues;  /* the table's own copy: t.clues points here */
} KeptReach;

static void kept_reach_drop(KeptReach *kept) {
    reach_free(&kept->t);
    reach_rows_free(&kept->rows);
    free(kept->clues);
    free(kept);
}

static void kept_reach_free(PyObject *capsule) {
    KeptReach *kept = PyCapsule_GetPointer(capsule, KEPT_REACH);
    if (kept) kept_reach_drop(kept);
}

static PyObject *crossword_reach_table(PyObject *self, PyObject *args) {
    (void)self;
    int R, C;
    PyObject *clues_obj, *spec;
    if (!PyArg_ParseTuple(args, "iiUO!", &R, &C, &clues_obj, &PyTuple_Type, &spec)) return NULL;
    Py_ssize_t len;
    const char *clues = PyUnicode_AsUTF8AndSize(clues_obj, &len);
    if (!clues) return NULL;
    KeptReach *kept = calloc(1, sizeof *kept);
    if (!kept || !(kept->clues = malloc((size_t)len + 1))) {
        free(kept);
        return PyErr_NoMemory();
    }
    memcpy(kept->clues, clues, (size_t)len + 1);
    kept->R = R;
    kept->C = C;
    kept->nclues = (int)len;
    if (reach_from_python(&kept->t, &kept->rows, R, C, kept->clues, kept->nclues, spec)) {
        kept_reach_drop(kept);
        return NULL;
    }
    PyObject *capsule = PyCapsule_New(kept, KEPT_REACH, kept_reach_free);
    if (!capsule) kept_reach_drop(kept);
    return capsule;
}

static PyObject *options_list(const int8_t *opts, int m) {
    PyObject *out = PyList_New(m);
    if (!out) return NULL;
    for (int i = 0; i < m; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(opts[i]));
    return out;
}

static PyObject *crossword_solve(PyObject *self, PyObject *args) {
    (void)self;
    int R, C, start, L, checked, nbl, connected, listing, max_depth;
    Py_buffer orb_at_b, orb_b;
    PyObject *clues_obj, *numbered_obj, *path_obj, *reach_obj = Py_None;
    long long limit, node_budget;
    double seconds;
    if (!PyArg_ParseTuple(args, "iiy*y*OOiiiiiOpLLdi|O", &R, &C, &orb_at_b, &orb_b, &clues_obj, &numbered_obj,
                          &start, &L, &checked, &nbl, &connected, &path_obj, &listing, &limit, &node_budget,
                          &seconds, &max_depth, &reach_obj))
        return NULL;
    PyObject *result = NULL, *path_seq = NULL;
    Xw s;
    memset(&s, 0, sizeof s);
    const int n = R * C;
    if (R < 1 || C < 1 || n > (1 << 20) || orb_at_b.len != (Py_ssize_t)sizeof(int32_t) * (n + 1)) {
        PyErr_SetString(PyExc_ValueError, "_crossword.solve: bad grid size or orbit table");
        goto done;
    }
    const int32_t *orb_at = orb_at_b.buf;
    if (orb_at[0] != 0 || orb_b.len != (Py_ssize_t)sizeof(int32_t) * orb_at[n]) {
        PyErr_SetString(PyExc_ValueError, "_crossword.solve: the orbit table does not match its squares");
        goto done;
    }
    for (int q = 0; q < n; q++) {
        const int32_t *orb = orb_b.buf;
        if (orb_at[q + 1] <= orb_at[q]) {
            PyErr_SetString(PyExc_ValueError, "_crossword.solve: an empty orbit");
            goto done;
        }
        for (int32_t i = orb_at[q]; i < orb_at[q + 1]; i++)
            if (orb[i] < 0 || orb[i] >= n) {
                PyErr_SetString(PyExc_ValueError, "_crossword.solve: an orbit square off the grid");
                goto done;
            }
    }
    s.R = R;
    s.C = C;
    s.n = n;
    s.L = L < 2 ? 2 : L;
    s.checked = checked;
    s.nbl = nbl;
    s.connected = connected;
    s.line_bounds = checked && nbl;
    s.orb_at = orb_at;
    s.orb = orb_b.buf;
    s.start = start;
    s.nclues = -1;
    s.scan_q = n - 1;
    if (clues_obj != Py_None) {
        Py_ssize_t len;
        s.clues = PyUnicode_AsUTF8AndSize(clues_obj, &len);
        if (!s.clues) goto done;
        s.nclues = (int)len;
        s.scan_j = s.nclues;
    }
    if (numbered_obj != Py_None) {
        if (!PyBytes_Check(numbered_obj) || PyBytes_GET_SIZE(numbered_obj) != n) {
            PyErr_SetString(PyExc_ValueError, "_crossword.solve: numbered must be bytes, one per square");
            goto done;
        }
        s.numbered = (const uint8_t *)PyBytes_AS_STRING(numbered_obj);
    }
    if (PyCapsule_CheckExact(reach_obj)) {
        KeptReach *kept = PyCapsule_GetPointer(reach_obj, KEPT_REACH);
        if (!kept) goto done;
        if (kept->R != R || kept->C != C || kept->nclues != s.nclues || !s.clues ||
            memcmp(kept->clues, s.clues, (size_t)s.nclues) != 0) {
            PyErr_SetString(PyExc_ValueError, "_crossword.solve: the reachability table is another puzzle's");
            goto done;
        }
        s.reach = &kept->t;
    } else if (reach_obj != Py_None) {
        if (reach_from_python(&s.own_reach, &s.own_rows, R, C, s.clues, s.nclues, reach_obj)) goto done;
        s.reach = &s.own_reach;
    }
    if (s.reach) {
        s.reach_on = 1;
        s.reach->stop = reach_budget;
        s.reach->stop_ctx = &s;
        s.reach->stopped = 0;  /* a kept table: an earlier call's stop stored nothing */
    }
    path_seq = PySequence_Fast(path_obj, "_crossword.solve: path must be a sequence");
    if (!path_seq) goto done;
    const Py_ssize_t n_path = PySequence_Fast_GET_SIZE(path_seq);
    const size_t room = (size_t)(n_path > n ? n_path : n) + 2;
    s.across_left = calloc((size_t)(s.nclues < 0 ? 1 : s.nclues + 1), sizeof(int32_t));
    s.a_before = calloc((size_t)(s.nclues < 0 ? 1 : s.nclues + 1), sizeof(int32_t));
    s.d_before = calloc((size_t)(s.nclues < 0 ? 1 : s.nclues + 1), sizeof(int32_t));
    s.color = calloc((size_t)n, 1);
    s.rb = calloc((size_t)R, sizeof(int32_t));
    s.cb = calloc((size_t)C, sizeof(int32_t));
    s.trail = calloc((size_t)n, sizeof(int32_t));
    s.path = calloc(room, sizeof(int32_t));
    s.fac = calloc(room, sizeof(int32_t));
    s.seen = calloc((size_t)n, 1);
    s.todo = calloc((size_t)n, sizeof(int32_t));
    if (!s.across_left || !s.a_before || !s.d_before || !s.color || !s.rb || !s.cb || !s.trail || !s.path || !s.fac || !s.seen || !s.todo) {
        PyErr_NoMemory();
        goto done;
    }
    for (int k = s.nclues - 1; k >= 0; k--) s.across_left[k] = s.across_left[k + 1] + (s.clues[k] != 'D');
    for (int k = 0; k < s.nclues; k++) {
        s.a_before[k + 1] = s.a_before[k] + (s.clues[k] != 'D');
        s.d_before[k + 1] = s.d_before[k] + (s.clues[k] != 'A');
    }
    for (Py_ssize_t i = 0; i < n_path; i++) {
        const long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(path_seq, i));
        if (v == -1 && PyErr_Occurred()) goto done;
        s.path[i] = v < 0 || v > 127 ? -1 : (int32_t)v;
    }
    s.listing = listing;
    s.limit = limit;
    s.node_budget = node_budget;
    s.max_depth = max_depth;
    const double started = now_seconds();
    s.deadline = seconds >= 0 ? started + seconds : -1.0;

    /* replay the path: the labels must be the node's labels, step by step */
    int8_t opts[MAX_LABELS];
    int nopts = 0, p = 0, bad = -1, bad_kind = 0;
    int8_t bad_opts[MAX_LABELS];
    int n_bad_opts = 0;
    interrupt_release(&s.interrupt);
    if (root(&s)) p = descend(&s, 0, opts, &nopts);
    for (Py_ssize_t i = 0; i < n_path && bad < 0; i++) {
        const int32_t ch = s.path[i];
        int ok = 0;
        for (int j = 0; j < nopts; j++) ok = ok || opts[j] == ch;
        if (!nopts || !ok) {
            bad = (int)i;
            bad_kind = nopts ? 4 : 3;
            n_bad_opts = nopts;
            memcpy(bad_opts, opts, sizeof opts);
            break;
        }
        s.fac[i] = nopts;
        apply(&s, p, ch);
        p = descend(&s, p + 1, opts, &nopts);
    }
    if (bad < 0) {
        s.depth = (int32_t)n_path;
        node(&s, p, opts, nopts);
    }
    interrupt_reacquire(&s.interrupt);
    const double elapsed = now_seconds() - started;
    if (s.interrupt.raised) goto done; /* the handler's exception stands */
    if (s.oom || (s.reach && s.reach->error)) {
        PyErr_NoMemory();
        goto done;
    }
    if (bad >= 0) {
        PyObject *o = options_list(bad_opts, n_bad_opts);
        if (o) result = Py_BuildValue("(iOOOKKOOdiN)", bad_kind, Py_None, Py_None, Py_None, 0ULL, 0ULL,
                                      Py_None, Py_None, elapsed, bad, o);
        goto done;
    }
    const int split = max_depth >= 0;
    PyObject *count = u128_to_long(s.count);
    PyObject *sols = listing ? records_to_list(&s.solutions, 0) : Py_NewRef(Py_None);
    PyObject *front = records_to_list(split ? &s.split_frontier : &s.stop_frontier, 1);
    PyObject *per = PyList_New(s.n_depths);
    PyObject *fac = PyTuple_New(n_path);
    if (count && sols && front && per && fac) {
        for (int32_t d = 0; d < s.n_depths; d++) PyList_SET_ITEM(per, d, PyLong_FromUnsignedLongLong(s.per_depth[d]));
        for (Py_ssize_t i = 0; i < n_path; i++) PyTuple_SET_ITEM(fac, i, PyLong_FromLong(s.fac[i]));
        result = Py_BuildValue("(iNNNKKNNdiO)", split ? 0 : s.status, count, sols, front, s.nodes, s.leaves, per,
                               fac, elapsed, -1, Py_None);
    } else {
        Py_XDECREF(count);
        Py_XDECREF(sols);
        Py_XDECREF(front);
        Py_XDECREF(per);
        Py_XDECREF(fac);
    }
done:
    Py_XDECREF(path_seq);
    PyBuffer_Release(&orb_at_b);
    PyBuffer_Release(&orb_b);
    xw_free(&s);
    return result;
}

static PyMethodDef methods[] = {
    {"solve", crossword_solve, METH_VARARGS,
     "solve(R, C, orb_at, orb, clues, numbered, start, min_word, checked, no_black_lines, connected, path, "
     "listing, limit, node_budget, seconds, max_depth, reach=None) -> (status, count, solutions, frontier, nodes, "
     "leaves, nodes_per_depth, path_factors, seconds, bad_step, bad_options); reach: (min_word, checked, patterns, "
     "exact, need) turns on the reachability table at row starts, made for the call; or reach_table()'s capsule"},
    {"reach_table", crossword_reach_table, METH_VARARGS,
     "reach_table(R, C, clues, (min_word, checked, patterns, exact, need)) -> a reachability table kept between "
     "solve() calls of the same puzzle (a capsule)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "core._crossword", "The crossword search of core/crossword/search.py, compiled.", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__crossword(void) { return PyModule_Create(&module); }
