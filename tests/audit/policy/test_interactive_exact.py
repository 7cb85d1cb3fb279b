"""Exact Interactive DP: the backward induction against brute force over every deterministic adversary."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from privcheck import mechanisms as M
from privcheck.audits.policy.relations import Table
from privcheck.policies import Corruption, KLUCBCF
from privcheck.policies.tabular import TabularPolicy
from privcheck.audits.policy.interactive import exact_interactive_figures
from privcheck.audits.policy.api import audit_policy
from privcheck.audits.policy.tables import inputs_and_pairs
from privcheck.cli import main
from privcheck.core import ApproxDP, InvalidArgument, PureDP, RenyiDP, ZCDP, hockey_stick

ORDERS = (1.5, 2.0, 8.0)


def _rules(rng, T):
    return {"rules": [[[1 - v, v] for v in rng.uniform(0.05, 0.95, 4**t).tolist()] for t in range(T)]}


def _brute_force(p1, x, T, adversaries, Q=None):
    """P^B(a) for every deterministic adversary B (rows: one bit per node of the recommendation tree, nodes
    numbered depth by depth) and every recommendation sequence a, straight from the decision rules."""
    node = {}
    for d in range(1, T):
        for prefix in itertools.product((0, 1), repeat=d):
            node[prefix] = len(node)
    seqs = list(itertools.product((0, 1), repeat=T))
    out = np.zeros((adversaries.shape[0], len(seqs)))
    feedbacks = list(itertools.product((0, 1), repeat=T - 1)) if Q is not None else [None]
    for s, a in enumerate(seqs):
        for ys in feedbacks:
            prob = np.ones(adversaries.shape[0])
            idx = np.zeros(adversaries.shape[0], dtype=np.int64)
            for t in range(T):
                prob = prob * np.where(a[t] == 1, p1[t][idx], 1 - p1[t][idx])
                if t == T - 1:
                    break
                q = adversaries[:, node[a[: t + 1]]]
                r = x[t][q]
                y = r if ys is None else np.full_like(r, ys[t])
                if ys is not None:
                    prob = prob * Q[r, ys[t]]
                idx = 4 * idx + 2 * q + y
            out[:, s] += prob
    return out


def _all_adversaries(T):
    n = 2**T - 2
    return np.array(list(itertools.product((0, 1), repeat=n)), dtype=np.int64)


def _max_over_rows(P, R, term, reduce, off):
    """max over rows (adversaries) of ``reduce(·, axis=1)`` of ``term`` on the support of P (``off`` elsewhere);
    inf where R is 0 there."""
    if np.any((P > 0) & (R == 0)):
        return math.inf
    on = P > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(on, term(np.where(on, P, 1.0), np.where(on, R, 1.0)), off)
    return float(reduce(t, axis=1).max())


def _logsumexp(v, axis):
    m = v.max(axis=axis, keepdims=True)
    return (m + np.log(np.exp(v - m).sum(axis=axis, keepdims=True))).squeeze(axis)


def _brute_figures(pol, T, pairs, eps, Q=None):
    advs = _all_adversaries(T)
    p1 = [np.array([row[1] for row in rule], dtype=float) for rule in pol.rules]
    best = {"delta": 0.0, "epsilon": 0.0, "kl": 0.0, **{o: 0.0 for o in ORDERS}}
    for x, y in pairs:
        P = _brute_force(p1, x, T, advs, Q)
        R = _brute_force(p1, y, T, advs, Q)
        best["delta"] = max(best["delta"], float(np.maximum(P - math.exp(eps) * R, 0.0).sum(axis=1).max()))
        best["epsilon"] = max(
            best["epsilon"], _max_over_rows(P, R, lambda p, r: np.log(p) - np.log(r), np.max, -np.inf)
        )
        best["kl"] = max(best["kl"], _max_over_rows(P, R, lambda p, r: p * (np.log(p) - np.log(r)), np.sum, 0.0))
        for o in ORDERS:  # D_o = ln Σ P^o R^(1−o) / (o − 1), in logs (every adversary's row at once)
            terms = lambda p, r, o=o: o * np.log(p) + (1 - o) * np.log(r)  # noqa: E731
            best[o] = max(best[o], _max_over_rows(P, R, terms, _logsumexp, -np.inf) / (o - 1))
    return best


def _encloses(enc, v, rel, abs_=1e-14):
    """The brute-force value lies in the certified enclosure, and the enclosure is tight."""
    assert enc.lo - abs_ <= v <= enc.hi + abs_, (enc, v)
    assert enc.hi - enc.lo <= rel * max(1.0, abs(v)) + abs_, (enc, v)


def _check_against_brute(pol, T, inputs, idx, eps, channel=None):
    figs = {}
    for o in ORDERS:  # one Rényi claim per order (the figures carry the default orders and the claimed one)
        out = exact_interactive_figures(pol, RenyiDP(o, 1.0), T, channel, inputs, idx)
        figs[o] = out.figures.renyi[o]
    fig = exact_interactive_figures(pol, PureDP(eps), T, channel, inputs, idx)
    f = fig.figures
    pairs = [(inputs[i], inputs[j]) for i, j in idx]
    brute = _brute_figures(pol, T, pairs, eps, None if channel is None else channel.Q)
    assert f"exact over all {2 ** (2**T - 2):,} deterministic adversaries" in fig.notes[0]
    # the brute force multiplies floats too: a few ulps of slack beside the enclosure
    _encloses(f.delta, brute["delta"], 1e-10)
    _encloses(f.epsilon, brute["epsilon"], 1e-10, 1e-12)
    _encloses(f.kl, brute["kl"], 1e-8)
    for o in ORDERS:
        _encloses(figs[o], brute[o], 1e-8, 1e-12)
    return fig


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_backward_induction_equals_all_adversaries_T3(seed):
    """T = 3: all 64 deterministic adversaries, all 576 ordered pairs of neighbouring binary tables."""
    pol = TabularPolicy(_rules(np.random.default_rng(seed), 3))
    inputs, idx = inputs_and_pairs(Table(), 3, 2, None)
    fig = _check_against_brute(pol, 3, inputs, idx, eps=0.3)
    # the adversary reported as the witness attains the reported δ
    advs = _all_adversaries(3)
    node_order = [",".join(map(str, p)) for d in (1, 2) for p in itertools.product((0, 1), repeat=d)]
    bits = np.array([[fig.witness["adversary"][k] for k in node_order]])
    p1 = [np.array([row[1] for row in rule], dtype=float) for rule in pol.rules]
    x, y = (np.array(v) for v in fig.witness["pair"])
    P, R = _brute_force(p1, x, 3, bits), _brute_force(p1, y, 3, bits)
    d = fig.figures.delta
    assert d.lo - 1e-14 <= hockey_stick(np.log(P[0]), np.log(R[0]), 0.3) <= d.hi + 1e-14
    assert advs.shape[0] == 64


def test_backward_induction_equals_all_adversaries_T4():
    """T = 4: all 16384 deterministic adversaries on a few pairs (rows replaced early and late)."""
    pol = TabularPolicy(_rules(np.random.default_rng(7), 4))
    rng = np.random.default_rng(8)
    pairs = []
    for t in (0, 2):
        x = rng.integers(0, 2, (4, 2))
        y = x.copy()
        y[t] = 1 - y[t]
        pairs.append((x, y))
    inputs, idx = inputs_and_pairs(Table(), 4, 2, pairs)
    _check_against_brute(pol, 4, inputs, idx, eps=0.2)


def test_backward_induction_with_a_feedback_channel():
    """The policy sees the queried reward through ε-randomized response: feedback patterns are summed out."""
    rr = M.optimal_randomized_response(1.0)
    pol = TabularPolicy(_rules(np.random.default_rng(3), 3))
    inputs, idx = inputs_and_pairs(Table(), 3, 2, None)
    _check_against_brute(pol, 3, inputs, idx[::7], eps=0.1, channel=rr)


@pytest.mark.parametrize("seed", range(3))
def test_interactive_dominates_table(seed):
    """Prop. 2(a): the identity adversary is one of them, so every interactive figure is at least Table's."""
    pol = TabularPolicy(_rules(np.random.default_rng(20 + seed), 3))
    for claim in (PureDP(0.5), ApproxDP(0.5, 0.1), ZCDP(0.3), RenyiDP(2.0, 1.0)):
        table = audit_policy(pol, claim, "table")
        inter = audit_policy(pol, claim, "interactive", horizon=3)
        assert inter.method == "exact"
        assert inter.epsilon_lower >= table.epsilon_lower - 1e-9
        assert inter.rho_lower >= table.rho_lower - 1e-9
        assert inter.renyi_lower[2.0] >= table.renyi_lower[2.0] - 1e-9
        if table.delta_lower is not None:
            assert inter.delta_lower >= table.delta_lower - 1e-9


