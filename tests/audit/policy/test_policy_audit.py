"""Policy audits: Table vs View DP by exact enumeration, local privacy of the feedback, bad input."""

import json
import math
from fractions import Fraction

import numpy as np
import pytest

from privcheck.policies import Corruption, KLUCB, KLUCBCF
from privcheck.audits.policy.relations import Table, View, relation_named
from privcheck.policies.tabular import TabularPolicy
from privcheck.audits.policy.api import audit_policy
from privcheck.audits.policy.tables import all_inputs, distributions, exact_policy_figures, neighbour_pairs
from privcheck.cli import main
from privcheck.core import ApproxDP, InvalidArgument, PureDP, ZCDP, hockey_stick, max_log_ratio, zcdp_rho
from privcheck import mechanisms as M

# the public witness (Azize & Basu, Prop. 1(e)): P(action 1 | history)
P1 = [
    ["1/6"],
    ["1/2", "10/17", "1/13", "2/11"],
    "15/17 1/9 1/6 9/10 11/18 5/13 1/2 11/17 3/10 3/17 13/17 13/20 1/2 11/14 6/11 14/15".split(),
]
WITNESS = {"rules": [[[str(1 - Fraction(p)), p] for p in rule] for rule in P1]}


def test_witness_exact_values():
    pol = TabularPolicy(WITNESS)
    assert pol.exact
    view = exact_policy_figures(pol, ApproxDP(0.0, 0.5), View())
    table = exact_policy_figures(pol, ApproxDP(0.0, 0.5), Table())
    assert Fraction(view.extra["delta_lower_exact"]) == Fraction(154517, 238680)
    assert Fraction(table.extra["delta_lower_exact"]) == Fraction(5268817, 7775460)


def test_view_dp_but_not_table_dp():
    pol = TabularPolicy(WITNESS)
    delta = 0.66  # between the two exact values
    assert not audit_policy(pol, ApproxDP(0.0, delta), "view").violates_claim
    assert audit_policy(pol, ApproxDP(0.0, delta), "table").violates_claim


def _random_rules(rng, T):
    return {"rules": [[[1 - v, v] for v in rng.uniform(0.05, 0.95, 4**t).tolist()] for t in range(T)]}


@pytest.mark.parametrize("seed", [0, *(pytest.param(s, marks=pytest.mark.slow) for s in range(1, 6))])
def test_proposition_1_on_random_policies(seed):
    pol = TabularPolicy(_random_rules(np.random.default_rng(seed), 3))
    out = {}
    for d in ("view", "table"):
        inputs = all_inputs(relation_named(d), 3, 2)
        D, _, _ = distributions(pol, inputs, relation_named(d))
        L = np.log(D)
        pairs = neighbour_pairs(inputs)
        out[d] = (L, pairs)
    eps = {d: max(max_log_ratio(L[i], L[j]) for i, j in p) for d, (L, p) in out.items()}
    assert eps["view"] == pytest.approx(eps["table"], rel=1e-12)  # (a)
    for e in (0.0, 0.5):
        dv = max(hockey_stick(out["view"][0][i], out["view"][0][j], e) for i, j in out["view"][1])
        dt = max(hockey_stick(out["table"][0][i], out["table"][0][j], e) for i, j in out["table"][1])
        assert dv <= dt + 1e-12  # (b)
        assert dt <= 2**3 * dv + 1e-12  # (d)
    rv = max(zcdp_rho(out["view"][0][i], out["view"][0][j]) for i, j in out["view"][1])
    rt = max(zcdp_rho(out["table"][0][i], out["table"][0][j]) for i, j in out["table"][1])
    assert rv <= rt + 1e-12  # (c)


