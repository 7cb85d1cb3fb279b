"""``privcheck``: the command line.  The only module that maps names to objects.

Exit codes: 0 = claim not refuted, 1 = refuted, 2 = usage or input error (one line on stderr, no verdict).
stdout carries only the report; progress goes to stderr, and only on a terminal.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from pathlib import Path

from privcheck.core import (ApproxDP, InvalidArgument, PrivcheckError, PureDP, RenyiDP, Unspecified, ZCDP,
                            relation_from_name, resolve_seed, with_relation)
from privcheck.core.execution import DEFAULT_CONNECT_TIMEOUT, make_executor
from privcheck.core.targets import Described, load_object

#: exit codes: 0 not refuted (an audit) / as expected (verify); 1 refuted; 2 bad input; 3 undecided (verify: a
#: check neither proved nor refuted); 4 an internal error of privcheck (a bug: please report it)
EXIT_OK, EXIT_REFUTED, EXIT_INPUT, EXIT_UNDECIDED, EXIT_INTERNAL = 0, 1, 2, 3, 4


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise InvalidArgument(message)


# ---------------------------------------------------------------------------------------------------- targets

def _json_value(text: str, what: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise InvalidArgument(f"{what} value {text!r} is not valid JSON") from None


# ---------------------------------------------------------------------------------------------------- claims

def claim_from_args(args):
    """The claim under test from --epsilon/--delta/--rho/--order (None when none is given)."""
    eps, delta, rho, order = args.epsilon, args.delta, args.rho, args.order
    if rho is not None and (eps is not None or order is not None):
        raise InvalidArgument("give either --rho (zCDP) or --epsilon (with --delta or --order), not both")
    if rho is not None:
        if delta:
            raise InvalidArgument("--delta does not apply to a zCDP claim (--rho)")
        return ZCDP(rho)
    if order is not None:
        if eps is None:
            raise InvalidArgument("--order needs --epsilon: the Rényi claim is D_order <= epsilon")
        if delta:
            raise InvalidArgument("--delta does not apply to a Rényi claim (--order)")
        return RenyiDP(order, eps)
    if eps is None:
        if delta:
            raise InvalidArgument("--delta needs --epsilon")
        return None
    if delta:
        return ApproxDP(eps, delta)
    return PureDP(eps)


_OWN = ("scale", "sigma", "rr_epsilon", "p00", "p11", "sensitivity", "k", "gamma", "bound", "horizon",
        "noise_epsilon", "calibration", "sharing_probability", "threshold", "threshold_on", "codes", "actions")


def build_target(args):
    """(description of the target, claim under test, display name); the target is built here once, to check it.

    The description is what a worker process rebuilds (:mod:`privcheck.core.targets`): a built-in by name
    and parameters, a user's target by its reference (a file path made absolute)."""
    from mechanisms.registry import BUILTINS

    claim = claim_from_args(args)
    if args.target in BUILTINS:
        b = BUILTINS[args.target]
        given = {k: getattr(args, k) for k in _OWN if getattr(args, k) is not None}
        unknown = [k for k in given if k not in b.parameters and k != "sensitivity"]
        if unknown:
            raise InvalidArgument(f"{b.name} has no parameter --{unknown[0].replace('_', '-')} "
                                  f"(its parameters: {', '.join('--' + p.replace('_', '-') for p in b.parameters)})")
        if claim is None and not given:
            raise InvalidArgument("state the claim under test with --epsilon, --delta, --rho or --order "
                                  f"(or give {b.name}'s own parameters to test its own claim)")
        described = Described("mechanisms.registry:build_builtin",
                              {"name": b.name, "claim": PureDP(1.0) if claim is None else claim, "params": given})
        mech = described.build()
        # a built-in's neighbour relation: its ``relation`` where it has one (its own claim may be unavailable)
        relation = getattr(mech, "relation", None) or mech.claim.relation
        claim = mech.claim if claim is None else with_relation(claim, relation)
        return described, claim, b.name
    own = [k for k in _OWN if getattr(args, k) is not None and k != "sensitivity"]
    if own:
        raise InvalidArgument(f"--{own[0].replace('_', '-')} is a built-in's parameter; it does not apply to {args.target}")
    obj = load_object(args.target)
    mod_part, _, attr = args.target.rpartition(":")
    if mod_part.endswith(".py") or os.sep in mod_part:
        mod_part = str(Path(mod_part).resolve())
    if claim is None:
        claim = getattr(obj, "claim", None)
        if claim is None:
            raise InvalidArgument("state the claim under test with --epsilon, --delta, --rho or --order")
    return Described(f"{mod_part}:{attr}", call=False), claim, args.target


