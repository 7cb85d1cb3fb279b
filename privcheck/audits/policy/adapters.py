"""The adapters that make a policy a mechanism: "run the policy for T rounds on this input" with the action
sequences of independent runs as its draws (:class:`PolicyMechanism`, Table and View DP), and the same against an
adversary choosing the queried arms (:class:`InteractiveMechanism`, Interactive DP)."""

from __future__ import annotations

import math
import time
from contextlib import nullcontext
from functools import partial

import numpy as np

from privcheck.core import InvalidArgument, TargetError, chunk_generator
from privcheck.core.errors import raised
from privcheck.core.execution import Serial
from privcheck.core.published import as_rows, published
from privcheck.core.rng import PROBE_STREAM
from privcheck.core.sequential import SequentialPolicy
from privcheck.core.protocols import (
    Contextual,
    ReleaseSchedule,
    Steady,
    checked_actions,
    contexts_of,
    provides,
    update_uniforms,
)

from ..mechanism.events import Statistic
from ..sampling import DrawCost
from .adversaries import ContextStreaming, Streaming
from .summaries import FULL_SEQUENCE_ROUNDS, ActionSummary, longest_stretch
from .witness import action_event_text, summary_event_text

__all__ = ["PolicyMechanism", "InteractiveMechanism", "BLOCK_CELLS"]

#: a block of a :class:`~privcheck.core.protocols.Steady` policy covers at most this many run-rounds (it holds its
#: arms, feedback and, against an adversary, the counts after each of its rounds)
BLOCK_CELLS = 1 << 21
#: the rounds a policy that runs in blocks is timed on
STEADY_COST_ROUNDS = 4096
#: a run's cost is timed on a batch that takes at least this long (or on the most runs asked for)
COST_SECONDS = 0.1
#: a one-object-per-run policy whose run is predicted (from its first rounds) to take at most this long is timed on
#: whole runs
WHOLE_RUN_SECONDS = 0.5


def _timed(mech, rng, first: int, most: int) -> float:
    """The seconds of one run of ``mech``, timed on batches of its all-zero input — ``first`` runs, then as many as
    the last batch's time says would take 1.25·:data:`COST_SECONDS` (at least twice as many, at most 64 times) —
    until one takes :data:`COST_SECONDS` (or holds ``most`` runs)."""
    n, x0 = first, mech.blank()
    while True:
        t0 = time.perf_counter()
        mech.sample(x0, rng, n)
        took = time.perf_counter() - t0
        if took >= COST_SECONDS or n >= most:
            return took / n
        aim = math.ceil(n * 1.25 * COST_SECONDS / max(took, 1e-9))
        n = min(most, max(2 * n, min(64 * n, aim)))


class _pulls:
    def __init__(self, k):
        self.k = k

    def __call__(self, acts):
        return (acts == self.k).sum(axis=1)


class _first:
    def __init__(self, k, horizon):
        self.k, self.horizon = k, horizon

    def __call__(self, acts):
        hit = acts == self.k
        return np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, self.horizon + 1)


def _switches(acts):
    return (acts[:, 1:] != acts[:, :-1]).sum(axis=1)


def public_contexts_of(policy):
    """The public contexts (horizon × K × d) a batched contextual policy is audited on — set on its audited
    instance, without a fixed action set — or None."""
    if not (provides(policy, Contextual) and policy.contextual) or getattr(policy, "actions", None) is not None:
        return None
    return contexts_of(policy)


