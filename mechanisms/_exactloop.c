/* The exact discrete Laplace and Gaussian samplers' inner loops, and the keyed draws of the policies' noise, compiled ahead of
 * time.
 *
 * keyed_laplace_rows and keyed_gauss_rows are mechanisms/keyed_noise.py's numba kernels _laplace_rows and
 * _gauss_rows in C (Philox4x64-10 words under each run's key, the buffer grown by doubling, the same draws from
 * the same words; tested against the numba kernels in the slow tier of tests/policies/test_keyed_noise.py).  They exist
 * because numba compiles those kernels in 4 to 12 s on a fresh machine.
 *
 * discrete_laplace_words and discrete_gaussian_words are mechanisms/exact_sampling.py's numba kernels of the same
 * names (Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020, Algorithms 2
 * and 3 over raw 64-bit words, every bounded integer by rejection) in C: the same integer operations in the same
 * order, so that both give the same draws from the same words (tested in tests/mechanisms/test_float_samplers.py).
 * They exist because a sampled audit of a grid mechanism spends more time starting numba (≈ 0.8 s) than drawing
 * 4·10⁶ values; numba stays the reference, and the path where this extension is not built.
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

/* One discrete Laplace draw of scale t from the words at *pos (CKS Algorithm 2): 1 and *out set, or 0 when the
 * words run out (then *pos is meaningless). */
static inline int lap_draw(const uint64_t *w, Py_ssize_t nw, Py_ssize_t *pos, int64_t t, int64_t *out) {
    for (;;) {
        int64_t u = below(w, nw, pos, t);
        if (u < 0) return 0;
        int d = bern_exp(w, nw, pos, u, t);
        if (d < 0) return 0;
        if (d == 0) continue;
        int64_t v = 0;
        for (;;) { /* Bernoulli(exp(-1)) draws until a 0: A_1 = 1 surely, so start at k = 2 */
            int64_t k = 2, r;
            for (;;) {
                r = below(w, nw, pos, k);
                if (r < 0 || r >= 1) break;
                k++;
            }
            if (r < 0) return 0;
            if (k % 2 == 0) break;
            v++;
        }
        int64_t x = u + t * v;
        int64_t y = below(w, nw, pos, 2);
        if (y < 0) return 0;
        if (y == 1 && x == 0) continue;
        *out = y == 1 ? -x : x;
        return 1;
    }
}

/* ---------------------------------------------------------------------------------------- keyed draws */

static const uint64_t M0 = 0xD2E7470EE14C6C93ULL, M1 = 0xCA5A826395121157ULL;
static const uint64_t W0 = 0x9E3779B97F4A7C15ULL, W1 = 0xBB67AE8584CAA73BULL;

/* Philox4x64-10 of counter (c0, c1, 0, 0) under key (k0, k1), into out[0..3]. */
static inline void philox_block(uint64_t k0, uint64_t k1, uint64_t c0, uint64_t c1, uint64_t *out) {
    uint64_t x0 = c0, x1 = c1, x2 = 0, x3 = 0;
    for (int r = 0; r < 10; r++) {
        unsigned __int128 p0 = (unsigned __int128)M0 * x0, p1 = (unsigned __int128)M1 * x2;
        uint64_t hi0 = (uint64_t)(p0 >> 64), lo0 = (uint64_t)p0, hi1 = (uint64_t)(p1 >> 64), lo1 = (uint64_t)p1;
        uint64_t n0 = hi1 ^ x1 ^ k0, n2 = hi0 ^ x3 ^ k1;
        x0 = n0; x1 = lo1; x2 = n2; x3 = lo0;
        k0 += W0;
        k1 += W1;
    }
    out[0] = x0; out[1] = x1; out[2] = x2; out[3] = x3;
}

/* The stream of (key, slot) holds at least 4*need words in *buf (grown by doubling); its first 4*(*have) words
 * are already there.  0 on allocation failure. */
