"""The inputs a policy audit runs on: the reward table whose neighbours a sampled audit searches, the pairs it
proposes there, and the checks that they fit this machine and the exact engines."""

from __future__ import annotations

import math

import numpy as np

from privcheck.core import CHUNK_SIZE, chunk_generator
from privcheck.core.execution import Serial
from privcheck.core.protocols import AuditTable, ReleaseSchedule, provides
from privcheck.core.resources import check_memory
from privcheck.core.rng import PAIR_STREAM, PROBE_STREAM

from ..options import DEFAULT_POLICY_MINUTES, DEFAULT_SCREENING
from .plan import KEEP_PAIRS
from .summaries import FULL_SEQUENCE_ROUNDS

__all__ = [
    "DECISION_SHARE",
    "MIDDLE_SHARE",
    "start_table",
    "search_pairs",
    "check_inputs_fit",
    "binary",
    "decision_pairs",
    "search_tables",
    "tail_shares",
    "reward_levels",
    "first_rows",
    "extended_pairs",
    "PATH_RUNS",
    "searched",
    "search_size",
    "search_horizon",
    "COUPLED_RUNS",
    "search_runs",
    "SEARCH_SHARE",
    "NO_DEPENDENCE",
]


def start_table(policy, given, horizon: int, reward_range=None):
    """The reward table whose neighbours are searched: ``given`` (the user's), else the policy's
    ``audit_table(horizon)`` (:class:`~privcheck.core.protocols.AuditTable`: one that reaches its statistics' full
    sensitivity, e.g. rewards at ± its clipping bound), else — with a ``reward_range`` (lo, hi) — every reward lo
    but the last row's hi (the range is then the table's: :func:`reward_levels`; the last row reaches no action),
    else None (zeros)."""
    if given is not None:
        return given
    if provides(policy, AuditTable):
        return policy.audit_table(horizon)
    if reward_range is not None:
        lo, hi = reward_range
        table = np.full((horizon, policy.n_arms), float(lo))
        table[-1] = float(hi)
        return table
    return None


def search_pairs(relation, pairs, start, shape, seed):
    """The given pairs, or neighbours of ``start`` (all zeros by default) proposed by the relation."""
    if pairs is None:
        start = np.zeros(shape) if start is None else np.asarray(start, dtype=float)
        pairs = relation.candidate_pairs(start, chunk_generator(seed, PAIR_STREAM))
    return [(np.asarray(a, float), np.asarray(b, float)) for a, b in pairs]


def check_inputs_fit(policy, horizon: int, pairs, opts, draw_bytes: float) -> None:
    """Refuse, before any table is built, a horizon whose searched reward tables (up to 32 pairs of T × K
    doubles) and two chunks of runs (``draw_bytes`` each: a run's actions or their summary) cannot be held."""
    n = 2 * (32 if pairs is None else len(pairs)) + 2
    chunk = min(CHUNK_SIZE, max(opts.samples, opts.selection_samples))
    check_memory(
        8.0 * horizon * policy.n_arms * n + 2 * chunk * draw_bytes,
        f"a sampled policy audit at horizon={horizon:,}",
        "a smaller horizon (the reward tables are held)",
    )


def binary(pairs) -> bool:
    """Whether the given pairs (None: all binary tables) have rewards in {0, 1}, as the exact engines need."""
    return pairs is None or all(np.isin(np.asarray(x, dtype=float), (0.0, 1.0)).all() for p in pairs for x in p)


#: coupled runs per table of the decision-path search
PATH_RUNS = 64
#: where on a decision path the pair is taken: the step at which this share of the way between the path's ends is
#: crossed. A quarter, not a half: a Laplace or Gaussian threshold decision shows a larger ratio of chances away
#: from its middle (two Laplace means whose difference is shifted by 2 scales: ln(0.72/0.28) = 0.96 at the middle,
#: ln(0.28/0.062) = 1.5 a quarter of the way)
DECISION_SHARE = 0.25
#: the pair halfway along the path is taken too: a noisy decision's middle is where its statistic's raw value ties
#: (two sums equal, a sum at its threshold: symmetric noise tips it either way as often), so a rule that reads the
#: raw data where the noisy was meant — a tie-break, a hand-written side rule on the raw sums, taken in a few runs in
#: a thousand — flips exactly there, and nowhere else on the path; a noise-only decision shows a smaller ratio there
#: than a quarter of the way, and the screening judges between them
MIDDLE_SHARE = 0.5
#: the shares of the way at which the decision path's tails are taken too, where the decision goes the rarer way
#: in a few percent of runs: a noise whose tails are too light for its claim (Gaussian noise for pure DP, a clipped
#: noise) shows its leak only there — Gaussian noise at the Laplace's scale on two sums stays within e^ε at the
#: middle and reaches e^{1.5ε} where one side's chance is 1.7%
TAIL_SHARES = (1 / 32, 31 / 32)