def test_float_and_generic_paths_agree_with_rational():
    pol = TabularPolicy(WITNESS)
    fl = TabularPolicy({"rules": [[[float(Fraction(a)), float(Fraction(b))] for a, b in r] for r in WITNESS["rules"]]})
    a = exact_policy_figures(pol, ApproxDP(0.0, 0.5), Table())
    b = exact_policy_figures(fl, ApproxDP(0.0, 0.5), Table()).figures.delta
    assert b.lo <= float(Fraction(a.extra["delta_lower_exact"])) <= b.hi or float(
        Fraction(a.extra["delta_lower_exact"])
    ) == pytest.approx(b.lo, rel=1e-15)
    # the generic enumeration through probs/update equals the vectorised tabular path
    from privcheck.audits.policy.tables import sequence_distribution

    x = np.array([[0, 1], [1, 1], [0, 0]])
    gen, _ = sequence_distribution(fl, x, Table())
    D, labels, _ = distributions(fl, [x], Table())
    assert all(gen.get(s, 0.0) == pytest.approx(D[0][k], abs=1e-15) for k, s in enumerate(labels))


def test_policy_reading_raw_rewards_is_caught():
    # a "private" policy that plays the last raw reward: infinite ε
    leak = {"rules": [[[0.5, 0.5]], [[1, 0], [0, 1], [1, 0], [0, 1]], [[1, 0], [0, 1]] * 8]}
    r = audit_policy(TabularPolicy(leak), PureDP(1.0), "table")
    assert r.violates_claim and r.delta_lower > 0.4
    # kl-UCB on raw rewards (no randomizer) against a 1-DP claim
    r = audit_policy(KLUCB(2), PureDP(1.0), "table", horizon=4)
    assert r.violates_claim


def test_klucb_cf_behind_randomized_response_is_table_private():
    eps = 1.0
    rr = M.optimal_randomized_response(eps)
    c = Corruption.randomized_response([rr.p00] * 2, [rr.p11] * 2)
    r = audit_policy(KLUCBCF(c), PureDP(eps), "table", horizon=4, channel=rr)
    assert not r.violates_claim and 0 < r.epsilon_lower <= eps
    v = audit_policy(KLUCBCF(c), PureDP(eps), "view", horizon=4, channel=rr)
    assert v.epsilon_lower == pytest.approx(r.epsilon_lower, rel=1e-9)  # Prop. 1(a)


def test_local_definition_and_sequences(capsys):
    code = main(
        [
            "audit",
            "sw-klucb-cf",
            "--rr-epsilon",
            "1",
            "--epsilon",
            "1",
            "--definition",
            "local",
            "--sequence-length",
            "3",
            "--json",
        ]
    )
    d = json.loads(capsys.readouterr().out)
    assert code == 1 and d["epsilon_lower"] == pytest.approx(3, rel=1e-8)
    assert d["per_report_epsilon_lower"] == pytest.approx(1, rel=1e-8)
    assert main(["audit", "kl-ucb-cf", "--rr-epsilon", "1", "--epsilon", "1", "--definition", "local"]) == 0


def test_cli_tabular(tmp_path, capsys):
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
                "view",
                "--epsilon",
                "0",
                "--delta",
                "0.66",
                "--method",
                "exact",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "audit",
                "tabular",
                "--rules",
                str(f),
                "--definition",
                "table",
                "--epsilon",
                "0",
                "--delta",
                "0.66",
                "--method",
                "exact",
                "--json",
            ]
        )
        == 1
    )
    out = capsys.readouterr().out
    d = json.loads(out[out.index("{") :])
    assert d["delta_lower_exact"] == "5268817/7775460" and d["definition"] == "table"
    assert (
        main(
            [
                "audit",
                "tabular",
                "--rules",
                str(f),
                "--definition",
                "table",
                "--epsilon",
                "0.9",
                "--delta",
                "0.2",
                "--method",
                "exact",
            ]
        )
        == 1
    )


