"""``audit``: the entry point of a mechanism audit (behind :func:`privcheck.audit` and ``privcheck audit``)."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from privcheck.core import (
    AllPairs,
    ExactMethodUnavailable,
    InvalidArgument,
    Unspecified,
    as_mechanism,
    chunk_generator,
    draw,
    resolve_seed,
    with_relation,
)
from privcheck.core.protocols import Claimed, ExampleInput, FloatSampler, Named, Unvectorised, provides
from privcheck.core.rng import CHUNK_SIZE, PAIR_STREAM, PROBE_STREAM
from privcheck.core.targets import resolve

from ..options import DEFAULT_SAMPLES, DEFAULT_SCREENING, Options, takes_options
from ..report import AuditReport, Call, Sampled, make_report
from ..stages import MECHANISM, Staging, pinned, run_stages, staged_said
from ..rules import needs
from .exact import exact_audit, exact_available
from .learned import off_grid_floats
from ..sampling import (
    SAMPLER_HOLDS,
    DrawCost,
    chunk_draws,
    fitted_screening,
    fitted_selection,
    plan_sampling,
    sampling_seconds,
)
from .sampled import sampled_audit

__all__ = ["audit", "candidate_pairs", "draw_cost", "probe", "sampled_report"]


def candidate_pairs(mechanism, relation, pairs=None, input=None, seed: int = 0) -> list:
    """The pairs to audit: given ones (checked against the relation), or proposals around an input."""
    if pairs is not None:
        pairs = [(np.asarray(a), np.asarray(b)) for a, b in pairs]
        if not pairs:
            raise InvalidArgument("pairs=[] must hold at least one (x, x') pair")
        for a, b in pairs:
            if np.array_equal(a, b):
                raise InvalidArgument(f"pair {a.tolist()} and {b.tolist()} are the same input")
            if not relation.contains(a, b):
                raise InvalidArgument(
                    f"pair {a.tolist()} and {b.tolist()} are not neighbours under {relation.describe()}"
                )
        return pairs
    rng = chunk_generator(seed, PAIR_STREAM)
    if isinstance(relation, AllPairs) and relation.domain:
        return relation.candidate_pairs()
    if input is None:
        input = mechanism.example_input if provides(mechanism, ExampleInput) else None
        if input is None:
            raise InvalidArgument("give pairs=, or input= to search neighbours of")
    if isinstance(relation, Unspecified):
        raise InvalidArgument("an input alone needs a neighbour relation (neighbours= and sensitivity=)")
    return relation.candidate_pairs(np.asarray(input), rng)


@takes_options
def audit(
    target,
    claim=None,
    *,
    pairs=None,
    input=None,
    relation=None,
    method: str = "auto",
    seed=None,
    name: str | None = None,
    **options,
) -> AuditReport:
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
    seed : reproduces the audit; generated and reported when None.
    name : what the report calls the target (default: its ``name``, else its repr).

    Other Parameters
    ----------------
    {options}

    Returns
    -------
    AuditReport — a violation is reported (``violates_claim``), never raised.  A report that does not refute
    the claim is a lower bound on the privacy loss, never a certificate of privacy.
    """
    t0 = time.perf_counter()
    opts = Options(**options).with_default_samples(DEFAULT_SAMPLES)
    mech = as_mechanism(resolve(target), name=name)
    name = name or (mech.name if provides(mech, Named) else None) or repr(mech)
    claim = _claim_of(mech, claim, relation)
    if method not in ("auto", "exact", "sample"):
        raise InvalidArgument(f"method={method!r} must be auto, exact or sample")
    if method == "exact" and opts.event is not None:
        raise InvalidArgument("event= applies to the sampled method only")
    seed = resolve_seed(seed)
    pair_list = candidate_pairs(mech, claim.relation, pairs, input, seed)
    notes = _notes_of(mech)
    call = Call(
        "audit",
        name,
        {"claim": claim, "pairs": pairs, "input": input, "method": method, "seed": seed},
        source=getattr(target, "fn", target),
    )  # a function wrapped as a mechanism is said as the function

    if method == "exact" or (method == "auto" and exact_available(mech) and opts.event is None):
        try:
            result = exact_audit(mech, claim, pair_list, opts.progress)
        except ExactMethodUnavailable:
            if method == "exact":
                raise
            notes.append("exact method unavailable for these inputs; sampled instead")
        else:
            call.arguments["method"] = "exact"
            return make_report(result, claim=claim, method="exact", seed=seed, t0=t0, notes=notes, call=call)
    return sampled_report(mech, target, claim, pair_list, opts, seed, name, call, notes, t0)


