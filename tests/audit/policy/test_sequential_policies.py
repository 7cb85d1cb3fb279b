"""Policies written one object per run (privcheck.core.sequential): audited as written, through the API, the
command line and the simulator; their planted bugs caught, their correct forms not refuted; probes that say when
a policy draws outside its generator or when no input tried made its actions depend on the data."""

import contextlib
import json
import sys
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
import pytest

from privcheck import InvalidArgument, PureDP, TargetError, ZCDP, adapters, audit_policy
from privcheck.audits.policy import adapters as adapters_module
from privcheck.core.sequential import SequentialPolicy, as_policy

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
sys.path.insert(0, str(EXAMPLES))
import sequential as ex  # noqa: E402  (examples/sequential.py)


class Recorder:
    """A run that records what its factory was given."""

    seen = []

    def __init__(self, **kw):
        Recorder.seen.append(kw)

    def act(self, t):
        return 0

    def update(self, t, arm, reward):
        pass


def test_a_factory_gets_only_the_keywords_it_declares():
    Recorder.seen.clear()

    def make(n_arms, rng, epsilon):
        return Recorder(n_arms=n_arms, rng=rng, epsilon=epsilon)

    pol = as_policy(make, n_arms=3, horizon=10, claim=PureDP(0.7))
    assert isinstance(pol, SequentialPolicy) and pol.n_arms == 3
    state = pol.init(4)
    pol.act(state, 1, np.random.default_rng(0).random((4, pol.n_uniforms)))
    kw = Recorder.seen[-1]
    assert kw["n_arms"] == 3 and kw["epsilon"] == 0.7 and isinstance(kw["rng"], np.random.Generator)

    def make_rho(**kw):  # **kwargs: every keyword there is, but never a parameter the claim lacks
        return Recorder(**kw)

    as_policy(make_rho, n_arms=2, horizon=5, claim=ZCDP(0.5))
    assert set(Recorder.seen[-1]) == {"n_arms", "horizon", "dim", "rng", "rho"}


def test_each_run_has_its_own_generator_from_the_seed():
    pol = as_policy(ex.make, n_arms=2, horizon=20, claim=PureDP(1.0))
    u = np.random.default_rng(5).random((3, pol.n_uniforms))
    a, b = pol.init(3), pol.init(3)
    pol.act(a, 1, u)
    pol.act(b, 1, u)
    draws = [[run.rng.random() for run in s] for s in (a, b)]
    assert draws[0] == draws[1] and len(set(draws[0])) == 3  # the same seed, the same runs; runs apart


def test_bad_factories_are_bad_input():
    with pytest.raises(InvalidArgument, match="returned int: neither a batched policy"):
        as_policy(lambda n_arms: 42, n_arms=2)
    with pytest.raises(InvalidArgument, match="give horizon="):
        as_policy(ex.make, n_arms=2, claim=PureDP(1.0))
    with pytest.raises(InvalidArgument, match="raised ZeroDivisionError"):
        as_policy(lambda n_arms: 1 / 0, n_arms=2)

    class Crashes(Recorder):
        def act(self, t):
            raise ValueError("boom")

    pol = as_policy(lambda: Crashes(), n_arms=2)
    with pytest.raises(TargetError, match=r"act\(1\) raised ValueError: boom"):
        pol.act(pol.init(2), 1, np.zeros((2, 2)))

    class Stumbles(Recorder):
        def update(self, t, arm, reward):
            raise KeyError(arm)

    pol = as_policy(lambda: Stumbles(), n_arms=2)
    runs = pol.init(2)
    arms = pol.act(runs, 1, np.zeros((2, 2)))
    with pytest.raises(TargetError, match=r"update\(1, …\) raised KeyError"):
        pol.update(runs, 1, arms, np.zeros(2), None)

    class Mute:  # no update
        def act(self, t):
            return 0

    made = iter([Recorder(), Recorder(), Mute()])  # a class checked once does not vouch for another class
    pol = as_policy(lambda: next(made), n_arms=2)  # (the probe run is the first)
    with pytest.raises(InvalidArgument, match="returned Mute, not a policy with act"):
        pol.act(pol.init(2), 1, np.zeros((2, 2)))


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_explore_then_commit_correct_and_with_shared_noise():
    kw = dict(horizon=20, samples=3000, screening=200, seed=3)
    ok = audit_policy(ex.make, PureDP(1.0), "table", **kw)
    assert not ok.violates_claim and ok.epsilon_lower <= 1.0
    bad = audit_policy(ex.make_shared_noise, PureDP(1.0), "table", **kw)
    assert bad.violates_claim and bad.epsilon_lower > 2.5 and bad.extra["stage"] == "quick"  # (187 runs per side)
    assert bad.witness["event_text"].startswith("the action at round ")  # said in rounds and arms
    assert "privcheck.audit_policy(make_shared_noise" in bad.command


