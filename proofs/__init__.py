"""Symbolic and certified-numeric checks of the claims privcheck relies on, and of the user's own formulas.

``check_identity`` and ``check_inequality`` return :class:`CheckResult` objects (status proved, verified,
refuted or undecided) for users' own test suites; ``run_catalogue`` runs the catalogue of the papers'
claims, each with its expected status (defects found in the papers are expected to be ``refuted``).
"""

from .catalogue import CATALOGUE, run_catalogue
from .formulas import check_identity, check_inequality
from .result import SCHEMA_VERSION, CheckResult

__all__ = ["check_identity", "check_inequality", "run_catalogue", "CATALOGUE", "CheckResult", "SCHEMA_VERSION"]
