"""``privcheck list``: the built-in mechanisms, their parameters and claims."""

from __future__ import annotations

import json
import math

from privcheck.core import PrivcheckError, PureDP, ZCDP

from .common import OUTPUT, common_groups_last, EXIT_OK


def _example(b):
    try:
        return b.build(PureDP(1.0), {})
    except PrivcheckError:
        return b.build(ZCDP(0.5), {})


def _sampler(mech) -> str:
    """How a built-in draws: exact integers on its grid, floating point (not protected against bit-level
    attacks), or a finite channel."""
    kind = getattr(mech, "sampler", None)
    if kind == "exact":
        g = getattr(mech, "grid", None)
        where = (f"the grid g = 2^{int(math.log2(g))} (calibrated to ε = 1)" if g is not None else
                 "a power-of-two grid 2^-20 of its sensitivity")
        return f"exact (integers only), outputs on {where}; --sampler float for the textbook floating-point one"
    if kind == "float":
        return "floating point: not protected against bit-level attacks (Mironov 2012)"
    return "finite outputs (a channel matrix)"


def cmd_list(args, argv) -> int:
    from mechanisms.registry import BUILTINS
    from privcheck.core import describe_claim

    rows = []
    for b in BUILTINS.values():
        try:
            example = describe_claim(b.build(PureDP(1.0), {}).claim)
        except PrivcheckError:
            example = describe_claim(b.build(ZCDP(0.5), {}).claim)
        mech = _example(b)
        rows.append({"name": b.name, "summary": b.summary, "parameters": b.parameters,
                     "claim_when_calibrated": example, "sampler": _sampler(mech)})
    if args.json:
        print(json.dumps({"schema_version": 1, "mechanisms": rows}, indent=2))
        return EXIT_OK
    for r in rows:
        print(f"{r['name']}\n  {r['summary']}\n  claim (calibrated to ε = 1, or ρ = 0.5): {r['claim_when_calibrated']}"
              f"\n  sampler: {r['sampler']}")
        for p, meaning in r["parameters"].items():
            print(f"    --{p.replace('_', '-'):<15} {meaning}")
    return EXIT_OK


def register(sub):
    p = sub.add_parser("list", parents=[OUTPUT], help="the built-in mechanisms, their parameters and claims")
    p.set_defaults(run=cmd_list)
    common_groups_last(p)