@pytest.mark.slow
def test_gaussian_noise_for_a_pure_claim_is_refuted_in_the_decisions_tail_by_the_default_command():
    """A quiet leak: Gaussian noise at the Laplace's scale keeps the commitment's ratios within e^ε where it is a
    coin toss; the default audit finds the table where one arm is committed to in about 2% of runs, and refutes
    there (the true ratio on that event is e^1.54)."""
    r = audit_policy(ex.make_gaussian_noise, PureDP(1.0), "table", arms=2, horizon=40, seed=1)
    assert r.violates_claim and 1.0 < r.epsilon_lower < 1.6
    rare = min(r.witness["counts"]["x"], r.witness["counts"]["x_prime"]) / r.samples_per_side
    assert rare < 0.05


@pytest.mark.slow
def test_a_leak_in_a_few_runs_in_a_thousand_is_refuted_by_the_default_command():
    """A re-exploration that reads the raw sums with probability 10⁻⁴ a round: at T = 100, about 0.8% of runs
    re-explore, and in about half of those it shows; the default audit finds the table where the raw sums tie and
    refutes on an event of a few runs in a thousand on one side and none on the other — at a look during the
    screening of its full sampling, before the selection and certification of 100,000 runs a side have run."""
    r = audit_policy(ex.make_raw_reexplore, PureDP(1.0), "table", arms=2, horizon=100, seed=1)
    assert r.violates_claim and r.epsilon_lower > 1.5
    assert r.witness["looks"]["screening_round"] >= 2 and r.samples_per_side == r.witness["looks"]["stopped_at"]
    assert r.samples_per_side <= 25_000 and any("stopped early: a look in the screening" in n for n in r.notes)
    counts = r.witness["counts"]
    assert max(counts["x"], counts["x_prime"]) / r.samples_per_side < 0.01
    assert min(counts["x"], counts["x_prime"]) == 0


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_a_policy_drawing_outside_its_generator_is_said_and_not_reproduced():
    class OwnGenerator(Recorder):
        def __init__(self):
            self.g = np.random.default_rng()

        def act(self, t):
            return int(self.g.integers(2))

    r = audit_policy(lambda: OwnGenerator(), PureDP(1.0), "table", horizon=6, samples=300, screening=100, seed=1)
    assert any("outside the generator it is given" in n for n in r.notes) and r.command == ""


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_a_policy_using_a_global_generator_is_reproducible():
    import random

    class Global(Recorder):  # Python's global generator (numpy's is swapped per batch the same way)
        def act(self, t):
            return random.randrange(2)

    kw = dict(horizon=6, samples=300, screening=100, seed=1)
    a = audit_policy(lambda: Global(), PureDP(1.0), "table", **kw)
    b = audit_policy(lambda: Global(), PureDP(1.0), "table", **kw)
    assert a.command and not any("outside the generator" in n for n in a.notes)
    assert a.to_dict()["witness"] == b.to_dict()["witness"]


