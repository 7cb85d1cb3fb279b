"""``audit_episodic``: the entry point of an episodic agent's audit (private reinforcement learning; behind
:func:`privcheck.audit_episodic` and ``privcheck audit`` on a factory declaring ``episodes`` or ``states``).

The agent (:mod:`privcheck.core.episodic`) is audited as a mechanism whose draws are independent runs over every
episode: its input is the users' response tapes, one user an episode, and its output every other user's actions
(joint DP per episode) or what it publishes after each episode (``releases``) — or, for local DP per report, its
input is one user's trajectory and its output the messages its ``report(trajectory)`` sends (:mod:`.reports`).  The
relation (:mod:`.relations`) says which mechanism and which pairs: around a built-in MDP's users (:mod:`.instances`),
or a user's trajectory moved at every step, unless given; the runs per side are sized to the agent's measured cost as a
policy's are; then the sampled mechanism engine screens the pairs, chooses events on draws apart and certifies on
fresh runs (:func:`privcheck.audits.mechanism.api.audit`).  A lower bound never certifies privacy.
"""

from __future__ import annotations

import time
from dataclasses import replace
from functools import partial


from privcheck.core import InvalidArgument, resolve_seed, with_relation
from privcheck.core.episodic import EpisodicAgent
from privcheck.core.resources import human_bytes
from privcheck.core.sequential import claim_parameters

from ..mechanism.api import draw_cost, sampled_report
from ..options import Options, takes_options
from ..report import AuditReport, Call
from ..rules import needs
from ..sampling import DrawCost
from ..stages import POLICY
from ..policy.plan import MIN_SIZED, fits_runs, sized
from ..policy.resolved import policy_options
from ..reproduction import InScope
from .first import FIRST_LEAST, FIRST_RUNS, first_checked, first_fitting, first_note, last_changed
from .instances import mdp_for, said_in_python
from .relations import EPISODIC_RELATIONS, episodic_relation_named

__all__ = ["audit_episodic", "EPISODIC_DEFINITIONS"]

#: the definitions an episodic audit takes
EPISODIC_DEFINITIONS = tuple(EPISODIC_RELATIONS)