class PolicyMechanism:
    """Running a policy for T rounds on one input (a reward table, or a list of observed rewards) as a
    mechanism: ``sample(x, rng, size)`` returns the action sequences of ``size`` independent runs, (size, T), or
    beyond :data:`~.summaries.FULL_SEQUENCE_ROUNDS` rounds their summaries (:class:`~.summaries.ActionSummary`),
    reduced as the runs go.  Feedback goes through ``channel`` (a binary randomizer with ``Q``) when one is given."""

    def __init__(self, policy, horizon: int, relation, channel=None, name: str = "policy"):
        #: the neighbouring relation (:mod:`.relations`): what an input is
        self.policy, self.horizon, self.relation, self.channel, self.name = policy, horizon, relation, channel, name
        self.summary = None
        if horizon > FULL_SEQUENCE_ROUNDS:
            first = policy.first_release() if provides(policy, ReleaseSchedule) else None
            self.summary = ActionSummary(policy.n_arms, horizon, first)

    #: what the audit observes instead of the actions: the names of the values a run publishes, read after each
    #: round's update (None: the actions) — :meth:`with_releases`
    releases = None
    #: the values a run publishes a round, once seen (what a draw's bytes are planned with before)
    release_width = 16

    def with_releases(self, names):
        """This mechanism observing the values the policy publishes instead of its actions: the attributes
        ``names`` of each run object (or of a batched policy's state, one row a run), read after every round's
        update, their values over the rounds concatenated (a draw is T × their values: the releases view)."""
        if names:
            self.releases, self.summary = tuple(names), None
        return self

    #: whether a run's whole history of actions is needed while it runs (an adversary that reads it), and whether
    #: the counts of each arm's actions so far are (a streaming adversary's)
    keeps_history = keeps_counts = False
    #: runs per chunk of a stream (:class:`~privcheck.core.protocols.Chunked`): a run costs up to T rounds, so
    #: that a few thousand runs per side spread over workers
    chunk_draws = 4096
    #: whether a :class:`~privcheck.core.protocols.Steady` policy's fixed stretches run as blocks (the same draws as
    #: round by round: the switch exists for the tests that check it)
    blocks = True

    def draw_bytes(self) -> float:
        """The bytes held per run while it runs and after: its sequence or summary (or its releases), and any history
        kept."""
        if self.releases:
            return 8.0 * self.horizon * self.release_width
        held = 8.0 * (self.horizon if self.summary is None else self.summary.width)
        return held + (8.0 * self.horizon if self.keeps_history and self.summary is not None else 0.0)

    def cost(self, runs: int = 1024, rounds: int = 64):
        """A run's cost: the bytes it holds (:meth:`draw_bytes`), and the seconds of T rounds, timed on up to
        ``runs`` runs of the first ``rounds`` rounds of an all-zero input (after one untimed call that pays the
        start-up; batches from 8 runs, grown by :func:`_timed` until one takes :data:`COST_SECONDS`, so that a slow
        policy is not run a thousand times to be timed); a one-object-per-run policy whose whole run is predicted to
        take at most :data:`WHOLE_RUN_SECONDS` is timed again on whole runs (from one), since its later rounds
        may cost more than its first — for a policy that runs in blocks
        (:class:`~privcheck.core.protocols.Steady`), 256 runs of up to :data:`STEADY_COST_ROUNDS` rounds, where
        its blocks are long enough to show their speed (an upper figure still: they grow with the horizon)."""
        if self._steady():
            runs, rounds = 256, STEADY_COST_ROUNDS
        t = min(self.horizon, rounds)
        short = self._shortened(t)
        if self.summary is not None:  # timed with the summary's bookkeeping too
            short.summary = ActionSummary(self.policy.n_arms, t)
        rng = np.random.default_rng(0)
        short.sample(short.blank(), rng, 8)
        seconds = _timed(short, rng, 8, runs) * self.horizon / t
        if t < self.horizon and isinstance(self.policy, SequentialPolicy) and seconds <= WHOLE_RUN_SECONDS:
            # one object per run: its later rounds may cost more than its first (a model fitted after exploring)
            seconds = _timed(self, rng, 1, runs)
        return DrawCost(bytes=self.draw_bytes(), seconds=seconds, chunk=self.chunk_draws)

    def _shortened(self, t: int):
        return PolicyMechanism(self.policy, t, self.relation, self.channel, self.name).with_releases(self.releases)

    def blank(self) -> np.ndarray:
        """The all-zero input of this horizon (a reward table, or a list)."""
        return np.zeros(self.relation.input_shape(self.horizon, self.policy.n_arms))

    def inputs(self, x: np.ndarray) -> tuple:
        """(rewards, contexts or None, the round whose action is left out or None) of an input, checked: here a
        reward table or list as it is (the contexts, if any, are the policy's public ones)."""
        want = self.relation.input_shape(self.horizon, self.policy.n_arms)
        if x.shape != want:
            raise InvalidArgument(f"input of shape {x.shape} must be a {self.relation.input_word()} of shape {want}")
        return x, None, None

    def coupled_differences(self, pairs, seed: int, runs: int = 16, executor=None) -> list:
        """For each pair, how many of ``runs`` coupled runs — the same randomness on x and on x' — play
        differently: all 0 when no input tried made the actions depend on the data (on these runs).  Each pair a
        task on ``executor`` (the same counts wherever it runs)."""
        tasks = [(self, x, y, seed, i, runs) for i, (x, y) in enumerate(pairs)]
        return (executor or Serial()).map(_played_differently, tasks)

    def pulls(self, draws: np.ndarray, arm: int) -> np.ndarray:
        """Each run's pulls of ``arm`` in the horizon, from its draw (sequence or summary)."""
        return (draws == arm).sum(axis=1) if self.summary is None else self.summary.pulls(draws, arm)

    def event_text(self, event) -> str | None:
        """The engine's event (the object) in rounds and arms (None when it cannot be said so)."""
        if self.releases:
            return None
        if self.summary is None:
            return action_event_text(event, self.policy.n_arms, self.horizon)
        return summary_event_text(event, self.summary, self.policy.n_arms)

    def released_over(self) -> tuple | None:
        """(rounds, 1) where the draws are the policy's releases after each of the horizon's rounds (the sampled
        engine's stepped projection reads them: a user's reward enters every later release), else None."""
        return (self.horizon, 1) if self.releases else None

    def statistics(self):
        """Features of an action sequence for the sampled engine: pulls of each arm, the first round each arm is
        played (T + 1 if never), the longest stretch of rounds each arm is played in a row, and the number of
        switches (a summary holds them as columns already; releases have none: their values are read as numbers)."""
        if self.summary is not None or self.releases:
            return []
        K, T = self.policy.n_arms, self.horizon
        out = []
        for k in range(K):
            out.append(Statistic("feature", fn=_pulls(k), fn_name=f"pulls_of_arm_{k}", feature="pulls", arm=k))
            out.append(
                Statistic("feature", fn=_first(k, T), fn_name=f"first_round_of_arm_{k}", feature="first_round", arm=k)
            )
            out.append(
                Statistic(
                    "feature",
                    fn=partial(longest_stretch, arm=k),
                    fn_name=f"longest_stretch_of_arm_{k}",
                    feature="longest",
                    arm=k,
                )
            )
        out.append(Statistic("feature", fn=_switches, fn_name="switches", feature="switches"))
        return out

    def query(self, last, history, counts, t):
        """The arm whose reward the policy observes at round t: the one it played (Table and View DP); ``last``
        (n, L) with ``counts`` (n, L, K) and ``t`` (1, L): those of the L rounds of a block."""
        return last

    #: whether each round's contexts are chosen as the runs go (by an interactive adversary), not fixed
    chooses_contexts = False

    def round_contexts(self, public, last, counts, t, own=False):
        """Round t's contexts: the public (or the input's) ones as they are (an adversary may choose otherwise;
        ``own``: round t is the changed user's, under joint DP)."""
        return public

    def _steady(self) -> bool:
        """Whether this run's policy plays its fixed stretches as blocks: a :class:`Steady` policy, its feedback
        not through a channel (which draws per round), no history held for an adversary."""
        return self.blocks and provides(self.policy, Steady) and self.channel is None and not self.keeps_history

    def _block(self, plan, x, rng, state, t, recs, acc, counts, nu, nup):
        """Rounds t … t + L − 1 of a plan (n, L) at once: the same records, queries, feedback and state as round by
        round, and the same uniforms drawn (``nu`` per run for each ``act``, unread, and ``nup`` for each
        ``update``, given to the policy's ``accumulate``)."""
        size, L = plan.shape
        K = self.policy.n_arms
        plan = checked_actions(plan.reshape(-1), size * L, K, self.name).reshape(size, L)
        if recs is not None:
            recs[:, t - 1 : t - 1 + L] = plan
        if acc is not None:
            self.summary.record_block(acc, t, plan)
        after = None
        if counts is not None:  # the counts after each round's recommendation, as the adversary sees them
            after = counts[:, None, :] + np.cumsum(plan[:, :, None] == np.arange(K), axis=1)
            counts[:] = after[:, -1]
        rounds = np.arange(t, t + L)
        arms = self.query(plan, None, after, rounds[None, :])
        if x.ndim == 2:
            feedback = x[rounds[None, :] - 1, arms]
        else:
            feedback = np.broadcast_to(x[rounds - 1], (size, L))
        # round by round: act's (size, nu) uniforms, then update's (size, nup)
        u = rng.random((L, size * (nu + nup)))[:, size * nu :].reshape(L, size, nup)
        return self.policy.accumulate(state, t, arms, feedback, u)

    @property
    def own_global_generators(self) -> bool:
        """A sequential policy's batches swap in global generators of their own (:mod:`privcheck.core.sequential`);
        any other policy's runs get the chunk's (:func:`privcheck.core.protocols.draw`)."""
        return isinstance(self.policy, SequentialPolicy)

    def sample(self, x, rng, size):
        T, K = self.horizon, self.policy.n_arms
        x, contexts, left_out = self.inputs(np.asarray(x, dtype=float))
        per_run = not isinstance(self.policy, SequentialPolicy)  # a batched policy takes (runs, K, d) contexts
        if contexts is None and (per_run or self.chooses_contexts):
            contexts = public_contexts_of(self.policy) if per_run else self.policy.contexts
        nup = update_uniforms(self.policy)
        state = self.policy.init(size)
        recs = np.empty((size, T), dtype=np.int64) if self.summary is None or self.keeps_history else None
        acc = None if self.summary is None else self.summary.start(size)
        counts = np.zeros((size, K), dtype=np.int64) if self.keeps_counts else None
        rows = np.arange(size)
        # blocks only where no round's contexts are read (a block is planned from the state alone, blind to them)
        # and no round's releases are
        steady = self._steady() and contexts is None and not self.releases
        most = max(2, BLOCK_CELLS // max(size, 1))
        published = [] if self.releases else None  # each round's releases, one row a run
        nu = self.policy.n_uniforms
        t, prev = 0, None  # prev: each run's last action (an adversary choosing contexts reads it)
        with nullcontext() if per_run else self.policy.held(state):  # (a sequential batch's globals swapped once)
            while t < T:
                t += 1
                if steady:  # (a block ends before a round whose action is left out: that round runs alone)
                    room = left_out - t if left_out is not None and left_out >= t else T - t + 1
                    plan = self.policy.steady(state, t, min(most, room))
                    if plan.shape[1] >= 2:
                        state = self._block(plan, x, rng, state, t, recs, acc, counts, nu, nup)
                        t += plan.shape[1] - 1
                        continue
                if self.channel is None:  # act's uniforms, then update's: one call, the same draws in the same order
                    u = rng.random(size * (nu + nup))
                    ua, uu = u[: size * nu].reshape(size, nu), u[size * nu :].reshape(size, nup)
                else:  # the channel's draws come between them
                    ua, uu = rng.random((size, nu)), None
                seen = {}
                if contexts is not None:
                    c = self.round_contexts(contexts[t - 1], prev, counts, t, t == left_out)  # (K, d) or (size, K, d)
                    seen = {"contexts": np.broadcast_to(c, (size, *c.shape[-2:])) if per_run else c}
                a = checked_actions(self.policy.act(state, t, ua, **seen), size, K, self.name, self.policy)
                shown = a if t != left_out else np.zeros_like(a)  # (joint DP: the changed user's own action left out)
                prev = shown  # what an adversary choosing contexts sees
                if recs is not None:
                    recs[:, t - 1] = shown
                if acc is not None:
                    self.summary.record(acc, t, shown)
                if counts is not None:
                    counts[rows, a] += 1
                arms = self.query(a, None if recs is None else recs[:, :t], counts, t)
                reward = x[t - 1, arms] if x.ndim == 2 else np.full(size, x[t - 1])
                if self.channel is not None:
                    q1 = self.channel.Q[reward.astype(np.int64), 1]  # P[report 1 | reward]
                    feedback = (rng.random(size) < q1).astype(float)
                else:
                    feedback = reward
                if nup and uu is None:
                    uu = rng.random((size, nup))
                state = self.policy.update(state, t, arms, feedback, uu if nup else None, **(seen if per_run else {}))
                if published is not None:
                    published.append(released(self.policy, state, self.releases, size, t, self.name))
            if published is not None:
                return self._published(published, size)
            return recs if acc is None else self.summary.finish(acc)

    def _published(self, rounds: list, size: int) -> np.ndarray:
        """The releases of every round as one row a run (size × T·width): a round before the first release (None,
        or no values) zeros of the width the others have."""
        width = max((r.shape[1] for r in rounds if r is not None), default=0)
        if any(r is not None and r.shape[1] != width for r in rounds):
            raise TargetError(f"{self.name}: the releases {', '.join(self.releases)} change size from round to round")
        self.release_width = max(width, 1)
        out = np.zeros((size, len(rounds), width))
        for t, r in enumerate(rounds):
            if r is not None:
                out[:, t] = r
        return out.reshape(size, -1)


def released(policy, state, names, size: int, t: int, name: str) -> np.ndarray | None:
    """Each run's values of ``names`` after round ``t``'s update, one row a run (size × width), or None before the
    first release (every value None): a one-object-per-run policy's attributes of its runs, a batched policy's of its
    state (first axis: the runs).  A name that is a method is called (a ``releases()`` method, say), and a dict's
    values are concatenated in its order."""

    def values(obj, n):
        def missing():  # (made only where it is raised: this is read for every run after every round)
            whose = "its runs do" if obj is not state else "its state does"
            return TargetError(f"{name}: releases names {n!r}, which {whose} not have after round {t}'s update")

        return published(obj, n, name, missing)

    try:
        if isinstance(policy, SequentialPolicy):  # a run that has released nothing yet (None): zeros
            got = [[values(run, n) for n in names] for run in state]
            whole = _stacked(got, len(names))
            if whole is not None:
                return whole
            rows = [
                None if all(v is None for v in row) else np.concatenate([as_rows(v, 1).ravel() for v in row])
                for row in got
            ]
            width = next((r.size for r in rows if r is not None), None)
            return None if width is None else np.stack([np.zeros(width) if r is None else r for r in rows])
        got = [values(state, n) for n in names]
        if all(v is None for v in got):
            return None
        return np.concatenate([as_rows(v, size) for v in got], axis=1)
    except (TypeError, ValueError) as exc:
        raise raised(TargetError, f"{name}: its releases {', '.join(names)} are not numbers: {exc}", exc) from None


def _stacked(got: list, n_names: int) -> np.ndarray | None:
    """The runs' values (``got``: a list a run of one value a name) as one row a run, read a name at a time across
    the runs — where every run has released an array of one shape under each name (the usual case: a row then costs
    no per-run conversion); None otherwise, for the run-by-run reading."""
    cols = []
    for j in range(n_names):
        col = [row[j] for row in got]
        if any(v is None or isinstance(v, list) for v in col):
            return None
        shapes = {np.shape(v) for v in col}
        if len(shapes) != 1:
            return None
        cols.append(np.asarray(col, dtype=float).reshape(len(col), -1))
    return np.concatenate(cols, axis=1)


class InteractiveMechanism(PolicyMechanism):
    """The policy against an adversary, as a mechanism: input a reward table, output the recommendations.  A
    built-in adversary (:class:`~.adversaries.Streaming`) sees the last recommendations and the counts so far; a
    user's sees the whole history, which each run then holds (planned as part of its bytes)."""

    def __init__(self, policy, horizon, relation, adversary, channel=None, name="policy"):
        super().__init__(policy, horizon, relation, channel, name)
        self.adversary = adversary
        self.keeps_counts = isinstance(adversary, Streaming)
        self.keeps_history = not self.keeps_counts
        self.chooses_contexts = isinstance(adversary, ContextStreaming)

    def round_contexts(self, public, last, counts, t, own=False):
        """Round t's contexts as the adversary chooses them from the recommendations so far (each run's), when it
        does (:class:`~.adversaries.ContextStreaming`)."""
        if not self.chooses_contexts:
            return public
        return chosen_contexts(self.adversary, public, last, counts, t)

    def _shortened(self, t: int):
        return InteractiveMechanism(self.policy, t, self.relation, self.adversary, self.channel, self.name)

    def query(self, last, history, counts, t):
        k = self.policy.n_arms
        try:
            if self.keeps_counts:
                q = self.adversary.step(last, counts, t, k)
            else:
                q = self.adversary(history, t, k)
            q = np.asarray(q, dtype=np.int64)
        except Exception as exc:
            raise raised(TargetError, f"the adversary raised {type(exc).__name__}: {exc}", exc) from None
        if q.shape != np.shape(last) or q.min() < 0 or q.max() >= k:
            raise TargetError(f"the adversary must return one arm in 0..{k - 1} per run")
        return q


def chosen_contexts(adversary, public, last, counts, t):
    """Round t's contexts as ``adversary`` chooses them from the actions shown so far
    (:class:`~.adversaries.ContextStreaming`), each run's."""
    try:
        return np.asarray(adversary.contexts(last, counts, t, public), dtype=float)
    except Exception as exc:
        raise raised(TargetError, f"the adversary raised {type(exc).__name__}: {exc}", exc) from None


def _played_differently(mech, x, y, seed: int, i: int, runs: int) -> int:
    """How many of ``runs`` coupled runs of pair ``i`` = (``x``, ``y``) play differently
    (:meth:`PolicyMechanism.coupled_differences`)."""
    a = mech.sample(x, chunk_generator(seed, PROBE_STREAM, 1 + i), runs)
    b = mech.sample(y, chunk_generator(seed, PROBE_STREAM, 1 + i), runs)
    return int((a != b).any(axis=1).sum())