class _Sometimes(Recorder):
    """Draws from numpy's global generator at some rounds only — normal() too, whose second Gaussian numpy keeps
    cached — and from Python's at others: the raw-word swap must see every draw."""

    def __init__(self, when):
        self.when = when

    def act(self, t):
        kind = self.when[t % len(self.when)]
        if kind == 1:
            return int(np.random.randint(2))
        if kind == 2:
            return int(np.random.normal() > 0)
        if kind == 3:
            import random

            return random.randrange(2) if t % 3 else int(random.gauss(0.0, 1.0) > 0)  # (gauss_next cached)
        return t % 2


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=6), st.integers(0, 2**31), st.booleans())
def test_the_global_generators_swap_by_raw_words_as_by_their_states(when, seed, caller_gauss):
    """Batches interleaved, the caller's numpy and Python states holding a cached Gaussian or not: the runs and the
    caller's states are the same whether numpy's and Python's parts move raw words (where they may) or always full
    states."""
    import random

    from privcheck.core.globalrng import PYTHON_RAW, RAW

    def play():
        np.random.seed(seed)
        if caller_gauss:
            np.random.normal()  # leaves the second Gaussian cached in the caller's state
        random.seed(seed)
        if caller_gauss:
            random.gauss(0.0, 1.0)  # and Python's (its gauss_next)
        pol = as_policy(lambda: _Sometimes(when), n_arms=2)
        batches = [pol.init(3), pol.init(2)]
        rng = np.random.default_rng(seed)
        arms = []
        for t in range(1, 9):
            for b in batches:
                a = pol.act(b, t, rng.random((len(b), 2)))
                pol.update(b, t, a, np.zeros(len(b)), None)
                arms.append(a.tolist())
        caller = np.random.get_state()
        return arms, caller[1].tolist(), caller[2:], random.getstate()

    try:
        RAW.enabled = PYTHON_RAW.enabled = False
        slow = play()
        RAW.enabled = PYTHON_RAW.enabled = True
        assert PYTHON_RAW.usable()  # (CPython: the raw path is the one measured)
        fast = play()
    finally:
        RAW.enabled = PYTHON_RAW.enabled = True
    assert fast == slow


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=6), st.integers(0, 2**31), st.integers(0, 8))
def test_a_held_batch_plays_as_one_swapped_at_every_call_and_its_caller_is_untouched(when, seed, fail_at):
    """A batch's rounds under one swap of its global generators (``held``, as the audit's round loop plays them)
    draw what they draw when every act and update swaps, and leave the caller's numpy and Python states as they
    were — also when a run raises part-way (at round ``fail_at``; 0: never)."""
    import random

    class Failing(_Sometimes):
        def update(self, t, arm, reward):
            if t == fail_at:
                raise RuntimeError("the run's own error")

    def play(hold):
        np.random.seed(seed)
        random.seed(seed)
        before = np.random.get_state()[1].tolist(), random.getstate()
        pol = as_policy(lambda: Failing(when), n_arms=2)
        rng = np.random.default_rng(seed)
        arms, error = [], None
        for b in (pol.init(3), pol.init(2)):
            try:
                with pol.held(b) if hold else contextlib.nullcontext():
                    for t in range(1, 9):
                        a = pol.act(b, t, rng.random((len(b), 2)))
                        pol.update(b, t, a, np.zeros(len(b)), None)
                        arms.append(a.tolist())
            except Exception as exc:
                error = str(exc)
            assert (np.random.get_state()[1].tolist(), random.getstate()) == before  # the caller's, untouched
        return arms, error

    assert play(True) == play(False)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**63), st.integers(0, 1500), st.booleans())
def test_pythons_raw_words_are_its_state(seed, draws, gauss):
    """Python's generator as raw words (index and 624 words, gauss_next beside them) and as ``getstate()`` give each
    other back, at any index (1,500 draws wrap the words twice), and the raw form read is the state set."""
    import random

    from privcheck.core.globalrng import PYTHON_RAW, _python_raw, _python_tuple

    g = random.Random(seed)
    for _ in range(draws):
        g.random()
    if gauss:
        g.gauss(0.0, 1.0)
    state = g.getstate()
    assert _python_tuple(_python_raw(state)) == state
    saved = random.getstate()
    try:
        random.setstate(state)
        assert PYTHON_RAW.usable() and PYTHON_RAW.read() == _python_raw(state)
    finally:
        random.setstate(saved)


def test_no_dependence_on_the_data_is_said():
    r = audit_policy(adapters.step(_Cycle), PureDP(1.0), "table", horizon=12, samples=300, screening=100, seed=2)
    assert r.epsilon_lower == 0 and any(n.startswith("no input tried made the actions depend") for n in r.notes)


class _Cycle:
    """A policy written as ``step(last_reward, last_arm)`` that ignores its rewards."""

    def __init__(self, n_arms):
        self.k, self.t = n_arms, 0

    def step(self, last_reward, last_arm):
        self.t += 1
        return (self.t - 1) % self.k


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_the_command_line_takes_a_factory_and_table_files(run, tmp_path):
    table = tmp_path / "t.json"
    table.write_text(json.dumps([[0.0, 0.0]] * 40))
    args = [
        "audit",
        f"{EXAMPLES}/sequential.py:make_shared_noise",
        "--epsilon",
        "1",
        "--definition",
        "table",
        "--arms",
        "2",
        "--horizon",
        "40",
        "--samples",
        "5000",
        "--seed",
        "4",
    ]
    code, out, err = run(*args, "--table", f"@{table}")
    assert code == 1 and "round" in out and f"--table @{table}" in out
    code, _, err = run(*args, "--table", f"@{tmp_path}/missing.json")
    assert code == 2 and "cannot read the file" in err