static int extend(uint64_t **buf, Py_ssize_t *cap, Py_ssize_t *have, Py_ssize_t need, uint64_t k0, uint64_t k1,
                  uint64_t slot) {
    if (4 * need > *cap) {
        Py_ssize_t bigger = 4 * need > 2 * *cap ? 4 * need : 2 * *cap;
        uint64_t *b = (uint64_t *)realloc(*buf, (size_t)bigger * sizeof(uint64_t));
        if (!b) return 0;
        *buf = b;
        *cap = bigger;
    }
    for (Py_ssize_t j = *have; j < need; j++) philox_block(k0, k1, (uint64_t)(j + 1), slot, *buf + 4 * j);
    *have = need;
    return 1;
}

/* Bernoulli(exp(-num/den)) for int64 num >= 0, den >= 1: exp(-1) floor(num/den) times, then the fraction,
 * stopping at the first 0; -1 when out of words. */
static inline int bern_exp_any(const uint64_t *w, Py_ssize_t nw, Py_ssize_t *pos, int64_t num, int64_t den) {
    int64_t whole = num / den;
    for (int64_t i = 0; i < whole; i++) {
        int b = bern_exp(w, nw, pos, 1, 1);
        if (b != 1) return b;
    }
    return bern_exp(w, nw, pos, num - whole * den, den);
}

/* A discrete Gaussian draw of sigma = s steps from the words at *pos (CKS Algorithm 3, proposal scale s, the
 * acceptance split as in exact_sampling.gaussian_at): 1 and *out set, or 0 when out of words (then *pos is
 * meaningless). */
static int gauss_draw(const uint64_t *w, Py_ssize_t nw, Py_ssize_t *pos_, int64_t s, int64_t *out) {
    Py_ssize_t pos = *pos_;
    int64_t den = 2 * s * s;
    for (;;) {
        int64_t y;
        if (!lap_draw(w, nw, &pos, s, &y)) return 0;
        int64_t d = (y < 0 ? -y : y) - s;
        int b;
        if (d < 0) {
            b = bern_exp_any(w, nw, &pos, d * d, den);
        } else {
            int64_t q = d / s, r = d % s;
            b = 1;
            for (int64_t i = 0; i < q; i++) {
                b = bern_exp_any(w, nw, &pos, q, 2);
                if (b != 1) break;
            }
            if (b == 1) b = bern_exp_any(w, nw, &pos, r * q, s);
            if (b == 1) b = bern_exp_any(w, nw, &pos, r * r, den);
        }
        if (b < 0) return 0;
        if (b == 1) {
            *out = y;
            *pos_ = pos;
            return 1;
        }
    }
}

static const char keyed_doc[] =
    "keyed_laplace_rows(keys, slots, scales, out) / keyed_gauss_rows(keys, slots, scales, out)\n\n"
    "out[i] (int64) = a discrete Laplace (scale) or discrete Gaussian (sigma) draw of integer scales[i] >= 1 from\n"
    "the Philox4x64-10 stream of keys[i] (uint64, n x 2) at counter (block, slots[i]).";

