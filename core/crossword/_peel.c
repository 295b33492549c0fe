/*
 * _peel.c — the layer build of the square symmetries (core/crossword/peel.py) in C.
 *
 * The same contract as PeelCounter.count_within in peel.py, which stays beside it as the
 * pure-Python reference (tests compare them): the grid is built one layer at a time from
 * the outside in (diagonal kinds: the L of row k and column k; quarter-turn kinds: the
 * ring k steps from the edge), the layers built so far summed up in a state, equal states
 * merged, and the number of grids per state carried in 128 bits (an overflow is an
 * OverflowError, never a wrong count).
 *
 * What Python decides and hands in, per layer: the width w of its free side, the
 * patterns the free side may take (runs allowed by the rules away from the side's ends,
 * palindromes for `full`, fixed squares, a path's prefix), and the layer's geometry as
 * plain lists — its squares (each with the bit of the free side that colours it), the
 * pairs of its squares that touch, the pairs (square, position on the previous layer's
 * border) that touch, and its own border (the squares that touch what is left after it,
 * as indices into its squares).  So C knows nothing of coordinates: connectivity is a
 * union-find over those lists.  What C does: the layers.
 *
 * A state (layer k placed) is a fixed-size key of NW 64-bit words:
 *   word 0        seen: bit j, the j-th column of what is left had a white square
 *                 (no_black_lines), else 0
 *   word 1        bit 0 closed: the one white group has ended (only black follows);
 *                 bit 1 white: a square so far is white (every grid has one: the
 *                 all-black grid has no words, it is not a crossword)
 *   words 2..     run[j]: the vertical white run ending in row k of the j-th column of
 *                 what is left, capped at L (one byte each, width of the next layer)
 *   then          lab[p]: the connectivity label of border square p of layer k (0 black;
 *                 equal labels are joined by the layers so far; numbered 1.. in border
 *                 order, so the labels in use are 1..max without gaps)
 * Invariant: a stored count is never 0 (the table's empty mark).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "../_interrupt.h"
#include "../_search_common.h"
#include "_state_table.h"

#define MAXN 64              /* squares per side of the grid, and of a layer's free side */
#define MAXCELLS (4 * MAXN)  /* squares of one layer (a ring: 4w - 4) */

/* ------------------------------------------------------------------ the fixed data */
typedef struct {
    int w;                  /* squares of the free side (bits of a pattern) */
    int npats, ncells, nintra, ncross, nborder;
    uint64_t *pats;         /* the free side's allowed patterns */
    int *bit;               /* per square of the layer: the bit of the free side it takes */
    int *intra;             /* nintra pairs (a, b) of squares of the layer that touch */
    int *cross;             /* ncross pairs (square, position on the previous border) */
    int *border;            /* per border position: the square of the layer */
} Layer;

typedef struct {
    int n, L, checked, connected, nbl, ring, nlayers;
    Layer layers[MAXN];
    int rw, nw;             /* words of run[]; words per key */
} Spec;

static inline int run_ok(int n, const Spec *s) { return n == 0 || (n == 1 && !s->checked) || n >= s->L; }

/* ------------------------------------------------------------------ a state, unpacked */
typedef struct {
    uint64_t seen;
    int closed, white;
    uint8_t run[MAXN], lab[MAXCELLS];
} State;

static void unpack(const Spec *s, const uint64_t *k, State *st) {
    st->seen = k[0];
    st->closed = (int)(k[1] & 1u);
    st->white = (int)((k[1] >> 1) & 1u);
    memcpy(st->run, k + 2, sizeof(uint64_t) * (size_t)s->rw);
    memcpy(st->lab, k + 2 + s->rw, sizeof(uint64_t) * (size_t)(s->nw - 2 - s->rw));
}

static void pack(const Spec *s, const State *st, uint64_t *k) {
    k[0] = st->seen;
    k[1] = (uint64_t)st->closed | ((uint64_t)st->white << 1);
    memcpy(k + 2, st->run, sizeof(uint64_t) * (size_t)s->rw);
    memcpy(k + 2 + s->rw, st->lab, sizeof(uint64_t) * (size_t)(s->nw - 2 - s->rw));
}

/* ------------------------------------------------------------------ one layer */
/* The runs and no-black-line part of placing pattern x on layer k: row k, complete now,
 * and the columns that go on into what is left (into nx); 0 when a rule breaks. */
