/*
 * _idset.c — sets of ids as bitmaps: the two conversions that Python does an id at a time.
 *
 * WHY.  `solutions RUN --where` answers `and`, `or` and `not` with Python ints as bitmaps
 * (core/where_bits.py): bit k stands for the id lo + k, and the algebra is `&`, `|`,
 * `& ~` and `bit_count()`, each a pass over machine words.  What is slow in Python is
 * getting there and back: a condition's ids come out of the ledger as one text of
 * decimal numbers and commas (SQLite's group_concat, PostgreSQL's string_agg), hundreds of
 * thousands of them, and a page of matches is the positions of a few set bits past the
 * first `skip`.  Parsing and setting one id cost Python about 150 ns; here about 3.
 *
 * BIT ORDER.  Bit k of the bitmap is bit (k & 7) of byte (k >> 3): the order of
 * int.from_bytes(bitmap, "little"), so bit k of the bytes is bit k of the int.
 *
 * The pure-Python reference of both functions is in tests/core/test_idset.py.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* the largest id taken: past it a decimal run would overflow 64 bits */
#define ID_MAX ((uint64_t)1 << 62)

static PyObject *ids_bitmap(PyObject *self, PyObject *args) {
    (void)self;
    const char *text;
    Py_ssize_t len;
    long long lo;
    Py_ssize_t nbits;
    if (!PyArg_ParseTuple(args, "s#Ln", &text, &len, &lo, &nbits)) return NULL;
    if (nbits < 0 || lo < 0) {
        PyErr_SetString(PyExc_ValueError, "ids_bitmap: lo and nbits must not be negative");
        return NULL;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, (nbits + 7) / 8);
    if (out == NULL) return NULL;
    unsigned char *bits = (unsigned char *)PyBytes_AS_STRING(out);
    memset(bits, 0, (size_t)((nbits + 7) / 8));
    Py_ssize_t i = 0;
    while (i < len) {
        uint64_t id = 0;
        Py_ssize_t start = i;
        while (i < len && text[i] >= '0' && text[i] <= '9') {
            id = id * 10 + (uint64_t)(text[i] - '0');
            if (id > ID_MAX) {
                Py_DECREF(out);
                PyErr_Format(PyExc_ValueError, "ids_bitmap: a number past 2**62 at character %zd", start);
                return NULL;
            }
            i++;
        }
        if (i == start || (i < len && text[i] != ',') || (i == len - 1)) {
            Py_DECREF(out);
            PyErr_Format(PyExc_ValueError, "ids_bitmap: expected numbers joined by commas (character %zd)", i);
            return NULL;
        }
        i++;  /* the comma */
        if (id < (uint64_t)lo || id - (uint64_t)lo >= (uint64_t)nbits) {
            Py_DECREF(out);
            PyErr_Format(PyExc_ValueError, "ids_bitmap: id %llu outside [%lld, %lld)", (unsigned long long)id, lo,
                         lo + (long long)nbits);
            return NULL;
        }
        uint64_t k = id - (uint64_t)lo;
        bits[k >> 3] |= (unsigned char)(1u << (k & 7));
    }
    return out;
}

static PyObject *set_bits(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer view;
    Py_ssize_t skip, limit;
    if (!PyArg_ParseTuple(args, "y*nn", &view, &skip, &limit)) return NULL;
    if (skip < 0 || limit < 0) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "set_bits: skip and limit must not be negative");
        return NULL;
    }
    const unsigned char *bits = (const unsigned char *)view.buf;
    Py_ssize_t n = view.len, byte = 0;
    PyObject *out = PyList_New(0);
    if (out == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    /* skip whole 64-bit words while they hold no more set bits than are left to skip */
    for (; byte + 8 <= n; byte += 8) {
        uint64_t word;
        memcpy(&word, bits + byte, 8);
        Py_ssize_t ones = __builtin_popcountll(word);
        if (ones > skip) break;
        skip -= ones;
    }
    for (; byte < n && PyList_GET_SIZE(out) < limit; byte++) {
        unsigned b = bits[byte];
        while (b && PyList_GET_SIZE(out) < limit) {
            int low = __builtin_ctz(b);
            b &= b - 1;
            if (skip > 0) {
                skip--;
                continue;
            }
            PyObject *k = PyLong_FromSsize_t(byte * 8 + low);
            if (k == NULL || PyList_Append(out, k) < 0) {
                Py_XDECREF(k);
                Py_DECREF(out);
                PyBuffer_Release(&view);
                return NULL;
            }
            Py_DECREF(k);
        }
    }
    PyBuffer_Release(&view);
    return out;
}

static PyMethodDef idset_methods[] = {
    {"ids_bitmap", ids_bitmap, METH_VARARGS,
     "ids_bitmap(text, lo, nbits) -> bytes: the bitmap of nbits bits (little-endian: int.from_bytes(b, "
     "'little') has bit k for id lo + k) of the ids in text, decimal numbers joined by commas (empty: none); "
     "ValueError on any other text or an id outside [lo, lo + nbits)."},
    {"set_bits", set_bits, METH_VARARGS,
     "set_bits(bitmap, skip, limit) -> list of int: the positions of the set bits of bitmap (little-endian "
     "bytes) in increasing order, past the first skip of them, at most limit."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef idset_module = {
    PyModuleDef_HEAD_INIT, "core._idset",
    "Sets of ids as bitmaps: from a text of decimal ids, and back to positions (see core/where_bits.py).",
    -1, idset_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__idset(void) { return PyModule_Create(&idset_module); }