def _relation(args, claim, builtin: bool):
    if args.neighbours is not None:
        return relation_from_name(args.neighbours, args.sensitivity)
    if builtin:
        return claim.relation
    if args.sensitivity is not None or args.input is not None:
        return relation_from_name("replace-l1", args.sensitivity)
    return Unspecified()


# ---------------------------------------------------------------------------------------------------- commands

class _Progress:
    """A progress bar on stderr, only on a terminal; ``update`` is None otherwise."""

    def __init__(self, total=None, unit=" draws"):
        self.total, self.unit, self.bar, self.update = total, unit, None, None

    def __enter__(self):
        if sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=self.total, unit=self.unit, unit_scale=True, file=sys.stderr, leave=False)
            self.update = self.bar.update
        return self

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.close()


def _executor(args):
    return make_executor(args.scheduler, args.workers, args.scheduler_timeout)


def _add_execution_options(p):
    g = p.add_argument_group("where the work runs (never changes a result)")
    g.add_argument("--workers", type=int, help="local worker processes, or the size of --scheduler local")
    g.add_argument("--scheduler", help="tcp://host:port of a Dask scheduler, or local for a LocalCluster "
                                       "(needs privcheck[dask]; targets must be importable on the workers)")
    g.add_argument("--scheduler-timeout", type=float, default=DEFAULT_CONNECT_TIMEOUT,
                   help=f"seconds to wait for the scheduler and a first worker (default {DEFAULT_CONNECT_TIMEOUT:g})")


def _emit(report, as_json: bool) -> int:
    print(report.to_json(indent=2) if as_json else str(report))
    return EXIT_REFUTED if report.violates_claim else EXIT_OK


_EXECUTION_FLAGS = ("--workers", "--scheduler", "--scheduler-timeout")


def _reproduce(argv, seed: int) -> str:
    """The command that reproduces a result: ``argv`` with the seed, without the flags that only say where the
    work ran (they never change a result)."""
    words, skip = [], False
    for w in argv:
        if skip:
            skip = False
        elif w in _EXECUTION_FLAGS:
            skip = True
        elif not w.startswith(tuple(f + "=" for f in _EXECUTION_FLAGS)):
            words.append(w)
    if "--seed" not in words and not any(w.startswith("--seed=") for w in words):
        words += ["--seed", str(seed)]
    return "privcheck " + " ".join(shlex.quote(w) for w in words)


def _policy_target(args):
    """(policy, feedback channel or None, horizon, name) for a policy target, or None if not a policy."""
    from policies.registry import POLICIES, build_environment, build_policy
    from policies.tabular import TabularPolicy

    if args.target == "tabular":
        if not args.rules:
            raise InvalidArgument("the tabular policy needs --rules rules.json")
        pol = TabularPolicy(args.rules)
        return pol, None, pol.horizon, "tabular"
    if args.target not in POLICIES:
        if ":" in args.target and args.definition is not None:  # a user's policy factory
            obj = load_object(args.target)
            arms = 2 if args.arms is None else args.arms
            horizon = None if args.horizon is None else int(args.horizon)
            pol = obj if callable(getattr(obj, "act", None)) else _call_factory(obj, arms, horizon)
            for attr in ("init", "act", "update", "n_arms", "n_uniforms"):
                if not hasattr(pol, attr):
                    raise InvalidArgument(f"{args.target} did not give a policy (it has no {attr})")
            return pol, None, horizon, args.target
        return None
    arms = 2 if args.arms is None else args.arms
    horizon = args.horizon
    channel = None
    if args.rr_epsilon is not None:
        from mechanisms import optimal_randomized_response

        channel = optimal_randomized_response(args.rr_epsilon)
    if args.definition == "local" and channel is not None:  # only the feedback randomizer is audited
        return None, channel, None, args.target
    if horizon is None or horizon != int(horizon) or horizon < arms:
        raise InvalidArgument(f"auditing {args.target} needs --horizon >= the number of arms ({arms})")
    horizon = int(horizon)
    if POLICIES[args.target].linear:
        env = build_environment("linear", None, horizon, arms=arms, dim=args.dim or 2)
    else:
        env = build_environment("bernoulli", f"0.5x{arms}", horizon, epsilon=args.rr_epsilon)
    # a private policy is calibrated to the claim under test, as the built-in mechanisms are
    claim = claim_from_args(args)
    options = {"rho": getattr(claim, "rho", None), "dp_epsilon": claim.epsilon if isinstance(claim, PureDP) else None,
               **_private_policy_options(args)}
    policy = build_policy(args.target, env, horizon, options)
    if args.definition is None:
        args.definition = getattr(policy, "definition", None)
    return policy, channel, horizon, args.target


