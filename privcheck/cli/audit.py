"""``privcheck audit TARGET``: a built-in mechanism or policy, or a user's, against a claim."""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

from dataclasses import replace

from privcheck import audit, audit_episodic, audit_policy
from privcheck.audits.episodic.instances import MDPS
from privcheck.audits.episodic.relations import EPISODIC_RELATIONS
from privcheck.audits.options import DEFAULT_SAMPLES, OPTIONS
from privcheck.audits.policy.plan import fitted_to_memory
from privcheck.audits.policy.relations import RELATIONS, relation_named
from privcheck.audits.present.figure import check_plot_path, save_figure
from privcheck.core import InvalidArgument, PureDP, Unspecified, relation_from_name, with_relation
from privcheck.core.claims import claim_parameters
from privcheck.core.foreign import ADAPTERS
from privcheck.core.episodic import is_episodic
from privcheck.core.sequential import looks_like_policy
from privcheck.core.protocols import Claimed, OwnRelation, RandomnessWarning, provides
from privcheck.core.targets import Described, load_object

from .common import (
    SEED,
    EXECUTION,
    OUTPUT,
    common_groups_last,
    power_of_two,
    Progress,
    add_option,
    add_private_policy_options,
    claim_from_args,
    count,
    emit,
    json_value,
    private_policy_options,
    typed_options,
)
from .reproduce import command_words


_OWN = (
    "scale",
    "sigma",
    "rr_epsilon",
    "p00",
    "p11",
    "sensitivity",
    "k",
    "gamma",
    "bound",
    "horizon",
    "noise_epsilon",
    "calibration",
    "sharing_probability",
    "threshold",
    "threshold_on",
    "codes",
    "actions",
    "grid",
    "sampler",
    "noise_multiplier",
)


def build_target(args, claim):
    """(description of the target, claim under test, display name); the target is built here once, to check it.

    The description is what a worker process rebuilds (:mod:`privcheck.core.targets`): a built-in by name
    and parameters, a user's target by its reference (a file path made absolute)."""
    from privcheck.mechanisms.registry import BUILTINS

    if args.target in BUILTINS:
        b = BUILTINS[args.target]
        given = {k: getattr(args, k) for k in _OWN if getattr(args, k) is not None}
        unknown = [k for k in given if k not in b.parameters and k != "sensitivity"]
        if unknown:
            raise InvalidArgument(
                f"{b.name} has no parameter --{unknown[0].replace('_', '-')} "
                f"(its parameters: {', '.join('--' + p.replace('_', '-') for p in b.parameters)})"
            )
        if claim is None and not given:
            raise InvalidArgument(
                "state the claim under test with --epsilon, --delta, --rho, --mu or --order "
                f"(or give {b.name}'s own parameters to test its own claim)"
            )
        described = Described(
            "privcheck.mechanisms.registry:build_builtin",
            {"name": b.name, "claim": PureDP(1.0) if claim is None else claim, "params": given},
        )
        mech = described.build()
        # a built-in's neighbour relation: its ``relation`` where it has one (its own claim may be unavailable)
        relation = (mech.relation if provides(mech, OwnRelation) else None) or mech.claim.relation
        claim = mech.claim if claim is None else with_relation(claim, relation)
        return described, claim, b.name
    own = [k for k in _OWN if getattr(args, k) is not None and k != "sensitivity"]
    if own:
        raise InvalidArgument(
            f"--{own[0].replace('_', '-')} is a built-in's parameter; it does not apply to {args.target}"
        )
    obj = load_object(args.target)
    mod_part, _, attr = args.target.rpartition(":")
    if mod_part.endswith(".py") or os.sep in mod_part:
        mod_part = str(Path(mod_part).resolve())
    if claim is None:
        claim = obj.claim if provides(obj, Claimed) else None
        if claim is None:
            raise InvalidArgument("state the claim under test with --epsilon, --delta, --rho, --mu or --order")
    return Described(f"{mod_part}:{attr}", call=False), claim, args.target


