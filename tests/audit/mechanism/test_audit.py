"""The sampled and exact engines: reproducibility, worker independence, events, reports."""

import json
import math

import numpy as np
import pytest

from privcheck import mechanisms as M
from privcheck import ApproxDP, InvalidArgument, PureDP, RenyiDP, ReplaceOne, TargetError, ZCDP, audit
from privcheck import AuditReport, ResourceRefused
from privcheck.audits.stats import cp_lower, cp_upper, renyi_from_bounds, rho_from_bounds
from privcheck.audits.stats import bernoulli_renyi
from privcheck.core import AddRemove, ExactMethodUnavailable, ReplaceRecord, Unspecified

N = 30_000


def _strip(report: AuditReport) -> dict:
    d = report.to_dict()
    d.pop("seconds")
    return d


def noisy_vector(x, rng, size):
    x = np.asarray(x, dtype=float)
    return x + rng.laplace(0, 1.0, (size,) + x.shape)


@pytest.mark.slow  # the default tier keeps the same property on the command line (tests/core/test_execution.py)
def test_reproducible_from_seed_and_independent_of_workers():
    kw = dict(pairs=[([0.0, 1.0], [1.0, 1.0])], samples=150_000, seed=42, method="sample")
    claim = PureDP(1.0, Unspecified())
    a = audit(noisy_vector, claim, **kw)
    b = audit(noisy_vector, claim, **kw)
    c = audit(noisy_vector, claim, workers=2, **kw)
    assert _strip(a) == _strip(b) == {**_strip(c)}
    d = audit(noisy_vector, claim, **{**kw, "seed": 43})
    assert _strip(d) != _strip(a)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_seed_generated_and_reported():
    r = audit(M.Laplace(1.0), method="sample", samples=2000)
    assert isinstance(r.seed, int)
    again = audit(M.Laplace(1.0), method="sample", samples=2000, seed=r.seed)
    assert again.epsilon_lower == r.epsilon_lower


def test_clopper_pearson_matches_exact_binomial_tails():
    from scipy.stats import binom

    for k, n in [(0, 10), (3, 10), (500, 1000), (10, 10)]:
        lo, hi = float(cp_lower(k, n, 0.025)), float(cp_upper(k, n, 0.025))
        if k > 0:  # P[X >= k | p = lo] = α
            assert binom.sf(k - 1, n, lo) == pytest.approx(0.025, rel=1e-6)
        if k < n:  # P[X <= k | p = hi] = α
            assert binom.cdf(k, n, hi) == pytest.approx(0.025, rel=1e-6)


def test_renyi_bound_is_the_corner_of_the_box():
    rng = np.random.default_rng(0)
    for _ in range(200):
        q_hi = rng.uniform(0.01, 0.6)
        p_lo = rng.uniform(q_hi, 0.99)
        a = float(rng.choice([1.0, 1.5, 3.0, 10.0]))
        corner = float(renyi_from_bounds(p_lo, q_hi, a))
        ps = rng.uniform(p_lo, 1 - 1e-9, 50)
        qs = rng.uniform(1e-9, q_hi, 50)
        assert np.all(bernoulli_renyi(ps, qs, a) >= corner - 1e-12)
    assert float(renyi_from_bounds(0.3, 0.4, 2.0)) == 0.0
    assert float(rho_from_bounds(0.8, 0.2)) > 0