def test_the_simulator_runs_a_factory():
    from privcheck.policies.environments import Bernoulli, Schedule
    from privcheck.policies.simulator import simulate

    pol = as_policy(ex.make, n_arms=2, horizon=200, claim=PureDP(1.0))
    env = Bernoulli(Schedule(np.array([[0.9, 0.5]]), 200))
    res = simulate(env, pol, 200, 20, 0)
    assert res.pulls.sum() == 20 * 200 and (res.pulls[:, 0] >= 50).all()


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_the_reproduce_line_of_a_factory_says_its_instance():
    r = audit_policy(ex.make, PureDP(1.0), "table", horizon=12, arms=3, samples=500, seed=1)
    assert r.command.startswith("privcheck.audit_policy(make, PureDP(epsilon=1.0") and "arms=3" in r.command
    assert "horizon=12" in r.command and "seed=1" in r.command


def test_runs_are_sized_to_a_slow_policys_cost_unless_given():
    from dataclasses import replace

    from privcheck.audits.sampling import DrawCost
    from privcheck.audits.options import DEFAULT_POLICY_SAMPLES, Options
    from privcheck.audits.options import DEFAULT_POLICY_MINUTES
    from privcheck.audits.policy.plan import sized as _sized

    opts = replace(Options().with_default_samples(DEFAULT_POLICY_SAMPLES), sized=True)
    slow = DrawCost(bytes=8.0, seconds=0.01)  # a run of 10 ms: 10⁵ runs per side would take over an hour
    sized, note = _sized(opts, slow, 1)
    assert sized.samples < DEFAULT_POLICY_SAMPLES and sized.selection_samples == sized.samples
    assert note and note[0].startswith("runs per side sized") and "give samples=" in note[0]
    draws = 2 * (sized.samples + sized.selection_samples)  # selection and certification, both sides
    assert draws * slow.seconds <= 60 * DEFAULT_POLICY_MINUTES
    # on the executor's workers: its draws are spread over them, so twice the runs fit in the same minutes
    on_two, said = _sized(opts, slow, 2)  # (more than twice here: each pair's screening stops growing at 2,000)
    assert on_two.samples >= 1.9 * sized.samples and " on 2 workers; these about " in said[0]
    assert " workers" not in note[0]
    assert 2 * (on_two.samples + on_two.selection_samples) * slow.seconds / 2 <= 60 * DEFAULT_POLICY_MINUTES
    given = replace(opts, sized=False)
    assert _sized(given, slow, 1) == (given, [])  # samples= given: never sized
    assert _sized(opts, DrawCost(bytes=8.0, seconds=1e-6), 1) == (opts, [])  # fast enough: the default


def test_runs_are_sized_to_the_memory_too_where_a_run_publishes_much():
    """A run whose output is large (an episodic agent's releases over 200 episodes: about 1.5 MB) is sized to what
    the machine's memory holds, not only to the minutes — before, the default command refused its own plan."""
    from dataclasses import replace

    from privcheck.audits.options import DEFAULT_POLICY_SAMPLES, Options
    from privcheck.audits.policy.plan import KEEP_PAIRS, sized as _sized
    from privcheck.audits.sampling import DrawCost, held_bytes, screened_on
    from privcheck.core.resources import memory_limit

    opts = replace(Options().with_default_samples(DEFAULT_POLICY_SAMPLES), sized=True)
    big = DrawCost(bytes=memory_limit() / 6000, seconds=0.01)  # the minutes alone would allow some 14,000 a side
    n, note = _sized(opts, big, 2)
    # (the plan's pairs, each screened on fewer runs as the runs shrink — and fewer still where a round of them would
    # not fit: then said)
    assert n.samples == n.selection_samples
    assert held_bytes(big, n.samples, n.samples, 2, KEEP_PAIRS, n.screening) <= memory_limit()
    assert held_bytes(big, n.samples + 1, n.samples + 1, 2, KEEP_PAIRS, n.screening) > memory_limit()
    assert "no more runs fit in the" in note[0] and "of memory this machine can give the sampling" in note[0]
    # at least as many runs as with the screening a quarter of them
    derived = lambda runs: held_bytes(big, runs, runs, 2, KEEP_PAIRS, screened_on(runs, opts.screening))  # noqa: E731
    assert derived(n.samples) > memory_limit() or n.screening == screened_on(n.samples, opts.screening)
    _, timed = _sized(opts, DrawCost(bytes=8.0, seconds=0.01), 2)
    assert "memory" not in timed[0]


