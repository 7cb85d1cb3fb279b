"""``privcheck verify``: the proof catalogue, or a user's own identity or inequality."""

from __future__ import annotations

import json

from privcheck.core import InvalidArgument

from .common import OUTPUT, common_groups_last, EXIT_OK, EXIT_REFUTED, EXIT_UNDECIDED, Progress


def cmd_verify(args, argv) -> int:
    from privcheck.proofs import SCHEMA_VERSION, check_identity, check_inequality, run_catalogue
    from privcheck.proofs.catalogue import CATALOGUE, load_checks

    domain = args.domain if args.domain is not None else args.assume
    if args.identity and args.inequality:
        raise InvalidArgument("give either --identity or --inequality")
    if args.identity or args.inequality:
        if args.names:
            raise InvalidArgument("check names do not combine with --identity/--inequality")
        if args.identity:
            r = check_identity(*args.identity, domain)
        else:
            with Progress(args, hint="an undecided cover stops at 20,000 boxes") as bar:
                r = check_inequality(args.inequality, domain, progress=bar.update)
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
        load_checks()
        for c in CATALOGUE.values():
            print(f"{c.slug:<32} {c.claim_id:<20} expected {c.expected:<8} {c.statement}")
        return EXIT_OK
    with Progress(args, hint="name the checks to run only those") as bar:
        results = run_catalogue(args.names or None, bar.update)
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


def register(sub):
    p = sub.add_parser(
        "verify", parents=[OUTPUT], help="run the proof catalogue, or check your own identity or inequality"
    )
    p.add_argument("names", nargs="*", help="catalogue checks to run (default: all; --list shows them)")
    p.add_argument("--list", action="store_true", help="the catalogue's checks, one line each")
    p.add_argument("--identity", nargs=2, metavar=("LHS", "RHS"), help="prove or refute LHS = RHS (sympy syntax)")
    p.add_argument("--inequality", metavar="'A <= B'", help="prove, refute or leave undecided an inequality")
    p.add_argument("--assume", help="conditions such as 'e>0' or '0<x<1, y>0'")
    p.add_argument("--domain", help="a synonym of --assume")
    p.set_defaults(run=cmd_verify)
    common_groups_last(p)
