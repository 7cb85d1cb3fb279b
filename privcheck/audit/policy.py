"""Auditing bandit policies: Table DP, View DP and local privacy of the feedback.

* ``table`` / ``view`` (exact): every neighbour pair of binary reward tables (one row replaced) or reward lists
  (one entry replaced) is enumerated by :mod:`privcheck.audit.policy_exact`; the output is the action sequence.
* ``local``: the per-report randomizer of the feedback, audited as a mechanism under all pairs of single
  rewards; with ``sequence_length`` n, also over sequences of n rewards as the AAAI 2023 paper's Definition 2
  reads (all pairs of sequences), where per-step ε-randomized response gives exactly nε.  The verdict then uses
  the sequence-level figure.

* ``table`` / ``view`` (sampled): :class:`PolicyMechanism` makes "run the policy on this input" a mechanism
  whose output is the action sequence (draws = independent runs, batched), and the sampled engine certifies a
  lower bound exactly as for mechanisms: pair search among neighbours of a seed input (rows replaced early, in
  the middle and late by extreme rewards, swapped entries, random rows), events over the sequence (pulls of each
  arm, the first round each arm is played, the number of switches, the action at a step, the whole sequence as
  a category when few occur, the mean-difference projection), Clopper–Pearson certification on fresh runs.

* ``interactive`` (sampled): at each round the policy recommends a_t, an adversary that sees only the
  recommendations so far picks the query action a'_t, and the policy observes the reward of a'_t.  The output is
  the recommendation sequence.  A family of deterministic adversaries is audited — identity (= Table DP),
  constant, flipping, the arm recommended least so far — plus the user's own (``adversary(recs, t, n_arms)``
  returning the queried arms); the failure probability is split over the adversaries and the largest certified
  bound is reported.  (Deterministic adversaries suffice: Azize & Basu, Prop. 2(b).)

* ``interactive`` (exact): pure ε, δ(ε), ε at the claimed δ, D_α, KL and ρ, each the supremum over every
  deterministic adversary, by backward induction on the recommendation/query tree
  (:mod:`privcheck.audit.interactive_exact`).  Chosen by ``auto`` when the policy has ``probs`` and the
  enumeration fits (K = 2: T ≤ 6 without a channel, T ≤ 5 with one); otherwise the sampled adversaries.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from enum import Enum

from privcheck.core import (ApproxDP, InvalidArgument, PureDP, TableNeighbours, ViewNeighbours, check_int,
                            resolve_seed, with_relation)
from privcheck.core.protocols import checked_actions, is_decision_rules, update_uniforms
from privcheck.core.resources import DEFAULT_MAX_HOURS, check_max_hours

from .api import DEFAULT_POLICY_SAMPLES
from .events import user_statistic
from .learned import check_classifier
from .report import AuditReport
from .verdict import deciding, make_report

__all__ = ["audit_policy", "check_releases", "DEFINITIONS", "Definition", "Sampling", "PolicyMechanism"]


class _pulls:
    def __init__(self, k):
        self.k = k

    def __call__(self, acts):
        return (acts == self.k).sum(axis=1)


class _first:
    def __init__(self, k, horizon):
        self.k, self.horizon = k, horizon

    def __call__(self, acts):
        import numpy as np

        hit = acts == self.k
        return np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, self.horizon + 1)


def _switches(acts):
    return (acts[:, 1:] != acts[:, :-1]).sum(axis=1)


class PolicyMechanism:
    """Running a policy for T rounds on one input (a reward table, or a list of observed rewards) as a
    mechanism: ``sample(x, rng, size)`` returns (size, T) action sequences of ``size`` independent runs.
    Feedback goes through ``channel`` (a binary randomizer with ``Q``) when one is given."""

    def __init__(self, policy, horizon: int, definition: str, channel=None, name: str = "policy"):
        self.policy, self.horizon, self.definition, self.channel, self.name = policy, horizon, definition, channel, name

    def cost(self, runs: int = 1024, rounds: int = 64):
        """A run's cost: its T int64 actions held, and the seconds of T rounds, timed on ``runs`` runs of the
        first ``rounds`` rounds of an all-zero input (after one untimed call that pays the start-up)."""
        import numpy as np

        from .sampled import DrawCost

        t = min(self.horizon, rounds)
        short = PolicyMechanism(self.policy, t, self.definition, self.channel, self.name)
        x0 = np.zeros((t, self.policy.n_arms) if self.definition == "table" else (t,))
        rng = np.random.default_rng(0)
        short.sample(x0, rng, 8)
        t0 = time.perf_counter()
        short.sample(x0, rng, runs)
        per_run_round = (time.perf_counter() - t0) / (runs * t)
        return DrawCost(bytes=8.0 * self.horizon, seconds=per_run_round * self.horizon)

    def statistics(self):
        """Features of an action sequence for the sampled engine: pulls of each arm, the first round each arm is
        played (T + 1 if never), and the number of switches."""
        from .events import Statistic

        K, T = self.policy.n_arms, self.horizon
        out = []
        for k in range(K):
            out.append(Statistic("user", fn=_pulls(k), fn_name=f"pulls_of_arm_{k}"))
            out.append(Statistic("user", fn=_first(k, T), fn_name=f"first_round_of_arm_{k}"))
        out.append(Statistic("user", fn=_switches, fn_name="switches"))
        return out

    def query(self, recs, t):
        """The arm whose reward the policy observes at round t: the one it played (Table and View DP)."""
        return recs[:, -1]

    def sample(self, x, rng, size):
        import numpy as np

        x = np.asarray(x, dtype=float)
        want = (self.horizon, self.policy.n_arms) if self.definition == "table" else (self.horizon,)
        if x.shape != want:
            raise InvalidArgument(f"input of shape {x.shape} must be {'a reward table' if len(want) == 2 else 'a reward list'} of shape {want}")
        nup = update_uniforms(self.policy)
        state = self.policy.init(size)
        recs = np.empty((size, self.horizon), dtype=np.int64)
        for t in range(1, self.horizon + 1):
            recs[:, t - 1] = checked_actions(self.policy.act(state, t, rng.random((size, self.policy.n_uniforms))),
                                             size, self.policy.n_arms, self.name)
            arms = self.query(recs[:, :t], t)
            reward = x[t - 1, arms] if self.definition == "table" else np.full(size, x[t - 1])
            if self.channel is not None:
                q1 = self.channel.Q[reward.astype(np.int64), 1]  # P[report 1 | reward]
                feedback = (rng.random(size) < q1).astype(float)
            else:
                feedback = reward
            state = self.policy.update(state, t, arms, feedback, rng.random((size, nup)) if nup else None)
        return recs


class Definition(str, Enum):
    """Which neighbours a policy audit is about (Azize & Basu, §III): reward tables differing in a row (Table
    DP), observed reward lists differing in an entry (View DP), the adversary's queries (Interactive DP), or
    each user's report (local)."""

    TABLE = "table"
    VIEW = "view"
    INTERACTIVE = "interactive"
    LOCAL = "local"

    @classmethod
    def parse(cls, value) -> "Definition":
        try:
            return cls(value)
        except ValueError:
            raise InvalidArgument(f"definition={value!r} must be one of {', '.join(d.value for d in cls)}") \
                from None