def periodic(x, rng, size):
    """Scalar outputs whose leak lies in a periodic set: on x = 1 the fractional part falls below 0.1 three times
    as often — no threshold, atom or bit window of the built-in search sees it.  Every fractional part is a multiple
    of 2⁻⁵³, as ``rng.random`` draws them (``rng.random() * 0.1`` would not be: its low bits alone would tell x = 1
    apart, in the bit windows of fewer trailing zeros)."""
    k = rng.integers(0, 1000, size).astype(float)
    u = rng.random(size)
    if x == 1:
        u = np.where(rng.random(size) < 2 / 9, rng.integers(0, 2**53 // 10, size) / 2.0**53, u)
    return k + u


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_user_event_and_statistic_compete_and_win_when_best():
    def low_fraction(out):
        return np.mod(out, 1.0) < 0.1

    def fraction(out):
        return np.mod(out, 1.0)

    claim, pairs = PureDP(0.5, Unspecified()), [(0, 1)]
    r = audit(periodic, claim, pairs=pairs, samples=50_000, seed=2, method="sample", event=low_fraction)
    assert r.violates_claim and r.witness["event"]["kind"] == "user"
    assert r.witness["event_text"] == "{low_fraction(o) is true}"
    r = audit(periodic, claim, pairs=pairs, samples=50_000, seed=2, method="sample", event=fraction)
    assert r.violates_claim and r.witness["event"]["kind"] == "threshold" and "fraction(o)" in r.witness["event_text"]
    # without them the built-in search finds nothing: the user's event was needed, and it won
    assert not audit(periodic, claim, pairs=pairs, samples=50_000, seed=2, method="sample").violates_claim

    def wrong(out):
        return np.zeros(3)

    with pytest.raises(TargetError):
        audit(noisy_vector, PureDP(1.0), pairs=[([0.0, 0.0], [1.0, 0.0])], samples=N, seed=1, event=wrong)


def test_vector_whole_rows_as_categories():
    def leaky_svt(x, rng, size):
        # answers "above threshold?" for each query; the noise is far too small for the claim
        x = np.asarray(x, dtype=float)
        return (x + rng.laplace(0, 0.2, (size,) + x.shape)) > 0.5

    r = audit(leaky_svt, PureDP(0.5), pairs=[([0.0, 1.0, 0.0], [1.0, 1.0, 0.0])], samples=N, seed=5)
    assert r.violates_claim
    assert r.witness["event"]["kind"] in ("set", "threshold")


def test_categorical_noisy_argmax():
    def noisy_argmax(x, rng, size):
        x = np.asarray(x, dtype=float)
        return np.argmax(x + rng.gumbel(0, 0.25, (size,) + x.shape), axis=1)

    r = audit(noisy_argmax, PureDP(1.0), pairs=[([1, 0, 0], [0, 0, 0])], samples=N, seed=2)
    assert r.violates_claim and r.witness["event"]["kind"] in ("set", "threshold")


def test_string_outputs():
    def rr_words(x, rng, size):
        keep = rng.random(size) < 0.9
        return np.where(keep, "yes" if x else "no", "no" if x else "yes")

    r = audit(rr_words, PureDP(1.0), pairs=[(1, 0)], samples=N, seed=2)
    assert r.violates_claim and r.epsilon_lower > 1.5  # ln 9 = 2.197


def test_several_candidates_split_the_failure_probability():
    lap = M.GridLaplace(epsilon=1.0)
    r1 = audit(lap, method="sample", pairs=[(0.0, 1.0)], samples=N, seed=9, candidates=1, classifier="off", stages=0)
    r3 = audit(lap, method="sample", pairs=[(0.0, 1.0)], samples=N, seed=9, candidates=3, classifier="off", stages=0)
    assert r3.candidates_certified == 3
    # a pure-ε claim: per candidate, half the failure probability to the ratio bound, a quarter to each side
    assert r3.witness["bounds"]["level_per_side"] == pytest.approx(1 - 0.05 / 12)
    assert r3.witness["bounds"]["ratio"]["level"] == pytest.approx(1 - 0.05 / 6)
    assert r1.witness["bounds"]["level_per_side"] == pytest.approx(1 - 0.05 / 4)
    assert r1.witness["bounds"]["ratio"]["level"] == pytest.approx(1 - 0.05 / 2)
    # a claim with δ > 0 is split the same way (its ratio bound serves with p's lower bound); ρ has no ratio bound:
    # its two sides share the candidate's failure probability
    r = audit(lap, ApproxDP(1.0, 1e-6), method="sample", pairs=[(0.0, 1.0)], samples=N, seed=9, candidates=3, stages=0)
    assert r.witness["bounds"]["level_per_side"] == pytest.approx(1 - 0.05 / (4 * r.candidates_certified))
    assert r.witness["bounds"]["ratio"]["level"] == pytest.approx(1 - 0.05 / (2 * r.candidates_certified))
    # (here a ladder of K thresholds wins, its cells certifying ρ: each rung at the candidate's level over K)
    r = audit(lap, ZCDP(0.5, ReplaceOne("l1", 1.0)), method="sample", pairs=[(0.0, 1.0)], samples=N, seed=9, stages=0)
    assert r.witness["event"]["kind"] == "cells"
    per_rung = 0.05 / (2 * r.candidates_certified * len(r.witness["event"]["thresholds"]))
    assert r.witness["bounds"]["level_per_side"] == pytest.approx(1 - per_rung)
    assert r.witness["cells"]["level_per_rung"] == pytest.approx(1 - per_rung)
    assert "ratio" not in r.witness["bounds"] and "drawn" not in r.witness["counts"]


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_the_best_learned_candidate_is_certified_beside_the_fixed_ones():
    """Real outputs: boosted trees run by default and their best event is certified beside the fixed
    candidates (the failure probability split over both), so the largest certified bound wins — on a float
    Laplace the learned one, which refutes; the grid Laplace is not refuted, whichever wins."""
    for mech, refuted in ((M.Laplace(1.0), True), (M.GridLaplace(epsilon=1.0), False)):
        r = audit(mech, method="sample", pairs=[(0.0, 1.0)], samples=N, seed=9, stages=0)
        assert r.candidates_certified == 2 and r.witness["bounds"]["level_per_side"] == pytest.approx(1 - 0.05 / 8)
        assert r.witness["bounds"]["ratio"]["level"] == pytest.approx(1 - 0.05 / 4)  # (pure ε: the ratio's half)
        assert r.violates_claim is refuted and (not refuted or "score of trees" in r.witness["event_text"])
        points = json.loads(r.to_json())["tradeoff"]["points"]
        assert len(points) == 2 and any("score of trees" in p["event"] for p in points)
        assert max(points, key=lambda p: p["chosen"])["event"].startswith(r.witness["event_text"])


def test_approx_renyi_and_zcdp_claims():
    g = M.Gaussian(1.0)
    grid = M.GridGaussian(2**20, 2.0**-20)  # σ = 1 on a grid, exact noise: no bits to read
    r = audit(grid, RenyiDP(2.0, 0.9, ReplaceOne("l2", 1.0)), method="sample", samples=N, seed=1)
    assert not r.violates_claim and 2.0 in r.renyi_lower
    r = audit(g, RenyiDP(2.0, 0.5, ReplaceOne("l2", 1.0)), method="exact")
    assert r.violates_claim and r.renyi_lower[2.0] == pytest.approx(1.0, rel=1e-3)
    r = audit(grid, ApproxDP(1.0, 0.5, ReplaceOne("l2", 1.0)), method="sample", samples=N, seed=1)
    assert not r.violates_claim and r.delta_lower is not None


def test_exact_rr_matches_closed_forms():
    eps = 0.8
    r = audit(
        M.optimal_randomized_response(eps),
        PureDP(0.5, M.optimal_randomized_response(eps).claim.relation),
        method="exact",
    )
    assert r.violates_claim
    assert r.epsilon_lower == pytest.approx(eps, rel=1e-8) and r.epsilon_lower <= eps
    p = math.exp(eps) / (1 + math.exp(eps))
    assert r.delta_lower == pytest.approx(p - math.exp(0.5) * (1 - p), rel=1e-8)
    assert r.rho_lower == pytest.approx(eps * math.tanh(eps / 2), rel=1e-6)
    assert r.samples_per_side is None and r.confidence == 1.0


def test_exact_unavailable_and_bad_arguments():
    with pytest.raises(ExactMethodUnavailable):
        audit(noisy_vector, PureDP(1.0), pairs=[([0.0], [1.0])], method="exact")
    with pytest.raises(ExactMethodUnavailable):
        audit(M.Laplace(1.0), method="exact", pairs=[([0.0, 0.0], [1.0, 0.0])])
    r = audit(M.Laplace(1.0), pairs=[([0.0, 0.0], [1.0, 0.0])], samples=2000, seed=0)  # auto falls back
    assert r.method == "sample" and any("sampled instead" in n for n in r.notes)
    for kw in (
        {"samples": 0},
        {"confidence": 1.0},
        {"confidence": 0},
        {"workers": 0},
        {"method": "magic"},
        {"candidates": 0},
        {"pairs": [(1.0, 1.0)]},
        {"pairs": [(0.0, 3.0)]},
        {"pairs": []},
    ):
        with pytest.raises(InvalidArgument):
            audit(M.Laplace(1.0), **{"samples": 100, **kw})
    with pytest.raises(InvalidArgument):
        audit(noisy_vector)  # no claim


def test_report_json_schema():
    r = audit(M.Laplace(1.0), method="sample", samples=5000, seed=3)
    d = json.loads(r.to_json())
    for key in (
        "schema_version",
        "target",
        "claim",
        "epsilon_lower",
        "epsilon_lower_infinite",
        "delta_lower",
        "rho_lower",
        "renyi_lower",
        "violates_claim",
        "method",
        "samples_per_side",
        "confidence",
        "witness",
        "seconds",
        "seed",
        "versions",
    ):
        assert key in d
    assert set(d["claim"]) == {"type", "epsilon", "delta", "rho", "order", "mu", "relation"}
    assert set(d["witness"]) >= {"pair", "event", "counts", "bounds"}
    assert "Reproduce" in str(r) and str(r.seed) in str(r)


def test_infinite_epsilon_is_null_in_json():
    rr = M.BinaryRandomizedResponse(1.0, 0.5)  # output 1 impossible on input 0
    r = audit(
        rr, PureDP(1.0, rr.claim.relation if False else M.optimal_randomized_response(1).claim.relation), method="exact"
    )
    d = r.to_dict()
    assert r.violates_claim and d["epsilon_lower"] is None and d["epsilon_lower_infinite"] is True


def test_the_api_reproduce_line_is_runnable():
    import privcheck

    claim = PureDP(1.0, ReplaceOne("l1", 1.0))
    r = audit(lambda x, rng, size: x + rng.laplace(0, 1, size), claim, pairs=[(0.0, 1.0)], samples=2000, seed=1)
    call = r.command
    assert call.startswith("privcheck.audit(<lambda>, PureDP(epsilon=1.0, relation=ReplaceOne(")
    # the call, with the lambda bound to a name, gives the same report
    f = lambda x, rng, size: x + rng.laplace(0, 1, size)  # noqa: E731
    again = eval(call.replace("<lambda>", "f"), {"privcheck": privcheck, "f": f, **vars(privcheck)})
    assert again.epsilon_lower == r.epsilon_lower and again.witness == r.witness


@pytest.mark.parametrize(
    "claim, where",
    [
        (PureDP(1.0, AddRemove(1.0)), {"pairs": [([0.0], [0.0, 1.0])]}),
        (PureDP(1.0, ReplaceRecord(2.0)), {"pairs": [([0.0, 1.0], [0.0, 2.0])]}),
        (PureDP(1.0, ReplaceOne("l1", 1.0)), {"input": [0.0, 1.0]}),
    ],
)
def test_the_reproduce_command_says_every_relation_and_input(tmp_path, monkeypatch, claim, where):
    import contextlib
    import io
    import shlex
    import textwrap

    from privcheck.cli import main
    from privcheck.cli.reproduce import with_command
    from privcheck.core.targets import load_object

    (tmp_path / "vec.py").write_text(
        textwrap.dedent("""
        import numpy as np

        def g(x, rng, size):
            return float(np.sum(x)) + rng.laplace(0, 1, size)
    """)
    )
    monkeypatch.chdir(tmp_path)
    r = audit(load_object("vec.py:g"), claim, samples=2000, seed=1, **where)
    assert r.command.startswith("privcheck.audit(g, ")  # the library's own words: a Python call
    line = str(with_command(r).reproduction)  # the command line's: a command
    assert line.startswith("privcheck audit vec.py:g ")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(shlex.split(line)[1:] + ["--json"])
    again = json.loads(out.getvalue())
    assert again["epsilon_lower"] == r.epsilon_lower and again["witness"] == r.witness


from privcheck.audits.present.text import reach_text  # noqa: E402


def test_a_sampled_report_states_its_reach_apart_from_what_it_certifies():
    """The reach is an estimate kept beside the certified figures: the ε an event chosen as the audit's was would
    certify at these draws, its probabilities read on selection draws it was not chosen on (near the certified bound
    on a Laplace mechanism at its claim), and how much leakier on its event the target would have to be to be
    refuted with 80 % power — for (ε, δ) claims only."""
    from privcheck.mechanisms.laplace import GridLaplace

    mech = GridLaplace(epsilon=1.0)
    r = audit(mech, PureDP(1.0, ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)], method="sample", samples=50_000, seed=5)
    reach = r.to_dict()["reach"]
    assert abs(reach["epsilon"] - r.epsilon_lower) < 0.1 and 1.0 <= reach["detectable_factor"] < 1.3
    assert "Reach (an estimate, not certified)" in str(r) and "never a certificate of privacy" in str(r)
    assert reach["basis"] == "cross-fitted" and "counted on the other half" in str(r)
    weak = audit(mech, PureDP(1.0, ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)], method="sample", samples=500, seed=5)
    assert weak.to_dict()["reach"]["detectable_factor"] > reach["detectable_factor"]  # fewer draws see less
    exact = audit(mech, PureDP(1.0, ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)])
    assert "reach" not in exact.to_dict()