def tail_shares(runs: int) -> tuple:
    """The tails' shares a path on ``runs`` coupled runs per table is cut at: :data:`TAIL_SHARES` when a run is
    at most the rarer tail's share of them (32 runs and more), else none — on fewer, a cut at 1/32 of the way is a
    cut at the first run that differs, no tail (a quick stage's search: 4 runs per table)."""
    return TAIL_SHARES if runs * min(TAIL_SHARES) >= 1 else ()


def reward_levels(start) -> tuple[float, float]:
    """The two rewards the decision paths move between: the least and the largest reward of the start table when
    it has two (a policy's :class:`~privcheck.core.protocols.AuditTable` puts them at ± its clipping bound, so a
    step on a path moves a statistic by its full sensitivity), else 0 and 1."""
    if start is not None:
        x = np.asarray(start, dtype=float)
        if x.size and np.isfinite(x).all() and x.min() < x.max():
            return float(x.min()), float(x.max())
    return 0.0, 1.0


def _path_table(shape, arm: int, j: int, base: float, other: float) -> np.ndarray:
    """The j-th table of a path: ``arm``'s reward moved from ``base`` to ``other`` in rows 0 … j − 1, every other
    reward at ``base`` (a reward list: its first j entries moved)."""
    x = np.full(shape, base)
    if len(shape) == 2:
        x[:j, arm] = other
    else:
        x[:j] = other
    return x


def _prefix(x: np.ndarray, m: int, levels: tuple[float, float]) -> np.ndarray:
    """``x`` (rewards at the two ``levels``) with its first m rows complemented (each reward to the other level)."""
    y = x.copy()
    y[:m] = levels[0] + levels[1] - y[:m]
    return y


def _bernoulli(shape, seed: int, levels: tuple[float, float]) -> np.ndarray:
    """A table of fair coin flips between the two ``levels`` (from the probe stream): a random instance, no gap."""
    return np.where(chunk_generator(seed, PROBE_STREAM, 99).random(shape) < 0.5, levels[1], levels[0])


def _step(T: int, like_start) -> int:
    """The step lo of a path of tables 0 … T − 1 at which ``like_start(m)`` — true at table 0, false at table T − 1
    (the caller has seen both) — turns false between tables lo and lo + 1, by bisection."""
    lo, hi = 0, T - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if like_start(mid) else (lo, mid)
    return lo


def search_tables(shape, runs: int = PATH_RUNS) -> int:
    """The most tables :func:`decision_pairs` runs (each on ``runs`` runs): a bisection of each path at each of its
    cuts (a table already run on a path is not run again)."""
    steps = 2 + math.ceil(math.log2(max(shape[0], 2)))
    cuts = 2 + len(tail_shares(runs))  # a quarter of the way, halfway, and the tails
    return 3 * steps + 2 * (shape[1] if len(shape) == 2 else 1) * (2 + cuts * (steps - 2))


