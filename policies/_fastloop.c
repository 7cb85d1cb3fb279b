/* The simulator's fused loop for index policies on Bernoulli environments, compiled ahead of time.
 *
 * One call runs a time block of the simulator (policies/simulator.py) for every run of a chunk: the index
 * policy's decision (policies/index.py: _act_row with its pruning, the kl bound of policies/kl.py, the
 * tie-break `pick` of policies/base.py), the Bernoulli feedback through the identity or an affine corruption
 * (policies/environments.py: Bernoulli.feedback), the count update and the regret record — the same floating
 * operations in the same order as those numba kernels, so that both paths give bit-identical runs (tested in
 * tests/test_fastloop.py).  It exists because a short experiment spends more time starting numba (≈ 0.6 s)
 * than simulating; numba stays the implementation of every other path.
 *
 * Arguments are buffers (numpy arrays, C-contiguous, of the stated types) whose dtypes and shapes are checked
 * here before anything is read.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "take.h"

#define KL_RULE 0
static const double EPS = 1e-15;
static const double ROUNDING = 1e-12;
static double LOG_TOP, LOG1M_TOP; /* log(1 − EPS), log1p(−(1 − EPS)): set at module start */

static inline double clip_q(double q) {
    if (q < EPS) q = EPS;
    if (q > 1.0 - EPS) q = 1.0 - EPS;
    return q;
}

static double kl_d(double p, double q) {
    q = clip_q(q);
    double r = 0.0;
    if (p > 0.0) r += p * log(p / q);
    if (p < 1.0) r += (1.0 - p) * log((1.0 - p) / (1.0 - q));
    return r;
}

static double kl_cross(double p, double q) {
    q = clip_q(q);
    double r = 0.0;
    if (p > 0.0) r -= p * log(q);
    if (p < 1.0) r -= (1.0 - p) * log1p(-q);
    return r;
}

static double neg_entropy(double p) {
    double r = 0.0;
    if (p > 0.0) r += p * log(p);
    if (p < 1.0) r += (1.0 - p) * log1p(-p);
    return r;
}

/* policies/kl.py: upper_scalar — safeguarded Halley, then certification from the right. */
static double kl_upper(double p, double level) {
    if (p >= 1.0) return 1.0;
    if (p < 0.0) p = 0.0;
    if (level <= 0.0) return p;
    double target = level - neg_entropy(p);
    if (-p * LOG_TOP - (1.0 - p) * LOG1M_TOP <= target) return 1.0;
    double lo = p, hi = 1.0;
    double var = p * (1.0 - p);
    if (var < 1e-3) var = 1e-3;
    double q = p + sqrt(2.0 * var * level);
    if (q > 0.5 * (1.0 + p)) q = 0.5 * (1.0 + p);
    for (int it = 0; it < 100; it++) {
        double g = kl_cross(p, q) - target;
        if (g > 0.0) hi = q; else lo = q;
        double slope = (q - p) / (q * (1.0 - q));
        double curv = p / (q * q) + (1.0 - p) / ((1.0 - q) * (1.0 - q));
        double denom = 2.0 * slope * slope - g * curv;
        double nq;
        if (slope > 0.0 && denom > 0.0) {
            double step = 2.0 * g * slope / denom;
            double ratio = curv / slope;
            double as = fabs(step);
            if (as <= 1e-5 * q && (ratio * ratio) * (as * (as * as)) <= 1e-15) {
                if (lo <= q - step && q - step <= hi) q -= step;
                break;
            }
            nq = q - step;
        } else {
            nq = -1.0;
        }
        if (!(lo < nq && nq < hi)) nq = 0.5 * (lo + hi);
        q = nq;
        if (hi - lo <= 1e-13) break;
    }
    double r = q + ROUNDING;
    if (r > 1.0) r = 1.0;
    if (r >= 1.0 || kl_cross(p, r) > target) return r;
    if (q > lo) lo = q;
    for (int it = 0; it < 200; it++) {
        double m = 0.5 * (lo + hi);
        if (m <= lo || m >= hi || hi - lo <= 1e-13) break;
        if (kl_cross(p, m) > target) hi = m; else lo = m;
    }
    return hi;
}

static double kl_lower(double p, double level) { return 1.0 - kl_upper(1.0 - p, level); }

/* policies/kl.py: upper_bound_cheap — a number ≥ kl_upper(p, level) without logarithms */
static double kl_upper_cheap(double p, double level) {
    if (p >= 1.0) return 1.0;
    if (p < 0.0) p = 0.0;
    if (level <= 0.0) return p + 1e-9;
    double u = p + sqrt(0.5 * level);
    if (p >= 0.5) {
        double v = p + sqrt(2.0 * level * p * (1.0 - p));
        if (v < u) u = v;
    } else {
        double a = 1.0 + 2.0 * level, b = p + level;
        double disc = b * b - a * p * p;
        double q = (b + sqrt(disc > 0.0 ? disc : 0.0)) / a;
        if (q <= 0.5 && q < u) u = q;
    }
    u += 1e-9;
    return u < 1.0 ? u : 1.0;
}

