"""Sound verdicts: a refutation is a proof, a correct claim is never refuted.

The boundary corpus audits correct claims at the edges (ε from 1e-6 to 1000, beyond 709 where e^ε overflows a
double; ρ from 1e-8 to 50; masses of 1e-300; policies at exactly their ε; (0, TV) claims; δ curves) and expects
zero refutations; its mirror moves each claim below the truth by a relative 1e-9 and expects a refutation
wherever the engine's resolution can tell (finite faces and decision rules: always, by escalation to exact
arithmetic; binned densities: ε of Laplace-like noise from ε ≈ 0.01, as stated in privcheck.audits.mechanism.exact).
Truths are computed independently in rationals or mpmath at 60 digits.
"""

from __future__ import annotations

import math
import subprocess
import sys
import warnings
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from privcheck import mechanisms as M
from privcheck.audits.policy.relations import relation_named
from privcheck.policies.tabular import TabularPolicy
from privcheck import audit
from privcheck.audits.policy.api import audit_policy
from privcheck.cli import main
from privcheck.core import AllPairs, ApproxDP, InvalidArgument, PureDP, RenyiDP, ReplaceOne, ZCDP
from privcheck.core.enclosure import FN_ULPS, LogMassPair, delta_at, epsilon_at_delta, kl, pure_epsilon, renyi_enclosure

LOCAL = AllPairs((0, 1))


def _audit_channel(ch, claim, **kw):
    return audit(ch, claim, method="exact", seed=1, **kw)


# --- randomized response and finite channels: resolution of one ulp ----------------------------------------

EPS_EDGES = [1e-6, 1e-3, 0.01, 1.0, 30.0, 45.0, 200.0, 709.0, 710.0, 1000.0]


@pytest.mark.parametrize("eps", EPS_EDGES)
def test_randomized_response_at_its_epsilon_and_just_below(eps):
    ch = M.optimal_randomized_response(eps)
    at = _audit_channel(ch, PureDP(eps, LOCAL))
    assert not at.violates_claim and at.verdict.value == "not refuted"
    assert at.epsilon_lower <= eps
    below = _audit_channel(ch, PureDP(eps * (1 - 1e-9), LOCAL))
    assert below.violates_claim


@pytest.mark.parametrize("eps", [1e-6, 1.0, 45.0, 800.0])
def test_kary_and_pattern_channels_at_their_epsilon(eps):
    for ch in (M.KaryRandomizedResponse(4, eps), M.StaircasePattern(eps, k=3)):
        rel = AllPairs(tuple(range(ch.k)))
        assert not _audit_channel(ch, PureDP(eps, rel)).violates_claim
        assert _audit_channel(ch, PureDP(eps * (1 - 1e-9), rel)).violates_claim


def test_channel_with_masses_of_1e_300_one_ulp_from_the_truth():
    """P[0 | 1] = 2·P[0 | 0] = 2e-300: the exact ratio of the doubles is 2, so ln 2 rounded down (the double
    0.6931471805599453 is below ln 2) is refuted and the next double up is not."""
    a = 1e-300
    ch = M.FiniteChannel([[a, 1 - a], [2 * a, 1 - 2 * a]])
    below, above = math.log(2), math.nextafter(math.log(2), math.inf)
    with mp.workdps(40):
        assert mp.mpf(below) < mp.log(2) < mp.mpf(above)
    assert _audit_channel(ch, PureDP(below, LOCAL)).violates_claim
    assert not _audit_channel(ch, PureDP(above, LOCAL)).violates_claim


def test_pmf_read_as_given_even_off_one_by_ulps():
    """[0.3, 0.7] and [0.1, 0.9] are valid rows (sums within ulps of 1); nothing is renormalised, so the ratio
    0.3/0.1 of the doubles decides: it is just below 3."""
    ch = M.FiniteChannel([[0.1, 0.9], [0.3, 0.7]])
    with mp.workdps(40):
        truth = mp.log(mp.mpf(0.3) / mp.mpf(0.1))
    ln3 = 1.0986122886681098  # the double nearest ln 3, above it
    assert truth < ln3
    assert not _audit_channel(ch, PureDP(ln3, LOCAL)).violates_claim
    below = math.nextafter(float(truth), -math.inf)
    assert _audit_channel(ch, PureDP(below, LOCAL)).violates_claim


def test_inconsistent_exact_face_is_bad_input():
    class Bad:
        name = "bad"

        def sample(self, x, rng, size):
            return rng.integers(0, 2, size)

        def support(self, x):
            return np.array([0, 1])

        def pmf(self, x, outcomes):
            return np.array([0.5, 0.49])  # sums to 0.99

    with pytest.raises(InvalidArgument, match="total mass"):
        audit(Bad(), PureDP(1.0), pairs=[(0, 1)], method="exact")