@pytest.mark.parametrize(
    "content,needle",
    [
        ("{not json", "malformed"),
        ('{"rules": []}', "rules JSON must be"),
        ('{"rules": [[[0.5, 0.6]]]}', "sum to"),
        ('{"rules": [[[0.5, 0.5]], [[0.5, 0.5]]]}', "4^1 = 4 rows"),
        ('{"rules": [[["1/2", "x"]]]}', "not a number or a fraction"),
        ('{"rules": [[[1.5, -0.5]]]}', "outside [0, 1]"),
    ],
)
def test_bad_rules(tmp_path, capsys, content, needle):
    f = tmp_path / "r.json"
    f.write_text(content)
    code = main(["audit", "tabular", "--rules", str(f), "--definition", "table", "--epsilon", "1"])
    err = capsys.readouterr().err
    assert code == 2 and needle in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["--definition", "sideways"], "--definition"),
        (["--definition", "table", "--pair", "[[0,1],[1,1]]", "[[1,0],[0,0]]"], "not neighbours"),
        (["--definition", "table", "--pair", "[0,1,1]", "[1,1,1]"], "not neighbours"),
        ([], "needs --definition"),
    ],
)
def test_bad_policy_input(tmp_path, capsys, argv, needle):
    f = tmp_path / "rules.json"
    f.write_text(json.dumps(WITNESS))
    code = main(["audit", "tabular", "--rules", str(f), "--epsilon", "1", *argv])
    err = capsys.readouterr().err
    assert code == 2 and needle in err and err.count("\n") == 1


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_sampled_policy_audit_agrees_with_exact_and_catches_raw_rewards():
    eps = 1.0
    rr = M.optimal_randomized_response(eps)
    c = Corruption.randomized_response([rr.p00] * 2, [rr.p11] * 2)
    exact = audit_policy(KLUCBCF(c), PureDP(eps), "table", horizon=4, channel=rr)
    sampled = audit_policy(
        KLUCBCF(c), PureDP(eps), "table", horizon=4, channel=rr, method="sample", seed=3, samples=60_000
    )
    assert sampled.method == "sample" and not sampled.violates_claim
    assert sampled.epsilon_lower <= exact.epsilon_lower + 1e-9  # certified below the truth (95 %)
    assert sampled.epsilon_lower >= 0.5 * exact.epsilon_lower
    leak = audit_policy(KLUCB(2), PureDP(eps), "table", horizon=12, method="sample", seed=3, samples=20_000)
    assert leak.violates_claim and leak.epsilon_lower > 3


def test_policy_mechanism_checks_input_shape():
    from privcheck.audits.policy.adapters import PolicyMechanism

    m = PolicyMechanism(KLUCB(2), 5, Table())
    with pytest.raises(InvalidArgument):
        m.sample(np.zeros(5), np.random.default_rng(0), 3)
    assert m.sample(np.zeros((5, 2)), np.random.default_rng(0), 3).shape == (3, 5)


@pytest.mark.slow  # slow tier (python3 -m pytest -m slow): the exact interactive engine covers the default tier
def test_interactive_dp_sampled(tmp_path, capsys):
    eps = 1.0
    rr = M.optimal_randomized_response(eps)
    c = Corruption.randomized_response([rr.p00] * 2, [rr.p11] * 2)
    ok = audit_policy(KLUCBCF(c), PureDP(eps), "interactive", horizon=6, channel=rr, seed=5, samples=20_000)
    assert not ok.violates_claim and "adversary" in ok.witness
    assert set(ok.extra["per_adversary_epsilon_lower"]) >= {"identity", "flipping", "least-recommended", "constant-0"}
    leak = audit_policy(KLUCB(2), ZCDP(0.5), "interactive", horizon=10, seed=5, samples=10_000)
    assert leak.violates_claim and leak.rho_lower > 0.5
    f = tmp_path / "adv.py"
    f.write_text(
        "import numpy as np\ndef always_one(recs, t, k):\n    return np.ones(recs.shape[0], dtype=int)\n"
        "def broken(recs, t, k):\n    return np.full(recs.shape[0], 7)\n"
    )
    assert (
        main(
            [
                "audit",
                "kl-ucb",
                "--definition",
                "interactive",
                "--epsilon",
                "1",
                "--horizon",
                "8",
                "--samples",
                "5000",
                "--adversary",
                f"{f}:always_one",
                "--seed",
                "1",
            ]
        )
        == 1
    )
    capsys.readouterr()
    assert (
        main(
            [
                "audit",
                "kl-ucb",
                "--definition",
                "interactive",
                "--epsilon",
                "1",
                "--horizon",
                "8",
                "--samples",
                "5000",
                "--adversary",
                f"{f}:broken",
            ]
        )
        == 2
    )
    assert "adversary must return one arm" in capsys.readouterr().err
    assert (
        main(
            ["audit", "kl-ucb", "--definition", "interactive", "--epsilon", "1", "--horizon", "8", "--method", "exact"]
        )
        == 2
    )