def test_kl_ucb_cf_behind_rr_is_interactive_dp():
    """kl-UCB-CF behind ε-randomized response: each row reaches the policy through one ε-LDP report, so it
    is ε-Interactive DP and (ε²/2)-Interactive zCDP; neither claim is refuted, and claims below the exact
    figures are."""
    eps = 1.0
    rr = M.optimal_randomized_response(eps)
    c = Corruption.randomized_response([rr.p00] * 2, [rr.p11] * 2)
    pure = audit_policy(KLUCBCF(c), PureDP(eps), "interactive", horizon=3, channel=rr)
    assert pure.method == "exact" and not pure.violates_claim and 0.5 < pure.epsilon_lower <= eps
    z = audit_policy(KLUCBCF(c), ZCDP(eps**2 / 2), "interactive", horizon=3, channel=rr)
    assert not z.violates_claim and 0 < z.rho_lower <= eps**2 / 2
    assert audit_policy(KLUCBCF(c), ZCDP(z.rho_lower / 2), "interactive", horizon=3, channel=rr).violates_claim
    d = audit_policy(KLUCBCF(c), ApproxDP(0.0, 0.01), "interactive", horizon=3, channel=rr)
    assert d.violates_claim and d.delta_lower > 0.01
    assert d.epsilon_lower <= pure.epsilon_lower + 1e-9