def _rr_delta_truth(eps_rr, eps):
    ch = M.optimal_randomized_response(eps_rr)
    with mp.workdps(60):
        p, q = (mp.exp(mp.mpf(float(v))) for v in ch.logQ[0])
        return max(mp.mpf(0), p - mp.exp(mp.mpf(eps)) * q), ch


@pytest.mark.parametrize("eps_rr,eps", [(1.0, 0.5), (1.0, 0.0), (30.0, 29.0), (3.0, 1e-6)])
def test_delta_curve_of_randomized_response(eps_rr, eps):
    truth, ch = _rr_delta_truth(eps_rr, eps)
    up = float(mp.mpf(truth) * (1 + mp.mpf(2) ** -50))
    assert not _audit_channel(ch, ApproxDP(eps, up, LOCAL)).violates_claim
    assert _audit_channel(ch, ApproxDP(eps, float(truth) * (1 - 1e-9), LOCAL)).violates_claim


# --- densities: zero refutations; the mirror where the binned engine can resolve it -------------------------


@pytest.mark.parametrize("eps", [1e-6, 1e-4, 0.01, 1.0, 30.0, 700.0, 1000.0])
def test_laplace_at_its_epsilon(eps):
    lap = M.Laplace(epsilon=eps)
    assert Fraction(1) / Fraction(lap.scale) <= Fraction(eps)  # calibrated to the safe side
    r = audit(lap, PureDP(eps, ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)], seed=1)
    assert r.method == "exact" and not r.violates_claim


@pytest.mark.parametrize("eps", [1.0, 30.0])
def test_laplace_just_below_its_epsilon_is_refuted(eps):
    lap = M.Laplace(epsilon=eps)
    assert audit(lap, PureDP(eps * (1 - 1e-9), ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)], seed=1).violates_claim


@pytest.mark.parametrize("eps", [1e-6, 0.01, 1.0, 30.0, 800.0])
def test_staircase_at_its_epsilon(eps):
    st_ = M.StaircaseNoise(eps)
    r = audit(st_, PureDP(eps, ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)], seed=1)
    assert not r.violates_claim


@pytest.mark.parametrize("rho", [1e-8, 1e-6, 1e-5, 0.5, 50.0])
def test_gaussian_at_its_rho(rho):
    g = M.Gaussian.for_zcdp(rho)
    assert Fraction(1) / (2 * Fraction(g.sigma) ** 2) <= Fraction(rho)
    r = audit(g, g.claim, pairs=[(0.0, 1.0)], seed=1)
    assert not r.violates_claim
    assert r.rho_lower >= rho * (1 - 1e-3)  # tight: binning loses well under 0.1 %


def test_gaussian_rho_below_the_truth_by_a_thousandth_is_refuted():
    g = M.Gaussian.for_zcdp(0.5)
    assert audit(g, ZCDP(0.5 * (1 - 1e-3), g.relation), pairs=[(0.0, 1.0)], seed=1).violates_claim


@pytest.mark.parametrize("eps,delta", [(0.5, 1e-5), (1.0, 1e-10), (8.0, 1e-6)])
def test_analytic_gaussian_at_its_delta(eps, delta):
    g = M.Gaussian.analytic(eps, delta)
    assert not audit(g, g.claim, pairs=[(0.0, 1.0)], seed=1).violates_claim


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_renyi_claim_of_the_gaussian_at_order_near_one():
    g = M.Gaussian(1.0)
    for a in (1.0001, 1.5, 64.0):
        claim = RenyiDP(a, a / 2, g.relation)  # D_α = α/(2σ²) exactly
        assert not audit(g, claim, pairs=[(0.0, 1.0)], seed=1).violates_claim


# --- policies at exactly their ε ------------------------------------------------------------------------------

RULES_FLOAT = {"rules": [[[0.9, 0.1]], [[0.7, 0.3], [0.9, 0.1], [0.7, 0.3], [0.9, 0.1]]]}
RULES_FRAC = {"rules": [[["9/10", "1/10"]], [["7/10", "3/10"], ["9/10", "1/10"], ["7/10", "3/10"], ["9/10", "1/10"]]]}