@pytest.mark.parametrize("seed", range(3))
def test_interactive_exact_dominates_table(seed):
    """Prop. 2(a): Interactive DP implies Table DP, so the exact interactive ε is at least the Table ε."""
    pol = TabularPolicy(_random_rules(np.random.default_rng(10 + seed), 3))
    table = audit_policy(pol, PureDP(1.0), "table")
    inter = audit_policy(pol, PureDP(1.0), "interactive", method="exact")
    assert inter.epsilon_lower >= table.epsilon_lower - 1e-9


@pytest.mark.slow  # 13 s; the default tier checks the cluster (scaleout) and interactive paths with smaller audits
def test_interactive_exact_against_sampled():
    eps = 1.0
    rr = M.optimal_randomized_response(eps)
    c = Corruption.randomized_response([rr.p00] * 2, [rr.p11] * 2)
    exact = audit_policy(KLUCBCF(c), PureDP(eps), "interactive", horizon=3, channel=rr, method="exact")
    table = audit_policy(KLUCBCF(c), PureDP(eps), "table", horizon=3, channel=rr)
    assert table.epsilon_lower <= exact.epsilon_lower + 1e-9 <= eps + 1e-9
    sampled = audit_policy(
        KLUCBCF(c), PureDP(eps), "interactive", horizon=3, channel=rr, seed=1, method="sample", samples=40_000
    )
    assert sampled.method == "sample" and sampled.epsilon_lower <= exact.epsilon_lower + 1e-9
    raw = audit_policy(KLUCB(2), PureDP(eps), "interactive", horizon=3, method="exact")
    assert raw.violates_claim and raw.to_dict()["epsilon_lower_infinite"]
    # a raw-reward policy: some adversary makes a recommendation certain under one table and impossible under
    # its neighbour, so δ at any ε is positive and D_α infinite
    approx = audit_policy(KLUCB(2), ApproxDP(eps, 0.1), "interactive", horizon=3, method="exact")
    assert approx.violates_claim and approx.delta_lower > 0.1 and math.isinf(approx.rho_lower)


def test_user_event_over_action_sequences(tmp_path, capsys):
    f = tmp_path / "ev.py"
    f.write_text("def pulls_of_arm_1(acts):\n    return acts.sum(axis=1)\n")
    assert (
        main(
            [
                "audit",
                "kl-ucb",
                "--epsilon",
                "1",
                "--definition",
                "table",
                "--horizon",
                "8",
                "--samples",
                "4000",
                "--seed",
                "1",
                "--event",
                f"{f}:pulls_of_arm_1",
                "--full-budget",  # (a quick stage would refute on another event first)
                "--json",
            ]
        )
        == 1
    )
    d = json.loads(capsys.readouterr().out)
    assert d["method"] == "sample" and "pulls_of_arm_1" in d["witness"]["event_text"]
    assert (
        main(
            [
                "audit",
                "kl-ucb",
                "--epsilon",
                "1",
                "--definition",
                "table",
                "--horizon",
                "3",
                "--method",
                "exact",
                "--event",
                f"{f}:pulls_of_arm_1",
            ]
        )
        == 2
    )