def decision_pairs(
    mech,
    shape,
    seed: int,
    runs: int = PATH_RUNS,
    progress=None,
    levels: tuple[float, float] = (0.0, 1.0),
    executor=None,
) -> tuple[list, int, int]:
    """Neighbouring inputs where the policy's decisions are made, found without reading its code.  Every path
    below goes row by row between the two reward ``levels`` (0 and 1 unless the policy's audit table says
    otherwise: :func:`reward_levels`), so consecutive tables on it are neighbours; every table is run on the same
    ``runs`` coupled runs (the same randomness on every table); a step found by bisection gives the pair of the two
    tables on either side of it, which differ in one row.  The last row is never changed (its reward comes after
    the last action).

    * The first change: from all-low, all-high and a table of fair coin flips to their complements, the first step
      at which the actions differ from the start's — a row whose reward the actions read (a side channel, an early
      decision).
    * The decision: from all-``base`` to one arm's rewards all moved to the other level (every arm, upwards and
      downwards; one path for a reward list), the step at which the mean pulls of that arm cross a quarter of the
      way between the path's ends (:data:`DECISION_SHARE`) — where a threshold decision (an elimination, a
      commitment) is taken on about a quarter of the runs: in the tail of its noise, where the ratio of the two
      tables' chances is larger than at the middle (a deterministic decision flips at the same step whatever
      the share) — and the step where they cross half of it (:data:`MIDDLE_SHARE`): the decision's raw tie, where
      a rule reading the raw data without its noise flips, however rarely it is taken.
    * The decision's tails: on the same paths, the steps where the pulls cross 1/32 and 31/32 of the way
      (:data:`TAIL_SHARES`) — where the decision goes the rarer way in a few percent of runs, and a noise with
      tails too light for the claim shows its leak (each table of a path is run once, whatever the cuts); only on
      32 ``runs`` or more (:func:`tail_shares`).

    Each path is a task of its own on ``executor`` (its bisection's steps depend on each other; the paths do not), so
    that a search spreads over the audit's processes; its tables' runs are the same wherever it runs.  Returns (the
    pairs — those of the first two kinds, then the tails' —, the run-rounds spent, how many pairs are the tails'):
    :func:`searched` keeps a place for the best of the tails.  ``progress(n)``, if given, is told of the n runs of
    each path as it ends."""
    T = shape[0]
    if T < 2:
        return [], 0, 0
    arms = range(shape[1]) if len(shape) == 2 else range(1)
    low, high = levels
    paths = [("first", k) for k in ("low", "high", "coins")] + [("decision", a, b) for a in arms for b in (low, high)]
    tasks = [(mech, shape, seed, runs, levels, path) for path in paths]
    found = (executor or Serial()).map(_path, tasks)
    out, tails, spent = [], [], 0
    for pairs, tables in found:  # (in the order of the paths: the same pairs kept as one after the other)
        spent += tables * runs * T
        if progress:
            progress(tables * runs)
        for share, pair in pairs:
            if any(np.array_equal(pair[0], a) and np.array_equal(pair[1], b) for a, b in out + tails):
                continue  # (a deterministic decision flips at the same step whatever the share)
            (out if share in (None, DECISION_SHARE, MIDDLE_SHARE) else tails).append(pair)
    return out + tails, spent, len(tails)


def _path(mech, shape, seed: int, runs: int, levels: tuple[float, float], path) -> tuple[list, int]:
    """One path of :func:`decision_pairs`, bisected: ("first", kind) from the all-low, all-high or coin-flip
    ("coins") table to its complement, or ("decision", arm, base) from all-``base`` to ``arm``'s rewards all moved
    to the other level.  Returns ((share, pair) of each step found — share None for a first change —, the tables
    run)."""
    T = shape[0]
    low, high = levels
    tables = 0

    def run(table):
        nonlocal tables
        tables += 1
        return mech.sample(table, chunk_generator(seed, PROBE_STREAM, 100), runs)

    if path[0] == "first":  # the first table on which the coupled runs play differently from the start's
        kind = path[1]
        base = _bernoulli(shape, seed, levels) if kind == "coins" else np.full(shape, low if kind == "low" else high)
        first = run(base)
        if np.array_equal(first, run(_prefix(base, T - 1, levels))):
            return [], tables  # flipping every row but the last never moved the actions (on these runs)
        lo = _step(T, lambda m: np.array_equal(first, run(_prefix(base, m, levels))))
        return [(None, (_prefix(base, lo, levels), _prefix(base, lo + 1, levels)))], tables
    _, arm, base = path
    seen = {}

    def table(j):
        return _path_table(shape, arm, j, base, low + high - base)

    def pulls(j):  # each table of the path run once
        if j not in seen:
            seen[j] = float(mech.pulls(run(table(j)), arm).sum()) / runs
        return seen[j]

    f_lo, f_hi = pulls(0), pulls(T - 1)  # T − 1: every row flipped but the last
    if f_lo == f_hi:
        return [], tables  # the path never moved the actions (on these runs)
    out = []
    for share in (DECISION_SHARE, MIDDLE_SHARE, *tail_shares(runs)):
        cut = f_lo + share * (f_hi - f_lo)
        lo = _step(T, lambda m: (pulls(m) > cut) == (f_lo > cut))
        out.append((share, (table(lo), table(lo + 1))))
    return out, tables


def first_rows(table, rows: int):
    """The first ``rows`` rows of a reward table or list (None stays None): the start of a search on a prefix."""
    return None if table is None else np.asarray(table, dtype=float)[:rows]


def extended_pairs(pairs: list, T: int, start) -> list:
    """Pairs found on the first rounds, extended to ``T`` rounds with the same rows on both sides — the start
    table's, or each pair's last row repeated — so that each stays a pair of neighbours."""
    out = []
    for x, y in pairs:
        h = x.shape[0]
        if h == T:
            out.append((x, y))
            continue
        tail = np.asarray(start, dtype=float)[h:] if start is not None else np.repeat(x[-1:], T - h, axis=0)
        out.append((np.concatenate([x, tail]), np.concatenate([y, tail])))
    return out


