"""``privcheck experiment NAME``: a named experiment of the papers, as rows of ``privcheck regret``."""

from __future__ import annotations

import json
import shlex

from privcheck.core import InvalidArgument, resolve_seed

from .reproduce import command_line
from .common import SEED, EXECUTION, OUTPUT, common_groups_last, count, EXIT_OK, Progress, executor_from
from .regret import run_regret, run_rounds


def cmd_experiment(args, argv) -> int:
    from .experiments import EXPERIMENTS

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
    planned = _planned(exp, args, runs, seed)
    rows = _run(exp, args, planned)
    line = command_line(argv if "--runs" in argv else [*argv, "--runs", str(runs)], seed)
    if args.json:
        print(
            json.dumps(
                {
                    "schema_version": 1,
                    "experiment": exp.name,
                    "summary": exp.summary,
                    "runs": runs,
                    "seed": seed,
                    "baselines": exp.baselines,
                    "rows": rows,
                    "command": line,
                },
                indent=2,
            )
        )
        return EXIT_OK
    _print_table(exp, rows, runs, seed, line)
    return EXIT_OK


def _planned(exp, args, runs: int, seed: int) -> list:
    """(label, words, parsed arguments) of each row to run: its ``privcheck regret`` command."""
    from . import make_parser  # the whole command line: each row is a `privcheck regret` command

    parser = make_parser()
    planned, seen = [], set()
    for label, row in exp.rows:
        row = list(row)
        if args.horizon is not None:
            row[row.index("--horizon") + 1] = str(args.horizon)
        words = ["regret", *row, "--runs", str(runs), "--seed", str(seed)]
        if tuple(words) in seen:  # rows that differed only in T are one row under --horizon
            continue
        seen.add(tuple(words))
        planned.append((label, words, parser.parse_args(words)))
    return planned


def _run(exp, args, planned) -> list:
    """Each row run (one progress bar for all), with its final regrets and its ratios to the baselines."""
    rows = []
    with (
        executor_from(args) as executor,
        Progress(
            args,
            total=sum(run_rounds(r) for _, _, r in planned),
            unit=" run-rounds",
            hint="--runs or --horizon set the size",
        ) as bar,
    ):
        for label, words, rargs in planned:
            # one bar for all rows (none under --quiet): a row never opens its own
            env_text, _, summaries = run_regret(rargs, executor, bar.update or (lambda n: None))
            ratios = {
                p: summaries[p]["final_regret"] / summaries[b]["final_regret"]
                for p, b in exp.baselines.items()
                if p in summaries and summaries[b]["final_regret"] > 0
            }
            rows.append(
                {
                    "label": label,
                    "horizon": rargs.horizon,
                    "env": env_text,
                    "command": "privcheck " + " ".join(shlex.quote(w) for w in words),
                    "policies": {
                        n: {k: s[k] for k in ("final_regret", "stderr", "pulls")} for n, s in summaries.items()
                    },
                    "ratios": ratios,
                }
            )
    return rows


def _print_table(exp, rows, runs, seed, line) -> None:
    names = list(rows[0]["policies"])
    ratio_names = [p for p in exp.baselines if p in names]
    print(f"{exp.summary}; {runs} runs per row, seed {seed}\n")
    print("| row | T | " + " | ".join(names) + "".join(f" | {p} / {exp.baselines[p]}" for p in ratio_names) + " |")
    print("|---|---|" + "---|" * (len(names) + len(ratio_names)))
    for r in rows:
        cells = [f"{r['policies'][n]['final_regret']:.1f} ± {r['policies'][n]['stderr']:.1f}" for n in names]
        cells += [f"{r['ratios'][p]:.2f}" if p in r["ratios"] else "–" for p in ratio_names]
        print(f"| {r['label']} | {r['horizon']} | " + " | ".join(cells) + " |")
    print('\nEach row alone: the `privcheck regret` command in --json\'s "command" (e.g. ' + rows[0]["command"] + ")")
    print("Reproduce: " + line)
    return EXIT_OK


def register(sub):
    p = sub.add_parser(
        "experiment",
        parents=[SEED, EXECUTION, OUTPUT],
        help="run a named experiment of the papers (a table of privcheck regret rows)",
    )
    p.add_argument("name", nargs="?", help="adac-ucb | gope | oful | heavy | fig2b (none: list them)")
    p.add_argument("--runs", type=count, help="runs per row (default: the experiment's own)")
    p.add_argument("--horizon", type=count, help="replace every row's horizon (a quick look; not the paper's setting)")
    p.set_defaults(run=cmd_experiment)
    common_groups_last(p)
