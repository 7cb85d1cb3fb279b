"""``privcheck list [mechanisms|policies|environments|rl|experiments|checks]``: what privcheck has built in —
mechanisms with their parameters and claims, bandit policies, environments, episodic agents and the MDPs their
audits draw users from (``rl``; also ``--kind rl``), experiments, and the proof checks of ``privcheck verify``.
Without a kind, every kind."""

from __future__ import annotations

import argparse
import json
import math

from privcheck.core import InvalidArgument, PrivcheckError, PureDP, ZCDP
from privcheck.core.protocols import FloatSampler, provides

from . import regret
from .common import OUTPUT, as_flags, common_groups_last, EXIT_OK


def _example(b):
    try:
        return b.build(PureDP(1.0), {})
    except PrivcheckError:
        return b.build(ZCDP(0.5), {})


def _sampler(mech) -> str:
    """How a built-in draws: exact integers on its grid, floating point (not protected against bit-level
    attacks), or a finite channel."""
    kind = mech.sampler if provides(mech, FloatSampler) else None
    if kind == "exact":
        g = getattr(mech, "grid", None)
        where = (
            f"the grid g = 2^{int(math.log2(g))} (calibrated to ε = 1)"
            if g is not None
            else "a power-of-two grid 2^-20 of its sensitivity"
        )
        return f"exact (integers only), outputs on {where}; --sampler float for the textbook floating-point one"
    if kind == "float":
        return "floating point: not protected against bit-level attacks (Mironov 2012)"
    return "finite outputs (a channel matrix)"


def _mechanisms() -> list[dict]:
    from privcheck.mechanisms.registry import BUILTINS
    from privcheck.core import describe_claim

    rows = []
    for b in BUILTINS.values():
        mech = _example(b)
        rows.append(
            {
                "name": b.name,
                "summary": b.summary,
                "parameters": b.parameters,
                "claim_when_calibrated": describe_claim(mech.claim),
                "sampler": _sampler(mech),
            }
        )
    return rows


def _policies() -> list[dict]:
    from privcheck.policies.registry import POLICIES

    return [
        {
            "name": p.name,
            "summary": p.summary,
            "needs": list(p.needs),
            "bernoulli_only": p.bernoulli_only,
            "linear": p.linear,
            "contextual": p.contextual,
        }
        for p in POLICIES.values()
    ]


def _environments() -> list[dict]:
    from privcheck.policies.registry import ENVIRONMENTS

    return [{"name": k, "summary": v} for k, v in ENVIRONMENTS.items()]


def _rl() -> list[dict]:
    from privcheck.audits.episodic.instances import MDPS
    from privcheck.policies.registry import RL_AGENTS

    agents = [
        {"name": target, "summary": f"{summary}; publishes {', '.join(releases)}", "kind": "agent"}
        for target, summary, releases in RL_AGENTS.values()
    ]
    mdps = [
        {"name": f"--mdp {k}", "summary": " ".join((f.__doc__ or "").split()), "kind": "mdp"} for k, f in MDPS.items()
    ]
    own = {
        "name": "--mdp FILE:NAME",
        "summary": "Your environment, written as gymnasium's toy-text environments are: a table P[s][a] of "
        "(probability, next state, reward, terminated) outcomes, and initial_state_distrib where it has one (its "
        "states and actions are the instance's; rewards outside [0, 1] mapped onto it)",
        "kind": "mdp",
    }
    return agents + mdps + [own]


def _experiments() -> list[dict]:
    from .experiments import EXPERIMENTS

    return [{"name": e.name, "summary": e.summary, "rows": len(e.rows), "runs": e.runs} for e in EXPERIMENTS.values()]


def _checks() -> list[dict]:
    from privcheck.proofs.catalogue import CATALOGUE, load_checks

    load_checks()
    return [
        {"name": c.slug, "claim": c.claim_id, "source": c.source, "statement": c.statement, "expected": c.expected}
        for c in CATALOGUE.values()
    ]


#: kind → (rows, what `privcheck` command uses them)
KINDS = {
    "mechanisms": (_mechanisms, "privcheck audit NAME"),
    "policies": (_policies, "privcheck regret --policies NAME …, privcheck audit NAME"),
    "environments": (_environments, "privcheck regret --env NAME"),
    "rl": (
        _rl,
        "privcheck audit AGENT --definition joint --episodes K --horizon H --states S --actions A [--mdp NAME]",
    ),
    "experiments": (_experiments, "privcheck experiment NAME"),
    "checks": (_checks, "privcheck verify NAME"),
}


def _print_mechanisms(rows):
    for r in rows:
        print(
            f"{r['name']}\n  {r['summary']}\n  claim (calibrated to ε = 1, or ρ = 0.5): {r['claim_when_calibrated']}"
            f"\n  sampler: {r['sampler']}"
        )
        for p, meaning in r["parameters"].items():
            print(f"    --{p.replace('_', '-'):<15} {meaning}")


def _regret_parser():
    """The `privcheck regret` parser: its flags are the ones the policies' and environments' texts name."""
    sub = argparse.ArgumentParser(add_help=False).add_subparsers()
    regret.register(sub)
    return sub.choices["regret"]


def _print_rows(rows):
    width = max(len(r["name"]) for r in rows)
    parser = _regret_parser()
    for r in rows:
        extra = ""
        if r.get("needs"):
            extra = f" (needs {', '.join('--' + n.replace('_', '-') for n in r['needs'])})"
        if r.get("expected"):
            extra = f" [{r['claim']}, expected {r['expected']}]"
        print(f"  {r['name']:<{width}}  {as_flags(r.get('summary') or r.get('statement'), parser)}{extra}")


def cmd_list(args, argv) -> int:
    if args.kind and args.kind_flag and args.kind != args.kind_flag:
        raise InvalidArgument(f"privcheck list {args.kind} --kind {args.kind_flag}: say one kind")
    kind = args.kind or args.kind_flag
    kinds = [kind] if kind else list(KINDS)
    tables = {k: KINDS[k][0]() for k in kinds}
    if args.json:
        print(json.dumps({"schema_version": 1, **tables}, indent=2, ensure_ascii=False))
        return EXIT_OK
    for k in kinds:
        if len(kinds) > 1:
            print(f"{k} ({KINDS[k][1]}):")
        (_print_mechanisms if k == "mechanisms" else _print_rows)(tables[k])
        if len(kinds) > 1 and k != kinds[-1]:
            print()
    return EXIT_OK


def register(sub):
    p = sub.add_parser(
        "list",
        parents=[OUTPUT],
        help="what privcheck has built in: mechanisms, policies, environments, experiments, checks",
    )
    p.add_argument("kind", nargs="?", choices=list(KINDS), help="one kind only (default: all)")
    p.add_argument("--kind", dest="kind_flag", choices=list(KINDS), help="the same, as a flag")
    p.set_defaults(run=cmd_list)
    common_groups_last(p)