DEFINITIONS = tuple(d.value for d in Definition)


@dataclass(frozen=True)
class Sampling:
    """The sampled policy engine's options.  ``samples`` per side defaults to
    :data:`~privcheck.audit.api.DEFAULT_POLICY_SAMPLES` (its reason is there); ``selection_samples`` to ``samples``;
    ``input`` is a reward table (or list) whose neighbours are searched; ``adversary`` a user's interactive
    adversary; ``event`` a user's event or statistic of the action sequences; ``executor`` and ``progress`` only
    say where the runs are drawn and never change a result."""

    samples: int = DEFAULT_POLICY_SAMPLES
    selection_samples: int | None = None
    confidence: float = 0.95
    candidates: int = 1
    input: object = None
    adversary: object = None
    event: object = None
    executor: object = None
    progress: object = None
    classifier: str = "auto"
    max_hours: float = DEFAULT_MAX_HOURS  # the ceiling of an audit's estimated time (exact engines too)

    def __post_init__(self):
        object.__setattr__(self, "max_hours", check_max_hours(self.max_hours))
        object.__setattr__(self, "samples", check_int("samples", self.samples))
        if self.selection_samples is not None:
            object.__setattr__(self, "selection_samples", check_int("selection_samples", self.selection_samples))
        object.__setattr__(self, "candidates", check_int("candidates", self.candidates))
        check_classifier(self.classifier)
        c = self.confidence
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0 < c < 1:
            raise InvalidArgument(f"confidence={c!r} must be in (0, 1)")

    @classmethod
    def of(cls, value) -> "Sampling":
        """A :class:`Sampling`, from one or from a dict of its fields (unknown keys are refused)."""
        if value is None:
            return cls()
        if isinstance(value, cls):
            return value
        if isinstance(value, dict):
            unknown = sorted(set(value) - set(cls.__dataclass_fields__))
            if unknown:
                raise InvalidArgument(f"sampling option {unknown[0]!r} is not one of "
                                      f"{', '.join(cls.__dataclass_fields__)}")
            return cls(**{k: v for k, v in value.items() if v is not None or k in ("input", "adversary", "event")})
        raise InvalidArgument(f"sampling={value!r} must be a Sampling or a dict of its options")

    @property
    def selection(self) -> int:
        return self.selection_samples or self.samples