def test_the_stages_before_the_full_one_count_in_the_ceiling_not_in_the_ten_minutes():
    """The ten minutes a slow policy's runs are sized to are its full sampling's: its quick stage and the middle
    stage that runs after a sign of a leak may add a quarter, which the note says; ``max_hours`` is a ceiling on the
    whole, so where it binds the runs are sized to fit every stage in it (they were sized to the full one alone)."""
    from dataclasses import replace

    from privcheck.audits.sampling import DrawCost, sampling_seconds
    from privcheck.audits.options import DEFAULT_POLICY_MINUTES, DEFAULT_POLICY_SAMPLES, Options
    from privcheck.audits.policy.plan import KEEP_PAIRS, earlier_stages, sized

    opts = replace(Options().with_default_samples(DEFAULT_POLICY_SAMPLES), sized=True)
    slow = DrawCost(bytes=8.0, seconds=0.003)  # a researcher's 3-ms LinUCB

    def full(o):
        return sampling_seconds(slow, KEEP_PAIRS, o.samples, o.selection_samples, 1, o.screening)

    ten, (note,) = sized(opts, slow, 1)
    draws, before = earlier_stages(ten, slow, KEEP_PAIRS, 1)
    assert 0.3 * full(ten) > before > 0.2 * full(ten) and draws == round(before / slow.seconds)  # quick and middle
    assert 60 * DEFAULT_POLICY_MINUTES - 1 < full(ten) <= 60 * DEFAULT_POLICY_MINUTES  # the full stage's ten minutes
    assert f"the stages before the full one at most about {round(before / 60)} min more" in note
    hours = (full(ten) + before / 2) / 3600  # a ceiling the full stage fits in, but not with the earlier stages
    tight, _ = sized(replace(opts, max_hours=hours), slow, 1)
    whole = full(tight) + earlier_stages(tight, slow, KEEP_PAIRS, 1)[1]
    assert tight.samples < ten.samples and 3600 * hours - 1 < whole <= 3600 * hours
    assert earlier_stages(replace(ten, full_budget=True), slow, KEEP_PAIRS, 1) == (0, 0.0)  # not staged: none