def test_the_reach_reads_counts_its_event_was_not_chosen_on():
    """On two sides drawn alike, the event the selection takes always looks like a leak on the draws that chose it
    (3–8 against 0 of 4,000 on every seed): a reach read there would promise what no certification finds.  The
    reach's counts — an event chosen on each half, counted on the other — show no leak on average, and never more
    than the selection's own."""
    from privcheck.audits.mechanism.selection import Scoring, best_candidates, cross_fitted_counts

    seen, crossed = [], []
    for s in range(10):
        rng = np.random.default_rng(s)
        a, b = rng.normal(size=4000), rng.normal(size=4000)
        top, _ = best_candidates(Scoring(PureDP(1.0), 4000, 0.025), a, b, 1)
        k_num, k_den, n = top[0][3]
        c_num, c_den, m = cross_fitted_counts(Scoring(PureDP(1.0), 4000, 0.025), a, b)
        assert n == m == 4000
        seen.append(np.log((k_num + 0.5) / (k_den + 0.5)))
        crossed.append(np.log((c_num + 0.5) / (c_den + 0.5)))
    assert min(seen) > 1.5 and all(c < s for c, s in zip(crossed, seen))
    assert abs(np.mean(crossed)) < 0.6
    assert cross_fitted_counts(Scoring(PureDP(1.0), 4000, 0.025), a[:150], b[:150]) is None  # halves too small