def audit_policy(policy, claim, definition: str, *, horizon: int | None = None, channel=None, pairs=None,
                 sequence_length: int | None = None, method: str = "auto", seed=None, name: str = "policy",
                 command: str = "", sampling: "Sampling | dict | None" = None,
                 instance: str | None = None) -> AuditReport:
    """Audit a policy; ``sampling`` carries the sampled engine's options (a :class:`Sampling`, or a dict of its
    fields: samples, selection_samples,
    confidence, executor (where the runs are sampled: :mod:`privcheck.core.execution`; the policy is pickled to
    its workers), candidates, input, progress).  ``instance`` says which instance is audited and why (a note of
    the report).

    A policy whose schedule makes no private release within the horizon (its ``first_release()``, the round at
    whose end the first release is made, is at or after the horizon) is refused as bad input: its actions
    cannot depend on the data there, so any claim would pass vacuously."""
    report = _audit_policy(policy, claim, definition, horizon, channel, pairs, sequence_length, method, seed,
                           name, command, Sampling.of(sampling))
    if instance:
        report = dataclasses.replace(report, notes=(*report.notes, f"instance: {instance}"))
    return report


def check_releases(policy, horizon: int, name: str = "policy") -> None:
    """Refuse (bad input) an audit horizon within which ``policy`` makes no private release."""
    first = getattr(policy, "first_release", None)
    if horizon is None or not callable(first):
        return
    t = first()
    if t >= horizon:
        when = "never (a single action is played for ever)" if t == float("inf") else f"at the end of round {int(t):,}"
        knob = next((k for k in ("phase_scale", "width_scale") if hasattr(policy, k)), None)
        shorten = f", or shorten its schedule ({knob}= below its {getattr(policy, knob):g})" if knob else ""
        raise InvalidArgument(f"vacuous: no private release within the horizon — {name} first releases {when}, "
                              f"so its actions up to round {horizon} cannot depend on the data; audit a horizon "
                              f"past it (horizon=){shorten}")