@takes_options
def audit_episodic(
    agent,
    claim,
    definition: str = "joint",
    *,
    episodes: int,
    horizon: int,
    states: int | None = None,
    actions: int | None = None,
    mdp="chain",
    dim: int | None = None,
    pairs=None,
    releases=None,
    first_episodes: int | None = None,
    factory_args: dict | None = None,
    method: str = "auto",
    seed=None,
    name: str | None = None,
    **options,
) -> AuditReport:
    """Audit an episodic agent (private reinforcement learning) against a privacy claim under ``definition``
    (``"joint"``: joint DP per episode; ``"local"``: local DP per report, the runs' ``report(trajectory)`` —
    :mod:`privcheck.audits.episodic.relations`).

    Parameters
    ----------
    agent : a factory of episodic runs (``act(k, h, state)``, ``update(k, h, state, action, reward, next_state)``,
        ``end_episode(k)`` where it has one: :mod:`privcheck.core.episodic`), given the ``episodes``, ``horizon``,
        ``states``, ``actions``, ``rng`` and claim parameters it declares; batched when it declares ``runs``.
    claim : the claim under test.
    definition : which neighbours the claim is about.
    episodes, horizon, states, actions : the instance audited: K users of one episode each, H steps, S states, A
        actions.
    mdp : the MDP the users' response tapes are drawn from: a built-in's name (``chain``, ``riverswim``, ``random``)
        or an environment holding its dynamics as gymnasium's toy-text environments do, a table ``P[s][a]`` of
        (probability, next state, reward, terminated) outcomes — the environment, or a class or factory that makes it
        with no arguments (:func:`~.instances.mdp_of_env`); its states and actions are then the instance's
        (``states`` and ``actions`` may be left out).  A local audit's inputs are trajectories, which it does not
        enter.
    dim : a linear MDP's feature dimension, for an agent that declares ``dim`` or ``features``: it is given the public
        features φ(s, a) ∈ ℝ^dim, ‖φ‖₂ ≤ 1 (:func:`~privcheck.core.episodic.linear_features`); the users' tapes and
        the neighbours are a tabular agent's.
    pairs : (x, x') pairs of :class:`~privcheck.core.episodic.Tapes` (the changed user marked) to audit instead — for
        a local audit, of the audited user's trajectories (H × 4: state, action, reward, next state a step; or
        2 × 4H with an earlier user's first, the same on both sides: :mod:`.reports`) — instead of the search's.
    releases : what the agent publishes, audited instead of its actions: attribute names of a run object read
        after each episode (a method is called).
    first_episodes : read each run on its first episodes only (the agent made for all ``episodes``; joint DP): a
        refutation holds for the agent, a bound that does not refute says nothing of later episodes
        (:mod:`.first`).  None: every episode — or, where whole runs do not fit the default plan and ``samples`` is
        not given, the longest prefix that does, said in the report.
    factory_args : the factory's own parameters by name (never the claim's or the instance's).
    method : ``auto`` or ``sample`` (the runs are sampled: no exact enumeration of an agent's runs).
    seed : reproduces the audit; generated and reported when None.
    name : what the report calls the agent.

    Other Parameters
    ----------------
    {options}

    Returns
    -------
    AuditReport — a violation is reported, never raised.  A report that does not refute the claim is a lower bound
    on the privacy loss, never a certificate of privacy.
    """
    t0 = time.perf_counter()
    relation = episodic_relation_named(definition)
    if method not in ("auto", "sample"):
        raise InvalidArgument(f"method={method!r} must be auto or sample (an episodic agent's runs are sampled)")
    if claim is None:
        raise InvalidArgument("claim=None: give the claim under test, e.g. PureDP(1.0)")
    needs(claim)
    if not callable(agent):
        raise InvalidArgument(f"agent={agent!r} must be a factory of episodic runs (act(k, h, state), update(…))")
    name = name or getattr(agent, "__name__", None) or type(agent).__name__
    releases = _checked_releases(releases)
    instance = mdp_for(mdp, states, actions)  # (an environment's size is its own)
    states, actions = instance.rewards.shape
    made = EpisodicAgent(
        agent, episodes, horizon, states, actions, claim_parameters(claim), name, factory_args, dim=dim
    )
    claim = with_relation(claim, relation.neighbours())
    seed = resolve_seed(seed)
    given = None if pairs is None else relation.given(pairs, made)
    read = first_checked(first_episodes, made, relation, given)
    opts = policy_options(options)
    with opts.executor() as executor:
        workers = executor.workers
    read_on = partial(_read_on, relation, made, releases, name, instance, given, seed)
    mech, pair_list, search_note, cost = read_on(read)
    first_notes = [] if read is None else [first_note(read, made.episodes)]
    if read is None and _whole_too_long(opts, cost, workers, made, relation, pair_list):
        least = FIRST_LEAST if given is None else max(FIRST_LEAST, last_changed(given) + 2)
        first = first_fitting(made.episodes, cost, lambda c: fits_runs(opts, c, workers, FIRST_RUNS, pair_list), least)
        if first < made.episodes:
            read, first_notes = first, [first_note(first, made.episodes, cost)]
            mech, pair_list, search_note, cost = read_on(read)
    opts, sized_notes = sized(opts, cost, workers, 1, pair_list, subject="agent")
    call = Call(
        "audit_episodic",
        name,
        {
            "claim": claim,
            "definition": relation.name,
            "episodes": made.episodes,
            "horizon": made.horizon,
            "states": made.states,
            "actions": made.actions,
            "mdp": mdp if isinstance(mdp, str) else InScope(said_in_python(mdp)),
            **({} if dim is None else {"dim": made.dim}),
            "releases": list(releases) if releases else None,
            **({} if read is None else {"first_episodes": read}),
            "factory_args": factory_args,
            "pairs": None if pairs is None else pair_list,
            "seed": seed,
        },
        source=agent,
    )
    wide = ""  # (a plan refused for what the releases hold: what the user may publish less of)
    if releases:
        wide = (
            f"fewer releases=, episodes= or first_episodes= (a run publishes {human_bytes(cost.bytes)} with its "
            "changes); "
        )
    report = sampled_report(
        mech, mech, claim, pair_list, opts, seed, name, call, [], t0, POLICY, mech.event_text, cost, way_out=wide
    )
    notes = [
        f"{relation.sampled}; {mech.outputs()}",
        *first_notes,
        *([search_note] if search_note else []),
        *sized_notes,
        *report.notes,
        *([made.adapter_note] if made.adapter_note else []),
    ]
    return replace(
        report,
        relation=relation,
        definition=relation.name,
        notes=tuple(notes),
        seconds=time.perf_counter() - t0,
        extra={
            **{k: v for k, v in report.extra.items() if k != "classifier"},
            "episodic": made.instance,
            "mdp": instance.name,
            **({} if read is None else {"first_episodes": read}),
        },
    )


def _checked_releases(releases) -> tuple | None:
    if releases is None:
        return None
    if isinstance(releases, str):
        releases = (releases,)
    releases = tuple(releases)
    if not releases or not all(isinstance(r, str) and r.isidentifier() for r in releases):
        raise InvalidArgument(f"releases={releases!r} must name attributes of the agent's runs, e.g. ('visits',)")
    return releases


def _read_on(relation, made, releases, name: str, instance, given, seed: int, read) -> tuple:
    """(the mechanism audited, its pairs, the search's note, a draw's measured cost) where each run is read on its
    first ``read`` episodes (None: all of them): the pairs ``given``, else the relation's proposed among those
    episodes' users."""
    mech = relation.mechanism(made, releases, name, read)
    pairs, note = (given, None) if given is not None else relation.proposed(made, instance, read)
    return mech, pairs, note, draw_cost(mech, pairs[0][0], seed, name, 64, 512)


def _whole_too_long(opts: Options, cost: DrawCost, workers: int, made, relation, pairs) -> bool:
    """Whether the plan may read each run on its first episodes only (:mod:`.first`): no ``samples`` given, the
    relation's draws are runs of a run object, and not even the least sized plan of whole runs fits."""
    if not (opts.sized and relation.reads_first and not made.loop):
        return False
    return not fits_runs(opts, cost, workers, MIN_SIZED, pairs)
