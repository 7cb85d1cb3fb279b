"""The one options object of mechanism and policy audits: how much to sample, at what confidence, where, and
within what time.

Each option is declared once, in :data:`OPTIONS` (its name, default, check and help): the table makes the fields
and the checks of :class:`Options`, the keyword arguments of :func:`privcheck.audit` and
:func:`privcheck.audit_policy` and their documentation (:func:`takes_options`), and the command line's flags
(``privcheck.cli`` reads the table; the help is written once, with each option named as ``{name}`` so that Python
says ``name=`` and the command line its flag)."""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field, make_dataclass
from typing import Callable

from privcheck.core import InvalidArgument, check_int
from privcheck.core.execution import DEFAULT_CONNECT_TIMEOUT, make_executor
from privcheck.core.resources import DEFAULT_MAX_HOURS, check_max_hours

__all__ = [
    "Options",
    "Option",
    "OPTIONS",
    "takes_options",
    "said_in_python",
    "DEFAULT_SAMPLES",
    "DEFAULT_POLICY_SAMPLES",
    "DEFAULT_POLICY_MINUTES",
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
#: when samples= is not given and the default would take longer, a policy's runs per side are sized to its measured
#: cost so that sampling them takes about this long (:func:`privcheck.audits.policy.plan.sized`)
DEFAULT_POLICY_MINUTES = 10.0
#: the default selection sample is the certification sample size, capped here: selection draws are held in memory
MAX_DEFAULT_SELECTION = 10_000_000
#: draws per pair and side of the first round that screens several candidate pairs (successive halving), at least
DEFAULT_SCREENING = 2000
#: learned events: ``auto`` (boosted trees on the values and bits of every real output; logistic regression beside
#: them for vector and symbolic outputs when no fixed event already refutes on the selection sample), ``on`` (both,
#: always) or ``off``
CLASSIFIER_MODES = ("auto", "on", "off")


def _count(name, value):
    return None if value is None else check_int(name, value)


def _count_given(name, value):
    return check_int(name, value)


def _stages(name, value):
    return None if value is None else check_int(name, value, lower=0)


def _confidence(name, c):
    if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0 < c < 1:
        raise InvalidArgument(f"{name}={c!r} must be in (0, 1)")
    return float(c)


def _classifier(name, mode):
    if mode not in CLASSIFIER_MODES:
        raise InvalidArgument(f"{name}={mode!r} must be one of {', '.join(CLASSIFIER_MODES)}")
    return mode


def _event(name, event):
    if event is not None and not callable(event):
        raise InvalidArgument(f"{name}={event!r} must be a function of the outputs")
    return event


def _seconds(name, t):
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not t > 0:
        raise InvalidArgument(f"{name}={t!r} must be > 0 seconds")
    return t


def _flag(name, value):
    if not isinstance(value, bool):
        raise InvalidArgument(f"{name}={value!r} must be True or False")
    return value


def _as_is(name, value):
    return value


@dataclass(frozen=True)
class Option:
    """One option of every audit: its Python ``name``, ``default``, ``check`` (``check(name, value)`` returns the
    value normalised or raises :class:`InvalidArgument`), ``help`` (one paragraph; ``{other}`` names another
    option, said by whoever renders it), ``cli``: the argparse keywords of its flag (``--`` + the name with
    dashes), or None when the command line has no such flag (``progress``), and ``shared``: whether the flag is
    one of the execution flags every command that runs work shares (``workers``), not one of ``audit``'s own."""

    name: str
    default: object
    check: Callable
    help: str
    annotation: str = "object"
    cli: dict | None = field(default_factory=dict)
    shared: bool = False


#: every option of a mechanism or policy audit, in the order of the keywords
OPTIONS: tuple[Option, ...] = (
    Option(
        "samples",
        None,
        _count,
        f"certification draws per side (default {DEFAULT_SAMPLES:,} for a mechanism; {DEFAULT_POLICY_SAMPLES:,} for "
        "a policy — each of its draws is a whole run — or fewer, sized to the policy's measured cost, when that many "
        f"would take over {DEFAULT_POLICY_MINUTES:g} minutes)",
        "int | None",
        {"type": "count"},
    ),
    Option(
        "selection_samples",
        None,
        _count,
        f"draws per side that choose the pair and the event (default: {{samples}}, at most {MAX_DEFAULT_SELECTION:,} — "
        "for a mechanism, as many as this machine's memory holds at once where fewer, said in the report)",
        "int | None",
        {"type": "count"},
    ),
    Option(
        "confidence", 0.95, _confidence, "the probability that every certified bound holds", "float", {"type": float}
    ),
    Option(
        "candidates",
        1,
        _count_given,
        "how many (pair, event) candidates are certified (the failure probability is split over them)",
        "int",
        {"type": "count"},
    ),
    Option(
        "event",
        None,
        _event,
        "a function of the outputs returning booleans (an event) or numbers (a statistic, thresholded); it competes "
        "with the built-in events (on the command line, module:function or file.py:function)",
        "object",
        {},
    ),
    Option(
        "classifier",
        "auto",
        _classifier,
        "learned events (a classifier's score, thresholded, certified beside the best fixed event when it does "
        "better): auto trains boosted trees on the values and bits of real outputs always (the values only where "
        "every draw lies on a grid), and logistic regression for vector and symbolic outputs when no fixed event "
        "refutes on the selection sample; on trains both always; off none",
        "str",
        {"choices": list(CLASSIFIER_MODES)},
    ),
    Option(
        "max_hours",
        DEFAULT_MAX_HOURS,
        lambda name, v: check_max_hours(v),
        "the ceiling of the audit's estimated time: a plan beyond it, or beyond this machine's memory, is refused "
        "before any work",
        "float",
        {"type": float},
    ),
    Option(
        "workers",
        None,
        _count,
        "local worker processes — not given, this process while the work is short and one per usable CPU once its "
        "tasks have taken 2 s; 1 this process only — or the size of {scheduler} local (never changes a result)",
        "int | None",
        {"type": "count"},
        shared=True,
    ),
    Option(
        "scheduler",
        None,
        _as_is,
        "tcp://host:port of a Dask scheduler, or local for a LocalCluster (needs privcheck[dask]; targets must be "
        "importable on the workers; never changes a result)",
        "str | None",
        {},
        shared=True,
    ),
    Option(
        "scheduler_timeout",
        DEFAULT_CONNECT_TIMEOUT,
        _seconds,
        "seconds to wait for the scheduler and a first worker",
        "float",
        {"type": float},
        shared=True,
    ),
    Option("progress", None, _as_is, "told of the work planned and done (never changes a result)", "object", None),
    Option(
        "screening",
        DEFAULT_SCREENING,
        _count_given,
        "draws (runs, for a policy) per pair and side of the first round that screens several candidate pairs, and "
        "for a policy the size of its input search, whose runs scale with it (64 per table and 16 coupled runs per "
        "pair at the default): the search's own budget, apart from {samples}; not given, a policy audit given "
        "{samples} screens each pair on a quarter of them (at least 100), at most this default; a mechanism audit "
        "whose round would not fit in this machine's memory at this default, or a policy's whose runs were sized to "
        "its cost at that quarter, screens on as many as fit, said in the report",
        "int",
        {"type": "count"},
    ),
    Option(
        "stop_early",
        False,
        _flag,
        "certify in looks at 1/4^j of {samples} (j = … 2, 1, 0) and stop at the first that refutes the claim; the "
        "failure probability is split over the looks, so every bound still holds at {confidence}",
        "bool",
        {"action": "store_true"},
    ),
    Option(
        "stages",
        None,
        _stages,
        "how many stages a sampled audit runs before its full one: not given, the sampling's estimated time decides "
        "(a quick stage always, and middle stages when the full sampling is estimated at over a minute for a policy, "
        "over 5 s for a mechanism), and a report whose plan the estimate "
        "decided says the count in its reproduce line — so that its seed reproduces it on a machine of any speed; 0 "
        "runs the full stage alone (looks still made, unlike {full_budget})",
        "int | None",
        {"type": "whole"},
    ),
    Option(
        "full_budget",
        False,
        _flag,
        "a sampled audit samples its full plan only, for the full magnitude: without it, stages of growing size "
        "(a policy's each a sixteenth of the next's runs, its largest middle one at least sixteen times its quick one, "
        "up to a quarter of the full one; a mechanism's quick one a sixty-fourth of its draws, a middle one a "
        "sixteenth; each at a hundredth of the failure probability) run first and end the audit at the first that "
        "refutes — a mechanism's short audit (its full stage at most 4,000,000 values a side) goes on after a quiet "
        "refutation, below the claimed ε plus one, and reports the largest bound; a policy's quick stage on the pairs "
        "of a quick input search, the full search only when it did not refute; a policy's adversaries (joint and "
        "interactive DP) sampled in turn, the built-ins after the first that refutes not sampled; "
        "and where several pairs are screened, an event the screening found may be certified on fresh draws of its "
        "own (a look, at a fiftieth of the failure probability) and end the audit before the selection",
        "bool",
        {"action": "store_true"},
    ),
)

OPTION = {o.name: o for o in OPTIONS}


def said_in_python(text: str) -> str:
    """An option's help with the options it names said as Python keywords (``samples=``)."""
    return text.format_map({o.name: f"{o.name}=" for o in OPTIONS})


def _options_doc(indent: str = "") -> str:
    """The options as numpydoc parameter entries (the first line unindented, the rest at ``indent``)."""
    return f"\n{indent}".join(
        f"{o.name} : {o.annotation}, default {o.default!r}\n{indent}    {said_in_python(o.help)}" for o in OPTIONS
    )


class _OptionsMethods:
    def said(self) -> dict:
        """The options, besides the sample sizes and the confidence, that change what a sampled audit draws or
        reports, where they differ from the defaults: what a reproduce line must repeat — the selection sample where
        it was given (or fitted to this machine's memory), not derived from the samples."""
        out = {}
        if self.selection_given is not None:
            out["selection_samples"] = self.selection_given
        if self.screening != DEFAULT_SCREENING and not self.screening_derived:
            out["screening"] = self.screening
        if self.stop_early:
            out["stop_early"] = True
        if self.full_budget:
            out["full_budget"] = True
        if self.stages is not None and not self.full_budget:
            out["stages"] = self.stages
        return out

    def passed_on(self, leave_out: tuple = ()) -> dict:
        """These options as the keywords of an audit nested in this one (a policy's local audit of its users'
        reports): every option but those in ``leave_out`` — the executor, the ceiling, the classifier and the stages
        with the rest — and the selection sample as the user gave it (None: the nested audit resolves its own)."""
        out = {o.name: getattr(self, o.name) for o in OPTIONS if o.name not in leave_out}
        if "selection_samples" in out:
            out["selection_samples"] = self.selection_given
        return out

    def __post_init__(self):
        for o in OPTIONS:
            object.__setattr__(self, o.name, o.check(o.name, getattr(self, o.name)))

    def with_default_samples(self, default: int) -> "Options":
        """These options with ``samples`` and ``selection_samples`` resolved (the family's default samples), and the
        selection sample as given kept apart (``selection_given``: None where it was not)."""
        from dataclasses import replace

        n = default if self.samples is None else self.samples
        return replace(
            self,
            samples=n,
            selection_given=self.selection_samples,
            selection_samples=(
                min(n, MAX_DEFAULT_SELECTION) if self.selection_samples is None else self.selection_samples
            ),
        )

    def executor(self):
        """A context manager running the draws where these options say."""
        return make_executor(self.scheduler, self.workers, self.scheduler_timeout)


Options = make_dataclass(
    "Options",
    [(o.name, o.annotation, field(default=o.default)) for o in OPTIONS]
    + [
        # set by the entry point: whether the runs per side may be sized to a policy's cost (no samples= given), and
        # the selection sample the user gave (None: as many as certify)
        ("sized", "bool", field(default=False)),
        ("selection_given", "int | None", field(default=None)),
        # the screening the user gave (None: the default): the input search's runs scale with it, not with the
        # screening a small samples= lowers it to
        ("screening_given", "int | None", field(default=None)),
        # whether the screening was derived from the samples= given (a policy audit's: not said in the reproduce line,
        # where the same samples derive it again; said, it would be given, and a given screening sizes the search)
        ("screening_derived", "bool", field(default=False)),
        # an earlier stage's screening (privcheck.audits.stages): the draws per side each round shares among the
        # pairs still in, so that each pair's double as the pairs halve (None: each round's as the full audit's)
        ("screening_round", "int | None", field(default=None)),
    ],
    bases=(_OptionsMethods,),
    frozen=True,
)
Options.__module__ = __name__  # (make_dataclass's module= is Python 3.12's)
Options.__doc__ = (
    "The options of a mechanism or policy audit, validated once on construction (each declared in :data:`OPTIONS`)."
    "\n\nParameters\n----------\n" + _options_doc()
)


def takes_options(fn):
    """``fn`` (an audit's entry point, whose last parameter is ``**options``) with the keywords of :data:`OPTIONS`
    in its signature and its documentation: a call passes them as keywords, and ``fn`` receives them in
    ``options`` (unknown keywords are refused, naming them)."""
    sig = inspect.signature(fn)
    params = [p for p in sig.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    params += [
        inspect.Parameter(o.name, inspect.Parameter.KEYWORD_ONLY, default=o.default, annotation=o.annotation)
        for o in OPTIONS
    ]

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        unknown = [k for k in kwargs if k not in OPTION and k not in sig.parameters]
        if unknown:
            known = ", ".join(o.name for o in OPTIONS)
            raise InvalidArgument(
                f"{fn.__name__}() got unknown keyword argument(s) {', '.join(unknown)} (its options: {known})"
            )
        return fn(*args, **kwargs)

    wrapper.__signature__ = sig.replace(parameters=params)
    wrapper.__doc__ = (fn.__doc__ or "").replace("{options}", _options_doc(indent="    "))
    return wrapper