def _audit_policy(policy, claim, definition, horizon, channel, pairs, sequence_length, method, seed, name, command,
                  sampling) -> AuditReport:
    t0 = time.perf_counter()
    seed = resolve_seed(seed)
    definition = Definition.parse(definition).value
    if method not in ("auto", "exact", "sample"):
        raise InvalidArgument(f"method={method!r} must be auto, exact or sample")
    if definition == "interactive":
        horizon = horizon or getattr(policy, "horizon", None)
        if horizon is None:
            raise InvalidArgument("give horizon=")
        check_releases(policy, horizon, name)
        if sequence_length is not None:
            raise InvalidArgument("sequence_length= applies to definition=\"local\"")
        if method == "exact" or (method == "auto" and sampling.adversary is None
                                 and sampling.event is None
                                 and _interactive_exact_feasible(policy, horizon, channel, pairs)):
            return _audit_interactive_exact(policy, claim, horizon, channel, pairs, seed, name, command, t0,
                                            sampling.progress)
        return _audit_interactive(policy, claim, horizon, channel, pairs, seed, name, command, t0, sampling,
                                  sampling.adversary)
    if definition == "local":
        if channel is None and callable(getattr(policy, "report_mechanism", None)):
            channel = policy.report_mechanism()
        return _audit_local(claim, channel, sequence_length, name, command, seed, t0, sampling.progress)
    if sequence_length is not None:
        raise InvalidArgument("sequence_length= applies to definition=\"local\"")
    from .policy_exact import exact_policy_figures

    relation = TableNeighbours() if definition == "table" else ViewNeighbours()
    claim = with_relation(claim, relation)
    if pairs is not None:
        for a, b in pairs:
            if not relation.contains(a, b):
                raise InvalidArgument(f"{a} and {b} are not neighbours under {relation.describe()}")
    horizon = horizon or getattr(policy, "horizon", None)
    if horizon is None:
        raise InvalidArgument("give horizon=")
    check_releases(policy, horizon, name)
    if channel is not None and getattr(channel, "Q", None) is None:
        raise InvalidArgument("the feedback channel must be a finite randomizer")
    if sampling.event is not None and method == "exact":
        raise InvalidArgument("event= applies to the sampled method only")
    if method == "sample" or (method == "auto" and (sampling.event is not None
                                                   or not _exact_feasible(policy, horizon)
                                                   or not _binary(pairs))):
        return _audit_sampled(policy, claim, definition, relation, horizon, channel, pairs, seed, name, command,
                              t0, sampling)
    fig = exact_policy_figures(policy, claim, definition, channel=channel, pairs=pairs, horizon=horizon,
                               progress=sampling.progress, max_hours=sampling.max_hours)
    witness = {"pair": fig["pair"], "event": {"kind": "action sequences", "values": fig["event"],
                                              "size": fig["event_size"]},
               "event_text": f"the action sequence is one of {fig['event_size']} sequences",
               "probabilities": fig["probabilities"], "epsilon_pair": fig["epsilon_pair"]}
    notes = [f"{definition} DP: exact enumeration of {fig['pairs_considered']:,} ordered neighbour pairs"]
    return make_report(target=name, claim=claim, figures=fig["figures"], witness=witness, method="exact",
                       seed=seed, t0=t0, notes=notes, command=command,
                       extra={"definition": definition, "pairs_considered": fig["pairs_considered"],
                              "delta_lower_exact": fig["delta_exact"]})


def _identity(recs, t, k):
    return recs[:, -1]


def _flipping(recs, t, k):
    return (recs[:, -1] + 1) % k


def _least_recommended(recs, t, k):
    import numpy as np

    counts = np.stack([(recs == a).sum(axis=1) for a in range(k)], axis=1)
    return counts.argmin(axis=1)


def adversaries(k: int) -> dict:
    """The built-in deterministic adversaries: name -> function(recommendations so far (runs, t), t, K)."""
    import numpy as np

    out = {"identity": _identity, "flipping": _flipping, "least-recommended": _least_recommended}
    for c in range(k):
        out[f"constant-{c}"] = (lambda c: lambda recs, t, kk: np.full(recs.shape[0], c))(c)
    return out


