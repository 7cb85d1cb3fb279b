"""``audit``: the one entry point behind both the Python API and ``privcheck audit``."""

from __future__ import annotations

import time

import numpy as np

from privcheck.core import (AllPairs, check_int, ExactMethodUnavailable, InvalidArgument, Unspecified, as_mechanism,
                            chunk_generator, draw, resolve_seed, with_relation)
from privcheck.core.execution import DEFAULT_CONNECT_TIMEOUT, make_executor
from privcheck.core.rng import CHUNK_SIZE, PAIR_STREAM
from privcheck.core.resources import DEFAULT_MAX_HOURS, check_max_hours
from privcheck.core.targets import resolve

from .events import user_statistic
from .learned import check_classifier
from .exact import exact_audit, exact_available
from .report import AuditReport
from .verdict import make_report, needs
from .sampled import DrawCost, sampled_audit

__all__ = ["audit", "candidate_pairs", "DEFAULT_SAMPLES", "DEFAULT_POLICY_SAMPLES"]

#: the default of certification draws per side for a mechanism: at 10⁶ the sampled Laplace audit certifies
#: ε ≥ 0.99 of ε = 1 at 95 % (benchmarks/RESULTS.md) in under a second
DEFAULT_SAMPLES = 1_000_000
#: the default for a policy, whose every draw is a whole run (T rounds, for each of the interactive audit's
#: adversaries): at 10⁵ every built-in private policy's audit refutes its half-noise copy and finishes within two
#: minutes on a 2-core machine (benchmarks/RESULTS.md, "Policy audits that bite"); 10⁶ would take ten times that
DEFAULT_POLICY_SAMPLES = 100_000
#: the default selection sample is the certification sample size, capped here: selection draws are held in memory
MAX_DEFAULT_SELECTION = 10_000_000


def default_selection(samples: int) -> int:
    """Selection samples per side when none are given: as many as certify, at most :data:`MAX_DEFAULT_SELECTION`."""
    return min(samples, MAX_DEFAULT_SELECTION)




def candidate_pairs(mechanism, relation, pairs=None, input=None, seed: int = 0) -> list:
    """The pairs to audit: given ones (checked against the relation), or proposals around an input."""
    if pairs is not None:
        pairs = [(np.asarray(a), np.asarray(b)) for a, b in pairs]
        if not pairs:
            raise InvalidArgument("pairs must not be empty")
        for a, b in pairs:
            if np.array_equal(a, b):
                raise InvalidArgument(f"pair {a.tolist()} and {b.tolist()} are the same input")
            if not relation.contains(a, b):
                raise InvalidArgument(f"pair {a.tolist()} and {b.tolist()} are not neighbours under "
                                      f"{relation.describe()}")
        return pairs
    rng = chunk_generator(seed, PAIR_STREAM)
    if isinstance(relation, AllPairs) and relation.domain:
        return relation.candidate_pairs()
    if input is None:
        input = getattr(mechanism, "example_input", None)
        if input is None:
            raise InvalidArgument("give pairs=, or input= to search neighbours of")
    if isinstance(relation, Unspecified):
        raise InvalidArgument("an input alone needs a neighbour relation (neighbours= and sensitivity=)")
    return relation.candidate_pairs(np.asarray(input), rng)