@pytest.mark.parametrize("definition", ["view", "table", "interactive"])
def test_decision_rules_at_the_double_nearest_ln3(definition):
    """0.3/0.1 as doubles is just below 3 and ln 3's nearest double lies above ln 3: not refuted, under all
    three definitions; the double below ln 3 (below the truth) is refuted."""
    ln3 = 1.0986122886681098
    for rules in (RULES_FLOAT, RULES_FRAC):
        pol = TabularPolicy(rules)
        at = audit_policy(pol, PureDP(ln3), definition, horizon=2)
        assert at.method == "exact" and not at.violates_claim, (rules, at.extra)
        below = audit_policy(pol, PureDP(math.nextafter(1.0986122886681096, -math.inf)), definition, horizon=2)
        assert below.violates_claim


def test_total_variation_claims_at_the_exact_fraction():
    """(0, δ) claims with δ the total variation of a fraction-specified policy: the double above the fraction is
    not refuted, the double below is."""
    from fractions import Fraction as F

    pol = TabularPolicy(RULES_FRAC)
    r = audit_policy(pol, ApproxDP(0.0, 0.5), "table")
    tv = F(r.extra["delta_lower_exact"])
    lo, hi = float(tv), float(tv)
    if F(lo) > tv:
        lo = math.nextafter(lo, 0)
    if F(hi) < tv:
        hi = math.nextafter(hi, 1)
    if F(lo) == tv:
        lo = math.nextafter(lo, 0)
    assert not audit_policy(pol, ApproxDP(0.0, hi), "table").violates_claim
    assert audit_policy(pol, ApproxDP(0.0, lo), "table").violates_claim


@pytest.mark.parametrize("definition", ["table", "interactive"])
def test_policy_behind_randomized_response_at_its_exact_epsilon(run, definition):
    """kl-UCB-CF behind ε-RR: a claim at the upper end of the certified ε is not refuted, one a relative 1e-9
    below the lower end is (the enclosure is a few ulps wide)."""
    import json

    base = ["audit", "kl-ucb-cf", "--rr-epsilon", "1", "--definition", definition, "--horizon", "3", "--arms", "2"]
    code, out, _ = run(*base, "--epsilon", "1", "--json")
    lo, hi = json.loads(out)["epsilon_enclosure"]
    assert code == 0 and 0 < lo <= hi < lo * (1 + 1e-12)
    assert run(*base, "--epsilon", repr(hi))[0] == 0
    assert run(*base, "--epsilon", repr(lo * (1 - 1e-9)))[0] == 1


# --- the enclosure module against independent truths ----------------------------------------------------------


def _mp_truths(P, Q, eps, alpha):
    with mp.workdps(60):
        P = [mp.mpf(float(v)) for v in P]  # the doubles, exactly
        Q = [mp.mpf(float(v)) for v in Q]
        pure = max((mp.log(p / q) for p, q in zip(P, Q) if p > 0 and q > 0), default=mp.mpf(0))
        delta = sum(max(mp.mpf(0), p - mp.exp(eps) * q) for p, q in zip(P, Q))
        ren = mp.log(sum(p**alpha * q ** (1 - alpha) for p, q in zip(P, Q) if p > 0)) / (alpha - 1)
        klv = sum(p * mp.log(p / q) for p, q in zip(P, Q) if p > 0)
        return max(pure, mp.mpf(0)), delta, max(ren, mp.mpf(0)), max(klv, mp.mpf(0))


_probs = st.lists(st.floats(1e-300, 1.0), min_size=2, max_size=6)


@settings(max_examples=60, deadline=None)
@given(_probs, _probs, st.floats(0.0, 50.0), st.sampled_from([1.0001, 1.01, 1.5, 2.0, 16.0]))
def test_enclosures_contain_the_truth(p, q, eps, alpha):
    n = min(len(p), len(q))
    P, Q = np.array(p[:n]), np.array(q[:n])
    P, Q = P / P.sum(), Q / Q.sum()  # float rows: the doubles are the measures, whatever their totals
    m = LogMassPair.from_masses(P, P, Q, Q)
    pure, delta, ren, klv = _mp_truths(P, Q, eps, alpha)
    for enc, truth in (
        (pure_epsilon(m), pure),
        (delta_at(m, eps), delta),
        (renyi_enclosure(m, alpha), ren),
        (kl(m), klv),
    ):
        assert mp.mpf(enc.lo) <= truth <= mp.mpf(enc.hi), (enc, truth)