def _call_factory(obj, arms, horizon):
    import inspect

    if not callable(obj):
        raise InvalidArgument("a policy target must be a policy or a function returning one")
    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        params = {}
    kw = {k: v for k, v in (("n_arms", arms), ("horizon", horizon)) if k in params}
    try:
        return obj(**kw)
    except Exception as exc:
        raise InvalidArgument(f"the policy factory raised {type(exc).__name__}: {exc}") from None


def cmd_audit_policy(args, argv, target) -> int:
    from privcheck.audit.policy import audit_policy

    policy, channel, horizon, name = target
    claim = claim_from_args(args)
    if claim is None:
        raise InvalidArgument("state the claim under test with --epsilon, --delta, --rho or --order")
    if args.definition is None:
        raise InvalidArgument("auditing a policy needs --definition table, view, local or interactive")
    pairs = None
    if args.pair:
        pairs = [(_json_value(a, "--pair"), _json_value(b, "--pair")) for a, b in args.pair]
    seed = resolve_seed(args.seed)
    start = _json_value(args.table, "--table") if args.table is not None else None
    adversary = load_object(args.adversary) if args.adversary else None
    if adversary is not None and args.definition != "interactive":
        raise InvalidArgument("--adversary applies to --definition interactive")
    sampling = {"samples": args.samples, "selection_samples": args.selection_samples, "confidence": args.confidence,
                "candidates": args.candidates, "input": start,
                "adversary": adversary, "event": load_object(args.event) if args.event else None}
    with _Progress() as progress, _executor(args) as executor:
        sampling.update(progress=progress.update, executor=executor)
        report = audit_policy(policy, claim, args.definition, horizon=horizon, channel=channel, pairs=pairs,
                              sequence_length=args.sequence_length, method=args.method, seed=seed, name=name,
                              command=_reproduce(argv, seed), sampling=sampling)
    return _emit(report, args.json)


def cmd_audit(args, argv) -> int:
    from mechanisms.registry import BUILTINS
    from privcheck.audit import audit

    target = _policy_target(args)
    if target is not None:
        return cmd_audit_policy(args, argv, target)
    for flag in ("definition", "rules", "sequence_length", "arms", "table", "adversary", "nu", "u", "width_scale", "dim",
                 "reward_bound", "action_bound"):
        if getattr(args, flag) is not None:
            raise InvalidArgument(f"--{flag.replace('_', '-')} applies to policy targets only")

    described, claim, name = build_target(args)
    relation = _relation(args, claim, args.target in BUILTINS)
    claim = with_relation(claim, relation)
    pairs = None
    if args.pair:
        pairs = [(_json_value(a, "--pair"), _json_value(b, "--pair")) for a, b in args.pair]
    x = _json_value(args.input, "--input") if args.input is not None else None
    event = load_object(args.event) if args.event else None
    if event is not None and not callable(event):
        raise InvalidArgument(f"--event {args.event} is not a function")
    seed = resolve_seed(args.seed)
    with _Progress() as progress:
        report = audit(described, claim, pairs=pairs, input=x, method=args.method, samples=args.samples,
                       selection_samples=args.selection_samples, confidence=args.confidence, seed=seed,
                       workers=args.workers, scheduler=args.scheduler, scheduler_timeout=args.scheduler_timeout,
                       event=event, candidates=args.candidates, progress=progress.update, name=name,
                       command=_reproduce(argv, seed))
    return _emit(report, args.json)


def cmd_list(args, argv) -> int:
    from mechanisms.registry import BUILTINS
    from privcheck.core import describe_claim

    rows = []
    for b in BUILTINS.values():
        try:
            example = describe_claim(b.build(PureDP(1.0), {}).claim)
        except PrivcheckError:
            example = describe_claim(b.build(ZCDP(0.5), {}).claim)
        rows.append({"name": b.name, "summary": b.summary, "parameters": b.parameters,
                     "claim_when_calibrated": example})
    if args.json:
        print(json.dumps({"schema_version": 1, "mechanisms": rows}, indent=2))
        return EXIT_OK
    for r in rows:
        print(f"{r['name']}\n  {r['summary']}\n  claim (calibrated to ε = 1, or ρ = 0.5): {r['claim_when_calibrated']}")
        for p, meaning in r["parameters"].items():
            print(f"    --{p.replace('_', '-'):<15} {meaning}")
    return EXIT_OK


