"""Scale-out: the same report from one process, `--workers` processes and a Dask cluster; faults; bad addresses.

A 2-worker LocalCluster (one single-threaded process each) is started once for the module.  Reports are compared
as JSON with the timing field removed; the reproduction line never names the executor.
"""

import json
import os
import signal
import sys
import textwrap
import time

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from commit_policy import COMMIT  # tests/support
from privcheck import audit
from privcheck.core import InvalidArgument, PureDP, ReplaceOne, TargetError
from privcheck.core.execution import Auto, Processes, Serial, make_executor, usable_cpus
from privcheck.core.targets import Described

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    c = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=50
    )
    yield c
    c.close()


def _report(out):
    d = json.loads(out)
    d.pop("seconds")
    return d


AUDIT = (
    "audit",
    "laplace",
    "--epsilon",
    "1",
    "--method",
    "sample",
    "--samples",
    "200000",
    "--selection-samples",
    "140000",
    "--seed",
    "11",
    "--json",
)


def _same_report_on(run, places):
    code, out, _ = run(*AUDIT, "--workers", "1")
    ref = _report(out)
    assert code == 0 and ref["samples_per_side"] == 200000  # four chunks per side, each place the same
    for extra in places:
        code, out, err = run(*AUDIT, *extra)
        assert code == 0, err
        assert _report(out) == ref, extra
    assert "--workers" not in ref["command"] and "--scheduler" not in ref["command"]


@pytest.mark.slow  # (the default tier: the executor's own test above, and --workers 2 in tests/cli/test_cli.py)
def test_identical_audit_reports_in_this_process_and_by_the_default_executor(run, monkeypatch):
    from privcheck.core import execution

    monkeypatch.setattr(execution, "AUTO_AFTER", 0.0)  # the default executor: on processes from its second wave
    _same_report_on(run, [()])  # (--workers 2: tests/cli/test_cli.py)


@pytest.mark.slow  # a LocalCluster's start (the default tier: this process and the default's processes)
def test_identical_audit_reports_on_a_local_cluster(run):
    _same_report_on(run, [("--scheduler", "local", "--workers", "2")])


@pytest.mark.slow  # slow tier (python3 -m pytest -m slow): a Dask cluster; audits on it stay in the default tier
def test_identical_regret_over_two_run_chunks(run, cluster):
    """5000 runs = two run chunks (4096 + 904): the merged moments must not depend on where the chunks ran."""
    args = (
        "regret",
        "--env",
        "bernoulli",
        "--means",
        "0.9,0.8x2",
        "--policies",
        "kl-ucb,ucb1",
        "--horizon",
        "300",
        "--runs",
        "5000",
        "--seed",
        "4",
        "--json",
    )
    outs = []
    for extra in ((), ("--workers", "2"), ("--scheduler", cluster.scheduler_address)):
        code, out, err = run(*args, *extra)
        assert code == 0, err
        outs.append(json.loads(out))
    assert outs[0] == outs[1] == outs[2]


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_experiment_equals_the_per_run_simulation():
    from privcheck.policies.registry import build_environment, build_policy
    from privcheck.policies.simulator import experiment, simulate

    env = build_environment("bernoulli", "0.7,0.5,0.4", 60)
    pol = build_policy("kl-ucb", env, 60)
    res = simulate(env, pol, 60, 4100, seed=3)  # (runs over a chunk of 4,096: two chunks on two processes)
    summ = experiment(env, {"kl-ucb": pol}, 60, 4100, 3, Processes(2))["kl-ucb"]
    assert summ == res.summary()
    assert summ["final_regret"] == pytest.approx(res.final.mean(), rel=1e-12)
    assert summ["stderr"] == pytest.approx(res.final.std(ddof=1) / np.sqrt(4100), rel=1e-9)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=6), st.floats(0, 1e6), st.integers(0, 2**32 - 1))
