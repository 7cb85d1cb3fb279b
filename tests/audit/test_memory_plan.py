"""The plan's memory model (privcheck.audits.sampling.held_bytes) and the chunks a wide target is drawn in: a chunk
holds at most CHUNK_BYTES of output, the model counts the screening's largest round, the selection's statistics and
each worker's chunk as its sampler holds it, and a plan beyond the machine is refused before any draw — one message,
no traceback.  The model against a process's measured peak: the slow test at the end, and benchmarks/RESULTS.md."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcheck import PureDP, ReplaceOne, audit
from privcheck.audits import sampling
from privcheck.audits.mechanism.events import statistics_held
from privcheck.audits.mechanism.runner import ChunkRunner, Stream
from privcheck.audits.mechanism.whitening import SELECTED_WORK, covariance_held
from privcheck.audits.sampling import CHUNK_BYTES, DrawCost, chunk_draws, held_bytes, screen_rounds
from privcheck.core import CHUNK_SIZE, as_mechanism, chunk_generator, draw
from privcheck.core.resources import ResourceRefused


def test_a_narrow_draw_keeps_the_chunks_it_had_and_a_wide_one_holds_at_most_chunk_bytes():
    assert chunk_draws(8) == CHUNK_SIZE and chunk_draws(CHUNK_BYTES / CHUNK_SIZE) == CHUNK_SIZE
    assert chunk_draws(CHUNK_BYTES / CHUNK_SIZE + 1) == CHUNK_BYTES // (CHUNK_BYTES // CHUNK_SIZE + 1) < CHUNK_SIZE
    assert chunk_draws(4096 * 8) == 2048  # (a counter of T = 4,096: 65,536 draws were 2 GB of output)
    assert chunk_draws(1e12) == 1 and chunk_draws(0.0) == CHUNK_SIZE


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=0.0, max_value=1e13, allow_nan=False), st.floats(min_value=0.0, max_value=1e13))
def test_a_chunk_holds_at_most_chunk_bytes_and_fewer_draws_as_they_widen(a, b):
    for size in (a, b):
        n = chunk_draws(size)
        assert 1 <= n <= CHUNK_SIZE and (n == 1 or n * math.ceil(size) <= CHUNK_BYTES)
    if a <= b:
        assert chunk_draws(a) >= chunk_draws(b)


def _wide(x, rng, size):
    return x + rng.normal(0.0, 1.0, (size, 2048))


def test_a_wide_targets_draws_are_its_chunks_of_its_own_size_in_order():
    """ChunkRunner draws chunk i of a stream from chunk_generator(seed, *key, i), ``chunk`` draws each (the last the
    remainder): the same draws wherever they run, and a wide target's chunks of the size its draws say."""
    chunk = chunk_draws(2048 * 8)
    assert chunk == 4096
    key, n = (1, 0, 0), 2 * chunk + 100
    (out,) = ChunkRunner(chunk=chunk).sample([Stream(_wide, 0.0, key, "wide")], 7, n)
    mech = as_mechanism(_wide)
    parts = [draw(mech, 0.0, chunk_generator(7, *key, i), s) for i, s in enumerate((chunk, chunk, 100))]
    assert np.array_equal(out, np.concatenate(parts))


def test_an_audit_draws_a_wide_target_in_chunks_of_at_most_chunk_bytes(monkeypatch):
    """The audit's every wave — probes aside — in chunks of CHUNK_BYTES (64 KB here: 512 draws of 16 doubles)."""
    monkeypatch.setattr(sampling, "CHUNK_BYTES", 1 << 16)
    sizes = []

    def wide(x, rng, size):
        sizes.append(size)
        return x + rng.normal(0.0, 1.0, (size, 16))

    kw = dict(pairs=[(0.0, 1.0)], samples=3000, stages=0, workers=1, classifier="off", seed=1)
    r = audit(wide, PureDP(1.0, ReplaceOne("l1", 1.0)), **kw)
    audited = sizes[sizes.index(3000) + 1 :] if 3000 in sizes else sizes[4:]  # (after the cost probe's draws)
    assert r.violates_claim and max(audited) == 512 and sum(audited) > 3 * 3000  # (selection, certification)