def _run_regret(args, executor):
    """Run the policies of a ``privcheck regret`` command: (environment text, seed, {name: summary})."""
    from policies.simulator import experiment

    env_d = Described("policies.registry:build_environment",
                      {"name": args.env, "means": args.means, "horizon": args.horizon, "epsilon": args.epsilon,
                       "breakpoints": args.breakpoints, "arms": args.arms, "sigma": args.sigma, "dim": args.dim,
                       "env_seed": args.env_seed})
    env = env_d.build()
    names = [n.strip() for n in args.policies.split(",") if n.strip()]
    if not names:
        raise InvalidArgument("--policies must name at least one policy")
    if len(set(names)) != len(names):
        raise InvalidArgument("--policies lists a policy twice")
    options = {"exploration": args.exploration, "window": args.window, "rho": args.rho, "dp_epsilon": args.dp_epsilon,
               **_private_policy_options(args)}
    policies = [Described("policies.registry:build_policy",
                          {"name": n, "env": env_d, "horizon": args.horizon, "options": options}) for n in names]
    for pol in policies:
        pol.build()  # checked here, before any work is sent
    if args.horizon < env.n_arms:
        raise InvalidArgument(f"--horizon={args.horizon} must be >= the number of arms ({env.n_arms})")
    if args.runs < 1:
        raise InvalidArgument(f"--runs={args.runs} must be >= 1")
    if args.plot:
        _check_writable(args.plot)
    seed = resolve_seed(args.seed)
    with _Progress(total=args.horizon * args.runs * len(names), unit=" run-rounds") as progress:
        summaries = experiment(env_d, dict(zip(names, policies)), args.horizon, args.runs, seed, executor,
                               progress.update)
    if getattr(env, "contextual", False):
        env_text = f"{args.env} K={env.n_arms} d={env.dim} theta={[round(float(v), 6) for v in env.theta]}"
    else:
        seg = env.schedule.segments
        env_text = f"{args.env} means={seg.tolist() if seg.shape[0] > 1 else seg[0].tolist()}"
    if args.epsilon is not None:
        env_text += f" epsilon={args.epsilon:g}"
    return env_text, seed, summaries


def cmd_regret(args, argv) -> int:
    with _executor(args) as executor:
        env_text, seed, summaries = _run_regret(args, executor)
    if args.plot:
        from policies.plotting import plot_regret

        plot_regret(summaries, args.plot, f"{env_text}, T={args.horizon}, {args.runs} runs, seed {seed}",
                    args.log_time)
    if args.json:
        print(json.dumps({"schema_version": 1, "env": env_text, "horizon": args.horizon, "runs": args.runs,
                          "seed": seed, "policies": summaries}, indent=2))
        return EXIT_OK
    print(f"{env_text}; T = {args.horizon}, {args.runs} runs, seed {seed}")
    print(f"{'policy':<14} {'regret':>12} {'± stderr':>10}   pulls per arm (mean)")
    for name, s in summaries.items():
        pulls = ", ".join(f"{p:.4g}" for p in s["pulls"])
        print(f"{name:<14} {s['final_regret']:>12.2f} {s['stderr']:>10.2f}   [{pulls}]")
    if args.plot:
        print(f"plot written to {args.plot}")
    print("Reproduce: " + _reproduce(argv, seed))
    return EXIT_OK


