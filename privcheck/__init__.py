"""privcheck: check differential-privacy claims of mechanisms, bandit policies and episodic agents.

The public API, and nothing else: the audits (:func:`audit` for a mechanism or a function, :func:`audit_policy`
for a bandit policy, :func:`audit_episodic` for an episodic agent) and their report; the claims; the neighbour
relations; the errors.  Engine internals live in their modules (:mod:`privcheck.core`, the engines in
:mod:`privcheck.audits`); the command line lives in :mod:`privcheck.cli` and is never imported from here.
"""

import importlib

from .version import __version__

#: each public name → the module that holds it, imported on first use (PEP 562): a command that needs no audit —
#: ``privcheck --version`` — never loads the engines (measured: importing them all is 0.17 s of a bare start's 0.36 s)
_HOMES = {
    "audit": ".audits.mechanism.api",
    "audit_policy": ".audits.policy.api",
    "audit_episodic": ".audits.episodic.api",
    "Tapes": ".core.episodic",
    "ContextualTable": ".audits.policy.joint",
    "AuditReport": ".audits.report",
    "Verdict": ".audits.verdict",
    "ResourceRefused": ".core.resources",
    **dict.fromkeys(
        (
            "FDP",
            "AddRemove",
            "AllPairs",
            "ApproxDP",
            "Claim",
            "EventLevel",
            "ExactMethodUnavailable",
            "GaussianDP",
            "InvalidArgument",
            "LocalDP",
            "NeighbourRelation",
            "PrivcheckError",
            "PureDP",
            "RenyiDP",
            "ReplaceOne",
            "ReplaceRecord",
            "ReplaceUser",
            "TableNeighbours",
            "JointNeighbours",
            "EpisodeNeighbours",
            "TargetError",
            "Unspecified",
            "UserLevel",
            "ViewNeighbours",
            "ZCDP",
        ),
        ".core",
    ),
}


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'privcheck' has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value  # (looked up once)
    return value


def __dir__() -> list:
    return sorted({*globals(), *_HOMES})


__all__ = [
    "__version__",
    # the audits and their report
    "audit",
    "audit_policy",
    "audit_episodic",
    "ContextualTable",
    "Tapes",
    "AuditReport",
    "Verdict",
    # claims
    "Claim",
    "PureDP",
    "ApproxDP",
    "RenyiDP",
    "ZCDP",
    "GaussianDP",
    "FDP",
    "LocalDP",
    # neighbour relations
    "NeighbourRelation",
    "AllPairs",
    "ReplaceOne",
    "ReplaceRecord",
    "ReplaceUser",
    "AddRemove",
    "TableNeighbours",
    "JointNeighbours",
    "EpisodeNeighbours",
    "ViewNeighbours",
    "EventLevel",
    "UserLevel",
    "Unspecified",
    # errors
    "PrivcheckError",
    "InvalidArgument",
    "ExactMethodUnavailable",
    "TargetError",
    "ResourceRefused",
]
