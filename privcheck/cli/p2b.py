"""``privcheck p2b``: the P2B experiment (cold, warm non-private and warm private late users)."""

from __future__ import annotations

import json

from privcheck.core import InvalidArgument, resolve_seed
from privcheck.core.errors import check_writable

from .reproduce import command_line
from .common import SEED, OUTPUT, common_groups_last, count, whole_number, EXIT_OK


def cmd_p2b(args, argv) -> int:
    from privcheck.policies.p2b import ARMS, run_p2b

    try:
        counts = [int(v) for v in args.early_users.split(",") if v.strip()]
    except ValueError:
        raise InvalidArgument(f"--early-users {args.early_users!r} must be integers separated by commas") from None
    if not counts:
        raise InvalidArgument("--early-users must give at least one count")
    if args.plot:
        check_writable("plot", args.plot)
    seed = resolve_seed(args.seed)
    results = []
    for n in counts:
        results.append(
            run_p2b(
                n,
                args.sharing_probability,
                args.threshold,
                args.codes,
                args.early_fraction,
                args.interactions,
                args.alpha,
                args.share,
                args.threshold_on,
                seed=seed,
            ).summary()
        )
    if args.plot:
        from privcheck.policies.plotting import plot_p2b

        plot_p2b(
            results,
            args.plot,
            f"P2B synthetic (p = {args.sharing_probability:g}, l = {args.threshold}, "
            f"k = {args.codes}, threshold on {args.threshold_on}), seed {seed}",
        )
    first = results[0]
    if args.json:
        print(
            json.dumps(
                {
                    "schema_version": 1,
                    "seed": seed,
                    "sharing_probability": args.sharing_probability,
                    "threshold": args.threshold,
                    "threshold_on": args.threshold_on,
                    "codes": args.codes,
                    "epsilon": first["epsilon"],
                    "delta": first["delta"],
                    "worst_crowds": first["worst_crowds"],
                    "points": results,
                },
                indent=2,
            )
        )
        return EXIT_OK
    print(
        f"P2B: ε = {first['epsilon']:.6g}, δ* = {first['delta']:.6g} (worst case at crowd sizes "
        f"{tuple(first['worst_crowds'])}; threshold on {args.threshold_on}"
        + ("" if args.threshold_on == "tuple" else ": the claim does not hold for this pipeline")
        + ")"
    )
    print(f"{'early users':>11} {'late':>7} " + " ".join(f"{a:>24}" for a in ARMS) + f" {'shared':>8} {'released':>9}")
    for r in results:
        cells = [
            f"{r['average_reward'][a]['mean']:.4f} [{r['average_reward'][a]['ci95'][0]:.4f}, "
            f"{r['average_reward'][a]['ci95'][1]:.4f}]"
            for a in ARMS
        ]
        print(
            f"{r['early_users']:>11} {r['late_users']:>7} "
            + " ".join(f"{c:>24}" for c in cells)
            + f" {r['shared_tuples']:>8} {r['released_tuples']:>9}"
        )
    print("average reward of late users, 95% intervals over late users")
    if args.plot:
        print(f"plot written to {args.plot}")
    print("Reproduce: " + command_line(argv, seed))
    return EXIT_OK


def register(sub):
    p = sub.add_parser(
        "p2b", parents=[SEED, OUTPUT], help="the P2B experiment: cold, warm non-private and warm private late users"
    )
    p.add_argument("--early-users", required=True, help="early-user counts, comma-separated (e.g. 1000,5000,10000)")
    p.add_argument("--sharing-probability", type=float, default=0.5, help="p (default 0.5)")
    p.add_argument("--threshold", type=whole_number, default=10, help="l (default 10)")
    p.add_argument(
        "--threshold-on",
        default="tuple",
        choices=["tuple", "code", "none"],
        help="what the shuffler counts against its threshold l: the whole released tuple, the code only "
        "(as the public code does), or nothing (no thresholding)",
    )
    p.add_argument("--codes", type=count, default=128, help="k, the encoder's codes (default 128)")
    p.add_argument("--early-fraction", type=float, default=0.7, help="share of users who are early (default 0.7)")
    p.add_argument("--interactions", type=count, default=10, help="interactions per user (default 10)")
    p.add_argument("--alpha", type=float, default=1.0, help="LinUCB's α (default 1)")
    p.add_argument(
        "--share",
        default="positive",
        choices=["positive", "uniform"],
        help="which interaction a reporting user shares (default: a rewarded one if any)",
    )
    p.add_argument("--plot", help="write a PNG of the reward curves")
    p.set_defaults(run=cmd_p2b)
    common_groups_last(p)