def cmd_experiment(args, argv) -> int:
    from policies.experiments import EXPERIMENTS

    if args.name is None:
        for e in EXPERIMENTS.values():
            print(f"{e.name:<10} {len(e.rows):>3} rows, {e.runs:>3} runs by default   {e.summary}")
        return EXIT_OK
    if args.name not in EXPERIMENTS:
        raise InvalidArgument(f"unknown experiment {args.name!r} (one of {', '.join(EXPERIMENTS)})")
    exp = EXPERIMENTS[args.name]
    runs = exp.runs if args.runs is None else args.runs
    if runs < 1:
        raise InvalidArgument(f"--runs={runs} must be >= 1")
    if args.horizon is not None and args.horizon < 1:
        raise InvalidArgument(f"--horizon={args.horizon} must be >= 1")
    seed = resolve_seed(args.seed)
    parser = make_parser()
    rows = []
    with _executor(args) as executor:
        for label, row in exp.rows:
            row = list(row)
            if args.horizon is not None:
                row[row.index("--horizon") + 1] = str(args.horizon)
            words = ["regret", *row, "--runs", str(runs), "--seed", str(seed)]
            rargs = parser.parse_args(words)
            env_text, _, summaries = _run_regret(rargs, executor)
            ratios = {p: summaries[p]["final_regret"] / summaries[b]["final_regret"]
                      for p, b in exp.baselines.items() if p in summaries and summaries[b]["final_regret"] > 0}
            rows.append({"label": label, "horizon": rargs.horizon, "env": env_text,
                         "command": "privcheck " + " ".join(shlex.quote(w) for w in words),
                         "policies": {n: {k: s[k] for k in ("final_regret", "stderr", "pulls")}
                                      for n, s in summaries.items()},
                         "ratios": ratios})
    reproduce = _reproduce(argv if "--runs" in argv else [*argv, "--runs", str(runs)], seed)
    if args.json:
        print(json.dumps({"schema_version": 1, "experiment": exp.name, "summary": exp.summary, "runs": runs,
                          "seed": seed, "baselines": exp.baselines, "rows": rows, "command": reproduce}, indent=2))
        return EXIT_OK
    names = list(rows[0]["policies"])
    ratio_names = [p for p in exp.baselines if p in names]
    print(f"{exp.summary}; {runs} runs per row, seed {seed}\n")
    print("| row | T | " + " | ".join(names) + "".join(f" | {p} / {exp.baselines[p]}" for p in ratio_names) + " |")
    print("|---|---|" + "---|" * (len(names) + len(ratio_names)))
    for r in rows:
        cells = [f"{r['policies'][n]['final_regret']:.1f} ± {r['policies'][n]['stderr']:.1f}" for n in names]
        cells += [f"{r['ratios'][p]:.2f}" if p in r["ratios"] else "–" for p in ratio_names]
        print(f"| {r['label']} | {r['horizon']} | " + " | ".join(cells) + " |")
    print("\nEach row alone: the `privcheck regret` command in --json's \"command\" (e.g. " + rows[0]["command"] + ")")
    print("Reproduce: " + reproduce)
    return EXIT_OK