static PyObject *keyed_rows(PyObject *args, int gauss) {
    PyObject *ok, *os, *oc, *oo;
    if (!PyArg_ParseTuple(args, "OOOO", &ok, &os, &oc, &oo)) return NULL;
    Py_buffer kb = {0}, sb = {0}, cb = {0}, ob = {0};
    Py_ssize_t n = -1, kshape[2] = {-1, 2};
    if (!take(os, &sb, 0, 'q', 1, &n, "slots")) return NULL;
    kshape[0] = n;
    int ok_all = take(ok, &kb, 0, 'Q', 2, kshape, "keys");
    if (ok_all && !take(oc, &cb, 0, 'q', 1, &n, "scales")) ok_all = 0;
    if (ok_all && !take(oo, &ob, 1, 'q', 1, &n, "out")) ok_all = 0;
    const int64_t *sl = ok_all ? (const int64_t *)sb.buf : NULL, *sc = ok_all ? (const int64_t *)cb.buf : NULL;
    for (Py_ssize_t i = 0; ok_all && i < n; i++) {
        if (sl[i] < 0 || sc[i] < 1 || (gauss && sc[i] >= ((int64_t)1 << 30))) {
            PyErr_SetString(PyExc_ValueError, "keyed rows: slots >= 0, scales >= 1 (and sigma < 2^30) needed");
            ok_all = 0;
        }
    }
    int nomem = 0;
    if (ok_all) {
        const uint64_t *k = (const uint64_t *)kb.buf;
        int64_t *out = (int64_t *)ob.buf;
        Py_ssize_t first = gauss ? 8 : 4; /* blocks to start with, doubled on need */
        Py_ssize_t cap = 4 * first;
        uint64_t *buf = (uint64_t *)malloc((size_t)cap * sizeof(uint64_t));
        if (!buf) nomem = 1;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n && !nomem; i++) {
            Py_ssize_t have = 0, need = first;
            for (;;) {
                if (!extend(&buf, &cap, &have, need, k[2 * i], k[2 * i + 1], (uint64_t)sl[i])) { nomem = 1; break; }
                int64_t y;
                int done;
                Py_ssize_t pos = 0;
                done = gauss ? gauss_draw(buf, 4 * have, &pos, sc[i], &y) : lap_draw(buf, 4 * have, &pos, sc[i], &y);
                if (done) { out[i] = y; break; }
                need *= 2;
            }
        }
        Py_END_ALLOW_THREADS
        free(buf);
    }
    if (kb.obj) PyBuffer_Release(&kb);
    if (sb.obj) PyBuffer_Release(&sb);
    if (cb.obj) PyBuffer_Release(&cb);
    if (ob.obj) PyBuffer_Release(&ob);
    if (nomem) return PyErr_NoMemory();
    if (!ok_all) return NULL;
    Py_RETURN_NONE;
}

static PyObject *keyed_laplace_rows(PyObject *self, PyObject *args) { return keyed_rows(args, 0); }
static PyObject *keyed_gauss_rows(PyObject *self, PyObject *args) { return keyed_rows(args, 1); }

static const char fill_doc[] =
    "discrete_laplace_words(words, t, out, start) -> (i, pos)\n"
    "discrete_gaussian_words(words, s, out, start) -> (i, pos)\n\n"
    "Fill out[start:] (int64) with discrete Laplace draws of integer scale t (discrete Gaussian draws of integer\n"
    "sigma s < 2^30) from words (uint64): the index of the first draw not made and the position of the words where\n"
    "it began (out.size and the words used when done).";

static PyObject *fill_words(PyObject *args, int gauss) {
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
    if (t_ < 1 || (gauss && t_ >= (1LL << 30)) || start < 0 || start > no) {
        PyBuffer_Release(&wb);
        PyBuffer_Release(&ob);
        PyErr_SetString(PyExc_ValueError,
                        gauss ? "discrete_gaussian_words: 1 <= s < 2^30 and 0 <= start <= out.size needed"
                              : "discrete_laplace_words: t >= 1 and 0 <= start <= out.size needed");
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
        if (!(gauss ? gauss_draw(w, nw, &pos, t, &out[i]) : lap_draw(w, nw, &pos, t, &out[i]))) cut = 1;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&wb);
    PyBuffer_Release(&ob);
    if (cut) return Py_BuildValue("nn", i - 1, begin);
    return Py_BuildValue("nn", no, pos);
}

static PyObject *discrete_laplace_words(PyObject *self, PyObject *args) { return fill_words(args, 0); }
static PyObject *discrete_gaussian_words(PyObject *self, PyObject *args) { return fill_words(args, 1); }

static PyMethodDef methods[] = {
    {"discrete_laplace_words", discrete_laplace_words, METH_VARARGS, fill_doc},
    {"discrete_gaussian_words", discrete_gaussian_words, METH_VARARGS, fill_doc},
    {"keyed_laplace_rows", keyed_laplace_rows, METH_VARARGS, keyed_doc},
    {"keyed_gauss_rows", keyed_gauss_rows, METH_VARARGS, keyed_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_exactloop",
                                    "The exact discrete Laplace and Gaussian samplers' inner loops and the keyed draws.", -1, methods};

PyMODINIT_FUNC PyInit__exactloop(void) { return PyModule_Create(&module); }
