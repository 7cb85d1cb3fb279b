"""The catalogue of checks: each names its slug, the claim ID of the project's claims catalogue, the
source (paper and section), and its expected status (``holds`` — proved or verified — or ``refuted`` for a
defect found in a paper).  A check function returns (status, method, detail[, counterexample]).
"""

from __future__ import annotations

import time

from .checks import CATALOGUE, Check, register
from .result import CheckResult

__all__ = ["Check", "CATALOGUE", "register", "run_check", "run_catalogue", "load_checks"]


def run_check(check: Check) -> CheckResult:
    t0 = time.perf_counter()
    try:
        out = check.fn()
    except Exception as exc:  # a check that crashes is undecided, with the reason; never a pass
        out = ("undecided", "error", f"{type(exc).__name__}: {exc}")
    status, method, detail = out[0], out[1], out[2]
    cex = out[3] if len(out) > 3 else None
    return CheckResult(
        check.slug,
        status,
        method,
        claim_id=check.claim_id,
        source=check.source,
        statement=check.statement,
        counterexample=cex,
        detail=detail,
        seconds=time.perf_counter() - t0,
        expected=check.expected,
    )


def load_checks():
    """Import every topic module, so that the catalogue holds all its checks."""
    from . import conversions, gajane, gdp, heavy_tailed, p2b, randomized_response, zcdp_bandits  # noqa: F401


def run_catalogue(names=None, progress=None) -> list[CheckResult]:
    """Run the named checks (default: all), telling ``progress`` of each one done."""
    load_checks()
    from privcheck.core import InvalidArgument
    from privcheck.core.execution import counted, plan

    if names:
        unknown = [n for n in names if n not in CATALOGUE]
        if unknown:
            raise InvalidArgument(f"unknown check {unknown[0]!r} (list= shows the catalogue)")
        checks = [CATALOGUE[n] for n in names]
    else:
        checks = list(CATALOGUE.values())
    plan(progress, len(checks), " checks")
    return [counted(run_check(c), progress) for c in checks]