def _relation(args, claim, builtin: bool):
    stream = _stream_range(args)
    if args.neighbours is not None:
        return relation_from_name(args.neighbours, args.sensitivity, stream)
    if args.stream_length is not None:  # a stream's: event-level, one element replaced
        return relation_from_name("event", None, stream)
    if builtin:
        return claim.relation
    if args.sensitivity is not None or args.input is not None:
        return relation_from_name("replace-l1", args.sensitivity)
    return Unspecified()


def _stream_range(args) -> tuple:
    """--stream-range LO HI (default [0, 1]), checked."""
    if args.stream_range is None:
        return (0.0, 1.0)
    lo, hi = args.stream_range
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise InvalidArgument(f"--stream-range {lo:g} {hi:g} must be two finite numbers LO < HI")
    return (lo, hi)


def _stream_input(args):
    """The stream whose neighbours are searched: --input, or --stream-length T values at the range's low end (T
    vectors of --stream-dim values)."""
    if args.stream_length is None:
        if args.stream_range is not None or args.stream_dim is not None:
            raise InvalidArgument("--stream-range and --stream-dim apply with --stream-length T")
        return json_value(args.input, "--input") if args.input is not None else None
    if args.input is not None:
        raise InvalidArgument("--stream-length makes the input a stream: give --input or --stream-length, not both")
    lo, _ = _stream_range(args)
    shape = (args.stream_length,) if args.stream_dim is None else (args.stream_length, args.stream_dim)
    return [[lo] * shape[1] for _ in range(shape[0])] if len(shape) == 2 else [lo] * shape[0]


def _policy_target(args, claim):
    """The audited instance (:func:`privcheck.policies.audited.audited`) when the target is a policy, else None."""
    from privcheck.policies.audited import audited

    return audited(
        args.target,
        claim=claim,
        definition=args.definition,
        arms=2 if args.arms is None else args.arms,
        horizon=args.horizon,
        rr_epsilon=args.rr_epsilon,
        dim=args.dim,
        rules=args.rules,
        options={**private_policy_options(args), "action_set": args.action_set},
        schedule=args.schedule or "published",
        adapter=args.adapter,
        one_based=args.one_based,
        factory_args=_factory_args(args.factory_args),
        contexts=_contexts(args),
        context_bound=args.context_bound,
    )


def _contexts(args):
    """The public contexts of a contextual policy's audit: --contexts, or those a contextual table holds (--table,
    --pair: {"rewards", "contexts"}), which must agree."""
    from privcheck.audits.policy.joint import with_table_contexts

    given = json_value(args.contexts, "--contexts") if args.contexts is not None else None
    table = json_value(args.table, "--table") if args.table is not None else None
    pairs = [(json_value(a, "--pair"), json_value(b, "--pair")) for a, b in args.pair] if args.pair else None
    return with_table_contexts(table, pairs, relation_named(args.definition or "table"), given)[2]


def _definitions() -> str:
    """The neighbouring relations a policy audit takes, by name
    (:data:`~privcheck.audits.policy.relations.RELATIONS`)."""
    names = list(RELATIONS)
    return f"{', '.join(names[:-1])} or {names[-1]}"


def _factory_args(pairs) -> dict | None:
    """--set NAME=VALUE (repeatable) as keywords: each VALUE read as JSON (numbers, lists, true), else a string."""
    import json

    if not pairs:
        return None
    out = {}
    for item in pairs:
        key, eq, value = item.partition("=")
        if not eq or not key.isidentifier():
            raise InvalidArgument(f"--set {item!r} must be NAME=VALUE, NAME a Python identifier (e.g. window=50)")
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out