/* policies/exploration.py: level */
static double exploration_level(int64_t n, double a, double c) {
    if (n <= 1) return 0.0;
    double ln = log((double)n);
    double f = a * ln;
    if (c != 0.0) {
        if (ln <= 0.0) return 0.0;
        f += c * log(ln);
    }
    return f < 0.0 ? 0.0 : f;
}

typedef struct {
    int rule, affine;
    double f;
    const int64_t *direction;
    const double *intercept, *slope;
} Index;

/* policies/index.py: _to_mean */
static double to_mean(const Index *ix, double bound, int a) {
    if (!ix->affine || bound == INFINITY) return bound;
    if (ix->slope[a] == 0.0) return 1.0;
    double g0 = ix->intercept[a], g1 = ix->intercept[a] + ix->slope[a];
    double lo = g0 < g1 ? g0 : g1, hi = g0 > g1 ? g0 : g1;
    double b = bound < lo ? lo : bound;
    if (b > hi) b = hi;
    double q = (b - ix->intercept[a]) / ix->slope[a];
    if (q < 0.0) q = 0.0;
    if (q > 1.0) q = 1.0;
    return q;
}

/* The last exact kl bound of each arm of a run: U = kl_upper(p, level) on p = λ̂ (or 1 − λ̂ for a decreasing
 * g), valid while the arm's count is still n.  Only an ordering and pruning aid: see cheap_upper. */
typedef struct {
    double *U, *level;
    int64_t *n;
} Memo;

/* policies/index.py: _index_ns, remembering the kl bound it solved */
static double index_ns(const Index *ix, int64_t n, double s, int a, Memo *memo) {
    if (n == 0) return INFINITY;
    double lam = s / (double)n, lev = ix->f / (double)n, bound;
    if (ix->rule == KL_RULE) {
        int up = ix->direction[a] >= 0;
        double U = kl_upper(up ? lam : 1.0 - lam, lev);
        bound = up ? U : 1.0 - U; /* = upper_scalar / lower_scalar */
        memo->U[a] = U;
        memo->level[a] = lev;
        memo->n[a] = n;
    } else {
        double b = sqrt(ix->f / (2.0 * (double)n));
        bound = ix->direction[a] >= 0 ? lam + b : lam - b;
    }
    return to_mean(ix, bound, a);
}

/* An upper bound of kl_upper(p, level) from its value U at a lower level (same p): d(p, ·) is convex, so
 * level = d(p, u) ≥ d(p, U) + d'(p, U)(u − U) with d(p, U) ≥ old − 1e-12 (U was certified right of its root,
 * up to rounding), d'(p, q) = (q − p)/(q(1 − q)); the 1e-9 margin covers the solver's certification margin. */
static double tangent_upper(double p, double U, double old, double level) {
    if (p < 0.0) p = 0.0;
    if (!(U < 1.0) || !(U > p) || level < old) return 1.0;
    double ub = U + (level - old + 1e-12) * (U * (1.0 - U)) / (U - p) + 1e-9;
    return ub < 1.0 ? ub : 1.0;
}

/* policies/index.py: _cheap_upper, tightened by the memo when the arm was solved at its current count: then
 * the bound is its last index plus the (tiny) growth of the level since, and arms well below the maximum are
 * skipped without a logarithm.  Any valid upper bound leaves the picked arm unchanged (see act_row). */
static double cheap_upper(const Index *ix, int64_t n, double s, int a, const Memo *memo) {
    if (n == 0) return INFINITY;
    if (ix->rule != KL_RULE) return index_ns(ix, n, s, a, NULL);
    double lam = s / (double)n, lev = ix->f / (double)n;
    int up = ix->direction[a] >= 0;
    double p = up ? lam : 1.0 - lam;
    double U = kl_upper_cheap(p, lev);
    if (memo->n[a] == n) {
        double T = tangent_upper(p, memo->U[a], memo->level[a], lev);
        if (T < U) U = T;
    }
    double q = to_mean(ix, up ? U : 1.0 - U, a);
    return q == INFINITY ? q : q + 1e-9;
}

