/* The exact discrete Laplace sampler's inner loop, compiled ahead of time.
 *
 * discrete_laplace_words is mechanisms/exact_sampling.py's numba kernel of the same name (Canonne, Kamath and
 * Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020, Algorithm 2 over raw 64-bit words,
 * every bounded integer by rejection) in C: the same integer operations in the same order, so that both give the
 * same draws from the same words (tested in tests/test_float_safe.py).  It exists because a sampled audit of a
 * grid mechanism spends more time starting numba (≈ 0.8 s) than drawing 4·10⁶ values; numba stays the
 * reference, and the path where this extension is not built.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "take.h"

/* A uniform integer in [0, n) from the words at *pos (rejection below the largest multiple of n), or -1 when the
 * words run out.  1 <= n < 2^63. */
static inline int64_t below(const uint64_t *w, Py_ssize_t size, Py_ssize_t *pos, int64_t n) {
    uint64_t m = (uint64_t)n;
    uint64_t floor = (0 - m) % m;
    while (*pos < size) {
        uint64_t x = w[(*pos)++];
        if (x >= floor) return (int64_t)(x % m);
    }
    return -1;
}

/* Bernoulli(exp(-num/den)) for 0 <= num <= den < 2^62: 1, 0, or -1 when out of words.  Past k = 2^62/den the
 * Bernoulli(num/(den k)) step is Bernoulli(num/den) and Bernoulli(1/k), as in the numba kernel. */
static inline int bern_exp(const uint64_t *w, Py_ssize_t size, Py_ssize_t *pos, int64_t num, int64_t den) {
    int64_t k = 1, top = ((int64_t)1 << 62) / den;
    for (;;) {
        int hit;
        if (k <= top) {
            int64_t r = below(w, size, pos, den * k);
            if (r < 0) return -1;
            hit = r < num;
        } else {
            int64_t r = below(w, size, pos, den);
            if (r < 0) return -1;
            hit = r < num;
            if (hit) {
                r = below(w, size, pos, k);
                if (r < 0) return -1;
                hit = r < 1;
            }
        }
        if (!hit) return (int)(k % 2);
        k++;
    }
}

static const char fill_doc[] =
    "discrete_laplace_words(words, t, out, start) -> (i, pos)\n\n"
    "Fill out[start:] (int64) with discrete Laplace draws of integer scale t from words (uint64): the index of the\n"
    "first draw not made and the position of the words where it began (out.size and the words used when done).";

static PyObject *discrete_laplace_words(PyObject *self, PyObject *args) {
    PyObject *ow, *oo;
    long long t_;
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, "OLOn", &ow, &t_, &oo, &start)) return NULL;
    Py_buffer wb = {0}, ob = {0};
    Py_ssize_t nw = -1, no = -1;
    if (!take(ow, &wb, 0, 'Q', 1, &nw, "words")) return NULL;
    if (!take(oo, &ob, 1, 'q', 1, &no, "out")) {
        PyBuffer_Release(&wb);
        return NULL;
    }
    if (t_ < 1 || start < 0 || start > no) {
        PyBuffer_Release(&wb);
        PyBuffer_Release(&ob);
        PyErr_SetString(PyExc_ValueError, "discrete_laplace_words: t >= 1 and 0 <= start <= out.size needed");
        return NULL;
    }
    const uint64_t *w = (const uint64_t *)wb.buf;
    int64_t *out = (int64_t *)ob.buf;
    int64_t t = (int64_t)t_;
    Py_ssize_t pos = 0, i = start, begin = 0;
    int cut = 0;
    Py_BEGIN_ALLOW_THREADS
    for (; i < no && !cut; i++) {
        begin = pos;
        for (;;) {
            int64_t u = below(w, nw, &pos, t);
            if (u < 0) { cut = 1; break; }
            int d = bern_exp(w, nw, &pos, u, t);
            if (d < 0) { cut = 1; break; }
            if (d == 0) continue;
            int64_t v = 0;
            for (;;) { /* Bernoulli(exp(-1)) draws until a 0: A_1 = 1 surely, so start at k = 2 */
                int64_t k = 2, r;
                for (;;) {
                    r = below(w, nw, &pos, k);
                    if (r < 0 || r >= 1) break;
                    k++;
                }
                if (r < 0) { cut = 1; break; }
                if (k % 2 == 0) break;
                v++;
            }
            if (cut) break;
            int64_t x = u + t * v;
            int64_t y = below(w, nw, &pos, 2);
            if (y < 0) { cut = 1; break; }
            if (y == 1 && x == 0) continue;
            out[i] = y == 1 ? -x : x;
            break;
        }
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&wb);
    PyBuffer_Release(&ob);
    if (cut) return Py_BuildValue("nn", i - 1, begin);
    return Py_BuildValue("nn", no, pos);
}

static PyMethodDef methods[] = {
    {"discrete_laplace_words", discrete_laplace_words, METH_VARARGS, fill_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_exactloop",
                                    "The exact discrete Laplace sampler's inner loop.", -1, methods};

PyMODINIT_FUNC PyInit__exactloop(void) { return PyModule_Create(&module); }