def test_the_detectable_factor_scales_the_events_own_leak_not_the_claim():
    """A target whose event shows half its claim (Laplace at ε = 0.5, claimed 1) must be about twice as leaky on
    that event to be refuted: the factor is near 2 or above, not near 1 (the claim's boundary, the old model,
    said ~1.1 here — and a policy whose events stay inside its claim was then never caught at the stated factor)."""
    from privcheck.mechanisms.laplace import GridLaplace

    kw = dict(pairs=[(0.0, 1.0)], method="sample", samples=50_000, seed=5)
    half = audit(GridLaplace(epsilon=0.5), PureDP(1.0, ReplaceOne("l1", 1.0)), **kw).to_dict()["reach"]
    assert 1.9 < half["detectable_factor"] < 2.6 and "a target" in reach_text(half)
    assert "times as leaky on this event" in reach_text(half)
    seen = reach_text({"epsilon": 3.3, "detectable_factor": 1.0000000001, "power": 0.8})  # a loud leak's
    assert "the event as counted would be refuted with probability ≥ 80%" in seen and "times as leaky" not in seen


def test_the_detectable_factor_keeps_its_power_under_its_own_model():
    """The factor's alternative — the event's mass on both sides as seen, its log-ratio f times the one seen — is
    refuted at the stated f with probability ≥ 80%, simulated on Poissonized counts (the certification's law for a
    pure-ε claim), on a rare event (0.7% of draws against 0.3%) and a common one; and at half the factor, the
    alternative is refuted less often than the stated power (the factor is near the smallest such f)."""
    from privcheck.audits.mechanism.certification import certified_bound as _bound, stated_reach

    claim, n, alpha = PureDP(1.0), 100_000, 0.0125
    rng = np.random.default_rng(0)
    for k_num, k_den in ((731, 269), (47_000, 18_000)):
        f = stated_reach(claim, k_num, k_den, n, n, alpha)["detectable_factor"]
        r, mass = math.log(k_num / k_den), (k_num + k_den) / n

        def power(g):
            t = math.exp(g * r)
            a = rng.poisson(n * mass * t / (1 + t), 4000)
            b = rng.poisson(n * mass / (1 + t), 4000)
            return float(np.mean(_bound(claim, a, b, n, n, alpha) > 1.0))

        assert f is not None and power(f) >= 0.8 and power(1 + (f - 1) / 2) < 0.8, (k_num, f)


