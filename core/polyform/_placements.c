/*
 * _placements.c — the placements of a polyform problem on a square or cubic board, and
 * the region rule that drops those that wall off space the pieces cannot use.
 *
 * WHY.  Compiling a polyform problem tries every form of every piece at every free cell
 * and, for each placement on the board, asks for the sizes of the regions of free cells,
 * less the placement, that touch it.  In Python that was most of a small problem's whole
 * command (the 8x8 less its centre: 63 ms of compile).  Here it is one pass in C per
 * (form, chunk of anchor cells); core/polyform/placing.py drives it and reports progress
 * between chunks, and keeps a pure-Python reference of the same contract beside it.
 *
 * DATA LAYOUT.  A Grid is built once per board from its free cells in search order
 * (core.polyform.board.Board.order): cell i of that order is "cell i" everywhere here.
 *   at[(z * rows + y) * cols + x]  the cell at a position of the box, or -1 (blocked)
 *   zyx[3 * i ...]                 the coordinates of cell i
 *   nb[6 * i + k]                  the k-th face neighbour of cell i (free), or -1
 *   region[i], region_size[r]      the connected regions of the free cells (labelled once)
 * Scratch, per placement, reused without clearing by STAMPS: a cell is "placed" when
 * placed_at[i] == stamp and "owned by group g" when owned_at[i] == stamp and owner[i] == g;
 * the stamp goes up by one per placement (all stamps are reset when it would wrap).
 *
 * THE REGIONS A PLACEMENT LEAVES (exact).  Let K be the region of the placement's cells,
 * P the placement.  Every cell of K less P reaches P, so K less P is the union of the
 * regions of the SEEDS (free cells next to P, not in P).  Each seed starts a group;
 * the groups grow breadth first in lockstep, a layer each per round, and merge (union
 * find, sizes added, pending cells handed over) where one reaches a cell another owns.
 * A group whose pending layer is empty has examined every neighbour of every cell it
 * owns, so it is a whole region and its size is exact.  Once at most one group is still
 * growing, its size is |K| - |P| less the finished ones'.  On an open board the seeds
 * meet within a step or two of the placement, so the cost is about the placement's
 * surroundings; where a placement cuts the board in two, it is the smaller side (twice).
 * The Python reference (core/polyform/regions.py) stops the growth past GROW_AT_MOST
 * cells and then keeps the placement unless a finished region is unusable; this one
 * never stops, so on big boards it may drop a few more placements — ones no solution
 * uses, as their regions cannot be filled.
 *
 * THE RULE (the same as core/polyform/placing.py's reference).  `ok[s]` is nonzero where
 * the other pieces can cover exactly s cells.  Filling: a placement is kept when every
 * touched region's size s has ok[s].  Packing: `usable(s)` = the largest t <= s with
 * ok[t]; kept when the sum of usable(s) over the touched regions plus the cells not in
 * them (free cells less P less the touched regions) is at least `remaining`.
 *
 * Translations of one form are distinct cell sets, and the forms of a kind are distinct,
 * so no placement is found twice.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- the grid */
typedef struct {
    PyObject_HEAD
    int layers, rows, cols;
    Py_ssize_t n;            /* free cells */
    int32_t *at;             /* box position -> cell, or -1 */
    int32_t *zyx;            /* 3 per cell */
    int32_t *nb;             /* 6 per cell: neighbour cell or -1 */
    int32_t *region;         /* cell -> region */
    int32_t *region_size;    /* region -> cells */
    /* per-placement scratch (see STAMPS above) */
    uint32_t stamp;
    uint32_t *placed_at;
    uint32_t *owned_at;
    int32_t *owner;
} Grid;

static const int STEPS[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};

static void Grid_dealloc(Grid *g) {
    free(g->at);
    free(g->zyx);
    free(g->nb);
    free(g->region);
    free(g->region_size);
    free(g->placed_at);
    free(g->owned_at);
    free(g->owner);
    Py_TYPE(g)->tp_free((PyObject *)g);
}

/* The cell at (z, y, x), or -1 when it is outside the box or blocked. */
static inline int32_t cell_at(const Grid *g, long z, long y, long x) {
    if (z < 0 || y < 0 || x < 0 || z >= g->layers || y >= g->rows || x >= g->cols) return -1;
    return g->at[((size_t)z * g->rows + (size_t)y) * g->cols + (size_t)x];
}