/* policies/index.py: _may_reach */
static int may_reach(const Index *ix, int64_t n, double s, int a, double m) {
    if (ix->rule != KL_RULE || n == 0 || m == INFINITY || m <= 0.0 || m >= 1.0) return 1;
    double y = ix->affine ? ix->intercept[a] + ix->slope[a] * m : m;
    double lam = s / (double)n, level = ix->f / (double)n;
    if (ix->direction[a] >= 0) {
        y -= 2e-12;
        if (y <= lam || y >= 1.0) return 1;
    } else {
        y += 2e-12;
        if (y >= lam || y <= 0.0) return 1;
    }
    return kl_d(lam, y) <= level * (1.0 + 1e-12) + 1e-15;
}

/* policies/base.py: pick — the ⌊u·m⌋-th of the m maximisers */
static int pick(const double *values, int K, double u) {
    double m = values[0];
    for (int a = 1; a < K; a++) if (values[a] > m) m = values[a];
    int64_t cnt = 0;
    for (int a = 0; a < K; a++) if (values[a] == m) cnt++;
    int64_t j = (int64_t)(u * (double)cnt);
    if (j > cnt - 1) j = cnt - 1;
    for (int a = 0; a < K; a++) {
        if (values[a] == m) {
            if (j == 0) return a;
            j--;
        }
    }
    return K - 1;
}

/* policies/index.py: _act_row — arms visited in decreasing order of their cheap bound.  Which arms are solved
 * depends on the bounds, the picked arm does not: an arm is skipped only when provably below an index already
 * solved, so the maximisers are those of the exact indices, which are computed as index_ns computes them. */
static int act_row(const Index *ix, const int64_t *N, const double *S, int K, double u, double *cheap,
                   double *exact, Memo *memo) {
    int best = 0;
    for (int a = 0; a < K; a++) {
        cheap[a] = cheap_upper(ix, N[a], S[a], a, memo);
        exact[a] = -INFINITY;
        if (cheap[a] > cheap[best]) best = a;
    }
    double m = index_ns(ix, N[best], S[best], best, memo);
    exact[best] = m;
    cheap[best] = -INFINITY;
    for (;;) {
        int a = 0;
        for (int b = 1; b < K; b++)
            if (cheap[b] > cheap[a]) a = b;
        if (!(cheap[a] >= m)) break;
        cheap[a] = -INFINITY;
        if (may_reach(ix, N[a], S[a], a, m)) {
            exact[a] = index_ns(ix, N[a], S[a], a, memo);
            if (exact[a] > m) m = exact[a];
        }
    }
    return pick(exact, K, u);
}

static const char block_doc[] =
    "index_bernoulli_block(rule, log_coef, exploration, direction, affine, intercept, slope, corrupt, g0, g1,\n"
    "    N, S, noise, uni, n_uni, mu, gap, regret, pulls, t0, cps, rec, j, memo_U, memo_level, memo_n) -> j\n\n"
    "Run rounds t0+1 .. t0+L of an index policy on a Bernoulli environment for every run (R runs, K arms):\n"
    "N (R,K) int64 and S (R,K) float64 are updated in place, regret (R,) and pulls (R,K) int64 accumulate,\n"
    "rec (n_cps,R) receives the regret at the checkpoints cps (int64) from index j on; returns the next j.\n"
    "noise (R,L,2), uni (R,L,n_uni) (the policy's uniform is the first), mu and gap (L,K).\n"
    "memo_U, memo_level (R,K) float64 and memo_n (R,K) int64 carry the last kl solve of each arm from block to\n"
    "block (memo_n = -1 at the start): they speed the decisions up and never change them.";