class InteractiveMechanism(PolicyMechanism):
    """The policy against an adversary, as a mechanism: input a reward table, output the recommendations."""

    def __init__(self, policy, horizon, adversary, channel=None, name="policy"):
        super().__init__(policy, horizon, "table", channel, name)
        self.adversary = adversary

    def query(self, recs, t):
        import numpy as np

        from privcheck.core import TargetError

        try:
            q = np.asarray(self.adversary(recs, t, self.policy.n_arms), dtype=np.int64)
        except Exception as exc:
            raise TargetError(f"the adversary raised {type(exc).__name__}: {exc}") from None
        if q.shape != (recs.shape[0],) or q.min() < 0 or q.max() >= self.policy.n_arms:
            raise TargetError(f"the adversary must return one arm in 0..{self.policy.n_arms - 1} per run")
        return q


def _audit_interactive(policy, claim, horizon, channel, pairs, seed, name, command, t0, sampling, user_adversary):
    from privcheck.core.execution import part_of_plan, plan

    from .sampled import plan_sampling, planned_draws, sampled_audit

    relation = TableNeighbours()
    claim = with_relation(claim, relation)
    _check_inputs_fit(policy, horizon, pairs, sampling)
    pairs = _search_pairs(relation, pairs, _start(policy, sampling, horizon), (horizon, policy.n_arms), seed)
    advs = adversaries(policy.n_arms)
    if user_adversary is not None:
        advs[getattr(user_adversary, "__name__", "user")] = user_adversary
    n = sampling.samples
    conf = sampling.confidence
    per = 1 - (1 - conf) / len(advs)  # the failure probability split over the adversaries
    cost = PolicyMechanism(policy, horizon, "table", channel, name).cost()
    workers = getattr(sampling.executor, "workers", 1)
    seconds = len(advs) * plan_sampling(cost, len(pairs), n, sampling.selection, workers,
                                        f"sampling {n:,} runs per side of {name} against {len(advs)} adversaries",
                                        sampling.max_hours / len(advs),
                                        "fewer samples, or a smaller horizon (every run's actions are held)")
    plan(sampling.progress, len(advs) * planned_draws(len(pairs), n, sampling.selection), seconds=seconds)
    results = {}
    for i, (aname, adv) in enumerate(advs.items()):
        mech = InteractiveMechanism(policy, horizon, adv, channel, name)
        results[aname] = sampled_audit(mech, claim, pairs,
                                       samples=n, selection_samples=sampling.selection,
                                       confidence=per, seed=seed + i, executor=sampling.executor,
                                       candidates=sampling.candidates, name=name,
                                       progress=part_of_plan(sampling.progress),
                                       user_stat=user_statistic(sampling.event),
                                       classifier=sampling.classifier)

    key = lambda r: deciding(claim, r.figures)[0][0].lo
    worst = max(results, key=lambda a: key(results[a]))
    res = results[worst]
    witness = dict(res.witness, adversary=worst)
    witness["event_text"] = f"{res.witness['event_text']} (adversary: {worst})"
    # the report's figures are the worst adversary's; the verdict is refuted if any adversary's is (each was
    # certified at its share of the failure probability, so all hold at once with the stated confidence)
    figures = max((r.figures for r in results.values()), key=lambda f: deciding(claim, f)[0][0].lo)
    return make_report(
        target=name, claim=claim, figures=figures, witness=witness, method="sample", seed=seed, t0=t0,
        samples_per_side=n, selection_samples_per_side=sampling.selection,
        candidates_certified=sampling.candidates, confidence=conf,
        notes=(f"interactive DP: {len(advs)} adversaries ({', '.join(advs)}), each certified at confidence "
               f"{per:.6g}; the largest bound is reported",),
        command=command, extra={"definition": "interactive", "pairs_considered": len(pairs),
                                "per_adversary_epsilon_lower": {a: r.figures.epsilon.lo for a, r in results.items()}})


