"""Deferred kernels (privcheck.core.jit): two processes that call a kernel for the first time together compile it
once — the second loads what the first wrote to numba's cache, under a lock of the kernel's own."""

import subprocess
import sys
import textwrap

import pytest


@pytest.mark.slow  # (the default tier's two minutes: two processes that each load numba)
def test_two_processes_calling_a_new_kernel_together_compile_it_once(tmp_path):
    (tmp_path / "kernels.py").write_text(
        textwrap.dedent(
            """
            from privcheck.core.jit import njit

            @njit(cache=True)
            def total(n):
                s = 0.0
                for i in range(n):
                    s += i * 0.5
                return s
            """
        )
    )
    (tmp_path / "call.py").write_text(
        textwrap.dedent(
            """
            import os, sys, time
            sys.path.insert(0, sys.argv[1])
            import kernels

            kernels.total.dispatcher()  # numba loaded, nothing compiled yet
            open(os.path.join(sys.argv[1], "ready" + sys.argv[2]), "w").close()
            while not all(os.path.exists(os.path.join(sys.argv[1], f"ready{i}")) for i in (0, 1)):
                time.sleep(0.001)  # (both call the kernel at once)
            assert kernels.total(10) == 22.5
            stats = kernels.total.dispatcher().stats
            print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))
            """
        )
    )
    calls = [
        subprocess.Popen(
            [sys.executable, str(tmp_path / "call.py"), str(tmp_path), str(i)], stdout=subprocess.PIPE, text=True
        )
        for i in range(2)
    ]
    counts = sorted(tuple(int(v) for v in c.communicate(timeout=120)[0].split()) for c in calls)
    assert all(c.returncode == 0 for c in calls)
    assert counts == [(0, 1), (1, 0)], counts  # one compiled (a miss), the other loaded its cache (a hit)


def test_the_lock_is_held_while_compiling_and_not_while_the_kernel_runs(monkeypatch):
    """Processes whose first call of a kernel is minutes of work must not wait for one another: only the compilation
    is done under the kernel's lock, then the call runs outside it (a stand-in dispatcher records where each ran)."""
    import contextlib

    from privcheck.core import jit

    held, seen = [], []

    @contextlib.contextmanager
    def compiling(kernel):
        held.append(True)
        yield
        held.pop()

    class Dispatcher:
        def typeof_pyval(self, value):
            return type(value)

        def compile(self, types):
            seen.append(("compile", types, bool(held)))

        def __call__(self, *args):
            seen.append(("call", args, bool(held)))
            return sum(args)

    kernel = jit.njit(cache=True)(lambda a, b: a + b)
    kernel._dispatcher = Dispatcher()
    monkeypatch.setattr(jit, "_compiling", compiling)
    assert kernel(1, 2) == 3 and kernel(3, 4) == 7
    assert seen == [("compile", (int, int), True), ("call", (1, 2), False), ("call", (3, 4), False)]