def _check_writable(path: str) -> None:
    parent = Path(path).resolve().parent
    if not parent.is_dir():
        raise InvalidArgument(f"--plot {path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise InvalidArgument(f"--plot {path}: folder {parent} is not writable")


def cmd_p2b(args, argv) -> int:
    from policies.p2b import ARMS, run_p2b

    try:
        counts = [int(v) for v in args.early_users.split(",") if v.strip()]
    except ValueError:
        raise InvalidArgument(f"--early-users {args.early_users!r} must be integers separated by commas") from None
    if not counts:
        raise InvalidArgument("--early-users must give at least one count")
    if args.plot:
        _check_writable(args.plot)
    seed = resolve_seed(args.seed)
    results = []
    for n in counts:
        results.append(run_p2b(n, args.sharing_probability, args.threshold, args.codes, args.early_fraction,
                               args.interactions, args.alpha, args.share, args.threshold_on, seed=seed).summary())
    if args.plot:
        from policies.plotting import plot_p2b

        plot_p2b(results, args.plot, f"P2B synthetic (p = {args.sharing_probability:g}, l = {args.threshold}, "
                                     f"k = {args.codes}, threshold on {args.threshold_on}), seed {seed}")
    first = results[0]
    if args.json:
        print(json.dumps({"schema_version": 1, "seed": seed, "sharing_probability": args.sharing_probability,
                          "threshold": args.threshold, "threshold_on": args.threshold_on, "codes": args.codes,
                          "epsilon": first["epsilon"], "delta": first["delta"], "worst_crowds": first["worst_crowds"],
                          "points": results}, indent=2))
        return EXIT_OK
    print(f"P2B: ε = {first['epsilon']:.6g}, δ* = {first['delta']:.6g} (worst case at crowd sizes "
          f"{tuple(first['worst_crowds'])}; threshold on {args.threshold_on}"
          + ("" if args.threshold_on == "tuple" else ": the claim does not hold for this pipeline") + ")")
    print(f"{'early users':>11} {'late':>7} " + " ".join(f"{a:>24}" for a in ARMS) + f" {'shared':>8} {'released':>9}")
    for r in results:
        cells = [f"{r['average_reward'][a]['mean']:.4f} [{r['average_reward'][a]['ci95'][0]:.4f}, "
                 f"{r['average_reward'][a]['ci95'][1]:.4f}]" for a in ARMS]
        print(f"{r['early_users']:>11} {r['late_users']:>7} " + " ".join(f"{c:>24}" for c in cells)
              + f" {r['shared_tuples']:>8} {r['released_tuples']:>9}")
    print("average reward of late users, 95% intervals over late users")
    if args.plot:
        print(f"plot written to {args.plot}")
    print("Reproduce: " + _reproduce(argv, seed))
    return EXIT_OK


def cmd_verify(args, argv) -> int:
    from proofs import SCHEMA_VERSION, check_identity, check_inequality, run_catalogue
    from proofs.catalogue import CATALOGUE, _load

    domain = args.domain if args.domain is not None else args.assume
    if args.identity and args.inequality:
        raise InvalidArgument("give either --identity or --inequality")
    if args.identity or args.inequality:
        if args.names:
            raise InvalidArgument("check names do not combine with --identity/--inequality")
        r = check_identity(*args.identity, domain) if args.identity else check_inequality(args.inequality, domain)
        if args.json:
            print(json.dumps({"schema_version": SCHEMA_VERSION, **r.to_dict()}, indent=2))
        else:
            print(f"{r.statement}: {r.status.upper()} ({r.method}, {r.seconds:.2f} s)")
            if r.detail:
                print(f"  {r.detail}")
            if r.counterexample:
                print(f"  counterexample: {r.counterexample}")
            if r.open_region:
                print(f"  left open: {r.open_region}")
        return {"proved": EXIT_OK, "verified": EXIT_OK, "refuted": EXIT_REFUTED, "undecided": EXIT_UNDECIDED}[r.status]
    if args.list:
        _load()
        for c in CATALOGUE.values():
            print(f"{c.slug:<32} {c.claim_id:<20} expected {c.expected:<8} {c.statement}")
        return EXIT_OK
    results = run_catalogue(args.names or None)
    if args.json:
        if len(results) == 1 and args.names:
            print(json.dumps({"schema_version": SCHEMA_VERSION, **results[0].to_dict()}, indent=2))
        else:
            print(json.dumps({"schema_version": SCHEMA_VERSION, "checks": [r.to_dict() for r in results]}, indent=2))
    else:
        print(f"{'check':<32} {'claim':<20} {'status':<10} {'expected':<9} {'seconds':>7}  method")
        for r in results:
            flag = "" if r.as_expected else "   <-- NOT AS EXPECTED"
            print(f"{r.name:<32} {r.claim_id:<20} {r.status:<10} {r.expected:<9} {r.seconds:7.2f}  {r.method}{flag}")
        found = [r.name for r in results if r.status == "refuted" and r.as_expected]
        ok = sum(r.as_expected for r in results)
        print(f"{ok}/{len(results)} checks as expected; defects found in the papers: {', '.join(found) or 'none'}")
    return EXIT_OK if all(r.as_expected for r in results) else EXIT_REFUTED


def _add_verify(sub):
    p = sub.add_parser("verify", help="run the proof catalogue, or check your own identity or inequality")
    p.add_argument("names", nargs="*", help="catalogue checks to run (default: all; --list shows them)")
    p.add_argument("--list", action="store_true")
    p.add_argument("--identity", nargs=2, metavar=("LHS", "RHS"))
    p.add_argument("--inequality", metavar="'A <= B'")
    p.add_argument("--assume", help="conditions such as 'e>0' or '0<x<1, y>0'")
    p.add_argument("--domain", help="a synonym of --assume")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_verify)


def _private_policy_options(args) -> dict:
    """The values of the flags :func:`_add_private_policy_options` adds, as :func:`build_policy` options."""
    return {"nu": args.nu, "u": args.u, "width_scale": args.width_scale, "reward_bound": args.reward_bound,
            "action_bound": args.action_bound}


def _add_private_policy_options(p):
    p.add_argument("--nu", type=float, help="heavy tails: the moment order 1 + ν of E|X|^(1+ν) <= u, ν in (0, 1]")
    p.add_argument("--u", type=float, help="heavy tails: the moment bound u (computed for --env pareto, 1 for Bernoulli)")
    p.add_argument("--width-scale", type=float, help="multiply the heavy-tailed policies' confidence widths (default 1)")
    p.add_argument("--reward-bound", type=float, help="linear policies: rewards clipped to [-R, R] (default 1)")
    p.add_argument("--action-bound", type=float, help="linear policies: actions scaled by 1/max(L, ‖a‖) (default 1)")