def test_witness_policy_interactive_at_least_table():
    """The public Table/View witness (exact Table TV 5268817/7775460 at ε = 0): interactively at least that."""
    from test_policy_audit import WITNESS

    pol = TabularPolicy(WITNESS)
    inter = audit_policy(pol, ApproxDP(0.0, 0.5), "interactive", horizon=3)
    assert inter.delta_lower >= float(Fraction(5268817, 7775460)) - 1e-9
    assert inter.violates_claim and "adversary" in inter.witness


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_auto_falls_back_to_sampled_beyond_the_enumeration():
    rr = M.optimal_randomized_response(1.0)
    c = Corruption.randomized_response([rr.p00] * 2, [rr.p11] * 2)
    r = audit_policy(KLUCBCF(c), PureDP(1.0), "interactive", horizon=7, channel=rr, seed=2, samples=500)
    assert r.method == "sample"


def test_exact_engines_refuse_non_binary_pairs():
    pol = TabularPolicy(_rules(np.random.default_rng(1), 2))
    x = np.array([[0.5, 1.0], [0.0, 0.0]])
    y = np.array([[0.0, 1.0], [0.0, 0.0]])
    with pytest.raises(InvalidArgument, match="binary"):
        audit_policy(pol, PureDP(1.0), "interactive", horizon=2, pairs=[(x, y)], method="exact")
    with pytest.raises(InvalidArgument, match="binary"):
        audit_policy(pol, PureDP(1.0), "table", horizon=2, pairs=[(x, y)], method="exact")


def test_cli_interactive_exact(tmp_path, capsys):
    import json

    from test_policy_audit import WITNESS

    f = tmp_path / "rules.json"
    f.write_text(json.dumps(WITNESS))
    assert (
        main(
            [
                "audit",
                "tabular",
                "--rules",
                str(f),
                "--definition",
                "interactive",
                "--epsilon",
                "0.9",
                "--delta",
                "0.2",
                "--json",
            ]
        )
        == 1
    )
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "exact" and out["delta_lower"] > 0.2 and math.isfinite(out["epsilon_lower"])
    assert "adversary" in out["witness"]