def _claim_of(mech, claim, relation):
    """The claim under test: the one given, else the target's own; about ``relation`` when one is given (anything
    that is not a privcheck claim is refused)."""
    if claim is None:
        claim = mech.claim if provides(mech, Claimed) else None
        if claim is None:
            raise InvalidArgument("no claim to test: pass claim=PureDP(...) (or another privcheck claim)")
    needs(claim)  # refuses anything that is not a privcheck claim
    return claim if relation is None else with_relation(claim, relation)


def _notes_of(mech) -> list:
    """What the report says of the target itself: a sampler called once per draw, a floating-point sampler."""
    notes = []
    if provides(mech, Unvectorised) and mech.vectorised is False:
        notes.append("the target has no size argument: it was called once per draw, which is slow")
    if provides(mech, FloatSampler) and mech.sampler == "float":
        notes.append(
            "floating-point sampler: not protected against bit-level attacks (Mironov 2012) — the exact "
            "faces audited are the real-valued mechanism's, not the doubles it outputs"
        )
    return notes


def sampled_report(
    mech,
    target,
    claim,
    pair_list,
    opts,
    seed,
    name,
    call,
    notes,
    t0,
    staging: Staging | None = None,
    said_as=None,
    cost: DrawCost | None = None,
    way_out: str = "",
) -> AuditReport:
    """The sampled audit of ``mech`` on ``pair_list`` at ``opts`` (samples resolved), reported with ``call`` and
    ``notes``: the reproducibility probe, the cost of a draw, then the sampled engine, in stages as ``staging`` says
    (None: a mechanism's, :data:`~..stages.MECHANISM`; an agent whose draws are whole runs is staged as a policy
    is); ``said_as(event)``,
    where given, says the witness's event in the audited family's words (None: the engine's form alone); ``cost``, a
    draw's cost where the caller measured it already (None: measured here); ``way_out``, what a plan refused for
    its memory or time may change besides the draws (said first)."""
    staging = MECHANISM if staging is None else staging
    call.arguments.update(method="sample", samples=opts.samples, confidence=opts.confidence, options=opts.said())
    # a slow agent's probe is a few runs (its outputs' look decides nothing a policy's staging reads)
    slow = staging is not MECHANISM and cost is not None and cost.seconds * _PROBE > _SLOW_SECONDS
    probed, reproducible = probe(mech, pair_list[0][0], seed, name, _SLOW_PROBE_RUNS if slow else _PROBE)
    if not reproducible:
        notes.append(
            "the target draws randomness outside the generator it is given (two draws with the same "
            "seed differed): the bounds assume its draws are independent, and this audit cannot be "
            "reproduced from its seed — draw only from the rng argument"
        )
        call = Call(call.function, call.target, call.arguments, call.source, reproducible=False)
    if cost is None:
        n = min(opts.samples, _COST_PROBE)
        cost = draw_cost(mech, pair_list[0][0], seed, name, n, min(opts.samples, CHUNK_SIZE))
    way_out += "fewer samples=, fewer selection_samples=, or a smaller screening= (draws per pair in a screening round)"
    with opts.executor() as executor:
        executor.check(target)
        what = f"sampling {opts.samples:,} draws per side of {name}"
        if opts.screening == DEFAULT_SCREENING and opts.screening_round is None:  # (none given: as many as fit)
            floor = fitted_screening(cost, opts.samples, executor.workers, len(pair_list), opts.screening)
            if floor < opts.screening:
                opts = replace(opts, screening=floor)
                notes.append(
                    f"each candidate pair was screened on {floor:,} draws per side a round, not {DEFAULT_SCREENING:,}: "
                    "as many as this machine's memory holds at once beside the others' (every pair still in is drawn "
                    "at once); the reproduce line says the number"
                )
        screen = (len(pair_list), opts.screening, opts.screening_round)  # (its rounds' draws are held too)
        if opts.selection_given is None:  # (none given: as many as fit, said in the reproduce line)
            fitted = fitted_selection(cost, opts.samples, opts.selection_samples, executor.workers, *screen)
            if fitted < opts.selection_samples:
                opts = replace(opts, selection_samples=fitted, selection_given=fitted)
                notes.append(
                    f"the pair and the event were chosen on {fitted:,} draws per side, not the {opts.samples:,} "
                    "certified: as many as this machine's memory holds at once (the certification's draws are "
                    "counted a chunk at a time); the reproduce line says the number"
                )
        n, sel, workers = opts.samples, opts.selection_samples, executor.workers
        plan_sampling(cost, len(pair_list), n, sel, workers, what, opts.max_hours, way_out, *screen[1:])
        # the stages are chosen by the work — the sampling's estimated seconds on one worker, however many share it
        # — and said in the call
        work = sampling_seconds(cost, len(pair_list), n, sel, 1, opts.screening)
        # a middle stage planned, and run, for floats off every grid whatever the time (their bit leaks need more
        # draws); the values a side of the full stage decide whether a quiet refutation goes on (run_stages)
        off_grid = staging is MECHANISM and off_grid_floats(probed, probed)
        values = opts.samples * _values(probed)
        opts = pinned(opts, work, staging, off_grid)
        call.arguments["options"] = opts.said()

        def engine(at: Options, stage_seed: int, _stage: str):
            return sampled_audit(
                mech,
                claim,
                pair_list,
                at,
                seed=stage_seed,
                executor=executor,
                target=target,
                name=name,
                cost=cost,
                like=probed,
            )

        stage, at, result, stage_note = run_stages(
            claim, opts, seed, engine, work, staging, lambda r: r, off_grid, values
        )
    result = staged_said(result, at, opts, stage)
    text = None if said_as is None or result.event is None else said_as(result.event)
    if text:
        result = replace(result, witness={**result.witness, "event_text": f"{text} ({result.witness['event_text']})"})
    return make_report(
        result,
        claim=claim,
        method="sample",
        seed=seed,
        t0=t0,
        call=call,
        sampled=Sampled(at.samples, at.selection_samples, opts.confidence),
        notes=[*notes, *([stage_note] if stage_note else [])],
        extra={"classifier": opts.classifier, **({} if stage_note is None else {"stage": stage})},
    )