def _audit_interactive_exact(policy, claim, horizon, channel, pairs, seed, name, command, t0, progress=None):
    from .interactive_exact import check_interactive_work, exact_interactive_figures
    from .policy_exact import inputs_and_pairs

    claim = with_relation(claim, TableNeighbours())
    check_interactive_work(policy.n_arms, horizon, channel, None if pairs is None else 2 * len(pairs))
    inputs, idx_pairs = inputs_and_pairs("table", horizon, policy.n_arms, pairs)
    fig = exact_interactive_figures(policy, claim, horizon, channel, inputs, idx_pairs, progress)
    if "adversary" in fig:
        witness = {"pair": fig["pair"], "adversary": fig["adversary"],
                   "event": {"kind": "recommendation sequences", "values": fig["event"], "size": len(fig["event"])},
                   "event_text": f"the recommendations are one of {len(fig['event'])} sequences, against the "
                                 "adversary given (queries by recommendation prefix)",
                   "probabilities": fig["probabilities"]}
    else:
        witness = {"pair": fig["pair"], "event": {"kind": "path", **fig["path"]},
                   "event_text": f"recommendations {fig['path']['recommendations']} with queries "
                                 f"{fig['path']['queries']} (the path of the largest probability ratio)"}
    return make_report(
        target=name, claim=claim, figures=fig["figures"], witness=witness, method="exact", seed=seed, t0=t0,
        notes=(f"interactive DP: exact over all {fig['adversaries']:,} deterministic adversaries (by backward "
               f"induction on the recommendation/query tree) and {fig['pairs_considered']:,} ordered table pairs",
               "μ (Gaussian DP) is certified for one adversary, the one attaining δ at the claimed ε on the leading pair "
               "(total variation on the pure-ε witness pair when that δ is 0): a lower bound of the supremum over "
               "adversaries"),
        command=command, extra={"definition": "interactive", "pairs_considered": fig["pairs_considered"]})


def _interactive_exact_feasible(policy, horizon, channel, pairs) -> bool:
    from .interactive_exact import MAX_INTERACTIVE_WORK, interactive_work

    if not callable(getattr(policy, "probs", None)) or update_uniforms(policy) or not _binary(pairs):
        return False
    n_inputs = None if pairs is None else 2 * len(pairs)
    return interactive_work(policy.n_arms, horizon, channel, n_inputs) <= math.log2(MAX_INTERACTIVE_WORK)


def _start(policy, sampling, horizon):
    """The reward table whose neighbours are searched: the user's, else the policy's ``audit_table(horizon)``
    (one that reaches its statistics' full sensitivity, e.g. rewards at ±its clipping bound), else None (zeros)."""
    if sampling.input is not None:
        return sampling.input
    table = getattr(policy, "audit_table", None)
    return table(horizon) if callable(table) else None


def _search_pairs(relation, pairs, start, shape, seed):
    """The given pairs, or neighbours of ``start`` (all zeros by default) proposed by the relation."""
    import numpy as np

    from privcheck.core import chunk_generator
    from privcheck.core.rng import PAIR_STREAM

    if pairs is None:
        start = np.zeros(shape) if start is None else np.asarray(start, dtype=float)
        pairs = relation.candidate_pairs(start, chunk_generator(seed, PAIR_STREAM))
    return [(np.asarray(a, float), np.asarray(b, float)) for a, b in pairs]


def _check_inputs_fit(policy, horizon, pairs, sampling) -> None:
    """Refuse, before any table is built, a horizon whose searched reward tables (up to 32 pairs of T × K
    doubles) and one chunk of runs' actions (T int64 each) cannot be held."""
    from privcheck.core import CHUNK_SIZE
    from privcheck.core.resources import check_memory

    n = 2 * (32 if pairs is None else len(pairs)) + 2
    chunk = min(CHUNK_SIZE, max(sampling.samples, sampling.selection))
    check_memory(8.0 * horizon * (policy.n_arms * n + 2 * chunk),
                 f"a sampled policy audit at horizon={horizon:,}",
                 "a smaller horizon (the reward tables and every run's actions are held)")