static PyObject *index_bernoulli_block(PyObject *self, PyObject *args) {
    int rule, affine, corrupt, n_uni;
    double log_coef, exploration;
    long long t0;
    Py_ssize_t j;
    PyObject *o[18];
    if (!PyArg_ParseTuple(args, "iddOpOOpOOOOOOiOOOOLOOnOOO", &rule, &log_coef, &exploration, &o[0], &affine,
                          &o[1], &o[2], &corrupt, &o[3], &o[4], &o[5], &o[6], &o[7], &o[8], &n_uni, &o[9],
                          &o[10], &o[11], &o[12], &t0, &o[13], &o[14], &j, &o[15], &o[16], &o[17]))
        return NULL;
    PyObject *result = NULL;
    Py_buffer direction = {0}, intercept = {0}, slope = {0}, g0 = {0}, g1 = {0}, N = {0}, S = {0}, noise = {0},
              uni = {0}, mu = {0}, gap = {0}, regret = {0}, pulls = {0}, cps = {0}, rec = {0}, mU = {0}, mL = {0},
              mN = {0};
    Py_buffer *all[] = {&direction, &intercept, &slope, &g0, &g1, &N, &S, &noise, &uni, &mu, &gap, &regret,
                        &pulls, &cps, &rec, &mU, &mL, &mN};
    Py_ssize_t K = -1, R = -1, L = -1, n_cps = -1, nu = n_uni;
    Py_ssize_t rl2[3];
    double *cheap = NULL, *exact = NULL;
    /* K from direction, R from regret, L from noise, n_cps from cps; every other buffer must agree */
    if (!take(o[0], &direction, 0, 'q', 1, &K, "direction") || !take(o[11], &regret, 1, 'd', 1, &R, "regret"))
        goto done;
    rl2[0] = R; rl2[1] = -1; rl2[2] = 2;
    if (!take(o[7], &noise, 0, 'd', 3, rl2, "noise") || !take(o[13], &cps, 0, 'q', 1, &n_cps, "cps"))
        goto done;
    L = rl2[1];
    Py_ssize_t k1[1] = {K}, rk[2] = {R, K}, lk[2] = {L, K}, rlu[3] = {R, L, nu}, cr[2] = {n_cps, R};
    if (!(take(o[1], &intercept, 0, 'd', 1, k1, "intercept") && take(o[2], &slope, 0, 'd', 1, k1, "slope") &&
          take(o[3], &g0, 0, 'd', 1, k1, "g0") && take(o[4], &g1, 0, 'd', 1, k1, "g1") &&
          take(o[5], &N, 1, 'q', 2, rk, "N") && take(o[6], &S, 1, 'd', 2, rk, "S") &&
          take(o[8], &uni, 0, 'd', 3, rlu, "uni") && take(o[9], &mu, 0, 'd', 2, lk, "mu") &&
          take(o[10], &gap, 0, 'd', 2, lk, "gap") && take(o[12], &pulls, 1, 'q', 2, rk, "pulls") &&
          take(o[14], &rec, 1, 'd', 2, cr, "rec") && take(o[15], &mU, 1, 'd', 2, rk, "memo_U") &&
          take(o[16], &mL, 1, 'd', 2, rk, "memo_level") && take(o[17], &mN, 1, 'q', 2, rk, "memo_n")))
        goto done;
    if (K < 1 || R < 1 || L < 1 || n_uni < 1) {
        PyErr_SetString(PyExc_ValueError, "empty block");
        goto done;
    }
    if (j < 0 || j > n_cps) {
        PyErr_SetString(PyExc_ValueError, "checkpoint index out of range");
        goto done;
    }
    cheap = malloc(sizeof(double) * K);
    exact = malloc(sizeof(double) * K);
    if (!cheap || !exact) {
        PyErr_NoMemory();
        goto done;
    }
    {
        Index ix = {rule, affine, 0.0, direction.buf, intercept.buf, slope.buf};
        int64_t *n_ = N.buf, *pl = pulls.buf;
        const int64_t *cp = cps.buf;
        double *s_ = S.buf, *rg = regret.buf, *rc = rec.buf, *mu_ = mU.buf, *ml_ = mL.buf;
        int64_t *mn_ = mN.buf;
        const double *nz = noise.buf, *un = uni.buf, *m_ = mu.buf, *gp = gap.buf, *lo = g0.buf, *hi = g1.buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < L; i++) {
            int64_t t = (int64_t)t0 + i + 1;
            ix.f = exploration_level(t - 1, log_coef, exploration);
            for (Py_ssize_t r = 0; r < R; r++) {
                int64_t *Nr = n_ + r * K;
                double *Sr = s_ + r * K;
                Memo memo = {mu_ + r * K, ml_ + r * K, mn_ + r * K};
                int a = act_row(&ix, Nr, Sr, (int)K, un[(r * L + i) * n_uni], cheap, exact, &memo);
                const double *z = nz + (r * L + i) * 2;
                int reward = z[0] < m_[i * K + a];
                double fb;
                if (!corrupt) fb = reward ? 1.0 : 0.0;
                else fb = z[1] < (reward ? hi[a] : lo[a]) ? 1.0 : 0.0;
                Nr[a] += 1;
                Sr[a] += fb;
                rg[r] += gp[i * K + a];
                pl[r * K + a] += 1;
            }
            if (j < n_cps && t == cp[j]) {
                for (Py_ssize_t r = 0; r < R; r++) rc[j * R + r] = rg[r];
                j++;
            }
        }
        Py_END_ALLOW_THREADS
    }
    result = PyLong_FromSsize_t(j);
done:
    free(cheap);
    free(exact);
    for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++)
        if (all[k]->obj) PyBuffer_Release(all[k]);
    return result;
}

static PyMethodDef methods[] = {
    {"index_bernoulli_block", index_bernoulli_block, METH_VARARGS, block_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fastloop",
                                    "The simulator's fused loop for index policies on Bernoulli environments.",
                                    -1, methods};

PyMODINIT_FUNC PyInit__fastloop(void) {
    LOG_TOP = log(1.0 - EPS);
    LOG1M_TOP = log1p(-(1.0 - EPS));
    return PyModule_Create(&module);
}