@settings(max_examples=40, deadline=None)
@given(_probs, _probs, st.floats(1e-6, 0.5))
def test_epsilon_at_delta_brackets_the_truth(p, q, delta):
    n = min(len(p), len(q))
    P, Q = np.array(p[:n]), np.array(q[:n])
    P, Q = P / P.sum(), Q / Q.sum()
    m = LogMassPair.from_masses(P, P, Q, Q)
    enc = epsilon_at_delta(m, delta)
    # δ(ε) is decreasing: δ just below the lower end exceeds δ, and at the upper end it does not
    if enc.lo > 0:
        assert _mp_truths(P, Q, enc.lo, 2.0)[1] > delta
    if math.isfinite(enc.hi):
        assert _mp_truths(P, Q, enc.hi, 2.0)[1] <= delta


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.fractions(min_value=Fraction(1, 10**6), max_value=1), min_size=2, max_size=4),
    st.lists(st.fractions(min_value=Fraction(1, 10**6), max_value=1), min_size=2, max_size=4),
    st.sampled_from([-1e-9, 0.0, 1e-9]),
)
@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_random_channels_verdicts_match_rational_truth(a, b, shift):
    """Random 2×m channels given as exact fractions: the verdict on a claim at the truth moved by a relative
    ±1e-9 (or exactly at a double next to it) agrees with the truth computed in rationals and mpmath."""
    m = min(len(a), len(b))
    ra = [v / sum(a[:m]) for v in a[:m]]
    rb = [v / sum(b[:m]) for v in b[:m]]
    ch = M.FiniteChannel([[float(v) for v in ra], [float(v) for v in rb]], exact=[ra, rb])
    with mp.workdps(60):
        truth = max(abs(mp.log(mp.mpf(r.numerator) / r.denominator)) for r in (x / y for x, y in zip(ra, rb)))
    claim = float(truth * (1 + shift)) if truth > 0 else 1e-9
    r = _audit_channel(ch, PureDP(claim, LOCAL))
    assert r.violates_claim == (mp.mpf(claim) < truth)


# --- the error model itself -------------------------------------------------------------------------------------


def test_numpy_elementary_functions_within_the_assumed_ulps():
    rng = np.random.default_rng(0)
    cases = [
        (np.exp, mp.exp, rng.uniform(-740, 700, 400)),
        (np.log, mp.log, np.exp(rng.uniform(-740, 700, 400))),
        (np.expm1, mp.expm1, rng.uniform(-40, 40, 400) * 10 ** rng.uniform(-12, 0, 400)),
        (np.log1p, mp.log1p, rng.uniform(-0.999, 10, 400) * 10 ** rng.uniform(-12, 0, 400)),
    ]
    with mp.workdps(40):
        for fn, ref, xs in cases:
            ys = fn(xs)
            for x, y in zip(xs, ys):
                t = ref(mp.mpf(float(x)))
                if t != 0 and abs(t) > mp.mpf(2) ** -1000:
                    assert abs((mp.mpf(float(y)) - t) / t) <= FN_ULPS * 2.0**-52 / 4, (fn, x)


@pytest.mark.parametrize(
    "mech", [M.Laplace(epsilon=0.3), M.Gaussian(2.0), M.StaircaseNoise(1.5), M.StaircaseNoise(40.0)]
)
def test_builtin_log_cdfs_within_a_sixteenth_of_the_stated_error(mech):
    from privcheck.audits.mechanism.exact import DENSITY_LOG_ERROR

    rng = np.random.default_rng(1)
    scale = getattr(mech, "scale", getattr(mech, "sigma", 1.0))
    pts = rng.uniform(-30, 30, 300) * scale
    lc, ls = mech.logcdf(0.0, pts), mech.logsf(0.0, pts)
    with mp.workdps(40):
        for o, c, s in zip(pts, lc, ls):
            tc, ts = _mp_logcdf(mech, mp.mpf(float(o)))
            for v, t in ((c, tc), (s, ts)):
                if np.isfinite(v):
                    assert abs(mp.mpf(float(v)) - t) <= DENSITY_LOG_ERROR / 16 * (1 + abs(v)), (o, v, t)


def _mp_logcdf(mech, o):
    if isinstance(mech, M.Laplace):
        b = mp.mpf(mech.scale)
        c = mp.exp(-abs(o) / b) / 2
        return (mp.log(c), mp.log(1 - c)) if o < 0 else (mp.log(1 - c), mp.log(c))
    if isinstance(mech, M.Gaussian):
        z = o / mp.mpf(mech.sigma)
        return mp.log(mp.ncdf(z)), mp.log(mp.ncdf(-z))
    g, b = mp.mpf(mech.gamma), mp.mpf(mech.b)  # the staircase as represented (b, γ doubles)
    D = g + (1 - g) * b

    def upper(z):  # P[Z ≥ z], z ≥ 0, in units of Δ
        k = mp.floor(z)
        r = z - k
        inner = ((g - r) + b * (1 - g + r)) if r <= g else b * ((1 - r + g) + b * (r - g))
        return b**k * inner / (2 * D)

    z = abs(o) / mp.mpf(mech.sensitivity)
    t = upper(z)
    return (mp.log(t), mp.log(1 - t)) if o < 0 else (mp.log(1 - t), mp.log(t))