@pytest.mark.parametrize("definition", [pytest.param("table", marks=pytest.mark.slow), "view"])  # table: 2 s
def test_exact_figures_equal_per_pair_maxima(definition):
    """ε at the claimed δ, pure ε and D_α of the exact engine are the maxima over every neighbour pair of the
    single-pair figures (core divergences, pair by pair)."""
    from privcheck.core import RenyiDP, epsilon_for_delta, renyi

    pol = TabularPolicy(_random_rules(np.random.default_rng(41), 3))
    inputs = all_inputs(relation_named(definition), 3, 2)
    D, _, _ = distributions(pol, inputs, relation_named(definition))
    L = np.log(D)
    pairs = neighbour_pairs(inputs)
    for delta in (0.02, 0.2):
        fig = exact_policy_figures(pol, ApproxDP(2.0, delta), relation_named(definition))
        eps = fig.figures.epsilon.lo  # ε at the claimed δ: a certified lower end
        brute = max(epsilon_for_delta(L[i], L[j], delta) for i, j in pairs)
        assert eps == pytest.approx(brute, rel=1e-8)
        assert eps <= brute + 1e-12
        # the reported ε-pair attains it
        key = {x.tobytes(): n for n, x in enumerate(inputs)}
        i, j = (key[np.array(v).tobytes()] for v in fig.witness["epsilon_pair"])
        assert epsilon_for_delta(L[i], L[j], delta) == pytest.approx(eps, rel=1e-8)
    for o in (2.0, 3.0, 8.0):
        f = exact_policy_figures(pol, RenyiDP(o, 1.0), relation_named(definition)).figures
        v = max(renyi(L[i], L[j], o) for i, j in pairs)
        assert f.renyi[o].lo <= v + 1e-14 <= f.renyi[o].hi + 2e-14 and f.renyi[o].hi - f.renyi[o].lo < 1e-9
    f = exact_policy_figures(pol, RenyiDP(3.0, 1.0), relation_named(definition)).figures
    v = max(max_log_ratio(L[i], L[j]) for i, j in pairs)
    assert f.epsilon.lo <= v + 1e-14 <= f.epsilon.hi + 2e-14
    k = max(renyi(L[i], L[j], 1.0) for i, j in pairs)
    assert f.kl.lo <= k + 1e-14 <= f.kl.hi + 2e-14
    assert f.rho.lo <= max(zcdp_rho(L[i], L[j]) for i, j in pairs) + 1e-12


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_an_adversary_of_yours_named_as_a_built_in_runs_beside_it_not_in_its_place():
    """A user's adversary named ``identity`` used to replace the built-in identity adversary (keyed by name), so
    that the audit ran no Table-DP adversary, while its runs were sized for one adversary more than it ran."""
    from privcheck.audits.policy.adversaries import adversaries
    from privcheck.audits.policy.sampled import with_yours

    def identity(recs, t, k):  # the user's: always arm 1
        return np.ones(recs.shape[0], dtype=np.int64)

    class Contrarian:  # a callable object: named by its class
        def __call__(self, recs, t, k):
            return np.zeros(recs.shape[0], dtype=np.int64)

    built_in = adversaries(2)
    ours = with_yours(built_in, identity)
    assert ours["identity"] is built_in["identity"] and ours["identity (yours)"] is identity
    assert len(ours) == len(built_in) + 1 and with_yours(built_in, None) == built_in
    assert "Contrarian" in with_yours(built_in, Contrarian())
    r = audit_policy(
        KLUCB(2),
        PureDP(1),
        "interactive",
        horizon=4,
        method="sample",
        seed=1,
        samples=1000,
        adversary=identity,
        full_budget=True,  # (every adversary sampled, after the first that refutes too)
    )
    per = r.extra["per_adversary_epsilon_lower"]
    assert set(per) == {*built_in, "identity (yours)"} and r.violates_claim
    assert "6 adversaries" in next(n for n in r.notes if n.startswith("interactive DP"))