/* Three ints from a (z, y, x) sequence; -1 with an exception set on failure. */
static int read_cell(PyObject *item, long out[3], const char *what, Py_ssize_t k) {
    PyObject *seq = PySequence_Fast(item, "a cell must be a (z, y, x) tuple");
    if (seq == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != 3) {
        PyErr_Format(PyExc_ValueError, "%s %zd: a cell must be a (z, y, x) tuple", what, k);
        Py_DECREF(seq);
        return -1;
    }
    for (int j = 0; j < 3; j++) {
        out[j] = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, j));
        if (out[j] == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

/* Label the regions of the free cells, breadth first; 0 or -1 (no memory). */
static int label_regions(Grid *g) {
    int32_t *queue = malloc(sizeof(int32_t) * (size_t)(g->n ? g->n : 1));
    if (queue == NULL) return -1;
    int32_t regions = 0;
    for (Py_ssize_t i = 0; i < g->n; i++) g->region[i] = -1;
    for (Py_ssize_t s = 0; s < g->n; s++) {
        if (g->region[s] >= 0) continue;
        Py_ssize_t head = 0, tail = 0;
        queue[tail++] = (int32_t)s;
        g->region[s] = regions;
        while (head < tail) {
            int32_t c = queue[head++];
            for (int k = 0; k < 6; k++) {
                int32_t m = g->nb[6 * c + k];
                if (m >= 0 && g->region[m] < 0) {
                    g->region[m] = regions;
                    queue[tail++] = m;
                }
            }
        }
        g->region_size[regions++] = (int32_t)tail;
    }
    free(queue);
    return 0;
}

static int Grid_init(Grid *g, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"layers", "rows", "cols", "cells", NULL};
    int layers, rows, cols;
    PyObject *cells;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iiiO", kwlist, &layers, &rows, &cols, &cells)) return -1;
    if (g->at != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "a Grid is built once");
        return -1;
    }
    if (layers < 1 || rows < 1 || cols < 1 || (int64_t)layers * rows * cols > INT32_MAX / 8) {
        PyErr_SetString(PyExc_ValueError, "the box must have positive sides and fewer than 2^28 positions");
        return -1;
    }
    PyObject *seq = PySequence_Fast(cells, "cells must be a sequence of (z, y, x) tuples");
    if (seq == NULL) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    size_t box = (size_t)layers * rows * cols;
    g->layers = layers;
    g->rows = rows;
    g->cols = cols;
    g->n = n;
    size_t cn = (size_t)(n ? n : 1);
    g->at = malloc(sizeof(int32_t) * box);
    g->zyx = malloc(sizeof(int32_t) * 3 * cn);
    g->nb = malloc(sizeof(int32_t) * 6 * cn);
    g->region = malloc(sizeof(int32_t) * cn);
    g->region_size = malloc(sizeof(int32_t) * cn);
    g->placed_at = calloc(cn, sizeof(uint32_t));
    g->owned_at = calloc(cn, sizeof(uint32_t));
    g->owner = malloc(sizeof(int32_t) * cn);
    if (!g->at || !g->zyx || !g->nb || !g->region || !g->region_size || !g->placed_at || !g->owned_at || !g->owner) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    g->stamp = 0;
    for (size_t p = 0; p < box; p++) g->at[p] = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        long c[3];
        if (read_cell(PySequence_Fast_GET_ITEM(seq, i), c, "cell", i) < 0) {
            Py_DECREF(seq);
            return -1;
        }
        if (c[0] < 0 || c[1] < 0 || c[2] < 0 || c[0] >= layers || c[1] >= rows || c[2] >= cols) {
            PyErr_Format(PyExc_ValueError, "cell %zd is outside the box", i);
            Py_DECREF(seq);
            return -1;
        }
        size_t p = ((size_t)c[0] * rows + (size_t)c[1]) * cols + (size_t)c[2];
        if (g->at[p] >= 0) {
            PyErr_Format(PyExc_ValueError, "cell %zd is given twice", i);
            Py_DECREF(seq);
            return -1;
        }
        g->at[p] = (int32_t)i;
        for (int j = 0; j < 3; j++) g->zyx[3 * i + j] = (int32_t)c[j];
    }
    Py_DECREF(seq);
    for (Py_ssize_t i = 0; i < n; i++)
        for (int k = 0; k < 6; k++)
            g->nb[6 * i + k] = cell_at(g, (long)g->zyx[3 * i] + STEPS[k][0], (long)g->zyx[3 * i + 1] + STEPS[k][1],
                                       (long)g->zyx[3 * i + 2] + STEPS[k][2]);
    if (label_regions(g) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- growing the seeds' regions */
/* A list of cells that grows (a group's pending layer, or the layer being read). */
typedef struct {
    int32_t *cells;
    size_t len, cap;
} CellList;

static int push(CellList *l, int32_t c) {
    if (l->len == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        int32_t *grown = realloc(l->cells, sizeof(int32_t) * cap);
        if (grown == NULL) return -1;
        l->cells = grown;
        l->cap = cap;
    }
    l->cells[l->len++] = c;
    return 0;
}

/* Scratch for one call of place(): the groups of the seeds, at most 6 per placed cell. */
typedef struct {
    size_t max_groups;
    int32_t *parent;
    int64_t *size;
    CellList *pending;
    CellList layer;
    int64_t *sizes;          /* the sizes found for one placement */
} Growth;

static int growth_open(Growth *w, size_t form_cells) {
    memset(w, 0, sizeof *w);
    w->max_groups = 6 * form_cells;
    w->parent = malloc(sizeof(int32_t) * w->max_groups);
    w->size = malloc(sizeof(int64_t) * w->max_groups);
    w->pending = calloc(w->max_groups, sizeof(CellList));
    w->sizes = malloc(sizeof(int64_t) * w->max_groups);
    return (w->parent && w->size && w->pending && w->sizes) ? 0 : -1;
}

static void growth_close(Growth *w) {
    if (w->pending != NULL)
        for (size_t k = 0; k < w->max_groups; k++) free(w->pending[k].cells);
    free(w->pending);
    free(w->layer.cells);
    free(w->parent);
    free(w->size);
    free(w->sizes);
}

static inline int32_t root(int32_t *parent, int32_t g) {
    while (parent[g] != g) {
        parent[g] = parent[parent[g]];
        g = parent[g];
    }
    return g;
}

/* Move to the next stamp, clearing every stamp when it would wrap. */
static void next_stamp(Grid *g) {
    if (g->stamp == UINT32_MAX) {
        memset(g->placed_at, 0, sizeof(uint32_t) * (size_t)g->n);
        memset(g->owned_at, 0, sizeof(uint32_t) * (size_t)g->n);
        g->stamp = 0;
    }
    g->stamp++;
}

/* The sizes of the regions of free cells less the placed cells (already stamped) that
 * touch them, into w->sizes; their number, or -1 (no memory). */
static Py_ssize_t touching(Grid *g, Growth *w, const int32_t *placed, size_t n_placed, int64_t whole) {
    const uint32_t stamp = g->stamp;
    int32_t groups = 0;
    for (size_t j = 0; j < n_placed; j++) {
        for (int k = 0; k < 6; k++) {
            int32_t m = g->nb[6 * placed[j] + k];
            if (m < 0 || g->placed_at[m] == stamp || g->owned_at[m] == stamp) continue;
            g->owned_at[m] = stamp;
            g->owner[m] = groups;
            w->parent[groups] = groups;
            w->size[groups] = 1;
            w->pending[groups].len = 0;
            if (push(&w->pending[groups], m) < 0) return -1;
            groups++;
        }
    }
    for (;;) {
        int32_t growing = 0;
        for (int32_t h = 0; h < groups; h++)
            if (w->parent[h] == h && w->pending[h].len) growing++;
        if (growing <= 1) break;
        for (int32_t h = 0; h < groups; h++) {
            if (w->parent[h] != h || w->pending[h].len == 0) continue;
            /* read the pending layer; what is found now is the next one */
            CellList swap = w->layer;
            w->layer = w->pending[h];
            w->pending[h] = swap;
            w->pending[h].len = 0;
            for (size_t q = 0; q < w->layer.len; q++) {
                int32_t c = w->layer.cells[q];
                for (int k = 0; k < 6; k++) {
                    int32_t m = g->nb[6 * c + k];
                    if (m < 0 || g->placed_at[m] == stamp) continue;
                    if (g->owned_at[m] != stamp) {
                        g->owned_at[m] = stamp;
                        g->owner[m] = h;
                        w->size[h]++;
                        if (push(&w->pending[h], m) < 0) return -1;
                        continue;
                    }
                    int32_t o = root(w->parent, g->owner[m]);
                    if (o == h) continue;
                    /* two regions meet: o joins h, its pending cells with it */
                    w->parent[o] = h;
                    w->size[h] += w->size[o];
                    for (size_t r = 0; r < w->pending[o].len; r++)
                        if (push(&w->pending[h], w->pending[o].cells[r]) < 0) return -1;
                    w->pending[o].len = 0;
                }
            }
        }
    }
    Py_ssize_t found = 0;
    int64_t finished = 0;
    int32_t open = -1;
    for (int32_t h = 0; h < groups; h++) {
        if (w->parent[h] != h) continue;
        if (w->pending[h].len) {
            open = h;
            continue;
        }
        w->sizes[found++] = w->size[h];
        finished += w->size[h];
    }
    if (open >= 0) w->sizes[found++] = whole - finished;
    return found;
}

/* ---------------------------------------------------------------- place() */
static int cmp_int32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static PyObject *Grid_place(Grid *g, PyObject *args) {
    PyObject *form;
    Py_ssize_t start, stop;
    Py_buffer ok;
    long long remaining;
    int fill;
    if (!PyArg_ParseTuple(args, "Onny*Lp", &form, &start, &stop, &ok, &remaining, &fill)) return NULL;
    PyObject *result = NULL, *out = NULL, *seq = NULL;
    int32_t *offsets = NULL, *placed = NULL, *sorted = NULL;
    int64_t *usable = NULL;
    Growth w;
    memset(&w, 0, sizeof w);
    const unsigned char *okb = ok.buf;
    if (ok.len < g->n + 1) {
        PyErr_Format(PyExc_ValueError, "ok must give a byte for each size 0..%zd", g->n);
        goto done;
    }
    if (start < 0) start = 0;
    if (stop > g->n) stop = g->n;
    seq = PySequence_Fast(form, "form must be a sequence of (z, y, x) cells");
    if (seq == NULL) goto done;
    Py_ssize_t size = PySequence_Fast_GET_SIZE(seq);
    if (size < 1) {
        PyErr_SetString(PyExc_ValueError, "a form needs at least one cell");
        goto done;
    }
    offsets = malloc(sizeof(int32_t) * 3 * (size_t)size);
    placed = malloc(sizeof(int32_t) * (size_t)size);
    sorted = malloc(sizeof(int32_t) * (size_t)size);
    if (!offsets || !placed || !sorted || growth_open(&w, (size_t)size) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t j = 0; j < size; j++) {
        long c[3];
        if (read_cell(PySequence_Fast_GET_ITEM(seq, j), c, "form cell", j) < 0) goto done;
        if (labs(c[0]) > INT32_MAX / 4 || labs(c[1]) > INT32_MAX / 4 || labs(c[2]) > INT32_MAX / 4) {
            PyErr_Format(PyExc_ValueError, "form cell %zd is too far out", j);
            goto done;
        }
        for (int k = 0; k < 3; k++) offsets[3 * j + k] = (int32_t)c[k];
    }
    if (!fill) {  /* usable(s): the largest t <= s the other pieces cover */
        usable = malloc(sizeof(int64_t) * (size_t)(g->n + 1));
        if (usable == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        int64_t best = 0;
        for (Py_ssize_t s = 0; s <= g->n; s++) {
            if (okb[s]) best = s;
            usable[s] = best;
        }
    }
    out = PyList_New(0);
    if (out == NULL) goto done;
    for (Py_ssize_t b = start; b < stop; b++) {
        long dz = (long)g->zyx[3 * b] - offsets[0], dy = (long)g->zyx[3 * b + 1] - offsets[1],
             dx = (long)g->zyx[3 * b + 2] - offsets[2];
        Py_ssize_t j = 0;
        for (; j < size; j++) {
            int32_t c = cell_at(g, offsets[3 * j] + dz, offsets[3 * j + 1] + dy, offsets[3 * j + 2] + dx);
            if (c < 0) break;
            placed[j] = c;
        }
        if (j < size) continue;  /* off the board or on a blocked cell */
        next_stamp(g);
        for (j = 0; j < size; j++) g->placed_at[placed[j]] = g->stamp;
        int64_t whole = (int64_t)g->region_size[g->region[placed[0]]] - size;
        Py_ssize_t found = touching(g, &w, placed, (size_t)size, whole);
        if (found < 0) {
            PyErr_NoMemory();
            goto done;
        }
        int keep = 1;
        if (fill) {
            for (Py_ssize_t r = 0; r < found && keep; r++) keep = okb[w.sizes[r]] != 0;
        } else {
            int64_t use = 0, touched = 0;
            for (Py_ssize_t r = 0; r < found; r++) {
                use += usable[w.sizes[r]];
                touched += w.sizes[r];
            }
            keep = use + ((int64_t)g->n - size - touched) >= remaining;
        }
        if (!keep) continue;
        memcpy(sorted, placed, sizeof(int32_t) * (size_t)size);
        qsort(sorted, (size_t)size, sizeof(int32_t), cmp_int32);
        PyObject *cells = PyTuple_New(size);
        if (cells == NULL) goto done;
        for (j = 0; j < size; j++) {
            PyObject *v = PyLong_FromLong(sorted[j]);
            if (v == NULL) {
                Py_DECREF(cells);
                goto done;
            }
            PyTuple_SET_ITEM(cells, j, v);
        }
        int appended = PyList_Append(out, cells);
        Py_DECREF(cells);
        if (appended < 0) goto done;
    }
    result = PyList_AsTuple(out);
done:
    Py_XDECREF(out);
    Py_XDECREF(seq);
    free(offsets);
    free(placed);
    free(sorted);
    free(usable);
    growth_close(&w);
    PyBuffer_Release(&ok);
    return result;
}

static PyObject *Grid_region_sizes(Grid *g, PyObject *Py_UNUSED(ignored)) {
    /* the regions' sizes, in the order of their first cells */
    Py_ssize_t count = 0;
    for (Py_ssize_t i = 0; i < g->n; i++)
        if (g->region[i] + 1 > count) count = g->region[i] + 1;
    PyObject *out = PyTuple_New(count);
    if (out == NULL) return NULL;
    for (Py_ssize_t r = 0; r < count; r++) {
        PyObject *v = PyLong_FromLong(g->region_size[r]);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, r, v);
    }
    return out;
}

static PyMethodDef Grid_methods[] = {
    {"place", (PyCFunction)Grid_place, METH_VARARGS,
     "place(form, start, stop, ok, remaining, fill) -> tuple of sorted cell-index tuples: the placements of "
     "form (cells, anchored at its first) at each cell of order[start:stop] that are on free cells and kept "
     "by the region rule (ok: a byte per size 0..n, nonzero where the other pieces cover that area; "
     "remaining: the area they still need, packing)."},
    {"region_sizes", (PyCFunction)Grid_region_sizes, METH_NOARGS,
     "The sizes of the regions of free cells, in the order of their first cells."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject GridType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "core.polyform._placements.Grid",
    .tp_basicsize = sizeof(Grid),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Grid(layers, rows, cols, cells): the free cells of a square or cubic board (cells in search "
              "order, each (z, y, x)), its regions labelled once; place() tries a form on it.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Grid_init,
    .tp_dealloc = (destructor)Grid_dealloc,
    .tp_methods = Grid_methods,
};

static struct PyModuleDef placements_module = {
    PyModuleDef_HEAD_INIT, "core.polyform._placements",
    "The placements of polyform pieces on square and cubic boards, with the region rule (see placing.py).",
    -1, NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__placements(void) {
    if (PyType_Ready(&GridType) < 0) return NULL;
    PyObject *m = PyModule_Create(&placements_module);
    if (m == NULL) return NULL;
    Py_INCREF(&GridType);
    if (PyModule_AddObject(m, "Grid", (PyObject *)&GridType) < 0) {
        Py_DECREF(&GridType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