static int place_runs(const Spec *s, const Layer *ly, const State *st, uint64_t x, State *nx) {
    int w = ly->w, L = s->L;
    /* row k is [a] x [b]: a continues the run on its left, b (rings) the one on its right */
    int a = s->ring ? st->run[w - 1] : st->run[0];
    int b = s->ring ? st->run[0] : 0;
    int cur = a;
    for (int i = 0; i < w; i++) {
        if (x >> i & 1u) {
            cur = cur + 1 < L ? cur + 1 : L;
        } else {
            if (!run_ok(cur, s)) return 0;
            cur = 0;
        }
    }
    int last = (x >> (w - 1) & 1u) ? (cur + b < L ? cur + b : L) : b;
    if (!run_ok(last, s)) return 0;
    int hi = s->ring ? w - 1 : w; /* the inner squares 1..hi-1 sit above what is left */
    memset(nx->run, 0, sizeof(nx->run));
    nx->seen = 0;
    for (int i = 1; i < hi; i++) {
        if (x >> i & 1u) {
            nx->run[i - 1] = (uint8_t)(st->run[i] + 1 < L ? st->run[i] + 1 : L);
        } else {
            if (!run_ok(st->run[i], s)) return 0;
            nx->run[i - 1] = 0;
        }
    }
    if (s->nbl) {
        int row_white = x || (st->seen & 1u) || (s->ring && (st->seen >> (w - 1) & 1u));
        if (!row_white) return 0;
        for (int i = 1; i < hi; i++)
            if ((st->seen >> i & 1u) || (x >> i & 1u)) nx->seen |= 1ull << (i - 1);
    }
    return 1;
}

/* The labels of layer k's border after pattern x (into nx), from the labels of the
 * previous border in st; 0 when a white group is cut off while another lives on.
 * Ids: old labels 1..M, the layer's squares M+1..M+ncells. */
static int place_links(const Layer *ly, const Layer *prev, const State *st, uint64_t x, State *nx) {
    memset(nx->lab, 0, sizeof(nx->lab));
    nx->closed = st->closed;
    int m = ly->ncells;
    if (st->closed) {
        for (int c = 0; c < m; c++)
            if (x >> ly->bit[c] & 1u) return 0;
        return 1;
    }
    int M = 0;
    int pb = prev ? prev->nborder : 0;
    for (int p = 0; p < pb; p++) if (st->lab[p] > M) M = st->lab[p];
    int parent[MAXCELLS + MAXCELLS + 2], live[MAXCELLS + MAXCELLS + 2], name[MAXCELLS + MAXCELLS + 2];
    for (int i = 0; i <= M + m; i++) { parent[i] = i; live[i] = 0; name[i] = 0; }
#define WHITE(c) ((x >> ly->bit[c]) & 1u)
    for (int e = 0; e < ly->ncross; e++) {
        int c = ly->cross[2 * e], p = ly->cross[2 * e + 1];
        if (WHITE(c) && st->lab[p]) parent[uf_find(parent, M + 1 + c)] = uf_find(parent, st->lab[p]);
    }
    for (int e = 0; e < ly->nintra; e++) {
        int c1 = ly->intra[2 * e], c2 = ly->intra[2 * e + 1];
        if (WHITE(c1) && WHITE(c2)) parent[uf_find(parent, M + 1 + c1)] = uf_find(parent, M + 1 + c2);
    }
    int any_live = 0;
    for (int p = 0; p < ly->nborder; p++) {
        int c = ly->border[p];
        if (WHITE(c)) { live[uf_find(parent, M + 1 + c)] = 1; any_live = 1; }
    }
    /* the groups that end here: roots of old labels and white squares not on the border */
    int ended = 0;
    for (int i = 1; i <= M + m; i++) {
        if (i > M && !WHITE(i - M - 1)) continue;
        int r = uf_find(parent, i);
        if (!live[r]) { live[r] = 2; ended++; } /* 2: counted as ended once */
    }
#undef WHITE
    if (ended && (ended > 1 || any_live)) return 0;
    int names = 0;
    for (int p = 0; p < ly->nborder; p++) {
        int c = ly->border[p];
        if (!(x >> ly->bit[c] & 1u)) continue;
        int r = uf_find(parent, M + 1 + c);
        if (!name[r]) name[r] = ++names;
        nx->lab[p] = (uint8_t)name[r];
    }
    nx->closed = ended > 0;
    return 1;
}

/* ------------------------------------------------------------------ the run */
typedef struct {
    Spec s;
    double deadline;           /* < 0: none */
    int64_t max_transitions;   /* < 0: none */
    int64_t transitions, states_max;
    int stopped;               /* 1 budget */
    int error;                 /* -1 memory, -2 overflow, -3 interrupted */
    Interrupt it;
} Run;

static inline int tick(Run *run) {
    return count_tick(&run->transitions, run->deadline, run->max_transitions, &run->stopped, &run->error, &run->it);
}

