"""BLAS threads: one where the work is small or already spread over the cores (:func:`one_blas_thread`), all of them
again where a product is large enough to share (:func:`every_blas_thread`); and work done on a thread beside the
caller's (:class:`Beside`).

numpy's BLAS starts a thread per core for every matrix product it is given, however small.  An audit's selection
arithmetic is many small products — 20 label shuffles of 20,000 draws of 20 values (``events._beyond_shuffles``), a
covariance of a few hundred values — and on a machine whose cores are busy (a second audit, the test tier's other
worker, a benchmark) those threads wait on each other: measured with a counter's audit running beside it, one such
product took 67 ms on two threads and 4 ms on one, and DP-Sniper's OneTimeRappor row 18.8 and 21.2 s against 8.9 and
9.4 s with this module (``benchmarks/RESULTS.md``).  A worker process draws beside the other workers: its products
get its share of the cores.  Nothing here changes a result — only which threads compute it
(a product's sums may round in another order: no figure the audit certifies is read from them but through fresh
counts)."""

from __future__ import annotations

from contextlib import contextmanager

__all__ = ["Beside", "blas_threads_for_good", "every_blas_thread", "one_blas_thread"]

_controller = None


def _blas():
    """The threadpool controller of the BLAS libraries loaded (made once, after numpy's import: a controller sees
    only the libraries loaded when it is made), and their thread counts then."""
    global _controller
    if _controller is None:
        import numpy  # noqa: F401  (its BLAS loaded first)
        from threadpoolctl import ThreadpoolController

        blas = ThreadpoolController().select(user_api="blas")
        _controller = (blas, max([1, *(lib["num_threads"] for lib in blas.info())]))
    return _controller


@contextmanager
def one_blas_thread():
    """Within it, numpy's products run on one thread."""
    blas, _ = _blas()
    with blas.limit(limits=1):
        yield


@contextmanager
def every_blas_thread():
    """Within it, numpy's products run on as many threads as the BLAS had when first asked (inside
    :func:`one_blas_thread`: a product large enough to share, a covariance of thousands of values)."""
    blas, most = _blas()
    with blas.limit(limits=most):
        yield


def blas_threads_for_good(threads: int) -> None:
    """Numpy's products on ``threads`` threads from now on, in this process (a worker's: it draws beside the other
    workers, each with its share of the cores)."""
    blas, _ = _blas()
    blas.limit(limits=threads)


class Beside:
    """``fn(*args)`` computed on a thread of its own while the caller goes on; :meth:`result` waits for it and returns
    its value, or raises its error.  For work whose value is needed later, made while the caller mostly waits on
    other processes or runs outside the interpreter's lock (numpy's arithmetic on large arrays releases it).  The
    thread is a daemon: a caller that stops on an error of its own does not wait for it."""

    def __init__(self, fn, *args):
        import threading

        self._value, self._error = None, None
        self._thread = threading.Thread(target=self._run, args=(fn, args), name="privcheck-beside", daemon=True)
        self._thread.start()

    def _run(self, fn, args):
        try:
            self._value = fn(*args)
        except BaseException as exc:  # (raised again by result(), on the caller's thread)
            self._error = exc

    def result(self):
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value
