"""Audit engines: sampled (Clopper–Pearson counting) and exact (enumeration / exact binning)."""

from .api import DEFAULT_POLICY_SAMPLES, DEFAULT_SAMPLES, audit, candidate_pairs
from .events import InSet, Statistic, Threshold, UserEvent
from .exact import exact_audit, exact_available
from .report import SCHEMA_VERSION, AuditReport
from .sampled import sampled_audit
from .stats import (bernoulli_renyi, cp_lower, cp_upper, delta_from_bounds, epsilon_from_bounds, renyi_from_bounds,
                    rho_from_bounds)

__all__ = ["audit", "candidate_pairs", "DEFAULT_SAMPLES", "DEFAULT_POLICY_SAMPLES", "AuditReport", "SCHEMA_VERSION", "exact_audit",
           "exact_available", "sampled_audit", "Statistic", "Threshold", "InSet", "UserEvent", "cp_lower",
           "cp_upper", "epsilon_from_bounds", "delta_from_bounds", "bernoulli_renyi", "renyi_from_bounds",
           "rho_from_bounds"]