def audit(target, claim=None, *, pairs=None, input=None, relation=None, method: str = "auto",
          samples: int = DEFAULT_SAMPLES, selection_samples: int | None = None, confidence: float = 0.95,
          seed=None, workers: int | None = None, scheduler: str | None = None,
          scheduler_timeout: float = DEFAULT_CONNECT_TIMEOUT, event=None, candidates: int = 1, progress=None,
          name: str | None = None, command: str | None = None, classifier: str = "auto",
          max_hours: float = DEFAULT_MAX_HOURS) -> AuditReport:
    """Audit a mechanism (or a function ``f(x, rng, size)``) against a privacy claim.

    Parameters
    ----------
    target : a mechanism (with ``sample``), a callable ``f(x, rng, size)``, or a
        :class:`~privcheck.core.targets.Described` reference to one (what travels to a cluster's workers).
    claim : the claim under test; defaults to ``target.claim``.
    pairs : list of (x, x') to audit; else neighbours of ``input`` (or of the target's ``example_input``)
        under the claim's relation are searched.
    relation : replaces the claim's relation (the pairs are checked against it).
    method : ``auto`` (exact when the target has an exact face), ``exact`` or ``sample``.
    samples : certification draws per side; ``selection_samples`` (default: the same, at most 10⁷) choose pair
        and event.
    confidence : probability that every certified bound holds.
    seed : reproduces the audit; generated and reported when None.
    workers, scheduler, scheduler_timeout : where the sampling runs — ``workers`` local processes, or a Dask
        cluster (``scheduler="tcp://host:port"``, or ``"local"`` for a LocalCluster of ``workers`` processes),
        waited for at most ``scheduler_timeout`` seconds.  The result never depends on them.
    event : a function of the outputs (axis 0 = draws) returning booleans (an event) or numbers (a statistic
        to threshold); it competes with the built-in events and wins when it certifies the most.
    classifier : ``auto`` (learned events for vector and symbolic outputs, when no fixed event already refutes
        the claim on the selection sample), ``on`` (always) or ``off``: :mod:`privcheck.audit.learned`.
    candidates : how many (pair, event) candidates are certified; the failure probability is split over them.
    max_hours : the ceiling of the audit's estimated time; a plan beyond it, or beyond this machine's memory, is
        refused before any work (:mod:`privcheck.core.resources`).

    Returns
    -------
    AuditReport — a violation is reported (``violates_claim``), never raised.
    """
    t0 = time.perf_counter()
    mech = as_mechanism(resolve(target), name=name)
    name = name or getattr(mech, "name", None) or repr(mech)
    if claim is None:
        claim = getattr(mech, "claim", None)
        if claim is None:
            raise InvalidArgument("no claim to test: pass claim=PureDP(...) (or epsilon=, rho=, mu=)")
    needs(claim)  # refuses anything that is not a privcheck claim
    if relation is not None:
        claim = with_relation(claim, relation)
    if method not in ("auto", "exact", "sample"):
        raise InvalidArgument(f"method={method!r} must be auto, exact or sample")
    samples = check_int("samples", samples)
    selection_samples = (default_selection(samples) if selection_samples is None
                         else check_int("selection_samples", selection_samples))
    if workers is not None:
        workers = check_int("workers", workers)
    candidates = check_int("candidates", candidates)
    max_hours = check_max_hours(max_hours)
    check_classifier(classifier)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise InvalidArgument(f"confidence={confidence!r} must be in (0, 1)")
    seed = resolve_seed(seed)
    pair_list = candidate_pairs(mech, claim.relation, pairs, input, seed)
    notes = []
    if getattr(mech, "vectorised", True) is False:
        notes.append("the target has no size argument: it was called once per draw, which is slow")
    if getattr(mech, "sampler", None) == "float":
        notes.append("floating-point sampler: not protected against bit-level attacks (Mironov 2012) — the exact "
                     "faces audited are the real-valued mechanism's, not the doubles it outputs")

    use_exact = method == "exact" or (method == "auto" and exact_available(mech) and event is None)
    if method == "exact" and event is not None:
        raise InvalidArgument("event= applies to the sampled method only")
    result = None
    if use_exact:
        try:
            result = exact_audit(mech, claim, pair_list, progress)
        except ExactMethodUnavailable:
            if method == "exact":
                raise
            notes.append("exact method unavailable for these inputs; sampled instead")
    if result is not None:
        if result.note:
            notes.append(result.note)
        return make_report(target=name, claim=claim, figures=result.figures, witness=result.witness,
                           method="exact", seed=seed, t0=t0, notes=notes,
                           command=command or _api_command(target, name, claim, "exact", None, None, seed, pairs, input),
                           extra={"pairs_considered": len(pair_list)})
    if method == "exact":
        raise ExactMethodUnavailable(f"{name} has no exact face: use method=\"sample\"")
    if not _draws_only_from_its_generator(mech, pair_list[0][0], seed, name):
        notes.append("the target draws randomness outside the generator it is given (two draws with the same "
                     "seed differed): the bounds assume its draws are independent, and this audit cannot be "
                     "reproduced from its seed — draw only from the rng argument")
        command = ""
    else:
        command = command or _api_command(target, name, claim, "sample", samples, confidence, seed, pairs,
                                          input)
    cost = draw_cost(mech, pair_list[0][0], seed, name, min(samples, _COST_PROBE), min(samples, CHUNK_SIZE))
    with make_executor(scheduler, workers, scheduler_timeout) as executor:
        executor.check(target)
        res = sampled_audit(mech, claim, pair_list, samples=samples, selection_samples=selection_samples,
                            confidence=float(confidence), seed=seed, executor=executor, target=target,
                            user_stat=user_statistic(event), candidates=candidates, name=name, progress=progress,
                            classifier=classifier, cost=cost, max_hours=max_hours,
                            way_out="fewer samples, or fewer selection samples")
    return make_report(target=name, claim=claim, figures=res.figures, witness=res.witness, method="sample",
                       seed=seed, t0=t0, samples_per_side=samples, confidence=float(confidence), notes=notes,
                       selection_samples_per_side=selection_samples, candidates_certified=candidates,
                       command=command,
                       extra={"pairs_considered": len(pair_list), "classifier": classifier})