def test_the_adversaries_after_one_that_refutes_are_not_sampled_but_yours_and_with_full_budget():
    """A refuting adversary ends the turn of the built-ins after it (their shares of the failure probability left
    unspent, said in a note); the user's own adversary is sampled whatever came before; ``full_budget`` samples
    every one.  KLUCB is deterministic: the identity adversary, first, refutes."""
    from privcheck.audits.policy.adversaries import adversaries

    def always_one(recs, t, k):
        return np.ones(recs.shape[0], dtype=np.int64)

    kw = dict(horizon=3, method="sample", seed=1, samples=300)
    cut = audit_policy(KLUCB(2), PureDP(1), "interactive", adversary=always_one, **kw)
    rest = [n for n in adversaries(2) if n != "identity"]
    assert cut.violates_claim and set(cut.extra["per_adversary_epsilon_lower"]) == {"identity", "always_one"}
    said = next(n for n in cut.notes if "in turn" in n)
    assert said.startswith("adversaries sampled in turn until one refuted the claim: identity did, so ")
    assert ", ".join(rest) + " were not sampled" in said and "full_budget=True" in said
    whole = audit_policy(KLUCB(2), PureDP(1), "interactive", adversary=always_one, full_budget=True, **kw)
    assert set(whole.extra["per_adversary_epsilon_lower"]) == {*adversaries(2), "always_one"}
    assert not any("in turn" in n for n in whole.notes)
    assert (
        whole.extra["per_adversary_epsilon_lower"] | cut.extra["per_adversary_epsilon_lower"]
        == (whole.extra["per_adversary_epsilon_lower"])
    )  # (the same seeds and shares: the sampled ones' bounds are the full turn's)


class _LDPUCB:
    """A researcher's locally private UCB, one object per run: each user flips their Bernoulli reward by randomized
    response before the server sees it (``report``); the planted bug calibrates the flip for 2ε."""

    def __init__(self, n_arms, rng, epsilon, bug=False):
        e = math.exp(2 * epsilon if bug else epsilon)
        self.k, self.rng, self.keep = n_arms, rng, e / (1 + e)
        self.n, self.s = np.zeros(n_arms), np.zeros(n_arms)

    def report(self, reward):
        return int(reward) if self.rng.random() < self.keep else 1 - int(reward)

    def act(self, t):
        if t <= self.k:
            return t - 1
        return int(np.argmax(self.s / self.n + np.sqrt(2 * np.log(t) / self.n)))

    def update(self, t, arm, reward):
        self.n[arm] += 1
        self.s[arm] += self.report(reward)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_local_dp_of_a_runs_report_of_its_reward():
    """A run that is not contextual exposes its randomizer as ``report(reward)``: audited on the rewards 0 and 1
    (the message asked for ``report(contexts, reward)`` and refused it)."""

    def make(n_arms, rng, epsilon):
        return _LDPUCB(n_arms, rng, epsilon)

    def make_bug(n_arms, rng, epsilon):
        return _LDPUCB(n_arms, rng, epsilon, bug=True)

    bug = audit_policy(make_bug, PureDP(1.0), "local", arms=2, samples=4000, seed=1)
    assert bug.violates_claim and bug.epsilon_lower > 1.2 and sorted(bug.witness["pair"]) == [[0.0], [1.0]]
    assert any("the run's report(reward)" in n and "reward 0 or 1" in n for n in bug.notes)
    fine = audit_policy(make, PureDP(1.0), "local", arms=2, samples=4000, seed=1)
    assert not fine.violates_claim and fine.epsilon_lower > 0.5