/* Place layer k on every state of `cur`, into `nxt`; 1 to stop. */
static int step(Run *run, Table *cur, Table *nxt, int k) {
    const Spec *s = &run->s;
    const Layer *ly = &s->layers[k], *prev = k ? &s->layers[k - 1] : NULL;
    State st, nx;
    uint64_t key[2 + MAXN / 8 + MAXCELLS / 8];
    memset(&nx, 0, sizeof(nx));
    for (int64_t i = 0; i < cur->cap; i++) {
        u128 v = cur->counts[i];
        if (!v) continue;
        unpack(s, cur->keys + i * cur->nw, &st);
        for (int j = 0; j < ly->npats; j++) {
            if (tick(run)) return 1;
            uint64_t x = ly->pats[j];
            if (!place_runs(s, ly, &st, x, &nx)) continue;
            if (s->connected) {
                if (!place_links(ly, prev, &st, x, &nx)) continue;
            } else {
                nx.closed = 0;
            }
            nx.white = st.white || x;
            pack(s, &nx, key);
            int e = table_add(nxt, key, v);
            if (e) { run->error = e; return 1; }
        }
    }
    if (nxt->n > run->states_max) run->states_max = nxt->n;
    return 0;
}

/* The whole count; 1 when stopped (budget, error). */
static int count_all(Run *run, u128 *total) {
    Spec *s = &run->s;
    Table a, b;
    if (table_init(&a, s->nw, 1024) || table_init(&b, s->nw, 1024)) {
        table_free(&a);
        table_free(&b);
        run->error = -1;
        return 1;
    }
    State st;
    memset(&st, 0, sizeof(st));
    uint64_t key[2 + MAXN / 8 + MAXCELLS / 8];
    pack(s, &st, key);
    table_add(&a, key, 1);
    Table *cur = &a, *nxt = &b;
    int stop = 0;
    for (int k = 0; k < s->nlayers && !stop; k++) {
        table_clear(nxt);
        stop = step(run, cur, nxt, k);
        Table *tmp = cur;
        cur = nxt;
        nxt = tmp;
    }
    for (int64_t i = 0; !stop && i < cur->cap; i++) {
        if (!(cur->keys[i * cur->nw + 1] >> 1 & 1u)) continue; /* no white square (or an empty slot) */
        u128 sum = *total + cur->counts[i];
        if (sum < cur->counts[i]) { run->error = -2; stop = 1; }
        *total = sum;
    }
    table_free(&a);
    table_free(&b);
    return stop;
}

/* ------------------------------------------------------------------ Python */
/* A list of ints into a new array (*out, *n); `lo`..`hi` bound each value. */
static int read_ints(PyObject *seq, int **out, int *n, int lo, int hi, const char *what) {
    if (!PyList_Check(seq)) { PyErr_Format(PyExc_TypeError, "%s must be a list", what); return -1; }
    *n = (int)PyList_GET_SIZE(seq);
    *out = malloc(sizeof(int) * (size_t)(*n ? *n : 1));
    if (!*out) { PyErr_NoMemory(); return -1; }
    for (int i = 0; i < *n; i++) {
        long v = PyLong_AsLong(PyList_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) return -1;
        if (v < lo || v > hi) { PyErr_Format(PyExc_ValueError, "%s: %ld is out of range", what, v); return -1; }
        (*out)[i] = (int)v;
    }
    return 0;
}

/* One layer from its tuple (w, patterns, bits, intra, cross, border); prev_border: the
 * previous layer's border length. */
static int read_layer(PyObject *t, Layer *ly, int prev_border) {
    PyObject *pats, *bits, *intra, *cross, *border;
    if (!PyTuple_Check(t) || !PyArg_ParseTuple(t, "iOOOOO", &ly->w, &pats, &bits, &intra, &cross, &border)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "a layer is a tuple (w, patterns, bits, intra, cross, border)");
        return -1;
    }
    if (ly->w < 1 || ly->w > MAXN) { PyErr_SetString(PyExc_ValueError, "a layer's width must be 1..64"); return -1; }
    if (!PyList_Check(pats)) { PyErr_SetString(PyExc_TypeError, "patterns must be a list"); return -1; }
    uint64_t full = ly->w == 64 ? ~0ull : (1ull << ly->w) - 1;
    ly->npats = (int)PyList_GET_SIZE(pats);
    ly->pats = malloc(sizeof(uint64_t) * (size_t)(ly->npats ? ly->npats : 1));
    if (!ly->pats) { PyErr_NoMemory(); return -1; }
    for (int j = 0; j < ly->npats; j++) {
        unsigned long long u = PyLong_AsUnsignedLongLong(PyList_GET_ITEM(pats, j));
        if (PyErr_Occurred()) return -1;
        if (u & ~full) { PyErr_SetString(PyExc_ValueError, "a pattern has squares past its layer's width"); return -1; }
        ly->pats[j] = u;
    }
    int n2;
    if (read_ints(bits, &ly->bit, &ly->ncells, 0, ly->w - 1, "bits")) return -1;
    if (ly->ncells > MAXCELLS) { PyErr_SetString(PyExc_ValueError, "too many squares in a layer"); return -1; }
    if (read_ints(intra, &ly->intra, &n2, 0, ly->ncells - 1, "intra")) return -1;
    ly->nintra = n2 / 2;
    if (read_ints(cross, &ly->cross, &n2, 0, MAXCELLS - 1, "cross")) return -1;
    ly->ncross = n2 / 2;
    for (int e = 0; e < ly->ncross; e++)
        if (ly->cross[2 * e] >= ly->ncells || ly->cross[2 * e + 1] >= prev_border) {
            PyErr_SetString(PyExc_ValueError, "cross: a pair names no square");
            return -1;
        }
    if (read_ints(border, &ly->border, &ly->nborder, 0, ly->ncells - 1, "border")) return -1;
    if (ly->nborder > MAXCELLS) { PyErr_SetString(PyExc_ValueError, "a border is too long"); return -1; }
    return 0;
}