def test_a_slow_target_is_timed_on_a_few_draws_and_a_middling_one_on_about_a_second_of_them(monkeypatch):
    """A draw's cost is measured on the first 8 draws where they take over a quarter of a second, else on at most the
    draws those say take a second (not the 4,096 a fast target is timed on: a target at 2 ms a draw would take 8 s;
    the second is a tenth here, for the test's time)."""
    import time as _time

    from privcheck.audits.mechanism import api
    from privcheck.audits.mechanism.api import draw_cost

    monkeypatch.setattr(api, "_TIMED_SECONDS", 0.1)
    from privcheck.core import as_mechanism

    made = []

    def slow(x, rng, size):
        made.append(size)
        _time.sleep(0.04 * size)
        return rng.normal(x, 1.0, size)

    cost = draw_cost(as_mechanism(slow, name="slow"), 0.0, 1, "slow", 4096)
    assert made == [8] and cost.seconds >= 0.04
    made.clear()

    def middling(x, rng, size):
        made.append(size)
        _time.sleep(0.002 * size)
        return rng.normal(x, 1.0, size)

    cost = draw_cost(as_mechanism(middling, name="middling"), 0.0, 1, "middling", 4096)
    assert made[0] == 8 and sum(made) <= 8 + 60 and cost.seconds >= 0.002


