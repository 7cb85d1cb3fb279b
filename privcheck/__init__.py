"""privcheck: check differential-privacy claims of mechanisms, bandit policies and episodic agents.

The public API, and nothing else: the audits (:func:`audit` for a mechanism or a function, :func:`audit_policy`
for a bandit policy, :func:`audit_episodic` for an episodic agent) and their report; the claims; the neighbour
relations; the errors.  Engine internals live in their modules (:mod:`privcheck.core`, the engines in
:mod:`privcheck.audits`); the command line lives in :mod:`privcheck.cli` and is never imported from here.
"""

from .version import __version__  # noqa: E402

from .audits.mechanism.api import audit  # noqa: E402
from .audits.policy.api import audit_policy  # noqa: E402
from .audits.episodic.api import audit_episodic  # noqa: E402
from .core.episodic import Tapes  # noqa: E402
from .audits.policy.joint import ContextualTable  # noqa: E402
from .audits.report import AuditReport  # noqa: E402
from .audits.verdict import Verdict  # noqa: E402
from .core import (
    FDP,
    AddRemove,
    AllPairs,
    ApproxDP,
    Claim,
    EventLevel,
    ExactMethodUnavailable,
    GaussianDP,  # noqa: E402
    InvalidArgument,
    LocalDP,
    NeighbourRelation,
    PrivcheckError,
    PureDP,
    RenyiDP,
    ReplaceOne,
    ReplaceRecord,
    ReplaceUser,
    TableNeighbours,
    JointNeighbours,
    EpisodeNeighbours,
    TargetError,
    Unspecified,
    UserLevel,
    ViewNeighbours,
    ZCDP,
)
from .core.resources import ResourceRefused  # noqa: E402

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