def test_merged_moments_equal_the_direct_ones(sizes, offset, seed):
    from privcheck.policies.simulator import Moments, _merged

    x = offset + np.random.default_rng(seed).normal(0, 3, (2, sum(sizes)))
    pulls = np.ones((sum(sizes), 3), dtype=np.int64)
    edges = np.cumsum([0] + sizes)
    m = _merged([Moments.of(x[:, a:b], pulls[a:b]) for a, b in zip(edges[:-1], edges[1:])])
    assert m.n == x.shape[1]
    np.testing.assert_allclose(m.mean, x.mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(m.m2, ((x - x.mean(axis=1, keepdims=True)) ** 2).sum(axis=1), rtol=1e-7, atol=1e-6)


@pytest.mark.slow  # slow tier: a Dask cluster and 4·10⁶ draws (the default tier: serial, processes and local agree)
def test_a_worker_killed_mid_audit_changes_nothing(cluster):
    """One of the two worker processes is killed (SIGKILL) while certification tasks are running; Dask reruns
    its tasks elsewhere with the same seeds and the report is identical to a single-process one."""
    kw = dict(pairs=[([0.0], [1.0])], method="sample", samples=4_000_000, selection_samples=100_000, seed=9)
    kw["classifier"] = "off"  # the subject is the executor (the learned path on workers: test_learned_events)
    claim = PureDP(1.0, ReplaceOne("l1", 1.0))
    target = Described("privcheck.mechanisms.registry:build_builtin", {"name": "laplace", "claim": claim, "params": {}})
    ref = audit(target, claim, **kw)
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        before = client.run(os.getpid)
    victim = sorted(before.values())[0]
    state = {"done": 0, "killed": False}

    def progress(n):  # called in this process as tasks complete
        state["done"] += n
        if not state["killed"] and state["done"] > 2 * 100_000 + 1_000_000:  # certification has begun
            os.kill(victim, signal.SIGKILL)
            state["killed"] = True

    got = audit(target, claim, scheduler=cluster.scheduler_address, progress=progress, **kw)
    assert state["killed"]
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        client.wait_for_workers(2, timeout=60)
        after = client.run(os.getpid)
    assert victim not in after.values()  # the nanny restarted the killed process
    a, b = ref.to_dict(), got.to_dict()
    a.pop("seconds"), b.pop("seconds")
    assert a == b


@pytest.mark.slow  # 13 s; the default tier checks the cluster (scaleout) and interactive paths with smaller audits
def test_policy_audit_on_the_cluster_matches_one_process(run, cluster):
    args = (
        "audit",
        "kl-ucb-cf",
        "--rr-epsilon",
        "1",
        "--epsilon",
        "1",
        "--definition",
        "table",
        "--horizon",
        "6",
        "--arms",
        "2",
        "--method",
        "sample",
        "--samples",
        "20000",
        "--seed",
        "2",
        "--json",
    )
    code, out, err = run(*args)
    code2, out2, err2 = run(*args, "--scheduler", cluster.scheduler_address)
    assert code == code2 == 0, err + err2
    assert _report(out) == _report(out2)


@pytest.mark.slow  # (the cluster's reports stay in the default tier: test_identical_audit_reports_…)
def test_user_mechanism_by_file_path_runs_on_the_cluster(run, cluster, tmp_path):
    f = tmp_path / "mech_by_path.py"
    f.write_text(
        "from mechanisms.exact_sampling import discrete_laplace\n"  # on a grid: a float Laplace is no DP
        "def noisy(x, rng, size):\n    return (round(x[0] * 1024) + discrete_laplace(rng, 1025, size)) / 1024\n"
    )
    args = (
        "audit",
        f"{f}:noisy",
        "--epsilon",
        "1",
        "--pair",
        "[0]",
        "[1]",
        "--samples",
        "200000",
        "--seed",
        "3",
        "--json",
    )
    code, out, err = run(*args)
    code2, out2, err2 = run(*args, "--scheduler", cluster.scheduler_address)
    assert code == code2 == 0, err + err2
    assert _report(out) == _report(out2)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_a_one_object_per_run_policy_gives_one_report_on_every_executor(run, cluster, tmp_path):
    """A policy written one object per run, from a file, with its input search: serial, two local processes and
    the cluster give the same report."""
    f = tmp_path / "my_commit.py"
    f.write_text(COMMIT)
    args = ("audit", f"{f}:make_small_noise", "--epsilon", "1", "--definition", "table", "--arms", "2")
    args += ("--horizon", "8")
    args += ("--samples", "3000", "--screening", "500", "--seed", "5", "--json")
    outs = []
    for extra in ((), ("--workers", "2"), ("--scheduler", cluster.scheduler_address)):
        code, out, err = run(*args, *extra)
        assert code == 1, err
        outs.append(_report(out))
    assert outs[0] == outs[1] == outs[2] and outs[0]["epsilon_lower"] > 3


def test_a_user_mechanism_the_workers_cannot_import(run, cluster, tmp_path, monkeypatch):
    """The module is importable here (its folder is on this process's path) but not on the workers, which were
    started before: one line naming the worker and the target, exit 2, no verdict."""
    (tmp_path / "only_here_mech.py").write_text(
        "def noisy(x, rng, size):\n    return x[0] + rng.laplace(0, 1.0, size)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    code, out, err = run(
        "audit",
        "only_here_mech:noisy",
        "--epsilon",
        "1",
        "--pair",
        "[0]",
        "[1]",
        "--samples",
        "20000",
        "--seed",
        "1",
        "--scheduler",
        cluster.scheduler_address,
    )
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "cannot load the target only_here_mech:noisy" in err and "importable on every worker" in err
    sys.modules.pop("only_here_mech", None)


@pytest.mark.parametrize(
    "address, words",
    [
        pytest.param("tcp://127.0.0.1:9", "within 2 s", marks=pytest.mark.slow),  # (waits out the 2 s)
        ("nonsense", "must be tcp://host:port"),
        ("tcp://", "must be tcp://host:port"),
    ],
)
def test_bad_scheduler_addresses(run, address, words):
    t0 = time.perf_counter()
    code, out, err = run(*AUDIT, "--scheduler", address, "--scheduler-timeout", "2")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err, err
    assert time.perf_counter() - t0 < 2 + 15  # the stated timeout, plus importing Dask


def test_execution_options_are_checked(run):
    code, _, err = run(*AUDIT, "--scheduler", "tcp://127.0.0.1:9", "--workers", "2")
    assert code == 2 and "--workers applies to --scheduler local" in err
    code, _, err = run(*AUDIT, "--workers", "0")
    assert code == 2 and "--workers: '0' must be at least 1" in err
    code, _, err = run(*AUDIT, "--scheduler-timeout", "0")
    assert code == 2 and "--scheduler-timeout 0.0 must be > 0" in err
    with pytest.raises(InvalidArgument):
        make_executor(None, True)
    assert isinstance(make_executor(None, 1), Serial) and isinstance(make_executor(None, 3), Processes)
    assert isinstance(make_executor(None, None), Auto if usable_cpus() > 1 else Serial)


def _pid_and_square(x):
    return os.getpid(), x * x


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_the_default_executor_runs_short_work_here_and_spreads_long_work(monkeypatch):
    """Auto: tasks here until they have taken AUTO_AFTER seconds, then later waves on processes — the same results
    in the same order, progress told of each; tasks that cannot travel, and a task that fails, run here (its error
    raised as in this process)."""
    import threading

    from privcheck.core import execution

    monkeypatch.setattr(execution, "AUTO_AFTER", 0.0)
    tasks = [(i,) for i in range(6)]
    told = []
    with Auto(workers=2) as ex:
        first = ex.map(_pid_and_square, tasks, [1] * 6, told.append)
        assert {p for p, _ in first} == {os.getpid()}  # nothing had run yet: here
        second = ex.map(_pid_and_square, tasks, [2] * 6, told.append)
        assert os.getpid() not in {p for p, _ in second}  # then on the processes
    assert [v for _, v in first] == [v for _, v in second] == [i * i for i in range(6)]
    assert told == [1] * 6 + [2] * 6

    lock = threading.Lock()  # a closure over a lock cannot be pickled: the tasks run here
    with Auto(workers=2) as ex:
        ex.map(_pid_and_square, tasks)
        out = ex.map(lambda x: (os.getpid(), x * x if lock is not None else 0), tasks)
    assert out == [(os.getpid(), i * i) for i in range(6)]
    with Auto(workers=2) as ex:  # a target checked first: it cannot travel, so one worker is counted
        ex.check(_pid_and_square)
        assert ex.workers == 2
        ex.check(lambda x: lock)
        assert ex.workers == 1
        assert [v for _, v in ex.map(_pid_and_square, tasks)] == [i * i for i in range(6)]
    # processes asked for by workers=2: such a target is refused, saying what to do (it was pickle's TypeError)
    with pytest.raises(TargetError, match=r"workers=2 runs the target in other processes.*cannot pickle.*workers=1"):
        Processes(2).check(lambda x: lock)

    def fails(x):
        if x == 3:
            raise ValueError("the task's own error")
        return x

    with Auto(workers=2) as ex:
        ex.map(_pid_and_square, tasks)
        with pytest.raises(ValueError, match="the task's own error"):
            ex.map(fails, tasks)


def test_described_targets_are_built_once_per_process(tmp_path):
    f = tmp_path / "count_builds.py"
    f.write_text(
        textwrap.dedent("""
        BUILDS = []
        def make(scale):
            BUILDS.append(scale)
            return ("mechanism", scale)
    """)
    )
    d = Described(f"{f}:make", {"scale": 2.0})
    assert d.build() is d.build() and d.build() == ("mechanism", 2.0)
    module = sys.modules[[m for m in sys.modules if m.startswith("privcheck_user_") and "count_builds" in m][0]]
    assert module.BUILDS == [2.0]
    assert str(d) == f"{f}:make(scale=2.0)"


class _GlobalDraws:
    """A user's mechanism as some are written: it ignores the generator it is given (its chunks of 4,096 draws, so
    that four of them are quick to make)."""

    chunk_draws = 4096

    def __call__(self, x, rng, size):
        import random

        return np.stack([np.random.randint(0, 2**62, size), [random.getrandbits(62) for _ in range(size)]], axis=1)


_global_draws = _GlobalDraws()


def _distinct_global_draws(executor):
    from privcheck.audits.mechanism.runner import ChunkRunner, Stream

    streams = [Stream(_global_draws, 0, (9, side), "global") for side in (0, 1)]
    out = np.concatenate(ChunkRunner(executor).sample(streams, 5, 4 * _GlobalDraws.chunk_draws))
    return out, [len(np.unique(out[:, j])) for j in range(2)]


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_a_target_drawing_from_the_global_generators_gets_independent_states_per_chunk():
    """numpy's and Python's global generators get a state of their own in every chunk (from the chunk's seed), so
    2 streams × 4 chunks of draws are all distinct — and the same in one process and on two workers."""
    from privcheck.core.execution import Processes, Serial

    serial, distinct = _distinct_global_draws(Serial())
    assert distinct == [serial.shape[0]] * 2
    two, _ = _distinct_global_draws(Processes(2))
    np.testing.assert_array_equal(serial, two)


@pytest.mark.slow
def test_a_target_drawing_from_the_global_generators_gets_its_own_states_on_dask():
    """numpy's global draws are the serial run's; Python's are independent per chunk but not always the serial
    run's — a Dask worker's own thread draws from Python's global generator (``dask.sizeof`` samples the messages
    it sends), which no swap can stop (docs/how-to/dask.md)."""
    from privcheck.core.execution import DaskExecutor, Serial

    serial, _ = _distinct_global_draws(Serial())
    with DaskExecutor("local", workers=2) as ex:
        dask, distinct = _distinct_global_draws(ex)
    np.testing.assert_array_equal(serial[:, 0], dask[:, 0])
    assert distinct == [dask.shape[0]] * 2


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_a_mechanism_drawing_from_the_global_generators_is_audited_reproducibly():
    """Its audit is reproducible from its seed (no note that it is not) and certifies on independent draws."""

    def leaky(x, rng, size):
        return np.asarray(x, dtype=float) + np.random.laplace(0.0, 0.5, size)  # half the noise, from np.random

    r = audit(leaky, PureDP(1.0), pairs=[(0.0, 1.0)], method="sample", samples=20_000, seed=3)
    again = audit(leaky, PureDP(1.0), pairs=[(0.0, 1.0)], method="sample", samples=20_000, seed=3)
    assert r.violates_claim and r.epsilon_lower == again.epsilon_lower
    assert not any("outside the generator" in n for n in r.notes)


@pytest.mark.slow  # (the default tier's two minutes: a process of its own, its fork server and two workers)
def test_workers_end_when_the_process_they_work_for_is_killed(tmp_path):
    """Killed outright (kill -9, the kernel's out-of-memory killer), the main process runs no clean-up: its worker
    processes, each in a task of minutes, must not go on computing."""
    import subprocess

    script = tmp_path / "main.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import os, time
            from privcheck.core.execution import Processes

            def task(i):
                open(os.path.join({str(tmp_path)!r}, f"worker{{i}}"), "w").write(str(os.getpid()))
                time.sleep(120)

            if __name__ == "__main__":
                Processes(2).map(task, [(0,), (1,)])
            """
        )
    )
    main = subprocess.Popen([sys.executable, str(script)])
    try:
        files = [tmp_path / "worker0", tmp_path / "worker1"]
        deadline = time.monotonic() + 60
        while not all(f.exists() and f.read_text() for f in files) and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = [int(f.read_text()) for f in files]
    finally:
        main.send_signal(signal.SIGKILL)
        main.wait()

    def alive(pid):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        with open(f"/proc/{pid}/stat") as f:  # (a zombie awaiting its reaper is not running)
            return f.read().split(") ")[1][0] != "Z"

    deadline = time.monotonic() + 10
    while any(alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(p) for p in workers)


def _blas_threads(_i=0) -> int:
    """The threads of numpy's own BLAS (scipy's, loaded by another test, is another library)."""
    from threadpoolctl import threadpool_info

    return max(
        lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas" and "numpy" in lib["filepath"]
    )


def test_the_selection_runs_on_one_blas_thread_and_a_large_covariance_on_all():
    """The selection's many small products run on one BLAS thread (on busy cores, two threads waited on each other:
    a 20 × 40,000 by 40,000 × 20 product took 67 ms on two and 4 ms on one); a covariance large enough to share
    takes every thread again; leaving either, the count is what it was."""
    from privcheck.core.threads import every_blas_thread, one_blas_thread

    before = _blas_threads()
    with one_blas_thread():
        assert _blas_threads() == 1
        with every_blas_thread():
            assert _blas_threads() == before
        assert _blas_threads() == 1
    assert _blas_threads() == before


@pytest.mark.slow  # (the default tier's two minutes: a fork server and two workers of its own, 3.4 s)
def test_a_worker_process_has_its_share_of_the_cores_as_blas_threads():
    """Each of n workers draws beside the others: its products get usable_cpus() // n BLAS threads (at least one),
    so that the workers together use the cores once."""
    from privcheck.core.execution import Processes, usable_cpus

    with Processes(2) as pool:
        assert pool.map(_blas_threads, [(0,), (1,)]) == [max(1, usable_cpus() // 2)] * 2


def test_work_beside_the_caller_returns_its_value_or_raises_its_error():
    """:class:`~privcheck.core.threads.Beside` computes on a thread of its own while the caller goes on (the reach's
    cross-fitting while the certification counts); its error is raised on the caller's thread, by ``result``."""
    import threading

    from privcheck.core.threads import Beside

    go = threading.Event()

    def waits(x):
        go.wait(10)
        return threading.current_thread().name, x * 2

    job = Beside(waits, 21)
    go.set()  # (the caller went on while the thread waited)
    assert job.result() == ("privcheck-beside", 42)

    def fails():
        raise ValueError("no counts")

    with pytest.raises(ValueError, match="no counts"):
        Beside(fails).result()


