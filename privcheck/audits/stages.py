"""Anytime verdicts for sampled audits: stages of growing size — screening, selection and certification each — before
the full sampling, and the audit ends at the first that refutes (a mechanism's short audit, at the first that refutes
loudly: :func:`run_stages`).

A sampled policy audit is always staged: a quick stage of a few hundred runs, then, before a full sampling of over a
minute, stages at a sixteenth of the next stage's runs (the largest at least sixteen times the quick stage's, at most a
quarter of the full one's: :data:`MIDDLE_NEAR`).  A loud leak (a reward that decides an action, a threshold on codes
that shows a user) is refuted on a few hundred runs, a leak in events of a few percent of runs on a few thousand; the
full plan, sized for quiet leaks, takes minutes.  A sampled mechanism audit is always staged too (:data:`MECHANISM`): a
quick stage at 1/64 of its draws, and a middle one at 1/16 before a sampling of over 5 s and for floats off every grid —
a float leak refuted at ε ≥ 5 against a claim of 0.1 shows on a few ten thousand draws, and a correct mechanism pays its
quick stage's search and a hundredth of its failure probability.  A mechanism's quiet refutation — below the claimed ε
plus one nat (:data:`LOUD`) — ends its audit only where the full stage is long (over :data:`MECHANISM_GO_ON` values a
side); a shorter audit goes on to the next stage for the magnitude, and reports the largest bound its stages certified.

A policy's input search is staged too (it only chooses the pairs: every bound is certified on fresh draws): the
quick stage samples the pairs of a quick search, and the full search runs for the later stages only
(:func:`privcheck.audits.policy.sampled.audit_sampled`).  Each stage
before the full one samples on its own fresh draws — its own seed, derived from the audit's, so that no draw of it is
reused by a later stage; within it, as within the full stage, the event is chosen on draws apart from those that certify
it — at a share :data:`EARLY_SHARE` of the failure probability; the full stage samples as it would alone, at the rest.
A middle stage runs only when the stage before it saw a sign of a leak (:func:`shows_a_sign`: its event, at the
probabilities its fresh draws showed, would certify two thirds of the claimed ε at the middle stage's size); a target
with room to spare goes from the quick stage straight to the full one.
Within a stage that screens several pairs, a look during the screening may end it sooner, at a share of that stage's
failure probability (:class:`privcheck.audits.mechanism.screening.Looks`).
By the union bound every bound any stage reports holds with the audit's stated confidence, wherever it stopped.  A
refutation before the full stage says so, and that its ε is that stage's (``full_budget=True`` samples the full plan
only, for the full magnitude); a correct target pays the earlier stages' draws and a hundredth of the failure
probability per earlier stage in its bound.  A lower bound never certifies privacy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

from privcheck.core.execution import untimed

from .options import Options
from .stats import confidence_text
from .verdict import Verdict, decide

__all__ = [
    "run_stages",
    "stages_of",
    "pinned",
    "said_at",
    "staged_said",
    "stage_seed",
    "Staging",
    "POLICY",
    "MECHANISM",
    "EARLY_SHARE",
    "MECHANISM_QUICK",
    "MECHANISM_MIDDLE_AFTER",
    "STAGE_GROWTH",
    "STAGE_MIN",
    "QUICK_OVER",
    "QUICK_MAX",
    "QUICK_FIRST_ROUND",
    "SIGN_SHARE",
    "shows_a_sign",
    "LOUD",
    "MECHANISM_GO_ON",
    "quiet",
]


@dataclass(frozen=True)
class Staging:
    """How one kind of audit is staged: what its draws are called (``unit``), where they were drawn (``kept``: said
    after the stage's size), its quick stage's size (``1/quick_share`` of the full stage's draws, at most
    ``quick_max``), the estimated seconds of the full sampling's work beyond which it is staged at all
    (``after``; 0: always) and beyond which it may run middle stages (``middle_after``, where the stage before shows
    a sign: :func:`shows_a_sign`) — its seconds on one worker, however many share it: staging saves work where a
    stage refutes, and the plan a seed gives should not depend on the machine's cores; and how many times the quick
    stage's draws its largest middle stage has at least (``middle_over``, up to a quarter of the full stage's:
    :data:`MIDDLE_NEAR`; a middle stage is otherwise a sixteenth of the full one's); and the values per side (draws
    times the values in a draw) of a full stage up to which a quiet refutation by an earlier stage goes on to the next
    stage rather than ending the audit (``go_on_values``: :func:`run_stages`; 0: every refutation ends it)."""

    unit: str
    kept: str
    quick_share: int
    quick_max: int | None
    after: float
    middle_after: float
    middle_over: int
    go_on_values: int = 0


#: the share of the failure probability each stage before the full one spends (the full stage spends the rest)
EARLY_SHARE = 0.01
#: the quick stage's runs per side: a sixteenth of the full stage's (:data:`STAGE_GROWTH`), at most
#: :data:`QUICK_MAX`; no staging when that is below :data:`STAGE_MIN` (the full audit is then small itself).  Middle
#: stages at n/16, n/256, … runs per side (the largest raised by :data:`MIDDLE_NEAR`) while at least
#: :data:`MIDDLE_OVER_QUICK` times the quick stage's — only when the full sampling's work is estimated at over
#: :data:`MIDDLE_AFTER` seconds on one worker (a shorter one ends within a minute anyway, and a middle stage would
#: cost a correct policy a tenth of it)
STAGE_GROWTH, STAGE_MIN, QUICK_MAX, MIDDLE_OVER_QUICK, MIDDLE_AFTER = 16, 64, 500, 4, 60.0
#: a quick stage raised to STAGE_MIN runs where its share is fewer (a long audit of a slow agent) only where the full
#: stage has at least QUICK_OVER times as many (:func:`_quick`)
QUICK_OVER = 2
#: the largest middle stage is a sixteenth of the full stage's runs, but at least :data:`STAGE_GROWTH` times the
#: quick stage's where that is at most 1/MIDDLE_NEAR of the full's.  A sixteenth alone left a slow policy, its runs
#: sized to ten minutes (some 10,000 to 40,000 a side), with a gap of up to 64 times between its quick stage and its
#: full one: a researcher's LinUCB whose noise was 12 times too small, sized to 31,600 runs, ran no middle stage and
#: was refuted after 712 s; sized to 40,801, its middle stage of 2,550 did not refute (ε ≥ 0.97 of a claim of 1)
#: and its full stage did after 589 s; a middle stage of 8,000 refuted it after 194 s (benchmarks/RESULTS.md)
MIDDLE_NEAR = 4
#: an earlier stage screens the last two pairs on this fraction of its runs each, but on :data:`QUICK_MAX` when it
#: has them and the fraction is fewer (the full stage screens as the options say): a quick stage that chose its pair
#: on 62 runs in every round let P2B's code-threshold bug through to the full sampling (benchmarks/RESULTS.md)
EARLY_SCREENING = 1 / 8
#: an earlier stage screens as successive halving with a fixed budget per round — 2·s draws per side shared by the
#: pairs still in, s the screening above, each pair at least s/8 — so that the last two pairs meet on s draws each
#: while the first round, where a loud leak already shows, costs no more than the last (the quick stage's 8 pairs:
#: 125, 250 and 500 each, 3,000 per side in all where every round at 500 took 7,000; benchmarks/RESULTS.md)
QUICK_FIRST_ROUND = 8
#: a policy audit: always staged, its quick stage a sixteenth of the runs, at most QUICK_MAX, middle stages when its
#: full sampling is estimated at over MIDDLE_AFTER
POLICY = Staging("runs", " on the pairs the search kept", STAGE_GROWTH, QUICK_MAX, 0.0, MIDDLE_AFTER, STAGE_GROWTH)
#: a mechanism audit: always staged, its quick stage 1/64 of the draws (MECHANISM_QUICK; a mechanism's draws are cheap
#: beside a policy's runs), a middle stage at 1/16 when the quick one shows a sign of a leak and the full sampling is
#: estimated at over MECHANISM_MIDDLE_AFTER seconds, or the outputs are floats off every grid (:func:`stages_of`).
#: Staged only beyond 20 s of sampling before issue 74: a float leak certified at ε ≥ 5–10 against a claim of 0.1 took
#: 12–26 s for the full 10⁶ draws a side.  The quick stage's size is measured (benchmarks/RESULTS.md, issue 74): at
#: 3,906 draws a side (1/256) the learned events on 10 and 20 float outputs (SVT3, Laplace in parallel) certified
#: nothing, at 15,625 they refuted; and a stage's search has a fixed cost (the default Laplace audit: 0.12 s for a stage
#: of 3,906 draws a side, 0.19 s for one of 62,500, against 1.3 s for the full 10⁶; 2–3 s for one of 15,625 on 10 to 20
#: float outputs), so a middle stage pays only before a sampling of several seconds
MECHANISM_QUICK, MECHANISM_MIDDLE_AFTER = 64, 5.0
#: a refutation before the full stage is loud where its bound exceeds the claimed ε by at least LOUD (nats: the
#: events at least e times likelier on one side than the claim allows); a quieter one, by a mechanism whose full stage
#: draws at most MECHANISM_GO_ON values a side (a few seconds of work — the default Laplace audit's 10⁶ draws of one
#: value took 1.3 s), goes on to the next stage (:func:`run_stages`): its bound is its small stage's, which can
#: understate a leak the full plan certifies several times over (DP-Sniper's ReportNoisyMax4 at a claim of 0.1: its
#: middle stage of 62,500 draws refuted at ε ≥ 0.219, below DP-Sniper's 0.346; the full 10⁶ certify 1.153 in 1.2 s).
#: Counted in values, not estimated seconds, so that the seed alone decides it on a machine of any speed
LOUD, MECHANISM_GO_ON = 1.0, 4_000_000
MECHANISM = Staging("draws", "", MECHANISM_QUICK, None, 0.0, MECHANISM_MIDDLE_AFTER, 1, MECHANISM_GO_ON)


def stage_seed(seed: int, j: int) -> int:
    """The seed of the j-th stage before the full one (j = 0 the first, the quick stage): derived from the
    audit's, its draws apart from every other stage's (the full stage's seed is the audit's own)."""
    entropy = [seed, 0x51] if j == 0 else [seed, 0x51, j]  # (the quick stage's as before middle stages existed)
    return int(np.random.SeedSequence(entropy).generate_state(1, np.uint64)[0] >> 1)


def stages_of(opts: Options, seconds: float | None = None, staging: Staging = POLICY, off_grid: bool = False) -> list:
    """The sampling's stages, (name, options, share of the failure probability), smallest first: ("quick", at
    n/``staging.quick_share`` draws per side, at most ``staging.quick_max``, at least :data:`STAGE_MIN` for a long
    audit: :func:`_quick`), then — when the full sampling's
    estimated ``seconds`` of work (on one worker) exceed ``staging.middle_after``, or the outputs are floats off
    every grid (``off_grid``: their leak shows only to learned events on more draws, whatever the sampling's time;
    :func:`shows_a_sign`) — ("middle", at n/16^j, j = J … 1,
    the largest at least 16 times the quick stage's and at most n/4, every one at least :data:`MIDDLE_OVER_QUICK`
    times the quick stage's), each at :data:`EARLY_SHARE`, then ("full", ``opts``, the rest); or ("whole", ``opts``,
    1) alone with ``full_budget``, when the quick stage would be below
    :data:`STAGE_MIN`, or when ``seconds`` (None: unknown) are not above ``staging.after``.  With ``opts.stages``
    (given, or :func:`pinned`) the count of earlier stages is that, not the estimate's: 0 the whole alone, k the
    quick stage and k − 1 middle ones (as many as fit).  An earlier stage screens
    each pair on at most an eighth of its draws or 500 (:data:`EARLY_SCREENING`) in its last round, in rounds of a
    fixed budget (:data:`QUICK_FIRST_ROUND`), and reports its progress as a plan of its own announced without a
    time (:func:`~privcheck.core.execution.untimed`: the bar shows the stage's draws; the time said is the whole
    audit's, announced again when the full stage begins)."""
    quick = _quick(opts, staging, seconds)
    if opts.stages is not None:  # given, or pinned by the estimate of the run it reproduces (pinned)
        late, middles = opts.stages == 0, opts.stages - 1
    else:
        late = staging.after > 0 and (seconds is None or seconds <= staging.after)
        long = seconds is not None and seconds > staging.middle_after
        middles = opts.samples if long or off_grid else 0  # (as many as fit)
    if opts.full_budget or quick < STAGE_MIN or late:
        return [("whole", opts, 1.0)]
    sizes = _sizes(opts.samples, quick, middles, staging.middle_over)
    early = []
    for j, n in enumerate([quick, *sizes[:-1]]):
        screening = max(2, min(opts.screening, n, max(QUICK_MAX, int(n * EARLY_SCREENING))))
        at = replace(  # its screening rounds share a fixed budget: a pair's draws double as the pairs halve
            opts,
            samples=n,
            selection_samples=min(n, opts.selection_samples),
            screening=max(2, screening // QUICK_FIRST_ROUND),
            screening_round=2 * screening,
            progress=untimed(opts.progress),
        )
        early.append(("quick" if j == 0 else "middle", at, EARLY_SHARE))
    return [*early, ("full", opts, 1 - EARLY_SHARE * len(early))]


def _sizes(n: int, quick: int, middles: int, over: int = STAGE_GROWTH) -> list:
    """The draws per side of the middle stages, at most ``middles`` of them, and of the full stage (``n``): the
    largest at n/16 but at least ``over`` times the ``quick`` stage's, at most n/4 (:data:`MIDDLE_NEAR`), each
    smaller a sixteenth of the next — every one at least :data:`MIDDLE_OVER_QUICK` times the quick stage's."""
    sizes, size = [n], max(n // STAGE_GROWTH, min(n // MIDDLE_NEAR, over * quick))
    while len(sizes) <= middles and size >= MIDDLE_OVER_QUICK * quick:
        sizes.insert(0, size)
        size //= STAGE_GROWTH
    return sizes


def _quick(opts: Options, staging: Staging, seconds: float | None = None) -> int:
    """The quick stage's draws per side: ``1/staging.quick_share`` of the full stage's, at most
    ``staging.quick_max`` — but :data:`STAGE_MIN` where that is fewer, the full stage has at least
    :data:`QUICK_OVER` times as many, and the audit is long (its full sampling estimated at over
    ``staging.middle_after`` seconds of work) or its stages were given (``opts.stages``, or :func:`pinned`).  A slow
    agent's runs sized to ten minutes may number under a thousand a side, a sixteenth of which is too few to stage at
    all: a researcher's episodic agent that published a raw count, half a second a run, 965 runs a side, was refuted
    only by its full sampling after 1,185 s (benchmarks/RESULTS.md, issue 73); 64 runs show a leak that loud.  The
    slowest are sized to the least a policy's runs are (200 a side: :data:`~.policy.plan.MIN_SIZED`), whose screening
    alone can take longer than the minutes they were sized to: the same agent at K = 10³ episodes gave no verdict in
    14 minutes unstaged, and its quick stage refutes it in 183.5 s."""
    quick = opts.samples // staging.quick_share
    quick = quick if staging.quick_max is None else min(staging.quick_max, quick)
    long = opts.stages if opts.stages is not None else seconds is not None and seconds > staging.middle_after
    if quick < STAGE_MIN and long and opts.samples >= QUICK_OVER * STAGE_MIN:
        return STAGE_MIN
    return quick


def pinned(opts: Options, seconds: float | None, staging: Staging = POLICY, off_grid: bool = False) -> Options:
    """``opts`` with ``stages`` set to the count of earlier stages :func:`stages_of` chooses at the estimated
    ``seconds`` (and ``off_grid``) — where that estimate chooses it (a mechanism's middle stage, a policy's middle
    stages — every staged policy's sizes allow one, at most at a quarter of its runs): the estimate is a measurement of
    this machine at this moment, and the report's reproduce line says the count, so that the seed alone reproduces the
    plan (measured: the raw re-exploration example's estimate near a minute gave a middle stage on one run and none
    on the next, and bounds apart in the third digit).
    Unchanged where ``stages`` was given or the audit is not staged whatever the time (``full_budget``, a quick
    stage below :data:`STAGE_MIN`)."""
    quick = _quick(opts, staging, seconds)
    if opts.stages is not None or opts.full_budget or quick < STAGE_MIN:
        return opts
    return replace(opts, stages=len(stages_of(opts, seconds, staging, off_grid)) - 1)


def run_stages(
    claim,
    opts: Options,
    seed: int,
    engine,
    seconds: float | None = None,
    staging: Staging = POLICY,
    result_of=None,
    off_grid: bool = False,
    values: int | None = None,
) -> tuple:
    """Sample in stages (:func:`stages_of`; ``seconds``: the full sampling's estimated work, on one worker):
    ``engine(options, seed, stage)`` — its options at the stage's sizes and share of the failure probability as
    ``confidence``, the stage's name ("quick", "middle", "full" or "whole") — stage after stage until one refutes
    ``claim`` or the full one has run; ``result_of`` reads the engine's result from its output (default: the
    output's second item, a policy engine's (worst adversary, result, per-adversary ε)); ``off_grid``: the outputs
    are floats off every grid (a middle stage then runs whatever the stage before it showed: :func:`shows_a_sign`).
    A refutation that is :func:`quiet` does not end the audit where the full stage draws at most
    ``staging.go_on_values`` values per side (``values``: its draws per side times the values in a draw; None:
    unknown): the next stage runs, and the audit reports whichever refuting stage certified the most — every stage's
    bound holds at once at the audit's confidence (the union bound), so the largest does.
    Returns (stage name, the stage's options, the engine's output, the note that says how it went or None when the
    audit was not staged)."""
    result_of = result_of or (lambda out: out[1])
    stages = stages_of(opts, seconds, staging, off_grid)
    if stages[0][0] == "whole":
        return "whole", opts, engine(opts, seed, "whole"), None
    alpha = 1 - opts.confidence
    go_on = values is not None and values <= staging.go_on_values
    *early, (_, full, full_share) = stages
    seen = []  # (draws per side, certified ε) of each earlier stage that did not refute
    refuted = first = None  # (stage name, options, output, index): the quiet refutations' largest and first
    skipped = 0
    for j, (name, at, share) in enumerate(early):
        at = replace(at, confidence=1 - alpha * share)
        out = engine(at, stage_seed(seed, j), name)
        figures = result_of(out).figures
        if decide(claim, figures) is Verdict.REFUTED:
            if go_on and quiet(claim, figures):
                first = first or (name, at, out, j)
                refuted = _larger(refuted, (name, at, out, j), result_of)
                continue
            kept = _larger(refuted, (name, at, out, j), result_of)
            return _ended(kept, first, len(stages), seen, full.samples, staging, result_of)
        seen.append((at.samples, figures.epsilon.lo))
        later = early[j + 1 :]
        if later and not (off_grid or shows_a_sign(claim, result_of(out), later[0][1].samples, alpha * EARLY_SHARE)):
            skipped = len(later)
            break
    full = replace(full, confidence=1 - alpha * full_share)
    out = engine(full, seed, "full")
    if refuted is None:
        return "full", full, out, _went_on(seen, staging, skipped)
    kept = _larger(refuted, ("full", full, out, len(early)), result_of)
    return _ended(kept, first, len(stages), seen, full.samples, staging, result_of, full_ran=True)


def quiet(claim, figures) -> bool:
    """Whether a refutation certifies less than the claimed ε plus :data:`LOUD` (for ε- and (ε, δ)-DP claims; a
    refutation of any other claim is never quiet)."""
    from .rules import needs

    nd = needs(claim)
    return nd.dp and math.isfinite(nd.epsilon) and figures.epsilon.lo < nd.epsilon + LOUD


def _larger(a, b, result_of):
    """Of two (stage, options, output, index), the one whose certified ε is larger (``a`` None: ``b``); the earlier
    on a tie."""
    if a is None:
        return b
    return b if result_of(b[2]).figures.epsilon.lo > result_of(a[2]).figures.epsilon.lo else a


def _ended(kept, quietly, m: int, seen: list, full: int, staging: Staging, result_of, full_ran: bool = False):
    """The audit's answer once a stage refuted: ``kept`` (stage, options, output, index) the refuting stage it
    reports; ``quietly`` the first quiet refutation it went on after (None: none); ``full_ran`` whether the full
    stage ran after it."""
    name, at, out, j = kept
    if quietly is None:
        return name, at, out, _stopped(j, m, at.samples, seen, full, staging)
    _, q_at, q_out, q_j = quietly
    unit = staging.unit
    went = (
        f"{_which(q_j, m)} ({q_at.samples:,} {unit} per side{staging.kept}) refuted the claim quietly "
        f"(ε ≥ {result_of(q_out).figures.epsilon.lo:.6g} there, less than the claimed ε plus {LOUD:g}) and the full "
        f"stage draws at most {staging.go_on_values:,} values per side, so the audit went on"
    )
    if name == "full":
        where = "the bounds are the full stage's, at the rest of the failure probability"
    elif full_ran:
        where = (
            f"the bounds are {_which(j, m)}'s ({at.samples:,} {unit} per side, {EARLY_SHARE:.0%} of the failure "
            "probability), which certified the most"
        )
    else:
        where = (
            f"{_which(j, m)} ({at.samples:,} {unit} per side) refuted it loudly, so the full sampling ({full:,} "
            f"{unit} per side) did not run; the bounds are that stage's — full_budget=True samples the full plan for "
            "the full magnitude"
        )
    return name, at, out, f"staged: {went}; {where}; every stage's bound holds at once at the stated confidence"


#: a middle stage runs only when the stage before it saw at least this share of the claimed ε (:func:`shows_a_sign`)
SIGN_SHARE = Fraction(2, 3)


def shows_a_sign(claim, result, n_next: int, alpha: float) -> bool:
    """Whether an earlier stage that did not refute saw a sign of a leak worth the next (middle) stage: its
    certified event, were its probabilities those its own fresh certification draws showed, would certify at least
    :data:`SIGN_SHARE` of the claimed ε at the next stage's ``n_next`` draws per side (with failure probability
    ``alpha``: :func:`~privcheck.audits.mechanism.certification.stated_reach`).  A policy whose bound at the quick
    stage is nowhere near its claim — a correct one with room to spare — then goes straight to the full stage instead of
    paying a middle stage a sixteenth of its runs; a leak loud enough for a middle stage to refute shows at the
    quick stage's size already.  The share is measured, not derived (benchmarks/RESULTS.md): over seeds 1–10 the
    bugs of examples/ that reach a middle stage (the linear policy's raw Gram matrix and unit bound) and a
    researcher's DP-UCB with cached noise promised 0.75–2.6 of a claim of 1, the correct elimination policy at the
    default command's 100,000 runs (its bound 0.83 of its claim) 0.34–0.58 but on one seed 0.88 — at one half, the
    middle stage ran for it on 4 of the 10 seeds, and on seed 1 cost it 10 % of its time.  Skipping a stage only
    leaves its share of the failure probability unspent: every stage certifies on draws of its own.  True (the
    middle stage runs, as always) for claims ε does not decide and for results without counts.  Not asked where the
    outputs are floats off every grid (:func:`run_stages`'s ``off_grid``): their leak, where there is one, is in
    their bits, which the learned events see only on some ten thousand draws — measured (benchmarks/RESULTS.md, issue
    74): SVT3, SVT3 and SVT4 in parallel and the numerical SVT, float code refuted at ε ≥ 5–8 against 0.1–0.2 by their
    full 10⁶ draws, certified ε ≥ 0 on their quick stage's 15,625, and refuted at 62,500."""
    from .mechanism.certification import stated_reach
    from .rules import needs

    nd = needs(claim)
    counts = (getattr(result, "witness", None) or {}).get("counts")
    if not nd.dp or nd.epsilon <= 0 or counts is None:
        return True
    drawn = counts.get("drawn", {"x": counts["samples"], "x_prime": counts["samples"]})
    n_x, n_x2 = max(1, drawn["x"]), max(1, drawn["x_prime"])
    k_den = round(counts["x_prime"] * n_x / n_x2)  # the x′ count at x's draws
    reach = stated_reach(claim, counts["x"], min(k_den, n_x), n_x, n_next, alpha / 2)
    return reach["epsilon"] >= SIGN_SHARE * nd.epsilon


def _which(j: int, m: int) -> str:
    """The j-th stage of ``m``, said."""
    return "a quick stage" if j == 0 else f"stage {j + 1} of {m}"


def _stopped(j: int, m: int, n: int, seen: list, full: int, staging: Staging) -> str:
    """The note of an audit stopped by its j-th stage of ``m``, at ``n`` draws per side, after the stages ``seen``
    ((draws per side, ε) each) that did not refute."""
    which = _which(j, m)
    before = "" if not seen else f", after {_earlier(seen, staging)} that did not,"
    unit = staging.unit
    return (
        f"stopped early: {which} ({n:,} {unit} per side{staging.kept}, {EARLY_SHARE:.0%} of the failure "
        f"probability){before} refuted the claim, so the full sampling ({full:,} {unit} per side) did not run; the "
        "bounds are that stage's — full_budget=True samples the full plan for the full magnitude"
    )


def _went_on(seen: list, staging: Staging, skipped: int = 0) -> str:
    """The note of an audit whose earlier stages, ``seen``, did not refute (the ``skipped`` middle stages after them
    not run: :func:`shows_a_sign`)."""
    runs = " and ".join(f"{n:,}" for n, _ in seen)
    eps = " and ".join(f"{e:.6g}" for _, e in seen)
    which = f"a quick stage ({runs} {staging.unit} per side, {EARLY_SHARE:.0%} of the failure probability)"
    if len(seen) > 1:
        which = f"stages of {runs} {staging.unit} per side ({EARLY_SHARE:.0%} of the failure probability each)"
    went = "the bounds are the full stage's, at the rest"
    if skipped:
        middle = "the middle stage" if skipped == 1 else f"the {skipped} middle stages"
        whose = "its" if skipped == 1 else "their"
        went = (
            f"its event, as seen, promised less than {SIGN_SHARE} of the claimed ε at the next stage's size, so "
            f"{middle} did not run ({whose} share of the failure probability unspent); {went}"
        )
    return f"staged: {which} did not refute the claim (ε ≥ {eps} there); {went}"


def _earlier(seen: list, staging: Staging) -> str:
    """Earlier stages, (draws per side, ε) each, said with their draws and bounds."""
    if len(seen) == 1:
        ((n, eps),) = seen
        return f"a quick stage of {n:,} {staging.unit} per side (ε ≥ {eps:.6g} there)"
    runs = ", ".join(f"{n:,}" for n, _ in seen)
    eps = ", ".join(f"{e:.6g}" for _, e in seen)
    return f"stages of {runs} {staging.unit} per side (ε ≥ {eps} there)"


def said_at(certification: str, stage_confidence: float, confidence: float, stage: str) -> str:
    """The certification's text said at the audit's confidence: a stage certifies at its share of the failure
    probability, so every bound of every stage holds at once at ``confidence``."""
    if stage == "whole":
        return certification
    return certification.replace(
        f"confidence {confidence_text(stage_confidence)}",
        f"confidence {confidence_text(confidence)} shared by the stages of the sampling",
    )


def staged_said(result, at: Options, opts: Options, stage: str):
    """``result`` (an engine's, with ``figures``) with its certification said at the audit's confidence (``opts``'s)
    rather than its stage's (``at``'s): :func:`said_at` on its figures."""
    said = said_at(result.figures.certification, at.confidence, opts.confidence, stage)
    return replace(result, figures=replace(result.figures, certification=said))