def test_the_model_counts_the_screenings_largest_round_the_selections_statistics_and_each_workers_chunk():
    cost = DrawCost(bytes=8.0 * 4096, seconds=1e-4, values=4096, holds=12.0)
    n, sel, pairs = 10**6, 20_000, 24
    rounds = list(screen_rounds(pairs, sel, 2000))
    assert rounds[0] == (24, 2000)  # (every pair in, its 2,000 draws a side, both sides: 3.1 GB as drawn)
    screening = 4 * 24 * 2000 * cost.bytes  # (twice while a round's chunks are assembled)
    selection = 4 * sel * cost.bytes + statistics_held(sel, 4096, SELECTED_WORK)
    drawing = 2 * 2048 * cost.bytes * 12.0  # (two workers' chunks of 2,048 draws, twelve times their output)
    assert screening > selection
    assert held_bytes(cost, n, sel, 2, pairs, 2000) == pytest.approx(screening + drawing)
    assert held_bytes(cost, n, sel, 2) == pytest.approx(selection + drawing)  # (one pair: no screening)
    # the whitened covariance's centred copies at d = 4,096: 16,384 rows a side (2³⁸ / d²)
    assert covariance_held(sel, 4096) == 8.0 * (2 * 16_384 * 4096 + 3 * 4096**2)
    assert statistics_held(sel, 1) == 0.0


@settings(max_examples=100, deadline=None)
@given(
    st.integers(1, 10**6),
    st.integers(1, 10**6),
    st.integers(1, 64),
    st.integers(1, 40),
    st.floats(1.0, 1e6),
)
def test_the_model_grows_with_the_selection_sample(sel, more, pairs, workers, size):
    """The fitted selection's bisection reads held_bytes as nondecreasing in the selection sample."""
    cost = DrawCost(bytes=size, seconds=1e-6, holds=12.0)
    assert held_bytes(cost, 10**6, sel, workers, pairs) <= held_bytes(cost, 10**6, sel + more, workers, pairs)


def _pairs_audit(monkeypatch, limit):
    """An audit of twelve pairs of a 256-value target at 1,000 draws a side, on a machine of ``limit`` bytes: (its
    report or the refusal, the sizes its target was called with)."""
    from privcheck.core import resources

    for where in (resources, sampling):
        monkeypatch.setattr(where, "memory_limit", lambda: int(limit))
    calls = []

    def wide(x, rng, size):
        calls.append(size)
        out = rng.normal(0.0, 1.0, (size, 256))
        out[:, int(x)] += 1.0
        return out

    pairs = [(float(i), float(i + 1)) for i in range(12)]
    kw = dict(pairs=pairs, samples=1000, stages=0, workers=1, classifier="off", seed=1)
    try:
        return audit(wide, PureDP(1.0, ReplaceOne("l1", 1.0)), **kw), calls
    except ResourceRefused as e:
        return e, calls


_COST = DrawCost(256 * 8.0, 0.0, values=256, holds=sampling.SAMPLER_HOLDS)


def test_a_screening_that_would_not_fit_is_fitted_and_said_in_the_reproduce_line(monkeypatch):
    """Every pair still in a round is drawn at once: where the default 2,000 draws a pair would not fit, the most that
    do (two significant digits), said in the notes and the reproduce line — as a fitted selection is."""
    held = lambda floor: held_bytes(_COST, 1000, 1000, 1, 12, floor)  # noqa: E731
    assert held(200) < held(1000) < held(2000)
    r, calls = _pairs_audit(monkeypatch, held(1050))
    assert not isinstance(r, ResourceRefused), r
    assert calls.count(1000) >= 24 and 2000 not in calls  # (the first round: 12 pairs, 1,000 draws a side each)
    assert "screening=1000" in r.command and any("screened on 1,000 draws per side" in n for n in r.notes)