def _table(value, horizon):
    """--table as an array of rewards: rectangular, numeric, finite, one row per round."""
    import numpy as np

    try:
        a = np.asarray(value, dtype=float)
    except (ValueError, TypeError):
        raise InvalidArgument(
            "--table must be a rectangular array of numbers (one row of rewards per round): "
            "its rows have different lengths or hold non-numbers"
        ) from None
    if a.ndim not in (1, 2) or not np.isfinite(a).all():
        raise InvalidArgument(
            f"--table must be a list of rewards or a table of rows of finite rewards, not an array of shape {a.shape}"
        )
    if horizon is not None and a.shape[0] != horizon:
        raise InvalidArgument(f"--table has {a.shape[0]} rows, not one per round of --horizon {horizon}")
    return a


def cmd_audit_policy(args, argv, inst, claim) -> int:
    if claim is None:
        raise InvalidArgument("state the claim under test with --epsilon, --delta, --rho, --mu or --order")
    if inst.definition is None:
        raise InvalidArgument(f"auditing a policy needs --definition {_definitions()}")
    pairs = None
    if args.pair:
        pairs = [(json_value(a, "--pair"), json_value(b, "--pair")) for a, b in args.pair]
    start = None
    if args.table is not None:
        start = json_value(args.table, "--table")
        start = start if isinstance(start, dict) else _table(start, inst.horizon)  # (a contextual table as it is)
    adversary = load_object(args.adversary) if args.adversary else None
    if provides(inst.policy, RandomnessWarning) and inst.policy.randomness_warning:  # said before any verdict
        print(f"privcheck: note: {inst.policy.randomness_warning}", file=sys.stderr)
    with Progress(args, unit=" runs") as progress:
        report = audit_policy(
            inst.policy,
            claim,
            inst.definition,
            horizon=inst.horizon,
            channel=inst.channel,
            pairs=pairs,
            input=start,
            adversary=adversary,
            sequence_length=args.sequence_length,
            method=args.method,
            seed=args.seed,
            name=inst.name,
            instance=inst.note,
            reward_range=args.reward_range,
            releases=args.releases,
            **_options(args, None, progress),  # none given: the library sizes the runs to the policy's cost
        )
    return _emit(_typed(report, _sized_words(report, argv, args), args), args)


def _sized_words(report, argv, args) -> list:
    """``argv`` with the size a policy's or an agent's audit chose for its runs (none given), for the reproduce line:
    the call's runs per side (a stage that stopped early sampled fewer), and the screening where it was fitted to
    this machine's memory — one the runs derive is derived again from them; and the first episodes an agent's runs
    were read on, where the plan chose them."""
    first = report.call.arguments.get("first_episodes")
    if first is not None and args.first_episodes is None:
        argv = [*argv, "--first-episodes", str(first)]
    if args.samples is not None or not any(n.startswith("runs per side sized") for n in report.notes):
        return argv
    samples, fitted = report.call.arguments["samples"], report.call.arguments.get("options", {}).get("screening")
    argv = [*argv, "--samples", str(samples)]
    if args.screening is None and fitted is not None and fitted_to_memory(samples, fitted):
        argv = [*argv, "--screening", str(fitted)]
    return argv


def _options(args, default_samples: int | None, progress) -> dict:
    """The audit's options from the flags, the same for a mechanism and a policy: every option of the one table
    (:data:`~privcheck.audits.options.OPTIONS`) that has a flag, the event loaded, and the progress."""
    event = load_object(args.event) if args.event else None
    if event is not None and not callable(event):
        raise InvalidArgument(f"--event {args.event} is not a function")
    options = typed_options(args)  # (a flag not typed is not given: the library's default applies)
    options.update(event=event, progress=progress.update)
    if args.samples is None:
        options["samples"] = default_samples
    return options


def _typed(report, argv, args):
    """The report with the command that was typed (its seed made explicit) as its reproduce line — and the count of
    stages, where the sampling's estimated time chose it (:func:`privcheck.audits.stages.pinned`), and the selection
    sample, where this machine's memory chose it (:func:`privcheck.audits.sampling.fitted_selection`): a machine of
    another speed or size would choose otherwise."""
    said = (report.call.arguments if report.call else {}).get("options") or {}
    if args.stages is None and said.get("stages") is not None:
        argv = [*argv, "--stages", str(said["stages"])]
    if args.selection_samples is None and said.get("selection_samples") is not None:  # (fitted to memory)
        argv = [*argv, "--selection-samples", str(said["selection_samples"])]
    return replace(report, call=replace(report.call, command_line=command_words(argv, report.seed)))