def _binary(pairs) -> bool:
    """Whether the given pairs (None: all binary tables) have rewards in {0, 1}, as the exact engines need."""
    import numpy as np

    return pairs is None or all(np.isin(np.asarray(x, dtype=float), (0.0, 1.0)).all() for p in pairs for x in p)


def _exact_feasible(policy, horizon) -> bool:
    if is_decision_rules(policy):
        return horizon <= 8
    return callable(getattr(policy, "probs", None)) and horizon <= 5


def _audit_sampled(policy, claim, definition, relation, horizon, channel, pairs, seed, name, command, t0,
                   sampling):
    from .sampled import sampled_audit

    mech = PolicyMechanism(policy, horizon, definition, channel, name)
    _check_inputs_fit(policy, horizon, pairs, sampling)
    shape = (horizon, policy.n_arms) if definition == "table" else (horizon,)
    start = _start(policy, sampling, horizon) if definition == "table" else sampling.input
    pairs = _search_pairs(relation, pairs, start, shape, seed)
    n = sampling.samples
    res = sampled_audit(mech, claim, pairs, samples=n,
                        selection_samples=sampling.selection,
                        confidence=sampling.confidence, seed=seed, executor=sampling.executor,
                        candidates=sampling.candidates, name=name, progress=sampling.progress,
                        user_stat=user_statistic(sampling.event), classifier=sampling.classifier,
                        cost=mech.cost(), max_hours=sampling.max_hours,
                        way_out="fewer samples, or a smaller horizon (every run's actions are held)")
    return make_report(
        target=name, claim=claim, figures=res.figures, witness=res.witness, method="sample", seed=seed, t0=t0,
        samples_per_side=n, selection_samples_per_side=sampling.selection,
        candidates_certified=sampling.candidates, confidence=sampling.confidence,
        notes=(f"{definition} DP: sampled over runs of the policy; outputs are action sequences",), command=command,
        extra={"definition": definition, "pairs_considered": len(pairs)})


def _audit_local(claim, channel, n, name, command, seed, t0, progress=None):
    from privcheck.core.products import SequenceChannel

    from .api import audit

    if channel is None:
        raise InvalidArgument("definition=\"local\" needs a feedback randomizer (rr_epsilon=, or a policy whose "
                              "users randomize their own reports)")
    if not isinstance(claim, (PureDP, ApproxDP)):
        raise InvalidArgument("definition=\"local\" audits an ε-LDP claim: give epsilon=")
    finite = getattr(channel, "Q", None) is not None
    if not finite and n is not None:
        raise InvalidArgument("sequence_length= applies to finite feedback randomizers only")
    if finite:
        per = audit(channel, with_relation(claim, channel.claim.relation), method="exact", seed=seed)
        notes = ["per report: the feedback randomizer under all pairs of single rewards"]
    else:  # a real-valued report (truncation at a public bound B + noise): the extreme pair B ↔ −B, the full
        # sensitivity 2B (the report of any reward in [−B, B] lies between them)
        B = float(channel.bound)
        per = audit(channel, with_relation(claim, channel.claim.relation), pairs=[([B], [-B])], method="auto",
                    seed=seed)
        notes = [f"per report: the users' randomizer ({channel!r}) under pairs of single rewards"]
    report = per
    extra = {"definition": "local", "per_report_epsilon_lower": per.epsilon_lower}
    if n is not None:
        seq = SequenceChannel(channel, n)
        report = audit(seq, with_relation(claim, seq.claim.relation), method="exact", seed=seed, progress=progress)
        extra.update(sequence_length=n, sequence_epsilon_lower=report.epsilon_lower)
        notes.append(f"sequence: {n} rewards, any two sequences (Definition 2 as written); the verdict uses this "
                     "level")
    from dataclasses import replace

    # the report of the level that decides (per report, or the sequence), relabelled for this policy
    return replace(report, target=name, seconds=time.perf_counter() - t0, seed=seed,
                   notes=tuple(report.notes) + tuple(notes), command=command, extra={**report.extra, **extra})