# --- hygiene -----------------------------------------------------------------------------------------------------


def test_no_assert_in_the_package():
    import ast
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[2]
    for pkg in ("privcheck", "mechanisms", "policies", "proofs"):
        for f in (root / pkg).rglob("*.py"):
            tree = ast.parse(f.read_text())
            assert not any(isinstance(n, ast.Assert) for n in ast.walk(tree)), f


def test_proof_steps_still_check_under_python_O():
    import pathlib

    result = pathlib.Path(__file__).resolve().parents[2] / "proofs" / "result.py"  # loaded alone: no sympy
    code = (
        "import importlib.util as u\n"
        f"spec = u.spec_from_file_location('result', {str(result)!r})\n"
        "import sys; m = u.module_from_spec(spec); sys.modules['result'] = m; spec.loader.exec_module(m)\n"
        "try:\n    m.require(1 == 2, 'planted')\nexcept m.ProofStepFailed as e:\n    print('caught', e)\n"
    )
    out = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "caught planted"


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_closed_pipe_ends_quietly():
    proc = subprocess.Popen(
        [sys.executable, "-c", "from privcheck.cli import main; import sys; sys.exit(main())", "verify", "--list"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.readline()
    proc.stdout.close()  # the reader goes away, as `| head -1` does
    err = proc.stderr.read().decode()
    assert proc.wait() == 0
    assert "internal error" not in err and "Traceback" not in err


def test_internal_error_has_its_own_exit_code(run, monkeypatch):
    import privcheck.cli as cli

    def boom(args, argv):
        raise RuntimeError("planted bug")

    monkeypatch.setattr(cli.listing, "cmd_list", boom)
    code, _, err = run("list")
    assert code == cli.EXIT_INTERNAL == 4 and "internal error" in err
    assert cli.EXIT_UNDECIDED == 3


@pytest.mark.parametrize("fn", ["tuples", "mixed", "ragged", "none_or_str"])
def test_mixed_outputs_are_audited_not_crashed(tmp_path, run, fn):
    f = tmp_path / "mixed.py"
    f.write_text(
        "import numpy as np\n"
        "def _b(x, rng, size):\n    return rng.random(size) < (0.7 if float(x) > 0 else 0.3)\n"
        "def tuples(x, rng, size):\n    return [('yes' if v else 'no', 2) for v in _b(x, rng, size)]\n"
        "def mixed(x, rng, size):\n    o = np.empty((size, 2), dtype=object)\n    o[:, 0] = np.where(_b(x, rng, size), 'a', None)\n"  # noqa: E501
        "    o[:, 1] = 1.5\n    return o\n"
        "def ragged(x, rng, size):\n    return [['t'] * (2 if v else 1) for v in _b(x, rng, size)]\n"
        "def none_or_str(x, rng, size):\n    return np.where(_b(x, rng, size), 'yes', None)\n"
    )
    code, out, err = run(
        "audit", f"{f}:{fn}", "--epsilon", "1", "--pair", "0", "1", "--samples", "20000", "--seed", "3"
    )
    assert code == 0, err
    assert "ε ≥ 0.7" in out or "ε ≥ 0.8" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["laplace", "--epsilon", "1000", "--method", "sample", "--samples", "2000"],
        ["randomized-response", "--epsilon", "1e308"],
        ["gaussian", "--rho", "1e-8"],
    ],
)
def test_extreme_claims_audit_without_warnings(argv, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning, numpy's floating-point ones included, raises
        code = main(["audit", *argv, "--seed", "1"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "Warning" not in err


# --- random decision-rule policies against rational truths -----------------------------------------------------


def _rational_table_figures(rules, definition):
    """(max over neighbour pairs of TV, of the max log-ratio as an exact ratio) in rationals, T = 2."""
    from privcheck.audits.policy.tables import all_inputs, neighbour_pairs

    inputs = all_inputs(relation_named(definition), 2, 2)
    seqs = [(a, b) for a in (0, 1) for b in (0, 1)]
    rows = []
    for x in inputs:
        row = []
        for s in seqs:
            r1 = int(x[0, s[0]]) if definition == "table" else int(x[0])
            idx = 2 * s[0] + r1
            row.append(Fraction(rules[0][0][s[0]]) * Fraction(rules[1][idx][s[1]]))
        rows.append(row)
    tv, ratio = Fraction(0), Fraction(1)
    for i, j in neighbour_pairs(inputs):
        tv = max(tv, sum(max(Fraction(0), p - q) for p, q in zip(rows[i], rows[j])))
        for p, q in zip(rows[i], rows[j]):
            if p > 0 and q > 0:
                ratio = max(ratio, p / q)
    return tv, ratio


_prob_row = st.floats(0.01, 0.99).map(lambda p: [1 - p, p])


@settings(max_examples=25, deadline=None)
@given(
    _prob_row,
    st.lists(_prob_row, min_size=4, max_size=4),
    st.sampled_from(["view", "table"]),
    st.sampled_from([-1e-9, 1e-9]),
)
@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_random_decision_rules_verdicts_match_rational_truth(first, second, definition, shift):
    """Rows of doubles (p, 1 − p as computed, each read exactly): the TV and the pure ε of the policy computed
    in rationals; claims a relative 1e-9 on either side of each get the verdict the truth says."""
    rules = [[first], second]
    pol = TabularPolicy({"rules": rules})
    tv, ratio = _rational_table_figures(rules, definition)
    d = float(tv) * (1 + shift)
    r = audit_policy(pol, ApproxDP(0.0, min(d, 0.999)), definition)
    assert r.violates_claim == (Fraction(min(d, 0.999)) < tv)
    with mp.workdps(50):
        eps_true = mp.log(mp.mpf(ratio.numerator) / ratio.denominator)
    e = float(eps_true) * (1 + shift)
    r = audit_policy(pol, PureDP(e), definition)
    assert r.violates_claim == (mp.mpf(e) < eps_true)


# --- the slow tier: the corpus over a finer grid ------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("eps", np.geomspace(1e-6, 1000, 19).tolist())
def test_corpus_fine_grid_randomized_response_and_laplace(eps):
    ch = M.optimal_randomized_response(eps)
    assert not _audit_channel(ch, PureDP(eps, LOCAL)).violates_claim
    assert _audit_channel(ch, PureDP(eps * (1 - 1e-9), LOCAL)).violates_claim
    lap = M.Laplace(epsilon=eps)
    assert not audit(lap, PureDP(eps, ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)], seed=1).violates_claim


@pytest.mark.slow
@pytest.mark.parametrize("rho", np.geomspace(1e-8, 50, 9).tolist())
def test_corpus_fine_grid_gaussian(rho):
    g = M.Gaussian.for_zcdp(rho)
    assert not audit(g, g.claim, pairs=[(0.0, 1.0)], seed=1).violates_claim
    for eps in (0.1, 1.0, 5.0):
        truth = float(M.gaussian.gaussian_delta(eps, g.sigma))
        if 1e-300 < truth * (1 + 1e-6) < 1:
            claim = ApproxDP(eps, truth * (1 + 1e-6), g.relation)
            assert not audit(g, claim, pairs=[(0.0, 1.0)], seed=1).violates_claim


@pytest.mark.slow
@pytest.mark.parametrize("horizon", [4, 5])
def test_corpus_interactive_kl_ucb_cf_at_its_certified_epsilon(run, horizon):
    import json

    base = [
        "audit",
        "kl-ucb-cf",
        "--rr-epsilon",
        "1",
        "--definition",
        "interactive",
        "--horizon",
        str(horizon),
        "--arms",
        "2",
    ]
    code, out, _ = run(*base, "--epsilon", "1", "--json")
    lo, hi = json.loads(out)["epsilon_enclosure"]
    assert run(*base, "--epsilon", repr(hi))[0] == 0
    assert run(*base, "--epsilon", repr(lo * (1 - 1e-9)))[0] == 1


@pytest.mark.parametrize("eps,gamma,center", [(20.0, 0.01, 0.0), (30.0, 0.3, 1.0), (50.0, None, 0.0), (1.5, 0.7, -3.0)])
def test_float_staircase_log_cdf_at_stair_edges_and_far_tails(eps, gamma, center):
    """At points within a few ulps of a stair edge (|z| = k + γ) or of an integer, where o − x formed in floating
    point lost the sliver γ − r, and far out in the tails: within a sixteenth of the stated error."""
    from privcheck.audits.mechanism.exact import DENSITY_LOG_ERROR

    mech = M.StaircaseNoise(eps, 1.0, gamma)
    g = mech.gamma
    pts = []
    for k in (0, 1, 2, 5, 17, 60):
        for edge in (k + g, k + 1.0):
            for side in (1.0, -1.0):
                o = center + side * edge
                for j in range(-3, 4):
                    v = o
                    for _ in range(abs(j)):
                        v = math.nextafter(v, math.inf if j > 0 else -math.inf)
                    pts.append(v)
    pts = np.array(pts)
    lc, ls = mech.logcdf(center, pts), mech.logsf(center, pts)
    with mp.workdps(60):
        for o, c, s in zip(pts, lc, ls):
            tc, ts = _mp_logcdf(mech, mp.mpf(float(o)) - mp.mpf(center))
            for v, t in ((c, tc), (s, ts)):
                assert np.isfinite(v)
                assert abs(mp.mpf(float(v)) - t) <= DENSITY_LOG_ERROR / 16 * (1 + abs(v)), (o, v, t)


# --- round 2: the red team's findings, each at its cause --------------------------------------------------------


class _Face:
    """A finite face from per-input values (pmf doubles or Fractions), with a support per input."""

    def __init__(self, values, supports=None):
        self.values, self.supports = values, supports

    def support(self, x):
        return self.supports[int(x)] if self.supports else list(range(len(self.values[int(x)])))

    def pmf(self, x, outcomes):
        vals = self.values[int(x)]
        if self.supports:  # keyed so that NaN meets NaN and −0.0 stays apart from 0.0
            key = lambda o: "nan" if o != o else (o, math.copysign(1.0, o))  # noqa: E731
            lookup = {key(o): v for o, v in zip(self.supports[int(x)], vals)}
            return [lookup.get(key(o), 0.0) for o in outcomes]
        return [vals[int(o)] for o in outcomes]

    def sample(self, x, rng, size):
        raise NotImplementedError


def test_gaussian_dp_reads_a_total_below_one_as_given():
    """Rows [0.5, 0.499999999999] for both inputs: μ is 0 (the deficit is nobody's mass), not 31."""
    face = _Face([[0.5, 0.499999999999], [0.5, 0.499999999999]])
    from privcheck.core import GaussianDP

    r = audit(face, GaussianDP(1.0, AllPairs(domain=(0, 1))), method="exact")
    assert not r.violates_claim and r.mu_lower == 0.0
    rules = {"rules": [[[0.5, 0.499999999999]], [[0.5, 0.499999999999]] * 4]}
    for definition in ("table", "view", "interactive"):
        r = audit_policy(TabularPolicy(rules), GaussianDP(1.0), definition, method="exact")
        assert not r.violates_claim and r.mu_lower < 1e-3, definition


def test_mu_through_complements_is_kept_where_the_total_is_one():
    """ε = 700 randomized response: masses of e^−700 beside 1 − e^−700, the total 1 within 1e-318 — μ ≈ 74.8 is
    still certified through the complements."""
    from privcheck.core import GaussianDP

    m = M.optimal_randomized_response(700.0)
    r = audit(m, GaussianDP(70.0, AllPairs()), pairs=[(0, 1)], method="exact")
    assert r.violates_claim and 74 < r.mu_lower < 75


def test_a_nan_outcome_is_one_outcome():
    nan = float("nan")
    face = _Face([[0.5, 0.5], [0.5, 0.5]], supports=[[nan, 1.0], [1.0, nan]])
    r = audit(face, ApproxDP(0.0, 1e-12, AllPairs(domain=(0, 1))), method="exact")
    assert not r.violates_claim and r.delta_lower == 0.0


def test_minus_zero_is_an_outcome_of_its_own():
    face = _Face([[0.75, 0.25], [0.25, 0.75]], supports=[[0.0, -0.0], [0.0, -0.0]])
    r = audit(face, PureDP(1.0, AllPairs(domain=(0, 1))), method="exact")
    assert r.violates_claim and abs(r.epsilon_lower - math.log(3)) < 1e-9


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_interactive_renyi_claims_at_the_truth_escalate_without_crashing():
    from privcheck.policies.audited import audited

    inst = audited("kl-ucb-cf", arms=2, horizon=2, rr_epsilon=1.0, claim=RenyiDP(2.0, 1.0), definition="interactive")
    pol, channel = inst.policy, inst.channel
    r = audit_policy(pol, RenyiDP(2.0, 1.0), "interactive", horizon=2, channel=channel, method="exact")
    lo, hi = r.extra["renyi_enclosures"]["2.0"]  # the float enclosure: a claim inside it escalates
    mid = audit_policy(pol, RenyiDP(2.0, (lo + hi) / 2), "interactive", horizon=2, channel=channel, method="exact")
    assert "mpmath" in mid.certification
    lo, hi = mid.extra["renyi_enclosures"]["2.0"]
    at = audit_policy(pol, RenyiDP(2.0, hi), "interactive", horizon=2, channel=channel, method="exact")
    assert not at.violates_claim


class _NineInputs:
    """A local channel on 9 inputs whose only pair above ε = 0.3 is the last one (7, 8): ln 1.5."""

    def support(self, x):
        return [0, 1]

    def pmf(self, x, outcomes):
        p = {8: Fraction(3, 5), 7: Fraction(2, 5)}.get(int(x), Fraction(1, 2))
        return [p, 1 - p]

    def sample(self, x, rng, size):
        return (rng.random(size) >= float(self.pmf(x, [0])[0])).astype(int)


@pytest.mark.parametrize("method", ["exact", "sample"])
def test_all_pairs_audits_every_pair_of_its_domain(method):
    r = audit(_NineInputs(), PureDP(0.3, AllPairs(domain=tuple(range(9)))), method=method, samples=200_000, seed=1)
    assert r.violates_claim and r.epsilon_lower > 0.3


def test_renyi_of_masses_below_the_double_range_is_resolved_exactly():
    t = Fraction(1, 2**600)  # Q's mass t² = 2^−1200 is 0 as a double; D_2 = ln(1 + (1 − t)/(1 + t)) ≈ ln 2
    face = _Face([[t, 1 - t], [t * t, 1 - t * t]])
    r = audit(face, RenyiDP(2.0, 0.5, ReplaceOne("l1", 1.0)), pairs=[(0, 1)], method="exact")
    assert r.violates_claim and abs(r.extra["renyi_enclosures"]["2.0"][0] - math.log(2)) < 1e-12
    assert not audit(face, RenyiDP(2.0, 0.7, ReplaceOne("l1", 1.0)), pairs=[(0, 1)], method="exact").violates_claim


def test_python_integers_beyond_doubles_stay_apart():
    def mech(x, rng):  # 2^70 + x w.p. 3/4, else 2^70 + 1 − x: ε = ln 3
        x = int(x)
        return 2**70 + (x if rng.random() < 0.75 else 1 - x)

    r = audit(mech, PureDP(0.5, AllPairs(domain=(0, 1))), method="sample", samples=20_000, seed=1, stages=0)
    assert r.violates_claim and r.epsilon_lower > 0.9


@pytest.mark.parametrize("sensitivity", [1e-200, 1e200])
def test_density_binning_at_any_scale(sensitivity):
    lap = M.Laplace(epsilon=1.0, sensitivity=sensitivity)
    r = audit(lap, PureDP(1.0, ReplaceOne("l1", sensitivity)), pairs=[(0.0, sensitivity)], method="exact")
    assert not r.violates_claim and r.epsilon_lower > 0.99


@pytest.mark.parametrize("eps,gamma", [(50.0, None), (20.0, 0.01), (30.0, 0.01), (20.0, 0.3), (30.0, 0.3)])
def test_the_float_staircase_does_not_refute_its_own_claim(eps, gamma):
    st_ = M.StaircaseNoise(eps, 1.0, gamma)
    r = audit(st_, st_.claim, pairs=[(0.0, 1.0)], method="exact")
    assert not r.violates_claim and r.epsilon_lower > eps * 0.999


@pytest.mark.parametrize("value,message", [(-1, "outside [0, 2)"), (0.5, "not an arm index"), (5, "outside [0, 2)")])
def test_policy_actions_are_checked_everywhere(value, message):
    from privcheck.policies.environments import Bernoulli, Schedule
    from privcheck.policies.simulator import simulate
    from privcheck.core import TargetError

    class Bad:
        n_uniforms, name = 1, "bad"

        def __init__(self):
            self.n_arms = 2

        def init(self, runs):
            return {}

        def act(self, state, t, u):
            return np.full(u.shape[0], value)

        def update(self, state, t, arms, feedback, u=None):
            return state

    with pytest.raises(TargetError, match=message.replace("[", r"\[").replace(")", r"\)")):
        audit_policy(Bad(), PureDP(1.0), "table", horizon=3, method="sample", samples=100)
    with pytest.raises(TargetError, match="not an arm index|outside"):
        simulate(Bernoulli(Schedule([[0.9, 0.5]])), Bad(), 10, 2, seed=0)


def test_a_long_input_is_shown_in_whole_elements_never_a_number_cut():
    from privcheck.audits.present.text import pair_text

    x = np.zeros((40, 2))
    x[0], x[1] = [1.0, 0.5], [0.25, 1.0]
    y = x.copy()
    y[19] = [1.0, 1.0]
    text = pair_text(x.tolist(), y.tolist(), rounds=True)
    assert text.startswith("x = [[1.0, 0.5], [0.25, 1.0], [0.0, 0.0]") and "…] (40×2)" in text
    assert "round 20: [0.0, 0.0] → [1.0, 1.0]" in text
    assert "..." not in text  # (the old form cut a number: "[1.0, 0....")