class _Plans:
    """A progress that records each plan announced to it — (total, seconds), or (total, unit, seconds) with
    ``units`` — and the units counted to each."""

    def __init__(self, units=False):
        self.units, self.plans, self.done = units, [], []

    def plan(self, total, unit=None, seconds=None):
        self.plans.append((total, unit, seconds) if self.units else (total, seconds))
        self.done.append(0)

    def __call__(self, n):
        self.done[-1] += n


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_the_plan_announced_includes_the_input_search_and_is_made_again_for_the_pairs_kept():
    """Announced before the search: its runs and the sampling's (for the most pairs a search keeps); announced again
    once the search has kept its pairs: their sampling.  Every run counted against the plan it belongs to."""
    from privcheck.audits.sampling import planned_draws
    from privcheck.audits.policy.plan import KEEP_PAIRS

    progress = _Plans(units=True)
    kw = dict(horizon=20, samples=1000, screening=200, seed=3, progress=progress)
    r = audit_policy(ex.make_shared_noise, PureDP(1.0), "table", **kw)
    (first, unit, seconds), (again, unit2, seconds2) = progress.plans
    sampling = 2 * (1000 + 1000)  # selection and certification, both sides
    assert unit == unit2 == " runs" and seconds > seconds2 > 0 and first > sampling + 64 * 10
    searched = progress.done[0]  # the search's runs, all of them counted before the plan is made again
    assert searched + planned_draws(KEEP_PAIRS, 1000, 1000, 200) == first
    assert progress.done[1] == again and r.violates_claim  # exactly the work planned


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_an_earlier_stage_counts_its_runs_to_a_plan_of_its_own_and_the_whole_plan_is_announced_again_after_it():
    """A staged audit's quick stage announces its own runs, without a time (the time said is the whole audit's), and
    counts every one of them; the full stage announces the whole plan again (search and sampling: what is left)
    before its search, then the sampling of the pairs kept.  The plan said first, before any run, counts the quick
    stage too (for the most pairs a quick search keeps).  A leak the quick stage refutes ends the audit there, its
    count complete."""

    kw = dict(horizon=20, samples=2000, screening=200, seed=3)
    correct, leaky = _Plans(), _Plans()
    r = audit_policy(ex.make, PureDP(1.0), "table", **kw, progress=correct)
    assert r.extra["stage"] == "full" and not r.violates_claim
    (whole, said), (quick, untimed), (again, said_again), (sampling, _) = correct.plans
    assert untimed is None and said > said_again > 0 and whole - again >= quick  # announced again: what is left
    assert correct.done[0] == 0 and correct.done[1] == quick > 0  # the quick stage's runs, every one counted
    assert 0 < correct.done[2] <= whole - sampling and correct.done[3] == sampling  # the search's, then the sampling
    r = audit_policy(ex.make_shared_noise, PureDP(1.0), "table", **kw, progress=leaky)
    assert r.extra["stage"] == "quick" and r.violates_claim
    (first, _), (its_quick, untimed) = leaky.plans
    assert first == whole and untimed is None and leaky.done == [0, its_quick]


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_after_a_middle_stage_the_full_stage_announces_its_runs_again(monkeypatch):
    """A middle stage counts its runs to a plan of its own, made after the full search announced the sampling: the
    full stage then announces its runs again, with their time, and counts every one of them to that plan (it counted
    them to the middle stage's, whose total it overran eleven times over on a 4-arm elimination policy)."""
    from privcheck.audits import stages as stages_module

    monkeypatch.setattr(stages_module, "shows_a_sign", lambda *a: True)  # (a middle stage whatever the quick saw)
    progress = _Plans()
    r = audit_policy(
        ex.make, PureDP(1.0), "table", horizon=20, samples=2000, screening=200, seed=3, stages=2, progress=progress
    )
    assert r.extra["stage"] == "full" and "stages of" in " ".join(r.notes), r.notes
    (sampling, said), (middle, untimed), (full, seconds) = progress.plans[-3:]  # (the search's, then the stages')
    assert untimed is None and (full, seconds) == (sampling, said) and seconds > 0
    assert progress.done[-3:] == [0, middle, full] and middle < full


def _features():
    from privcheck.audits.mechanism.events import Statistic

    pulls = Statistic("feature", fn_name="pulls_of_arm_1", feature="pulls", arm=1)
    first = Statistic("feature", fn_name="first_round_of_arm_0", feature="first_round", arm=0)
    longest = Statistic("feature", fn_name="longest_stretch_of_arm_2", feature="longest", arm=2)
    return pulls, first, Statistic("feature", fn_name="switches", feature="switches"), longest


def _events():
    from privcheck.audits.mechanism.events import InSet, Statistic, Threshold

    pulls, first, switches, longest = _features()
    projection = Statistic("projection", weights=(0.0,) * 24 + (0.7, -0.7))
    return [
        (Threshold(Statistic("coord", 1300), 0.5, False), "the action at round 1301 is arm 0"),
        (InSet(Statistic("coord", 4), (2.0,), complement=True), "the action at round 5 is one of arms 0, 1"),
        (Threshold(pulls, 699.5, True), "arm 1 is pulled at least 700 times in 1,400 rounds"),
        (Threshold(first, 1400.5, True), "arm 0 is first played after round 1,400"),
        (Threshold(switches, 2.0, False), "the action changes at most 2 times in 1,400 rounds"),
        (Threshold(longest, 21.5, True), "arm 2's longest stretch of rounds in a row is at least 22 in 1,400 rounds"),
        (InSet(pulls, (54.0,)), "arm 1 is pulled 54 times in 1,400 rounds"),
        (
            InSet(longest, (25.0, 22.0), complement=True),
            "arm 2's longest stretch of rounds in a row is not one of 22, 25 in 1,400 rounds",
        ),
        (InSet(switches, (3.0, 1.0)), "the action changes one of 1, 3 times in 1,400 rounds"),
        (
            InSet(first, (1401.0, 3.0)),
            "the first round arm 0 is played (T + 1 if never) is one of 3, 1,401 in 1,400 rounds",
        ),
        (InSet(pulls, (3.5,)), None),  # (a set of values no count takes: said in the engine's form only)
        (
            Threshold(projection, 0.25, True),
            "the arms played, weighted by round, sum to > 0.25 (the weights largest at rounds 25 (+0.70), 26 (-0.70))",
        ),
        (
            Threshold(Statistic("learned", fn_name="trees"), 0.1, True),
            "the score of trees on the action sequence is > 0.1 (a classifier trained on the selection runs)",
        ),
        (
            InSet(projection, (6.92818, 6.94967)),
            "the arms played, weighted by round, sum to one of 6.92818, 6.94967 (the weights largest at rounds 25 "
            "(+0.70), 26 (-0.70))",
        ),
        (InSet(Statistic("row"), (b"a", b"b")), "the action sequence is one of 2 sequences"),
        # a user's own statistic named like a feature is not one: its name is never parsed
        (Threshold(Statistic("user", fn_name="pulls_of_arm_1"), 699.5, True), None),
    ]


