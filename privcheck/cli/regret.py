"""``privcheck regret``: run bandit policies on an environment and compare their regret."""

from __future__ import annotations

import sys

import json

from privcheck.core import InvalidArgument, resolve_seed
from privcheck.core.errors import check_writable
from privcheck.core.protocols import Contextual, provides
from privcheck.core.resources import DEFAULT_MAX_HOURS, check_max_hours
from privcheck.core.targets import Described

from .reproduce import command_line
from .common import (
    SEED,
    EXECUTION,
    OUTPUT,
    common_groups_last,
    count,
    EXIT_OK,
    Progress,
    executor_from,
    private_policy_options,
    add_private_policy_options,
)


def _policy_epsilon(args, names) -> float | None:
    """The policies' own ε (--epsilon; --dp-epsilon, its old spelling, said so on stderr), refused when none of
    ``names`` takes one — an old command's --epsilon, which was the feedback channel's level, is told where that
    went."""
    from privcheck.policies.registry import POLICIES

    eps = args.epsilon
    if args.dp_epsilon_old is not None:
        print("privcheck: --dp-epsilon is now spelled --epsilon (as in privcheck audit)", file=sys.stderr)
        if eps is not None:
            raise InvalidArgument("give --epsilon once (--dp-epsilon is its old spelling)")
        eps = args.dp_epsilon_old
    takes = [n for n in names if ":" in n or (n in POLICIES and "epsilon" in POLICIES[n].needs)]
    if eps is not None and not takes:
        raise InvalidArgument(
            f"--epsilon is the policies' own ε, and none of {', '.join(names)} takes one; the feedback channel's "
            "randomized-response level is --rr-epsilon"
        )
    return eps


def run_regret(args, executor, progress=None):
    """Run the policies of a ``privcheck regret`` command: (environment text, seed, {name: summary}); with a bar
    of its own, unless it is one row of a larger run that passes ``progress`` (told of the run-rounds done)."""
    from privcheck.policies.simulator import experiment

    if args.arms is not None and args.arms < 2:
        raise InvalidArgument(f"--arms={args.arms}: a bandit needs at least 2 arms")
    names = [n.strip() for n in args.policies.split(",") if n.strip()]
    if not names:
        raise InvalidArgument("--policies must name at least one policy")
    if len(set(names)) != len(names):
        raise InvalidArgument("--policies lists a policy twice")
    epsilon = _policy_epsilon(args, names)
    env_d = Described(
        "privcheck.policies.registry:build_environment",
        {
            "name": args.env,
            "means": args.means,
            "horizon": args.horizon,
            "rr_epsilon": args.rr_epsilon,
            "breakpoints": args.breakpoints,
            "arms": args.arms,
            "sigma": args.sigma,
            "dim": args.dim,
            "env_seed": args.env_seed,
        },
    )
    env = env_d.build()
    options = {
        "exploration": args.exploration,
        "window": args.window,
        "rho": args.rho,
        "epsilon": epsilon,
        **private_policy_options(args),
    }
    policies = [
        Described(
            "privcheck.policies.registry:build_policy",
            {"name": n, "env": env_d, "horizon": args.horizon, "options": options},
        )
        for n in names
    ]
    for pol in policies:
        pol.build()  # checked here, before any work is sent
    if args.horizon < env.n_arms:
        raise InvalidArgument(f"--horizon={args.horizon} must be >= the number of arms ({env.n_arms})")
    if args.runs < 1:
        raise InvalidArgument(f"--runs={args.runs} must be >= 1")
    if args.plot:
        check_writable("plot", args.plot)
    seed = resolve_seed(args.seed)
    max_hours = check_max_hours(getattr(args, "max_hours", DEFAULT_MAX_HOURS))
    if progress is not None:
        summaries = experiment(
            env_d, dict(zip(names, policies)), args.horizon, args.runs, seed, executor, progress, max_hours
        )
    else:
        with Progress(args, total=run_rounds(args), unit=" run-rounds", hint="--runs or --horizon set the size") as bar:
            summaries = experiment(
                env_d, dict(zip(names, policies)), args.horizon, args.runs, seed, executor, bar.update, max_hours
            )
    if provides(env, Contextual) and env.contextual:
        env_text = f"{args.env} K={env.n_arms} d={env.dim} theta={[round(float(v), 6) for v in env.theta]}"
    else:
        seg = env.schedule.segments
        env_text = f"{args.env} means={seg.tolist() if seg.shape[0] > 1 else seg[0].tolist()}"
    if args.rr_epsilon is not None:
        env_text += f" rr_epsilon={args.rr_epsilon:g}"
    return env_text, seed, summaries