def _builtin_parameter_help(flag: str) -> str:
    """The help of a built-in's own parameter: what it means for each built-in that takes it (from the registry,
    the one place that says so)."""
    from privcheck.mechanisms.registry import BUILTINS

    key = flag[2:].replace("-", "_")
    uses = [f"{b.name}: {b.parameters[key]}" for b in BUILTINS.values() if key in b.parameters]
    if key == "horizon":
        uses.append("policies: the horizon T of the audited runs")
    return "; ".join(uses) or "a built-in's own parameter"


def cmd_audit(args, argv) -> int:
    from privcheck.mechanisms.registry import BUILTINS

    if args.plot is not None:
        check_plot_path(args.plot)
    claim = claim_from_args(args)
    if _is_episodic(args, BUILTINS):
        return cmd_audit_episodic(args, argv, claim)
    _check_user_target(args, BUILTINS)
    inst = _policy_target(args, claim)
    if inst is not None:
        return cmd_audit_policy(args, argv, inst, claim)
    for flag in (
        "definition",
        "rules",
        "sequence_length",
        "arms",
        "table",
        "adversary",
        "nu",
        "u",
        "width_scale",
        "dim",
        "context_bound",
        "reward_bound",
        "action_bound",
        "noise_multiplier",
        "phase_scale",
        "action_set",
        "reward_range",
        "releases",
        "schedule",
        "episodes",
        "states",
        "mdp",
    ):
        if getattr(args, flag) is not None and not (flag in _OWN and args.target in BUILTINS):
            user = ":" in args.target and args.definition is None
            raise InvalidArgument(
                f"--{flag.replace('_', '-')} applies to policy targets only"
                + (
                    f"; if {args.target} is a policy, say which privacy its audit is about: --definition "
                    f"{_definitions()}"
                    if user
                    else ""
                )
            )

    described, claim, name = build_target(args, claim)
    relation = _relation(args, claim, args.target in BUILTINS)
    claim = with_relation(claim, relation)
    pairs = None
    if args.pair:
        pairs = [(json_value(a, "--pair"), json_value(b, "--pair")) for a, b in args.pair]
    x = _stream_input(args)
    with Progress(args) as progress:
        report = audit(
            described,
            claim,
            pairs=pairs,
            input=x,
            method=args.method,
            seed=args.seed,
            name=name,
            **_options(args, DEFAULT_SAMPLES, progress),
        )
    return _emit(_typed(report, argv, args) if report.call.reproducible else report, args)


def _is_episodic(args, builtins) -> bool:
    """Whether the target is an episodic agent: --episodes, --states or --mdp given, or a user's factory that declares
    episodes or states (told apart by its signature: :func:`privcheck.core.episodic.is_episodic`)."""
    if any(getattr(args, f) is not None for f in ("episodes", "states", "mdp", "first_episodes")):
        return True
    if args.target in builtins or ":" not in args.target:
        return False
    return is_episodic(load_object(args.target))


