"""privcheck: check differential-privacy claims of mechanisms and bandit policies.

The public API is the core vocabulary (claims, neighbour relations, errors) and the audit engines; the
command line lives in :mod:`privcheck.cli` and is never imported from here.
"""

__version__ = "0.1.0"

from .audit import AuditReport, audit  # noqa: E402
from .core import *  # noqa: E402,F401,F403
from .core import __all__ as _core_all  # noqa: E402

__all__ = ["audit", "AuditReport", "__version__", *_core_all]