def test_a_given_selection_sample_is_said_in_the_reproduce_line():
    """The selection draws are part of what an audit drew: given, the reproduce line repeats them (it left them out,
    and its call then chose on as many draws as it certified — another audit)."""
    import privcheck

    f = lambda x, rng, size: x + rng.laplace(0, 1, size)  # noqa: E731
    r = audit(f, PureDP(1.0, ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)], samples=4000, selection_samples=1500, seed=2)
    assert "selection_samples=1500" in r.command and r.to_dict()["selection_samples_per_side"] == 1500
    again = eval(r.command.replace("<lambda>", "f"), {"privcheck": privcheck, "f": f, **vars(privcheck)})
    assert again.epsilon_lower == r.epsilon_lower and again.witness == r.witness


def test_the_selection_sample_is_fitted_to_memory_where_none_was_given(monkeypatch):
    """Where the default selection sample (as many draws as certify) would not fit in memory, the most that fit are
    drawn — rounded down to two significant digits, at least MIN_FITTED_SELECTION — and the certification keeps its
    draws: the plan is not refused (a counter of 1,024 releases at 10⁶ draws a side would hold some 32 GB).  Too few
    fit, and it is refused as before."""
    from privcheck.audits import sampling
    from privcheck.audits.sampling import MIN_FITTED_SELECTION, DrawCost, fitted_selection, held_bytes

    limit = [1 << 32]
    monkeypatch.setattr(sampling, "memory_limit", lambda: limit[0])
    cost = DrawCost(bytes=8192.0, seconds=1e-5)
    n = 1_000_000
    # (4 GB: two workers' chunks of 8,192 draws (CHUNK_BYTES) twice their output, 256 MB; then a selection draw's 8 KB
    # a side twice, and 16 KB of the whitened covariance's centred copies (1,024 values): 81,000, two digits kept)
    assert fitted_selection(cost, n, n, 2) == 81_000
    assert held_bytes(cost, n, 81_000, 2) <= limit[0] < held_bytes(cost, n, 82_000, 2)
    assert fitted_selection(cost, n, 20_000, 2) == 20_000  # (fits: unchanged)
    limit[0] = int(held_bytes(cost, n, MIN_FITTED_SELECTION - 1, 2))
    assert fitted_selection(cost, n, n, 2) == n  # (too few fit: left to be refused)


def test_an_audit_whose_selection_would_not_fit_is_run_on_a_fitted_one_and_says_so(monkeypatch):
    from privcheck.audits import sampling
    from privcheck.core import resources

    def wide(x, rng, size):
        return x + rng.normal(0.0, 1.0, (size, 16))

    # a machine that holds 2,750 selection draws of 16 doubles a side beside the rest (the floor lowered from 10,000
    # to keep the test small): 2,700 are drawn, two digits kept
    monkeypatch.setattr(sampling, "MIN_FITTED_SELECTION", 1000)
    limit = sampling.held_bytes(sampling.DrawCost(128.0, 0.0, values=16, holds=sampling.SAMPLER_HOLDS), 3000, 2750, 1)
    for where in (resources, sampling):
        monkeypatch.setattr(where, "memory_limit", lambda: int(limit))
    kw = dict(pairs=[(0.0, 1.0)], samples=3000, stages=0, workers=1, classifier="off", seed=1)
    r = audit(wide, PureDP(1.0, ReplaceOne("l1", 1.0)), **kw)
    assert r.to_dict()["selection_samples_per_side"] == 2700 and r.to_dict()["samples_per_side"] == 3000
    assert "selection_samples=2700" in r.command and any("memory holds at once" in n for n in r.notes)
    given = audit(wide, PureDP(1.0, ReplaceOne("l1", 1.0)), selection_samples=2700, **kw)
    assert given.epsilon_lower == r.epsilon_lower and given.witness == r.witness
    with pytest.raises(ResourceRefused):  # (given, it is not fitted)
        audit(wide, PureDP(1.0, ReplaceOne("l1", 1.0)), selection_samples=3000, **kw)