def cmd_audit_episodic(args, argv, claim) -> int:
    """An episodic agent's audit (:func:`privcheck.audit_episodic`)."""
    if claim is None:
        raise InvalidArgument("state the claim under test with --epsilon, --delta, --rho, --mu or --order")
    if ":" not in args.target:
        raise InvalidArgument(
            f"--episodes, --states and --mdp apply to an episodic agent, file.py:NAME or package.module:NAME, not "
            f"{args.target}"
        )
    mdp = _mdp_of(args.mdp)
    sized = ("states", "actions") if isinstance(mdp, str) else ()  # (an environment's are its own)
    missing = [f for f in ("definition", "episodes", "horizon", *sized) if getattr(args, f) is None]
    if missing:
        raise InvalidArgument(
            f"{args.target} is an episodic agent: its audit needs "
            + ", ".join(f"--{m}" + (f" {_episodic_definitions()}" if m == "definition" else "") for m in missing)
        )
    if args.actions is not None and (args.actions != int(args.actions) or args.actions < 1):
        raise InvalidArgument(f"--actions {args.actions:g} must be a count of actions (at least 1)")
    for flag in ("pair", "table", "input", "rules", "arms", "adversary", "sequence_length", "contexts"):
        if getattr(args, flag, None):
            raise InvalidArgument(f"--{flag.replace('_', '-')} does not apply to an episodic agent")
    agent = load_object(args.target)
    with Progress(args, unit=" runs") as progress:
        report = audit_episodic(
            agent,
            claim,
            args.definition,
            episodes=args.episodes,
            horizon=args.horizon,
            states=args.states,
            actions=None if args.actions is None else int(args.actions),
            mdp=mdp,
            dim=args.dim,
            releases=args.releases,
            first_episodes=args.first_episodes,
            factory_args=_factory_args(args.factory_args),
            method=args.method,
            seed=args.seed,
            name=args.target.rsplit(":", 1)[1],
            **_options(args, None, progress),
        )
    argv = _sized_words(report, argv, args)
    return _emit(_typed(report, argv, args) if report.call.reproducible else report, args)


def _mdp_of(said: str | None):
    """What ``--mdp`` names: a built-in's name (chain where not given), or the object ``file.py:NAME`` or
    ``package.module:NAME`` names — an environment with a toy-text table ``P``, or its class or factory."""
    if said is None or said in MDPS:
        return said or "chain"
    if ":" not in said:
        raise InvalidArgument(
            f"--mdp {said} must be a built-in ({', '.join(MDPS)}) or an environment, file.py:NAME or "
            "package.module:NAME, holding its dynamics as a toy-text table P[s][a]"
        )
    return load_object(said)


def _episodic_definitions() -> str:
    return " or ".join(EPISODIC_RELATIONS)


def _check_user_target(args, builtins) -> None:
    """The mistakes made naming one's own target, said as what to type: a file without its function (the
    functions and classes it defines listed, read without running it), a policy without --definition."""
    target = args.target
    if target in builtins or target == "tabular":
        return
    if ":" not in target:
        path = Path(target)
        if target.endswith(".py") or path.is_file():
            names = _top_level_names(path) if path.is_file() else []
            listed = f" (it defines {', '.join(names[:8])}{', …' if len(names) > 8 else ''})" if names else ""
            raise InvalidArgument(f"{target} names a file: say which function or class, {target}:NAME{listed}")
        return
    if args.definition is None and looks_like_policy(load_object(target)):
        raise InvalidArgument(
            f"{target} is a bandit policy: say which privacy its audit is about, --definition {_definitions()}"
        )


def _top_level_names(path: Path) -> list:
    """The public functions and classes a Python file defines at its top level (parsed, not run)."""
    import ast

    try:
        tree = ast.parse(path.read_text())
    except (OSError, SyntaxError, ValueError):
        return []
    kinds = (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)
    return [n.name for n in tree.body if isinstance(n, kinds) and not n.name.startswith("_")]


def _emit(report, args) -> int:
    """Print the report; draw its figure when asked (the path was checked before the audit ran)."""
    if args.plot is not None:
        save_figure(report, args.plot)
    return emit(report, args.json)


def register(sub):
    p = sub.add_parser(
        "audit",
        parents=[SEED, EXECUTION, OUTPUT],
        help="audit a mechanism against a privacy claim",
        description="Audit a mechanism or a bandit policy against a privacy claim: a certified lower bound on its "
        "privacy loss, and the claim refuted when the bound exceeds it (exit 1). A lower bound never certifies "
        "privacy: 'not refuted' means this audit found no violation.",
    )
    p.add_argument("target", help="a built-in name (privcheck list), file.py:function or package.module:function")
    for group in (_claim_flags, _input_flags, _builtin_flags, _policy_flags, _episodic_flags, _audit_flags):
        group(p)
    p.set_defaults(run=cmd_audit)
    common_groups_last(p)