# the search's driver: which pairs go on to the sampled engine, and the notes that say how they were found

#: said when coupled runs never played differently on any pair tried
NO_DEPENDENCE = (
    "no input tried made the actions depend on the data: on {runs} coupled runs of each of the {pairs} pairs (the "
    "same randomness on x and on x'), the action sequences were identical, so the bound says nothing about this "
    "policy's privacy: give a reward table where its decisions are made, or a longer horizon"
)


#: coupled runs per candidate pair that rank the searched pairs
COUPLED_RUNS = 16


def search_runs(screening: int) -> tuple[int, int]:
    """(runs per table of the bisection, coupled runs per candidate pair) of the input search: :data:`PATH_RUNS`
    and :data:`COUPLED_RUNS` at the default ``screening`` (the search's own budget, :data:`DEFAULT_SCREENING`),
    scaled with it — at least 4 and 2 — so that a user who shrinks the search's budget shrinks the search too."""
    scale = screening / DEFAULT_SCREENING
    return max(4, min(PATH_RUNS, round(PATH_RUNS * scale))), max(2, min(COUPLED_RUNS, round(COUPLED_RUNS * scale)))


def searched(
    mech, relation, pairs, start, shape, seed: int, planned, cost, screening: int, executor=None
) -> tuple[list, list]:
    """The pairs to audit and the notes that say how they were found.

    Given pairs are audited as given.  Otherwise the candidates are the pairs where the policy's decisions are
    made (:func:`~.inputs.decision_pairs`) and the neighbours of the start table; each is run on
    :data:`COUPLED_RUNS` coupled runs (the same randomness on x and on x'), and the :data:`KEEP_PAIRS` on which
    most runs play differently go on to the sampled engine (all of them when none does: the report then says that
    no input tried made the actions depend on the data).  When searching the whole horizon would take more than
    :data:`SEARCH_SHARE` of the default time budget, the search runs on the first rounds only
    (:func:`search_horizon`) and the pairs it finds are extended to the horizon
    (:func:`~.inputs.extended_pairs`).  A search
    choice only: the pair reported is certified on fresh runs of the whole horizon.  Its runs are scaled with
    ``screening`` (:func:`search_runs`)."""
    path_runs, coupled_runs = search_runs(screening)
    if pairs is not None:
        pairs = search_pairs(relation, pairs, start, shape, seed)
        moved = mech.coupled_differences(pairs, seed, coupled_runs, executor)
        return pairs, [] if any(moved) else [NO_DEPENDENCE.format(runs=coupled_runs, pairs=len(pairs))]
    T = mech.horizon
    h, near, total = _search_size(mech, relation, start, shape, seed, cost, screening)
    searching = mech if h == T else mech._shortened(h)
    short = (h, *shape[1:])
    progress = planned(total)
    counted = None if progress is None else _WholeRuns(progress, h / T, total)
    found, spent, n_tails = decision_pairs(
        searching, short, seed, runs=path_runs, progress=counted, levels=reward_levels(start), executor=executor
    )
    candidates = found + near
    moved = searching.coupled_differences(candidates, seed, coupled_runs, executor)
    if counted:  # the coupled runs, and the runs planned for the search and not needed
        counted.rest()
    tail = range(len(found) - n_tails, len(found))
    order = _kept(moved, tail)
    prefix = (
        ""
        if h == T
        else f" on the first {h:,} of the {T:,} rounds (searching them all would take more than "
        f"{SEARCH_SHARE:.0%} of {DEFAULT_POLICY_MINUTES:g} minutes; the pairs are extended to {T:,} rounds with "
        f"{'the rows of the start table' if start is not None else 'the last row of each pair'})"
    )
    tails_said = (
        f"{n_tails} of them in the decisions' tails"
        if tail_shares(path_runs)
        else "the decisions' tails not searched on so few runs"
    )
    notes = [
        f"input search{prefix}: {len(found)} pairs where the actions change along paths of neighbouring tables "
        f"({tails_said}; bisection on {path_runs} coupled runs per table, {spent:,} "
        f"run-rounds) and {len(near)} neighbours of the {'given' if start is not None else 'all-zero'} table; "
        f"{len(order)} of them, those whose {coupled_runs} "
        "coupled runs played differently most often (a place kept for the best of the tails), screened"
    ]
    if not order:
        return extended_pairs(candidates, T, start), [
            *notes,
            NO_DEPENDENCE.format(runs=coupled_runs, pairs=len(candidates)),
        ]
    return extended_pairs([candidates[i] for i in order], T, start), notes


