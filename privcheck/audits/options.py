"""The one options object of mechanism and policy audits: how much to sample, at what confidence, where, and
within what time.  :func:`privcheck.audit` and :func:`privcheck.audit_policy` take these as keyword arguments of
the same names and validate them here, once."""

from __future__ import annotations

from dataclasses import dataclass

from privcheck.core import InvalidArgument, check_int
from privcheck.core.execution import DEFAULT_CONNECT_TIMEOUT, make_executor
from privcheck.core.resources import DEFAULT_MAX_HOURS, check_max_hours

__all__ = [
    "Options",
    "DEFAULT_SAMPLES",
    "DEFAULT_POLICY_SAMPLES",
    "DEFAULT_SCREENING",
    "MAX_DEFAULT_SELECTION",
    "CLASSIFIER_MODES",
]

#: the default of certification draws per side for a mechanism: at 10⁶ the sampled Laplace audit certifies
#: ε ≥ 0.99 of ε = 1 at 95 % (benchmarks/RESULTS.md) in under a second
DEFAULT_SAMPLES = 1_000_000
#: the default for a policy, whose every draw is a whole run (T rounds, for each of the interactive audit's
#: adversaries): at 10⁵ every built-in private policy's audit refutes its half-noise copy and finishes within two
#: minutes on a 2-core machine (benchmarks/RESULTS.md, "Policy audits that bite"); 10⁶ would take ten times that
DEFAULT_POLICY_SAMPLES = 100_000
#: the default selection sample is the certification sample size, capped here: selection draws are held in memory
MAX_DEFAULT_SELECTION = 10_000_000
#: draws per pair and side of the first round that screens several candidate pairs (successive halving), at least
DEFAULT_SCREENING = 2000
#: learned events: ``auto`` (boosted trees on the values and bits of every real output; logistic regression beside
#: them for vector and symbolic outputs when no fixed event already refutes on the selection sample), ``on`` (both,
#: always) or ``off``
CLASSIFIER_MODES = ("auto", "on", "off")


@dataclass(frozen=True)
class Options:
    """``samples`` certification draws per side (None: :data:`DEFAULT_SAMPLES` for a mechanism,
    :data:`DEFAULT_POLICY_SAMPLES` for a policy, set by the entry point); ``selection_samples`` draws per side
    that choose the pair and the event (None: ``samples``, at most :data:`MAX_DEFAULT_SELECTION`);
    ``confidence`` the probability that every certified bound holds; ``candidates`` how many (pair, event)
    candidates are certified (the failure probability is split over them); ``event`` a user's event or statistic
    of the outputs, competing with the built-in ones; ``classifier`` one of :data:`CLASSIFIER_MODES`;
    ``max_hours`` the ceiling of the estimated time (a plan beyond it, or beyond this machine's memory, is
    refused before any work); ``screening`` the draws per pair and side of the first round that screens several
    candidate pairs (:data:`DEFAULT_SCREENING`; the search's own budget, apart from ``samples``); ``stop_early``
    lets certification stop at the first of geometrically spaced looks that refutes the claim (the failure
    probability split over the looks: the sampled engine's :func:`~.mechanism.sampled.looks`); ``workers``,
    ``scheduler``, ``scheduler_timeout`` where the draws are made
    (:func:`~privcheck.core.execution.make_executor`) and ``progress`` who is told of them — these two never
    change a result."""

    samples: int | None = None
    selection_samples: int | None = None
    confidence: float = 0.95
    candidates: int = 1
    event: object = None
    classifier: str = "auto"
    max_hours: float = DEFAULT_MAX_HOURS
    workers: int | None = None
    scheduler: str | None = None
    scheduler_timeout: float = DEFAULT_CONNECT_TIMEOUT
    progress: object = None
    screening: int = DEFAULT_SCREENING
    stop_early: bool = False
    #: set by the entry point: whether the runs per side may be sized to a policy's cost (no samples= given), and
    #: the selection sample the user gave (None: as many as certify)
    sized: bool = False
    selection_given: int | None = None

    def said(self) -> dict:
        """The options, besides the sample sizes and the confidence, that change what a sampled audit draws or
        reports, where they differ from the defaults: what a reproduce line must repeat."""
        out = {}
        if self.screening != DEFAULT_SCREENING:
            out["screening"] = self.screening
        if self.stop_early:
            out["stop_early"] = True
        return out

    def __post_init__(self):
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731  (a frozen dataclass's own checks)
        for k in ("samples", "selection_samples", "workers"):
            if getattr(self, k) is not None:
                set_(k, check_int(k, getattr(self, k)))
        set_("candidates", check_int("candidates", self.candidates))
        set_("screening", check_int("screening", self.screening))
        if not isinstance(self.stop_early, bool):
            raise InvalidArgument(f"stop_early={self.stop_early!r} must be True or False")
        set_("max_hours", check_max_hours(self.max_hours))
        c = self.confidence
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0 < c < 1:
            raise InvalidArgument(f"confidence={c!r} must be in (0, 1)")
        set_("confidence", float(c))
        if self.classifier not in CLASSIFIER_MODES:
            raise InvalidArgument(f"classifier={self.classifier!r} must be one of {', '.join(CLASSIFIER_MODES)}")
        if self.event is not None and not callable(self.event):
            raise InvalidArgument(f"event={self.event!r} must be a function of the outputs")
        t = self.scheduler_timeout
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not t > 0:
            raise InvalidArgument(f"scheduler_timeout={t!r} must be > 0 seconds")

    def with_default_samples(self, default: int) -> "Options":
        """These options with ``samples`` and ``selection_samples`` resolved (the family's default samples)."""
        from dataclasses import replace

        n = default if self.samples is None else self.samples
        return replace(
            self,
            samples=n,
            selection_samples=(
                min(n, MAX_DEFAULT_SELECTION) if self.selection_samples is None else self.selection_samples
            ),
        )

    def executor(self):
        """A context manager running the draws where these options say."""
        return make_executor(self.scheduler, self.workers, self.scheduler_timeout)