def _claim_flags(p):
    c = p.add_argument_group("the claim under test")
    said = claim_parameters()  # every claim type's parameters (privcheck.core.claims)
    for name, text in said.items():
        c.add_argument(f"--{name}", type=float, help=text.format_map({k: f"--{k}" for k in said}))


def _input_flags(p):
    n = p.add_argument_group("inputs")
    n.add_argument(
        "--pair",
        nargs=2,
        action="append",
        metavar=("X", "X'"),
        help="a neighbouring pair as JSON, each written inline or as @file.json (repeatable)",
    )
    n.add_argument("--input", help="an input (JSON, or @file.json) whose neighbours are searched")
    n.add_argument(
        "--neighbours",
        help="replace-l1 | replace-l2 | replace-linf | add-remove | replace-record; for a stream, event (one element "
        "replaced: the default with --stream-length) or user:k,b (one user's k elements, at least b apart) "
        "(default: a built-in's own relation; the given pairs for your own target)",
    )
    n.add_argument(
        "--stream-length",
        type=count,
        metavar="T",
        help="your target f(x, rng, size) takes a stream of T values and returns size release sequences (size × T): "
        "its neighbours are searched where they matter (first, last, powers of two, the middle)",
    )
    n.add_argument(
        "--stream-range",
        nargs=2,
        type=float,
        metavar=("LO", "HI"),
        help="with --stream-length: the range of the stream's values (default 0 1)",
    )
    n.add_argument("--stream-dim", type=count, metavar="D", help="with --stream-length: each element a vector of D")
    n.add_argument("--sensitivity", type=float, help="the relation's bound on how far neighbours are apart (default 1)")


def _builtin_flags(p):
    m = p.add_argument_group("a built-in's own parameters (otherwise it is calibrated to the claim)")
    for flag, typ in (
        ("--scale", float),
        ("--sigma", float),
        ("--rr-epsilon", float),
        ("--p00", float),
        ("--p11", float),
        ("--k", float),
        ("--gamma", float),
        ("--bound", float),
        ("--horizon", count),
        ("--noise-epsilon", float),
        ("--calibration", str),
        ("--sharing-probability", float),
        ("--threshold", float),
        ("--threshold-on", str),
        ("--codes", float),
        ("--actions", float),
    ):
        m.add_argument(flag, type=typ, help=_builtin_parameter_help(flag))
    m.add_argument(
        "--grid",
        type=power_of_two,
        help="the grid step g of a grid built-in, a power of two such as 2**-20 (default: the largest <= Δ·2^-20)",
    )
    m.add_argument(
        "--sampler",
        choices=["exact", "float"],
        help="exact: integers only, on the grid (default); float: the textbook floating-point sampler, "
        "kept as a demonstration — not protected against bit-level attacks",
    )