#: draws per side of the reproducibility probe (stream PROBE_STREAM)
_PROBE = 64
#: draws timed to measure a draw's cost (after the reproducibility probe has paid the start-up)
_COST_PROBE = 4096


#: a target whose first :data:`_SLOW_PROBE` draws take over :data:`_SLOW_SECONDS` is timed on them alone, one whose
#: draws are faster on at most :data:`_TIMED_SECONDS` of draws (:func:`draw_cost`); a slow target's reproducibility
#: probe is :data:`_SLOW_PROBE_RUNS` draws (:func:`sampled_report`).  A researcher's episodic agent at half a second a
#: run paid 16 s to be timed on 32 runs and 64 s for its probe of twice 64 runs, serially, before its first stage
#: (benchmarks/RESULTS.md, issue 73)
_SLOW_PROBE, _SLOW_SECONDS, _TIMED_SECONDS, _SLOW_PROBE_RUNS = 8, 0.25, 1.0, 4


def draw_cost(mech, x, seed, name, n: int, full: int = CHUNK_SIZE) -> DrawCost:
    """A draw's bytes and seconds, from ``n`` draws timed (stream key of the probe, chunk 1) — from the first
    :data:`_SLOW_PROBE` alone (chunk 3) when those took over :data:`_SLOW_SECONDS`, else on at most the draws they
    say take :data:`_TIMED_SECONDS` — and, when those took under 50 ms, from a whole chunk of ``full`` draws (at most
    a chunk's: :func:`~..sampling.chunk_draws`), whose rate is the one the audit's chunks run at (a vectorised
    sampler's fixed cost per call dominates small batches).  A draw is taken to hold :data:`~..sampling.SAMPLER_HOLDS`
    times its output while it is made."""
    if n > _SLOW_PROBE:  # a slow target (a whole run of an agent a draw) is timed on a few draws only
        t0 = time.perf_counter()
        out = draw(mech, x, chunk_generator(seed, PROBE_STREAM, 3), _SLOW_PROBE, name=name)
        took = time.perf_counter() - t0
        if took > _SLOW_SECONDS:
            return DrawCost(out.nbytes / out.shape[0], took / _SLOW_PROBE, values=_values(out), holds=SAMPLER_HOLDS)
        n = min(n, max(_SLOW_PROBE, int(_TIMED_SECONDS * _SLOW_PROBE / max(took, 1e-9))))
    t0 = time.perf_counter()
    out = draw(mech, x, chunk_generator(seed, PROBE_STREAM, 1), n, name=name)
    took = time.perf_counter() - t0
    size = out.nbytes / out.shape[0]
    full = min(full, chunk_draws(size))
    if took < 0.05 and full > n:
        t0 = time.perf_counter()
        draw(mech, x, chunk_generator(seed, PROBE_STREAM, 2), full, name=name)
        took, n = time.perf_counter() - t0, full
    return DrawCost(size, took / n, values=_values(out), holds=SAMPLER_HOLDS)


def _values(out: np.ndarray) -> int:
    return int(np.prod(out.shape[1:], dtype=np.int64))


def probe(mech, x, seed, name, n: int = _PROBE) -> tuple[np.ndarray, bool]:
    """(the first of two small batches of ``n`` draws made with generators of one seed, whether they agree): a
    target that reads numpy's global state, a fresh ``default_rng()`` or the clock gives different draws, and its
    audit cannot be reproduced; the draws say what the audit's outputs look like
    (``like``, :func:`~.sampled.sampled_audit`)."""
    a = draw(mech, x, chunk_generator(seed, PROBE_STREAM, 0), n, name=name)
    b = draw(mech, x, chunk_generator(seed, PROBE_STREAM, 0), n, name=name)
    return a, a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b))