def test_witness_events_are_said_in_rounds_and_arms():
    from privcheck.audits.policy.witness import action_event_text

    for event, text in _events():
        assert action_event_text(event, 3, 1400) == text, event


class _Hold:
    """Random arms, but for a stretch of 12 rounds of arm 0 at a random round when round 1's reward was high: a
    leak that lives in a stretch wherever it falls, which neither a round's action nor the pulls show as sharply."""

    def __init__(self, n_arms, horizon, rng, epsilon):
        self.rng, self.start, self.hold = rng, int(rng.integers(2, horizon - 11)), 0

    def act(self, t):
        if t == 1 or self.start <= t < self.start + self.hold:
            return 0
        return int(self.rng.integers(2))

    def update(self, t, arm, reward):
        if t == 1:
            self.hold = 12 if reward > 0.5 else 0


@pytest.mark.parametrize("summarised", [False, True])
def test_a_hold_at_a_random_round_is_refuted_on_its_longest_stretch(summarised, monkeypatch):
    if summarised:  # (a long run's summary from 16 rounds on: its column of each arm's longest stretch)
        monkeypatch.setattr(adapters_module, "FULL_SEQUENCE_ROUNDS", 16)
    x = np.ones((30, 2))
    y = x.copy()
    y[0, 0] = 0.0
    r = audit_policy(_Hold, PureDP(1.0), "table", horizon=30, pairs=[(x, y)], samples=2000, seed=1)
    assert r.violates_claim and r.epsilon_lower > 2, (r.epsilon_lower, r.witness)  # (1.49 and 2.38 without it)
    said = "the longest stretch of rounds arm 0 is played" if summarised else "arm 0's longest stretch of rounds"
    assert said in r.witness["event_text"], r.witness


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_the_input_search_shrinks_with_the_budget_that_says_it_controls_it():
    """screening= is the search's own budget: the bisection's and the coupled runs scale with it (the default's
    64 and 16 at 2,000), so a slow policy's search can be made quick."""
    from privcheck.audits.policy.inputs import search_runs

    assert search_runs(2000) == (64, 16) and search_runs(200) == (6, 2) and search_runs(20) == (4, 2)
    r = audit_policy(ex.make_shared_noise, PureDP(1.0), "table", arms=2, horizon=40, samples=500, screening=200, seed=3)
    assert any("bisection on 6 coupled runs per table" in n for n in r.notes), r.notes


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_runs_given_screen_each_pair_on_a_quarter_and_the_reproduce_line_reproduces():
    """samples= given and not screening=: each pair screened on a quarter of the runs (as a sized audit's), which the
    reproduce line does not say — said, it would be a screening given, and a given screening sizes the input
    search — so that running the line gives the same report."""
    import privcheck
    from privcheck.audits.sampling import screened_on
    from privcheck.core import Unspecified

    assert [screened_on(n, 2000) for n in (50, 150, 400, 1000, 20_000)] == [50, 100, 100, 250, 2000]
    r = audit_policy(ex.make, PureDP(1.0), "table", arms=2, horizon=20, samples=400, seed=3)
    assert "screening=" not in r.command and "samples=400" in r.command
    again = eval(r.command, {"privcheck": privcheck, "make": ex.make, "PureDP": PureDP, "Unspecified": Unspecified})
    assert again.to_dict()["witness"] == r.to_dict()["witness"] and again.epsilon_lower == r.epsilon_lower
    told = audit_policy(ex.make, PureDP(1.0), "table", arms=2, horizon=20, samples=400, screening=100, seed=3)
    assert "screening=100" in told.command