def test_memory_freed_by_earlier_waves_is_given_back_before_the_next_is_held():
    """Blocks of a few megabytes, freed, stay in glibc's heap (its mmap threshold rises as large blocks are freed);
    ``release_freed_memory`` gives them back to the system — the process holds less after it — and says whether the C
    library could be asked (elsewhere: False, and nothing happens).  In a fresh process: a long-lived one's heap is
    not in a state the test can set; where the blocks are given back when freed (under the test tier's workers), it
    says so and skips — on a plain interpreter here they stay held until the release (measured)."""
    import ctypes.util
    import os
    import subprocess
    import sys

    from privcheck.core.resources import release_freed_memory

    if not os.path.exists("/proc/self/statm") or "libc" not in str(ctypes.util.find_library("c")):
        assert release_freed_memory() in (True, False)
        return
    script = """
import os, numpy as np
from privcheck.core.resources import release_freed_memory
held = lambda: int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
big = np.ones(2 << 20)  # (16 MB, mapped: freeing it raises the threshold to 16 MB)
del big
blocks, pins = [], []
for _ in range(64):  # (4 MB each, from the heap now: 256 MB, each followed by a small block kept)
    blocks.append(np.ones(1 << 19))
    pins.append(np.ones(1 << 10))
before = held()
del blocks
after = held()
asked = release_freed_memory()
print(before, after, held(), asked)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    before, after, released, asked = out.stdout.split()
    assert asked == "True"
    assert int(released) < int(before) - (128 << 20)
    if int(after) <= int(before) - (64 << 20):  # (this allocator gave them back on its own: nothing left to show)
        pytest.skip("the freed blocks were given back when freed (the allocator's tuning in this environment)")


class _Holding:
    def __init__(self, target, own):
        self.target, self.own = target, own


def _with_shared(shared, held, i):
    return int(shared.sum() + held.target.sum() + held.own.sum()) + i


def _shared_identity(shared, i):
    return id(shared), os.getpid()


def test_a_worker_unpickles_a_waves_shared_objects_once():
    """The tasks of one wave that run in one process read one copy of what they share, unpickled for the first of
    them (a target holding a 268 MB array it samples with, unpickled for every task, had each of two workers grow
    to 6.5–7.5 GB in 90 s); the next wave's tasks read their own."""
    from privcheck.core.execution import _apply_pickled, _pickled

    shared = np.ones(1 << 10)
    first = [_apply_pickled(item) for item in _pickled(_shared_identity, [(shared, i) for i in range(4)])]
    assert len(set(first)) == 1  # (one copy for the wave's four tasks)
    again = [_apply_pickled(item) for item in _pickled(_shared_identity, [(shared, i) for i in range(2)])]
    assert len(set(again)) == 1
    with Processes(2) as pool:  # (each worker: one copy per wave, whichever of its tasks it ran)
        seen = pool.map(_shared_identity, [(shared, i) for i in range(16)])
    per_worker = {}
    for copy, pid in seen:
        per_worker.setdefault(pid, set()).add(copy)
    assert all(len(copies) == 1 for copies in per_worker.values())


def test_a_waves_tasks_travel_with_what_they_share_pickled_once():
    """The objects a wave's tasks share (the target, as an argument or an argument's attribute) are pickled once for
    the wave, and each task's own objects into it alone: a counter of T = 4,096 holding 384 MB of cached matrices was
    pickled into each of a screening round's 48 tasks, 18 GB at once.  Each task, unpickled where it runs, is the task
    it was."""
    from privcheck.core.execution import _apply_pickled, _pickled

    shared, target = np.ones(1 << 17), np.ones(1 << 17)  # (1 MB each, shared by every task)
    tasks = [(shared, _Holding(target, np.full(1 << 14, float(i))), i) for i in range(48)]  # (128 KB of its own)
    expected = [2 * (1 << 17) + (1 << 14) * i + i for i in range(48)]
    items = _pickled(_with_shared, tasks)
    assert len({id(item.common) for item in items}) == 1 and len(items[0].common) < 3 * shared.nbytes
    assert all(len(item.blob) < 2 * (1 << 14) * 8 for item in items)  # (its own array only)
    assert [_apply_pickled(item) for item in items] == expected
    with Processes(2) as pool:  # (the same over the processes' pipes)
        assert pool.map(_with_shared, tasks) == expected
