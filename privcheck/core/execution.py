"""Where chunk tasks run: in this process, on local worker processes, or on a Dask cluster.

The audit and the simulator cut their work into pure tasks — ``fn(*task)`` depends only on its arguments
(a target description, inputs, chunk indices and sizes, the seed) — and hand the list to an executor.  An
executor only decides *where* each task runs; results come back in task order, so a report is identical
whichever executor produced it.  A task that is lost with its worker is simply run again (Dask does this
itself): being pure, it returns the same counts.

* :class:`Serial` — in this process.
* :class:`Processes` — ``n`` local worker processes (``workers=n``), started from a fork server.
* :class:`Auto` — neither said: this process while the tasks are short, then one process per usable CPU.
* :class:`DaskExecutor` — a Dask distributed cluster: an existing scheduler (``tcp://host:8786``) or a
  ``LocalCluster`` of ``n`` single-threaded worker processes (``scheduler="local"``, ``workers=n``).  Requires
  the optional extra ``privcheck[dask]``.  Targets must be importable on the workers (see
  :mod:`privcheck.core.targets`); :meth:`DaskExecutor.check` builds a description on every worker first so
  that a worker that cannot import it is reported by name before any work is sent.

Progress: ``map`` calls ``progress(weight)`` as each task completes (on stderr via the caller's bar).  A progress
callable may also have ``plan(total, unit=None)``: an engine that learns the size of its work when it starts
announces it there (:func:`plan`); a plain function is simply told the units done.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from typing import Callable, Sequence

from .errors import InvalidArgument, PrivcheckError, TargetError

__all__ = [
    "Executor",
    "Serial",
    "Processes",
    "Auto",
    "usable_cpus",
    "DaskExecutor",
    "make_executor",
    "plan",
    "part_of_plan",
    "untimed",
    "counted",
    "DEFAULT_CONNECT_TIMEOUT",
]

_ADDRESS = re.compile(r"^[a-z]+://(\[[0-9a-fA-F:.]+\]|[^\s:/\[\]]+)(:\d+)?$")
#: seconds to wait for a Dask scheduler (and for its first worker) before giving up
DEFAULT_CONNECT_TIMEOUT = 10.0


def plan(progress, total: int, unit: str | None = None, seconds: float | None = None, ceiling: bool = False) -> None:
    """Announce to ``progress`` the units of work planned (when it keeps a plan: ``progress.plan``), with the
    plan's estimated ``seconds`` where the engine measured them on a probe; ``ceiling``: the plan is the most the
    work can take (a policy audit's before its search has kept its pairs), told to a ``plan`` that takes it."""
    f = getattr(progress, "plan", None)
    if f is not None:
        if seconds is None:
            f(total, unit)
        elif ceiling and _takes(f, "ceiling"):
            f(total, unit, seconds=seconds, ceiling=True)
        else:
            f(total, unit, seconds=seconds)


def _takes(f, name: str) -> bool:
    import inspect

    try:
        return name in inspect.signature(f).parameters
    except (TypeError, ValueError):
        return False


def part_of_plan(progress):
    """``progress`` for one part of a larger plan announced by the caller: the part's own plan is not passed on."""
    return None if progress is None else (lambda n: progress(n))


class _Untimed:
    """A progress callable whose plans restart the count without an estimate of time (:func:`untimed`)."""

    def __init__(self, progress):
        self.progress = progress

    def __call__(self, n):
        self.progress(n)

    def plan(self, total: int, unit: str | None = None, seconds: float | None = None, ceiling: bool = False) -> None:
        plan(self.progress, total, unit)


def untimed(progress):
    """``progress`` for a shorter part of the work done first (a staged audit's earlier stage): the part's plan
    restarts the count — the bar shows that part's work — but announces no time, the time said being the whole
    work's (announced again when the rest begins)."""
    return None if progress is None else _Untimed(progress)


def counted(value, progress, n: int = 1):
    """``value``, after telling ``progress`` (if any) that ``n`` more units are done: for comprehensions."""
    if progress:
        progress(n)
    return value


def _done(progress, weights, i) -> None:
    """Tell ``progress`` that task ``i`` is done (its weight, or 1)."""
    if progress:
        progress(weights[i] if weights is not None else 1)


def _pickled(fn, tasks) -> list:
    """Each task as it travels to a local process or a Dask worker: pickled by cloudpickle (an object from a user's
    file by value; one a worker cannot load fails its task, not the worker) — but for the objects the wave's tasks
    share (:func:`_shared`: the target above all), pickled once for the wave and referred to from each task — beside
    the folders of the user's files, made importable on the worker before anything is unpickled (a user's module
    imports its sibling modules by name, as a script does).  Pickled whole a task at a time, a target was pickled
    into every task: a counter of T = 4,096 whose exact privacy had been computed holds 384 MB of matrices, and the
    48 tasks of a screening round held 18 GB at once in this process (an audit's peak of 21.6 GB,
    ``benchmarks/RESULTS.md``); pickled whole as one wave, every task would carry every other's own input."""
    import io

    import cloudpickle

    from .targets import user_folders

    shared = _shared(tasks)
    keys = {id(obj): key for key, obj in enumerate(shared)}

    class Referring(cloudpickle.CloudPickler):
        def persistent_id(self, obj):
            return keys.get(id(obj))

    def dumped(task) -> bytes:
        out = io.BytesIO()
        Referring(out).dump((fn, task))
        return out.getvalue()

    folders, common = user_folders(), cloudpickle.dumps(shared)
    wave = os.urandom(16)  # (the wave's own: a Dask worker may serve processes of one pid on other machines)
    return [_Shipped(folders, common, dumped(t), wave) for t in tasks]


def _shared(tasks) -> list:
    """The objects more than one of ``tasks`` holds — as an argument, or as an attribute of one (a stream's target,
    the events counted) — but numbers and strings: what :func:`_pickled` pickles once for the wave."""
    seen, shared = {}, {}
    for task in tasks:
        held = {}
        for arg in task:
            for obj in (arg, *getattr(arg, "__dict__", {}).values()):
                if not isinstance(obj, (int, float, str, bytes, type(None))):
                    held[id(obj)] = obj
        for i, obj in held.items():
            if i in seen:
                shared[i] = obj
            seen[i] = obj
    return list(shared.values())


class _Shipped:
    """One task as it travels: the user folders to import from, the objects its wave's tasks share pickled once
    (``common``), the function and the task pickled referring to them (``blob``), and the wave it is of (``wave``,
    a random token: a worker unpickles a wave's shared objects once, :func:`_apply_pickled`)."""

    __slots__ = ("folders", "common", "blob", "wave")

    def __init__(self, folders: tuple, common: bytes, blob: bytes, wave: bytes):
        self.folders, self.common, self.blob, self.wave = folders, common, blob, wave

    def __getstate__(self):
        return self.folders, self.common, self.blob, self.wave

    def __setstate__(self, state):
        self.folders, self.common, self.blob, self.wave = state


#: how often, in seconds, a worker process checks that the process it works for is alive (:func:`_watch_parent`)
WATCH_EVERY = 0.5


def _started(pid: int, threads: int) -> None:
    """A worker process's start: it ends with the process it works for (:func:`_watch_parent`), and its numpy
    products run on ``threads`` BLAS threads — its share of the cores, beside the other workers (one each where
    there are as many workers as cores: each product on every core had them wait on each other,
    :mod:`privcheck.core.threads`)."""
    from .threads import blas_threads_for_good

    _watch_parent(pid)
    blas_threads_for_good(threads)


def _watch_parent(pid: int) -> None:
    """In a worker process: end it when the process ``pid`` it works for has ended, or when its own parent (the fork
    server, which ends with that process) has.  Killed outright (by the kernel for memory, by ``kill -9``), the
    main process runs no clean-up, and its workers went on computing their tasks for minutes (measured: an audit
    killed at 23.6 GB whose two workers kept running, benchmarks/RESULTS.md); a daemon thread now checks every
    :data:`WATCH_EVERY` seconds and ends the worker at once."""
    import threading
    import time

    parent = os.getppid()

    def watch():
        while True:
            time.sleep(WATCH_EVERY)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                os._exit(3)
            except OSError:  # (alive, another user's: not ours to signal)
                pass
            if os.getppid() != parent:
                os._exit(3)

    threading.Thread(target=watch, name="privcheck-watch-parent", daemon=True).start()


class _LastWave(threading.local):
    """In a worker, for each thread that runs tasks (a Dask worker's several, a local process's one): (the wave, its
    shared objects unpickled) of the last task it ran — the next task of the same wave on that thread reads them, not
    a copy of its own, as a serial audit's tasks share the target (one thread's tasks run one after another: no
    other task reads them meanwhile).  Unpickled for every task, a target holding a 268 MB array it samples with had
    each of two workers grow to 6.5–7.5 GB in 90 s (``benchmarks/RESULTS.md``)."""

    wave, shared = None, None


_UNPICKLED = _LastWave()


def _apply_pickled(item: _Shipped):
    import io
    import pickle

    import cloudpickle

    from .targets import add_folders

    add_folders(item.folders)
    last = _UNPICKLED
    if last.wave != item.wave:
        last.wave, last.shared = None, None  # (the last wave's objects freed before this one's are made)
        last.shared = cloudpickle.loads(item.common)
        last.wave = item.wave
    shared = last.shared

    class Resolving(pickle.Unpickler):
        def persistent_load(self, key):
            return shared[key]

    fn, task = Resolving(io.BytesIO(item.blob)).load()
    return fn(*task)


class Executor:
    """Runs pure tasks; ``workers`` is how many run at once (used to size tasks, never to change results)."""

    workers: int = 1

    def map(
        self,
        fn: Callable,
        tasks: Sequence[tuple],
        weights: Sequence[float] | None = None,
        progress: Callable[[float], None] | None = None,
    ) -> list:
        raise NotImplementedError

    def check(self, target) -> None:
        """Make sure every worker can build ``target`` (a description); a no-op where nothing is shipped."""

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Serial(Executor):
    """Every task in this process, in order."""

    def map(self, fn, tasks, weights=None, progress=None):
        out = []
        for i, task in enumerate(tasks):
            out.append(fn(*task))
            _done(progress, weights, i)
        return out


class Processes(Executor):
    """``workers`` local processes, forked from a fork server that has imported privcheck once (forking this
    process itself is unsafe once an OpenMP runtime — numba's parallel loops — has started here).  Tasks
    travel with cloudpickle, so a function defined in ``__main__`` or in a user's file travels by value;
    results come back in order."""

    def __init__(self, workers: int):
        self.workers = int(workers)
        self._pool = None

    def check(self, target) -> None:
        """Refuse, with what to do, a target that cannot travel to the processes (cloudpickle cannot pickle it)."""
        why = _unpicklable(target)
        if why is not None:
            raise TargetError(
                f"workers={self.workers} runs the target in other processes, and it cannot be sent there ({why}): "
                "leave workers= unset (the default runs such a target in this process) or give workers=1"
            )

    def map(self, fn, tasks, weights=None, progress=None):
        if len(tasks) <= 1:
            return Serial().map(fn, tasks, weights, progress)
        out = []
        for i, r in enumerate(self.results(fn, tasks)):
            out.append(r)
            _done(progress, weights, i)
        return out

    def results(self, fn, tasks):
        """The tasks' results in order, each as it is ready.  The processes start as they are needed — within
        ``map``, which submits every task at once — on the path privcheck was imported on (:func:`~.targets.own_path`:
        a user's folder may hold a ``privcheck.py``)."""
        from .targets import own_path

        with own_path():
            if self._pool is None:
                from concurrent.futures import ProcessPoolExecutor  # here: a serial command need not load it

                context = _context()
                _serve_from_home(context)
                threads = max(1, usable_cpus() // self.workers)  # (the cores shared among the workers)
                self._pool = ProcessPoolExecutor(
                    self.workers, mp_context=context, initializer=_started, initargs=(os.getpid(), threads)
                )
            return self._pool.map(_apply_pickled, _pickled(fn, tasks))

    def close(self):
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


def _unpicklable(target) -> str | None:
    """Why ``target`` cannot travel to another process (cloudpickle's error), or None when it can."""
    import cloudpickle

    try:
        cloudpickle.dumps(target)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


#: seconds of tasks an :class:`Auto` executor runs in this process before it spreads the rest over processes
#: (starting them costs about 0.8 s: measured, benchmarks/RESULTS.md)
AUTO_AFTER = 2.0


def usable_cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # (not every platform has affinity)
        return max(1, os.cpu_count() or 1)


class Auto(Executor):
    """The default where nothing is said: tasks run in this process until they have taken :data:`AUTO_AFTER`
    seconds in all, then each later wave of two or more on local processes, one per usable CPU
    (:class:`Processes`) — a short audit never starts a process, a long one uses the machine.  Tasks are sized
    for those processes from the start (``workers``), which never changes a result.  Where the tasks cannot
    travel or a worker fails them (a target that cannot be pickled, a worker lost), the tasks not returned run
    here — a task that fails here too raises as it would have in :class:`Serial`."""

    def __init__(self, workers: int | None = None):
        self.workers = usable_cpus() if workers is None else int(workers)
        self._pool = Processes(self.workers)
        self._here = 0.0  # seconds of tasks run in this process
        self._spread = self.workers > 1

    def check(self, target) -> None:
        """A target that cannot travel (cloudpickle cannot pickle it: it holds a lock, an open file) runs here, and
        the executor counts one worker from then on — so that what an audit sizes to its workers (a policy's runs,
        the time it announces) fits the time it takes."""
        if self._spread and _unpicklable(target) is not None:
            self.workers, self._spread = 1, False

    def map(self, fn, tasks, weights=None, progress=None):
        import time

        out = []
        if self._spread and self._here > AUTO_AFTER and len(tasks) > 1:
            out = self._away(fn, tasks, weights, progress)
        for i in range(len(out), len(tasks)):
            t0 = time.perf_counter()
            out.append(fn(*tasks[i]))
            self._here += time.perf_counter() - t0
            _done(progress, weights, i)
        return out

    def _away(self, fn, tasks, weights, progress) -> list:
        """As many of the tasks' results as the processes returned, in order (all of them, unless they failed)."""
        out = []
        try:
            for r in self._pool.results(fn, tasks):
                out.append(r)
                _done(progress, weights, len(out) - 1)
        except Exception as exc:  # run the rest here: the same results, or the task's own error
            logging.getLogger(__name__).warning(
                "privcheck: the local processes failed (%s: %s): the work left runs in this process, on one core",
                type(exc).__name__,
                exc,
            )
            self._spread = False
            self._pool.close()
        return out

    def close(self):
        self._pool.close()


#: imported once by the fork server, so that each worker forked from it starts with them
_PRELOAD = [
    "numpy",
    "scipy.stats",
    "cloudpickle",
    "privcheck.audits.mechanism.api",
    "privcheck.mechanisms",
    "privcheck.policies",
]


def _context():
    import multiprocessing

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(_PRELOAD)
    return ctx


#: the folder privcheck was imported from (this file is privcheck/core/execution.py)
_HOME = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _serve_from_home(context) -> None:
    """Start the fork server, if ``context`` forks from one and it is not running, in the folder privcheck was
    imported from.  It runs as ``python -c``, so its first path entry is its working folder: started from a folder
    holding a ``privcheck.py`` (a user's own script of that name), its preload imported that file as privcheck, and
    every process forked from it failed as it started — a traceback on the screen, and the audit ran on one core
    (measured).  The processes it forks work in the caller's folder still (each is told it as it starts)."""
    if context.get_start_method() != "forkserver":
        return
    from multiprocessing import forkserver

    here = os.getcwd()
    try:
        os.chdir(_HOME)
    except OSError:  # (a home that is not a folder — an install inside an archive: started where we are)
        here = None
    try:
        forkserver.ensure_running()
    finally:
        if here is not None:
            os.chdir(here)


def _build_on_worker(target):
    from .targets import resolve

    try:
        resolve(target)
        return None
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


class DaskExecutor(Executor):
    """Tasks on a Dask distributed cluster, sent as cloudpickle's bytes (as to :class:`Processes`).

    ``address``: ``tcp://host:port`` of a running scheduler, or ``"local"`` for a ``LocalCluster`` of
    ``workers`` single-threaded processes started here (and closed by :meth:`close`).  A scheduler that does
    not answer within ``timeout`` seconds, or has no worker by then, is an :class:`InvalidArgument`.
    """

    def __init__(self, address: str, workers: int | None = None, timeout: float = DEFAULT_CONNECT_TIMEOUT):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise InvalidArgument("scheduler= needs Dask: pip install 'privcheck[dask]'") from None
        self.address, self._cluster, self.client = address, None, None
        quiet = logging.getLogger("distributed")
        level = quiet.level
        quiet.setLevel(logging.CRITICAL)  # connection retries are logged; the one-line error below says it all
        try:
            if address == "local":
                from .targets import own_path

                n = (os.cpu_count() or 1) if workers is None else int(workers)
                with own_path():  # (its processes start on the path privcheck was imported on: Processes.results)
                    self._cluster = LocalCluster(
                        n_workers=n,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=None,
                        silence_logs=logging.CRITICAL,
                    )
                self.client = Client(self._cluster, timeout=timeout, set_as_default=False)
            else:
                if not _ADDRESS.match(address):
                    raise InvalidArgument(f"scheduler={address!r} must be tcp://host:port (or local)")
                self.client = Client(address, timeout=timeout, set_as_default=False)
            self.client.wait_for_workers(1, timeout=timeout)
        except PrivcheckError:
            self.close()
            raise
        except Exception as exc:
            self.close()
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise InvalidArgument(f"cannot use the Dask scheduler at {address} within {timeout:g} s: {why}") from None
        finally:
            quiet.setLevel(level)
        self.workers = max(1, sum(self.client.nthreads().values()))

    def check(self, target) -> None:
        from .targets import Described

        if not isinstance(target, Described):
            return
        for worker, err in self.client.run(_build_on_worker, target).items():
            if err is not None:
                raise TargetError(
                    f"Dask worker {worker} cannot load the target {target}: {err} (a target must be "
                    "importable on every worker: install its module there, or use a file path that "
                    "exists on every worker)"
                )

    def map(self, fn, tasks, weights=None, progress=None):
        from distributed import as_completed

        if not tasks:
            return []
        futures = self.client.map(_apply_pickled, _pickled(fn, tasks), pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        out = [None] * len(tasks)
        try:
            for fut in as_completed(futures, loop=self.client.loop):
                i = index[fut.key]
                out[i] = fut.result()
                _done(progress, weights, i)
        except PrivcheckError:
            self.client.cancel(futures)
            raise
        except (ImportError, AttributeError) as exc:
            self.client.cancel(futures)
            raise TargetError(
                f"a Dask worker could not load what it was sent: {type(exc).__name__}: {exc} "
                "(targets must be importable on every worker)"
            ) from None
        except Exception as exc:
            self.client.cancel(futures)
            if type(exc).__name__ == "KilledWorker":
                raise TargetError(
                    f"a task was lost with its worker too many times ({exc}); the target may crash "
                    "its process or exhaust the worker's memory"
                ) from None
            raise
        return out

    def close(self):
        if self.client is not None:
            self.client.close()
            self.client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None


def unguarded_main() -> str | None:
    """Where this call comes from the top level of the script being run (``python my.py``) outside an
    ``if __name__ == "__main__":`` block, as "my.py, line N" — else None.  Every local process imports that script
    as it starts (to unpickle what the script defines), so an unguarded call there would run the whole audit again
    in each of them."""
    import ast
    import sys

    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or not path or getattr(main, "__spec__", None) is not None:  # (-m and -c import nothing again)
        return None
    if not os.path.isfile(path):  # (a script read from standard input: no process can import it, guarded or not)
        return path
    frame = sys._getframe(1)
    while frame is not None and not (frame.f_code.co_name == "<module>" and frame.f_globals is vars(main)):
        frame = frame.f_back
    if frame is None:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return None
    line = frame.f_lineno
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_main_test(node.test) and node.lineno <= line <= node.end_lineno:
            return None
    return f"{os.path.basename(path)}, line {line}"


def _is_main_test(test) -> bool:
    """Whether ``test`` is ``__name__ == "__main__"`` (either way round)."""
    import ast

    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s.id for s in sides if isinstance(s, ast.Name)]
    values = [s.value for s in sides if isinstance(s, ast.Constant)]
    return names == ["__name__"] and values == ["__main__"]


#: how to guard a script's audit, said when it is not guarded
GUARD = 'put the call under `if __name__ == "__main__":` (the local processes import your script as they start)'


def make_executor(
    scheduler: str | None = None, workers: int | None = None, timeout: float = DEFAULT_CONNECT_TIMEOUT
) -> Executor:
    """The executor for ``scheduler``/``workers``: Dask when a scheduler is named, else processes (workers > 1),
    this process (workers = 1), or — neither said — :class:`Auto` (this process for short work, every usable CPU
    for long).  ``scheduler="local"`` without ``workers`` starts one worker per CPU."""
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise InvalidArgument(f"workers={workers!r} must be an integer >= 1")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise InvalidArgument(f"timeout={timeout!r} must be > 0 seconds")
    if scheduler is None:
        where = unguarded_main() if workers is None or workers > 1 else None
        if where is not None and workers is not None:
            raise InvalidArgument(
                f"workers={workers} starts local processes, and the audit at {where} is unguarded: {GUARD}"
            )
        if where is not None:  # the audit runs once, here
            why = GUARD if ", line " in where else "run the script from a file (the local processes import it)"
            logging.getLogger(__name__).warning(
                "privcheck: the audit at %s runs in this process, on one core — to use every core, %s", where, why
            )
            return Serial()
        if workers is None:
            return Auto() if usable_cpus() > 1 else Serial()
        return Processes(workers) if workers > 1 else Serial()
    if scheduler != "local" and workers is not None:
        raise InvalidArgument('workers= applies to scheduler="local" (a running cluster has its own workers)')
    return DaskExecutor(scheduler, workers, timeout)