def _add_regret(sub):
    p = sub.add_parser("regret", help="run bandit policies on an environment and compare their regret")
    p.add_argument("--env", required=True, help="bernoulli | corrupt-bernoulli | piecewise-bernoulli | gaussian | pareto | linear | linear-contextual")
    p.add_argument("--means", help="comma list with AxN shorthand (0.8x9); segments separated by ';'")
    p.add_argument("--breakpoints", type=int, help="piecewise: L generated segments, the best arm changing each time")
    p.add_argument("--arms", type=int, help="number of arms for --breakpoints (default 2), of actions for the linear envs (default 10)")
    p.add_argument("--epsilon", type=float, help="randomized-response level of the feedback channel")
    p.add_argument("--sigma", type=float, default=1.0, help="Gaussian noise (gaussian and linear envs)")
    p.add_argument("--dim", type=int, help="linear envs: the dimension d (default 3)")
    p.add_argument("--env-seed", type=int, default=0, help="linear envs: the seed of θ* (and of the fixed actions)")
    p.add_argument("--policies", required=True, help="comma list, e.g. kl-ucb-cf,ucb-cf,ts-cf,kl-ucb")
    p.add_argument("--horizon", type=int, required=True)
    p.add_argument("--runs", type=int, default=100)
    p.add_argument("--exploration", type=float, help="c in f(t) = log t + c log log t")
    p.add_argument("--window", type=int, help="sliding window w (sw-ucb, sw-klucb-cf)")
    _add_private_policy_options(p)
    p.add_argument("--rho", type=float, help="zCDP level of adac-ucb")
    p.add_argument("--dp-epsilon", type=float, help="ε of dp-robust-ucb, dp-robust-se (central) and ldp-robust-se (local)")
    p.add_argument("--seed", type=int)
    p.add_argument("--plot", help="write a PNG of the regret curves")
    p.add_argument("--log-time", action="store_true")
    p.add_argument("--json", action="store_true")
    _add_execution_options(p)
    p.set_defaults(run=cmd_regret)


def _add_experiment(sub):
    p = sub.add_parser("experiment", help="run a named experiment of the papers (a table of privcheck regret rows)")
    p.add_argument("name", nargs="?", help="adac-ucb | gope | oful | heavy | fig2b (none: list them)")
    p.add_argument("--runs", type=int, help="runs per row (default: the experiment's own)")
    p.add_argument("--horizon", type=int, help="replace every row's horizon (a quick look; not the paper's setting)")
    p.add_argument("--seed", type=int)
    p.add_argument("--json", action="store_true")
    _add_execution_options(p)
    p.set_defaults(run=cmd_experiment)


def _add_audit(sub):
    p = sub.add_parser("audit", help="audit a mechanism against a privacy claim")
    p.add_argument("target", help="a built-in name (privcheck list), file.py:function or package.module:function")
    c = p.add_argument_group("the claim under test")
    c.add_argument("--epsilon", type=float)
    c.add_argument("--delta", type=float, default=0.0)
    c.add_argument("--rho", type=float)
    c.add_argument("--order", type=float, help="Rényi order α: the claim is D_α <= epsilon")
    n = p.add_argument_group("inputs")
    n.add_argument("--pair", nargs=2, action="append", metavar=("X", "X'"), help="a neighbouring pair as JSON (repeatable)")
    n.add_argument("--input", help="an input (JSON) whose neighbours are searched")
    n.add_argument("--neighbours", help="replace-l1 | replace-l2 | replace-linf | add-remove | replace-record")
    n.add_argument("--sensitivity", type=float)
    m = p.add_argument_group("a built-in's own parameters (otherwise it is calibrated to the claim)")
    for flag, typ in (("--scale", float), ("--sigma", float), ("--rr-epsilon", float), ("--p00", float),
                      ("--p11", float), ("--k", float), ("--gamma", float), ("--bound", float),
                      ("--horizon", float), ("--noise-epsilon", float), ("--calibration", str),
                      ("--sharing-probability", float), ("--threshold", float), ("--threshold-on", str),
                      ("--codes", float), ("--actions", float)):
        m.add_argument(flag, type=typ)
    b = p.add_argument_group("policies (tabular, kl-ucb-cf, …)")
    b.add_argument("--definition", help="table | view | local | interactive")
    b.add_argument("--rules", help="decision-rule tables as JSON (the tabular policy)")
    b.add_argument("--arms", type=int)
    b.add_argument("--dim", type=int, help="linear policies: the dimension of the audited instance (default 2)")
    b.add_argument("--sequence-length", type=int, help="local: Definition 2 over sequences of this length")
    b.add_argument("--adversary", help="interactive: module:function(recommendations, t, n_arms) -> queried arms")
    b.add_argument("--table", help="sampled policy audits: a reward table (or list) whose neighbours are searched")
    _add_private_policy_options(b)
    a = p.add_argument_group("the audit")
    a.add_argument("--method", default="auto", choices=["auto", "exact", "sample"])
    a.add_argument("--samples", type=int, default=1_000_000, help="certification samples per side")
    a.add_argument("--selection-samples", type=int)
    a.add_argument("--confidence", type=float, default=0.95)
    a.add_argument("--seed", type=int)
    a.add_argument("--candidates", type=int, default=1, help="how many (pair, event) candidates to certify")
    a.add_argument("--event", help="module:function of the outputs returning booleans (an event) or numbers")
    a.add_argument("--json", action="store_true")
    _add_execution_options(p)
    p.set_defaults(run=cmd_audit)