#: draws per side of the reproducibility probe, and its stream key (the sampled engine's stages are 0, 1 and 2)
_PROBE, PROBE_STAGE = 64, 9
#: draws timed to measure a draw's cost (after the reproducibility probe has paid the start-up)
_COST_PROBE = 4096


def draw_cost(mech, x, seed, name, n: int, full: int = CHUNK_SIZE) -> DrawCost:
    """A draw's bytes and seconds, from ``n`` draws timed (stream key of the probe, chunk 1) — and, when those
    took under 50 ms, from a whole chunk of ``full`` draws, whose rate is the one the audit's chunks run at (a
    vectorised sampler's fixed cost per call dominates small batches)."""
    t0 = time.perf_counter()
    out = draw(mech, x, chunk_generator(seed, PROBE_STAGE, 1), n, name=name)
    took = time.perf_counter() - t0
    if took < 0.05 and full > n:
        t0 = time.perf_counter()
        draw(mech, x, chunk_generator(seed, PROBE_STAGE, 2), full, name=name)
        took, n = time.perf_counter() - t0, full
    return DrawCost(out.nbytes / out.shape[0], took / n)


def _draws_only_from_its_generator(mech, x, seed, name) -> bool:
    """Whether two small batches drawn with generators of one seed agree: a target that reads numpy's global
    state, a fresh ``default_rng()`` or the clock gives different draws, and its audit cannot be reproduced."""
    a = draw(mech, x, chunk_generator(seed, PROBE_STAGE, 0), _PROBE, name=name)
    b = draw(mech, x, chunk_generator(seed, PROBE_STAGE, 0), _PROBE, name=name)
    return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b))


def _api_command(target, name, claim, method, samples, confidence, seed, pairs, input) -> str:
    """The reproduce line of an API audit: the ``privcheck audit`` command when one can say it, else the call."""
    from .reproduce import cli_command, python_call

    raw = getattr(target, "fn", target)  # a function wrapped as a mechanism reproduces as the function
    line = None
    if callable(raw) and not hasattr(raw, "sample"):
        line = cli_command(raw, claim, pairs=pairs, input=input, samples=samples, confidence=confidence, seed=seed,
                           method=method)
    return line or python_call(getattr(raw, "__name__", name), claim, method=method, samples=samples,
                               confidence=confidence, seed=seed, pairs=pairs, input=input)