def test_a_plan_whose_screening_would_not_fit_even_fitted_is_refused_before_any_draw_naming_the_way_out(monkeypatch):
    selection_only = held_bytes(_COST, 1000, 1000, 1)
    least = held_bytes(_COST, 1000, 1000, 1, 12, sampling.MIN_FITTED_SCREEN)
    assert least > selection_only
    r, calls = _pairs_audit(monkeypatch, (selection_only + least) / 2)
    assert isinstance(r, ResourceRefused) and "smaller screening=" in str(r)
    assert sum(calls) <= 1000 + 2 * 64 + 8  # (the probes only: no screening round was drawn)


_BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "memory_model.py"


@pytest.mark.slow  # (the default tier's two minutes: a counter of T = 1,024 audited at 20,000 draws a side, 1-2 min)
def test_a_counters_audit_holds_no_more_than_the_plans_model():
    """In a fresh process on one worker (everything in it), the growth of the peak resident memory over the audit
    is within the plan's model — which counts more than it holds, not less (benchmarks/memory_model.py's row)."""
    out = subprocess.run([sys.executable, str(_BENCHMARK), "--one", "1024", "20000"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["grown"] > 2 * got["side"]  # (the draws were held: a measure, not an empty process)
    assert got["grown"] <= got["model"]


def test_a_sized_agents_screening_that_would_not_fit_is_fitted_and_said(monkeypatch):
    """An agent publishing 4.6 MB a run (a tabular agent's releases on FrozenLake, with their changes), its runs sized
    to its cost over twelve pairs: a round of every pair at a quarter of 200 runs would hold 22 GB on a machine that
    gives 18.8 — the plan was refused.  Its screening is fitted to memory (at least MIN_FITTED_RUNS a pair), the runs
    sized beside it, and the number said (the reproduce line repeats it: another machine would fit another)."""
    from privcheck.audits.policy import plan
    from privcheck.audits.policy.resolved import policy_options

    limit = 18.8e9
    for where in (sampling, plan):
        monkeypatch.setattr(where, "memory_limit", lambda: int(limit))
    cost = DrawCost(4.6e6, 0.1)
    opts = policy_options({})
    assert (
        held_bytes(cost, plan.MIN_SIZED, plan.MIN_SIZED, 2, 12, sampling.screened_on(plan.MIN_SIZED, opts.screening))
        > limit
    )
    n, notes = plan.sized(opts, cost, 2, 1, [None] * 12, subject="agent")
    assert n.samples >= plan.MIN_SIZED
    assert plan.MIN_FITTED_RUNS <= n.screening < sampling.screened_on(n.samples, opts.screening)
    assert held_bytes(cost, n.samples, n.selection_samples, 2, 12, n.screening) <= limit
    assert "memory holds" in notes[0] and n.said()["screening"] == n.screening
    assert plan.fitted_to_memory(n.samples, n.screening)  # (what the command line's reproduce line reads)


def test_an_agents_releases_too_wide_to_hold_are_refused_naming_what_it_publishes(monkeypatch, capsys):
    """At the largest size of the field's experiments (S = 10, A = 5, H = 20, K = 10³) a tabular agent publishes 192 MB
    a run with its changes, and even its least sized plan would hold some 863 GB: the refusal says what a run
    publishes and that fewer releases or episodes (or fewer of them read) are the way out, beside fewer draws — in
    Python's words, and in the command line's."""
    from privcheck import audit_episodic
    from privcheck.audits.policy import plan
    from privcheck.cli import main
    from privcheck.core import resources
    from privcheck.policies.private_ucbvi import make

    for where in (resources, sampling, plan):
        monkeypatch.setattr(where, "memory_limit", lambda: 200_000)

    said = (
        r"fewer releases=, episodes= or first_episodes= \(a run publishes [0-9.]+ \w+ with its changes\); "
        "fewer samples="
    )
    with pytest.raises(ResourceRefused, match=said):
        audit_episodic(make, PureDP(1.0), "joint", episodes=8, horizon=2, states=2, actions=2, releases=("visits",))
    args = "--epsilon 1 --definition joint --episodes 8 --horizon 2 --states 2 --actions 2 --releases visits --seed 1"
    assert main(["audit", "privcheck.policies.private_ucbvi:make", *args.split()]) == 2
    err = capsys.readouterr().err
    assert "fewer --releases, --episodes or --first-episodes (a run publishes" in err and "Traceback" not in err