def _search_size(mech, relation, start, shape, seed: int, cost, screening: int) -> tuple[int, list, int]:
    """(the rounds the search runs, the neighbours of the start table it tries, its runs at most — in runs of the
    whole horizon) of :func:`searched` at ``screening``: computed without a run."""
    T = mech.horizon
    probe = min(T, FULL_SEQUENCE_ROUNDS)  # how many neighbours the relation proposes, counted on a short table
    n_near = len(search_pairs(relation, None, first_rows(start, probe), (probe, *shape[1:]), seed))
    h = search_horizon(mech, cost, shape, n_near, screening)
    near = search_pairs(relation, None, first_rows(start, h), (h, *shape[1:]), seed)
    path_runs, coupled_runs = search_runs(screening)
    tables = search_tables((h, *shape[1:]), path_runs)
    most = tables * path_runs + (tables + len(near)) * 2 * coupled_runs  # the search's runs, at most
    return h, near, math.ceil(most * h / T)


def search_size(mech, relation, start, shape, seed: int, cost, screening: int) -> int:
    """The most runs (of the whole horizon) :func:`searched` makes at ``screening``, computed without a run: what
    a plan checked before the search counts for it."""
    return _search_size(mech, relation, start, shape, seed, cost, screening)[2]


def _kept(moved, tail) -> list[int]:
    """The candidates screened: the :data:`KEEP_PAIRS` on which most coupled runs played differently, then the
    decisions' ``tail`` pairs on which none did, a place kept for the best of the tails; none when no candidate
    played differently.  A tail pair plays differently on few runs by its nature — the decision goes the rarer way
    on a few percent, so none of 16 coupled runs differ a third of the time — yet its ratio of chances can be the
    largest: its evidence is the bisection that found it, and screening, on more runs, judges."""
    ranked = sorted((i for i in range(len(moved)) if moved[i]), key=lambda i: (-moved[i], i))
    if not ranked:
        return []
    eligible = ranked + [i for i in tail if not moved[i]]
    kept = eligible[:KEEP_PAIRS]
    best_tail = next((i for i in eligible if i in tail), None)
    if best_tail is None or best_tail in kept:
        return kept
    return [*kept[: KEEP_PAIRS - 1], best_tail]


#: the share of :data:`DEFAULT_POLICY_MINUTES` the input search may take on the whole horizon; beyond it the search
#: runs on the first rounds only
SEARCH_SHARE = 0.25


def search_horizon(mech, cost, shape, n_near: int, screening: int) -> int:
    """The rounds the input search runs: the whole horizon when its runs fit :data:`SEARCH_SHARE` of the default
    time budget at the measured cost, else the longest prefix (a power of two times the least) that fits — never
    fewer than :data:`~.summaries.FULL_SEQUENCE_ROUNDS` nor fewer than the policy's first release and one round per
    arm after it (its :class:`~privcheck.core.protocols.ReleaseSchedule`), so that its decisions are in it."""
    T, K = mech.horizon, mech.policy.n_arms
    first = mech.policy.first_release() if provides(mech.policy, ReleaseSchedule) else 0.0
    least = min(T, max(FULL_SEQUENCE_ROUNDS, int(first) + K if math.isfinite(first) else 0))
    per_round = cost.seconds / T
    path_runs, coupled_runs = search_runs(screening)

    def seconds(h: int) -> float:
        tables = search_tables((h, *shape[1:]), path_runs)
        return (tables * path_runs + (tables + n_near) * 2 * coupled_runs) * h * per_round

    budget = SEARCH_SHARE * 60 * DEFAULT_POLICY_MINUTES
    if seconds(T) <= budget:
        return T
    h = least
    while 2 * h < T and seconds(2 * h) <= budget:
        h *= 2
    return h


class _WholeRuns:
    """A progress callable for runs of a prefix of the horizon, told to ``progress`` in runs of the whole horizon
    (``share`` of one each); :meth:`rest` reports the rest of the ``total`` planned."""

    def __init__(self, progress, share: float, total: int):
        self.progress, self.share, self.total, self.runs, self.told = progress, share, total, 0, 0

    def __call__(self, n: int) -> None:
        self.runs += n
        whole = min(int(self.runs * self.share), self.total) - self.told
        if whole > 0:
            self.told += whole
            self.progress(whole)

    def rest(self) -> None:
        self.progress(self.total - self.told)
        self.told = self.total