static void free_layers(Spec *s) {
    for (int k = 0; k < MAXN; k++) {
        Layer *ly = &s->layers[k];
        free(ly->pats); free(ly->bit); free(ly->intra); free(ly->cross); free(ly->border);
    }
}

static PyObject *py_count(PyObject *self, PyObject *args) {
    (void)self;
    int n, L, checked, connected, nbl, ring;
    PyObject *layers_obj;
    double seconds;
    long long max_transitions;
    if (!PyArg_ParseTuple(args, "iiiiiiOdL", &n, &L, &checked, &connected, &nbl, &ring, &layers_obj, &seconds,
                          &max_transitions))
        return NULL;
    if (n < 1 || n > MAXN || L < 2 || L > 255) {
        PyErr_SetString(PyExc_ValueError, "the side must be 1..64, min word 2..255");
        return NULL;
    }
    if (!PyList_Check(layers_obj) || PyList_GET_SIZE(layers_obj) < 1 || PyList_GET_SIZE(layers_obj) > MAXN) {
        PyErr_SetString(PyExc_ValueError, "layers must be a list of 1..64 layers");
        return NULL;
    }
    Run *run = calloc(1, sizeof(Run));
    if (!run) return PyErr_NoMemory();
    Spec *s = &run->s;
    s->n = n; s->L = L; s->checked = checked; s->connected = connected; s->nbl = nbl; s->ring = ring;
    s->nlayers = (int)PyList_GET_SIZE(layers_obj);
    PyObject *result = NULL;
    int wmax = 0, bmax = 0;
    for (int k = 0; k < s->nlayers; k++) {
        if (read_layer(PyList_GET_ITEM(layers_obj, k), &s->layers[k], k ? s->layers[k - 1].nborder : 0)) goto done;
        Layer *ly = &s->layers[k];
        if (ly->w > wmax) wmax = ly->w;
        if (ly->nborder > bmax) bmax = ly->nborder;
    }
    /* the state after a layer keeps one run per inner square: the next layer's width */
    for (int k = 1; k < s->nlayers; k++) {
        int inner = ring ? s->layers[k - 1].w - 2 : s->layers[k - 1].w - 1;
        if (s->layers[k].w != inner) {
            PyErr_SetString(PyExc_ValueError, "each layer's width must be the previous one's inner squares");
            goto done;
        }
    }
    s->rw = (wmax + 7) / 8;
    s->nw = 2 + s->rw + (bmax + 7) / 8;
    double t0 = now_seconds();
    run->deadline = seconds >= 0 ? t0 + seconds : -1.0;
    run->max_transitions = max_transitions;
    u128 total = 0;
    interrupt_release(&run->it);
    int stopped = count_all(run, &total);
    interrupt_reacquire(&run->it);
    double elapsed = now_seconds() - t0;
    result = count_result(run->error, stopped, total, run->states_max, run->transitions, elapsed);
done:
    free_layers(s);
    free(run);
    return result;
}

static PyMethodDef methods[] = {
    {"count", py_count, METH_VARARGS,
     "count(n, L, checked, connected, no_black_lines, ring, layers, seconds, max_transitions) -> (count or "
     "None when a budget stopped it, most states in a layer, transitions, seconds); a layer is "
     "(w, patterns, bits, intra, cross, border), see peel.PeelCounter.c_arguments"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "core.crossword._peel",
                                    "The square symmetries' layer build in C (see core/crossword/peel.py).", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__peel(void) { return PyModule_Create(&module); }