def _policy_flags(p):
    b = p.add_argument_group("policies (tabular, kl-ucb-cf, …)")
    b.add_argument(
        "--definition",
        help=" | ".join(RELATIONS) + " (joint: a contextual policy, one user's context and rewards "
        "changed, their own action left out)",
    )
    b.add_argument("--rules", help="decision-rule tables as JSON (the tabular policy)")
    b.add_argument("--arms", type=count, help="arms of the audited instance (default 2)")
    b.add_argument(
        "--dim",
        type=count,
        help="linear and contextual policies: the dimension of the audited instance's actions or contexts (default 2); "
        "episodic agents of a linear MDP (declaring dim or features): the dimension of the features they are given",
    )
    b.add_argument(
        "--schedule",
        choices=("published", "shortened"),
        help="private built-in policies: audit the published schedule (default: at the smallest horizon where its "
        "releases decide actions) or the shortened one (phases or widths scaled down, horizon 8, the noise as "
        "published: fast)",
    )
    b.add_argument("--sequence-length", type=count, help="local: Definition 2 over sequences of this length")
    b.add_argument("--adversary", help="interactive: module:function(recommendations, t, n_arms) -> queried arms")
    b.add_argument(
        "--table",
        help="sampled policy audits: a reward table (or list; JSON, or @file.json) whose neighbours are searched",
    )
    b.add_argument(
        "--adapter",
        choices=list(ADAPTERS),
        help="your policy's runs have another shape than act(t)/update(t, arm, reward): "
        + "; ".join(f"{k}: {v}" for k, (_, v) in ADAPTERS.items())
        + " (a known shape is also recognised without it, arms numbered from 0)",
    )
    b.add_argument(
        "--one-based",
        action="store_true",
        help="your code numbers the arms from 1 (its runs of a shape --adapter names, recognised or named)",
    )
    b.add_argument(
        "--contexts",
        help="a contextual policy (act(t, contexts)): the public contexts, horizon × arms × dim (JSON, or "
        "@file.json); default: drawn once on the sphere of radius --context-bound in R^dim (--dim, default 2)",
    )
    b.add_argument(
        "--releases",
        nargs="+",
        metavar="NAME",
        help="audit what your policy publishes instead of its actions: attributes of its run objects (or of a batched "
        "policy's state) read after every round's update — a method is called — e.g. --releases V b",
    )
    b.add_argument(
        "--reward-range",
        nargs=2,
        type=float,
        metavar=("LO", "HI"),
        help="your policy's rewards, when not in [0, 1] (e.g. --reward-range -1 1): the search moves rewards between "
        "them and given tables are checked against them",
    )
    b.add_argument(
        "--action-set",
        choices=("contexts", "fixed"),
        help="AdaC-OFUL's audit: a fresh public action set each round (contexts, the default) or one fixed action "
        "set (fixed)",
    )
    b.add_argument(
        "--context-bound",
        type=float,
        help="a contextual policy: the norm bound L of its contexts (default 1) — given contexts are checked against "
        "it, drawn ones lie on its sphere, and a factory declaring context_bound is given it",
    )
    b.add_argument(
        "--set",
        metavar="NAME=VALUE",
        action="append",
        dest="factory_args",
        help="a parameter of your own policy factory (repeatable; VALUE read as JSON, else as a string), e.g. "
        "--set window=50",
    )
    add_private_policy_options(b)


def _episodic_flags(p):
    e = p.add_argument_group(
        "episodic agents (private reinforcement learning: act(k, h, state), update(k, h, state, action, reward, "
        "next_state)); --horizon is the steps of an episode, --actions the actions, --releases what the agent "
        "publishes after each episode"
    )
    e.add_argument("--episodes", type=count, metavar="K", help="the episodes audited, one user each")
    e.add_argument("--states", type=count, metavar="S", help="the states of the tabular instance")
    e.add_argument(
        "--first-episodes",
        type=count,
        metavar="N",
        help="read each run on its first N episodes only (the agent made for all --episodes; joint DP): a refutation "
        "holds for the agent, a pass says nothing of later episodes; default: every episode, or the longest prefix "
        "whose runs fit the default plan where whole runs do not (the report says so)",
    )
    e.add_argument(
        "--mdp",
        metavar="NAME",
        help=f"the MDP the users' response tapes are drawn from: a built-in ({', '.join(MDPS)}; default chain), or an "
        "environment file.py:NAME (or its class or factory) holding its dynamics as gymnasium's toy-text environments "
        "do, a table P[s][a] of (probability, next state, reward, terminated) — its states and actions are then the "
        "instance's",
    )


def _audit_flags(p):
    a = p.add_argument_group("the audit")
    a.add_argument(
        "--method",
        default="auto",
        choices=["auto", "exact", "sample"],
        help="exact enumeration or integration, sampling, or auto: exact where the target has an exact face",
    )
    for name in (o.name for o in OPTIONS if o.cli is not None and not o.shared):
        add_option(a, name)
    a.add_argument(
        "--plot",
        metavar="PATH",
        help="also draw the audit figure (trade-off curve and privacy profile) to PATH: .png, .pdf or .svg",
    )