def run_rounds(args) -> int:
    """The rounds simulated by a ``privcheck regret`` command: horizon × runs × policies."""
    return args.horizon * args.runs * len([n for n in args.policies.split(",") if n.strip()])


def cmd_regret(args, argv) -> int:
    with executor_from(args) as executor:
        env_text, seed, summaries = run_regret(args, executor)
    if args.plot:
        from privcheck.policies.plotting import plot_regret

        plot_regret(summaries, args.plot, f"{env_text}, T={args.horizon}, {args.runs} runs, seed {seed}", args.log_time)
    if args.json:
        print(
            json.dumps(
                {
                    "schema_version": 1,
                    "env": env_text,
                    "horizon": args.horizon,
                    "runs": args.runs,
                    "seed": seed,
                    "policies": summaries,
                },
                indent=2,
            )
        )
        return EXIT_OK
    print(f"{env_text}; T = {args.horizon}, {args.runs} runs, seed {seed}")
    w = max(14, *(len(n) for n in summaries))
    print(f"{'policy':<{w}} {'regret':>12} {'± stderr':>10}   pulls per arm (mean)")
    for name, s in summaries.items():
        pulls = ", ".join(f"{p:.4g}" for p in s["pulls"])
        print(f"{name:<{w}} {s['final_regret']:>12.2f} {s['stderr']:>10.2f}   [{pulls}]")
    if args.plot:
        print(f"plot written to {args.plot}")
    print("Reproduce: " + command_line(argv, seed))
    return EXIT_OK


def register(sub):
    p = sub.add_parser(
        "regret",
        parents=[SEED, EXECUTION, OUTPUT],
        help="run bandit policies on an environment and compare their regret",
    )
    p.add_argument(
        "--env",
        required=True,
        help="bernoulli | corrupt-bernoulli | piecewise-bernoulli | gaussian | pareto | linear | linear-contextual",
    )
    p.add_argument("--means", help="comma list with AxN shorthand (0.8x9); segments separated by ';'")
    p.add_argument("--breakpoints", type=count, help="piecewise: L generated segments, the best arm changing each time")
    p.add_argument(
        "--arms",
        type=count,
        help="number of arms for --breakpoints (default 2), of actions for the linear envs (default 10)",
    )
    p.add_argument(
        "--rr-epsilon", type=float, help="the feedback channel's level: rewards seen through ε-randomized response"
    )
    p.add_argument("--sigma", type=float, default=1.0, help="Gaussian noise (gaussian and linear envs)")
    p.add_argument("--dim", type=count, help="linear envs: the dimension d (default 3)")
    p.add_argument("--env-seed", type=int, default=0, help="linear envs: the seed of θ* (and of the fixed actions)")
    p.add_argument("--policies", required=True, help="comma list, e.g. kl-ucb-cf,ucb-cf,ts-cf,kl-ucb")
    p.add_argument("--horizon", type=count, required=True, help="rounds T of each run")
    p.add_argument("--runs", type=count, default=100, help="independent runs, vectorised")
    p.add_argument(
        "--max-hours",
        type=float,
        default=DEFAULT_MAX_HOURS,
        help="the ceiling of the estimated time: a longer plan is refused before any work (default %(default)g)",
    )
    p.add_argument("--exploration", type=float, help="c in f(t) = log t + c log log t")
    p.add_argument("--window", type=count, help="sliding window w (sw-ucb, sw-klucb-cf)")
    add_private_policy_options(p)
    p.add_argument("--rho", type=float, help="zCDP level of adac-ucb")
    p.add_argument(
        "--epsilon",
        type=float,
        help="the policies' own ε, as in privcheck audit: of dp-robust-ucb, dp-robust-se (central), ldp-robust-se "
        "(local) and of a user's policy factory (its epsilon); the feedback channel's level is --rr-epsilon",
    )
    p.add_argument("--dp-epsilon", type=float, dest="dp_epsilon_old", help="the old spelling of --epsilon")
    p.add_argument("--plot", help="write a PNG of the regret curves")
    p.add_argument("--log-time", action="store_true", help="the plot's time axis on a log scale")
    p.set_defaults(run=cmd_regret)
    common_groups_last(p)