def _add_p2b(sub):
    p = sub.add_parser("p2b", help="the P2B experiment: cold, warm non-private and warm private late users")
    p.add_argument("--early-users", required=True, help="early-user counts, comma-separated (e.g. 1000,5000,10000)")
    p.add_argument("--sharing-probability", type=float, default=0.5, help="p (default 0.5)")
    p.add_argument("--threshold", type=int, default=10, help="l (default 10)")
    p.add_argument("--threshold-on", default="tuple", choices=["tuple", "code", "none"])
    p.add_argument("--codes", type=int, default=128, help="k, the encoder's codes (default 128)")
    p.add_argument("--early-fraction", type=float, default=0.7, help="share of users who are early (default 0.7)")
    p.add_argument("--interactions", type=int, default=10, help="interactions per user (default 10)")
    p.add_argument("--alpha", type=float, default=1.0, help="LinUCB's α (default 1)")
    p.add_argument("--share", default="positive", choices=["positive", "uniform"],
                   help="which interaction a reporting user shares (default: a rewarded one if any)")
    p.add_argument("--seed", type=int)
    p.add_argument("--plot")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_p2b)


def make_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="privcheck", description="Check differential-privacy claims.")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    _add_audit(sub)
    _add_regret(sub)
    _add_experiment(sub)
    _add_p2b(sub)
    _add_verify(sub)
    lp = sub.add_parser("list", help="the built-in mechanisms, their parameters and claims")
    lp.add_argument("--json", action="store_true")
    lp.set_defaults(run=cmd_list)
    return parser


class _PipeSafe:
    """stdout that ends quietly when the reader closes the pipe (``privcheck list | head -1``): later writes are
    dropped and the descriptor is pointed at /dev/null, so neither a traceback nor an "internal error" appears
    and the command still returns its own exit code."""

    def __init__(self, stream):
        self._s, self._closed = stream, False

    def _drop(self):
        self._closed = True
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._s.fileno())
        except (OSError, ValueError):
            pass

    def write(self, text):
        if not self._closed:
            try:
                return self._s.write(text)
            except BrokenPipeError:
                self._drop()
        return len(text)

    def flush(self):
        if not self._closed:
            try:
                self._s.flush()
            except BrokenPipeError:
                self._drop()

    def __getattr__(self, name):
        return getattr(self._s, name)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if sys.stdout is sys.__stdout__ and sys.stdout is not None:
        sys.stdout = _PipeSafe(sys.stdout)
    try:
        code = _main(argv)
        sys.stdout.flush()
        return code
    finally:
        if isinstance(sys.stdout, _PipeSafe):
            sys.stdout = sys.stdout._s


def _main(argv) -> int:
    try:
        args = make_parser().parse_args(argv)
        if not getattr(args, "run", None):
            raise InvalidArgument("a command is required: audit, regret, experiment, p2b, verify or list (privcheck --help)")
        return args.run(args, argv)
    except PrivcheckError as exc:
        print(f"privcheck: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("privcheck: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug in privcheck: one line, unless the user asks for the traceback
        if os.environ.get("PRIVCHECK_DEBUG"):
            raise
        print(f"privcheck: internal error: {type(exc).__name__}: {exc} (set PRIVCHECK_DEBUG=1 for details)",
              file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
