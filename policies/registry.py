"""The policies and environments the command line knows by name.  Only :mod:`privcheck.cli` reads this."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from privcheck.core import InvalidArgument, check_real

from .corruption import Corruption
from .environments import Bernoulli, Gaussian, Pareto, Schedule, alternating_schedule, parse_means
from .index import KLUCB, KLUCBCF, SWKLUCBCF, SWUCB, UCB1, UCBCF, sw_klucb_window
from .thompson import ThompsonSampling

__all__ = ["POLICIES", "ENVIRONMENTS", "build_environment", "build_policy", "PolicySpec"]


@dataclass(frozen=True)
class PolicySpec:
    name: str
    summary: str
    build: Callable  # (env, horizon, exploration or None, window or None) -> policy
    bernoulli_only: bool = False


def _window(env, horizon, window):
    return window if window is not None else sw_klucb_window(horizon, env.schedule.n_segments)


def _c(exploration, default):
    return default if exploration is None else exploration


POLICIES: dict[str, PolicySpec] = {p.name: p for p in [
    PolicySpec("ucb1", "UCB1 on the feedback", lambda e, T, c, w: UCB1(e.n_arms)),
    PolicySpec("kl-ucb", "kl-UCB on the feedback (c = 0 by default)", lambda e, T, c, w: KLUCB(e.n_arms, _c(c, 0.0))),
    PolicySpec("ts", "Bernoulli Thompson sampling on the feedback", lambda e, T, c, w: ThompsonSampling(e.n_arms),
               bernoulli_only=True),
    PolicySpec("sw-ucb", "sliding-window UCB (ξ = 0.6; window as SW-KLUCB-CF unless --window)",
               lambda e, T, c, w: SWUCB(e.n_arms, _window(e, T, w))),
    PolicySpec("kl-ucb-cf", "kl-UCB-CF: kl-UCB through g⁻¹ (c = 0 by default)",
               lambda e, T, c, w: KLUCBCF(e.corruption, _c(c, 0.0))),
    PolicySpec("ucb-cf", "UCB-CF: Hoeffding bound through g⁻¹", lambda e, T, c, w: UCBCF(e.corruption, _c(c, 0.0))),
    PolicySpec("ts-cf", "TS-CF: Beta posterior on λ, argmax g⁻¹(θ)",
               lambda e, T, c, w: ThompsonSampling(e.n_arms, e.corruption, name="ts-cf"), bernoulli_only=True),
    PolicySpec("sw-klucb-cf", "SW-KLUCB-CF (c = 3, w = ⌈√(4eT/(L+4))⌉ by default)",
               lambda e, T, c, w: SWKLUCBCF(e.corruption, _window(e, T, w), _c(c, 3.0))),
]}

ENVIRONMENTS = {
    "bernoulli": "Bernoulli rewards (feedback through randomized response when --epsilon is given)",
    "corrupt-bernoulli": "Bernoulli rewards seen through ε-randomized response (--epsilon required)",
    "piecewise-bernoulli": "piecewise-stationary Bernoulli: segments in --means separated by ';', or --breakpoints L",
    "gaussian": "N(μ, σ²) rewards (--sigma, default 1)",
    "pareto": "Pareto rewards of shape 3 with the given means (heavy tails)",
}


def build_environment(name: str, means: str | None, horizon: int, epsilon: float | None = None,
                      breakpoints: int | None = None, arms: int | None = None, sigma: float = 1.0):
    if name not in ENVIRONMENTS:
        raise InvalidArgument(f"unknown environment {name!r} (one of {', '.join(ENVIRONMENTS)})")
    if breakpoints is not None:
        if name != "piecewise-bernoulli":
            raise InvalidArgument("--breakpoints applies to piecewise-bernoulli only")
        if means is not None:
            raise InvalidArgument("give either --means or --breakpoints, not both")
        if breakpoints < 1:
            raise InvalidArgument(f"--breakpoints={breakpoints} must be >= 1")
        seg = alternating_schedule(2 if arms is None else arms, breakpoints)
    elif means is None:
        raise InvalidArgument("--means is required (e.g. 0.9,0.8x9)")
    else:
        seg = parse_means(means)
    if seg.shape[0] > 1 and name != "piecewise-bernoulli":
        raise InvalidArgument(f"segments (';') need --env piecewise-bernoulli, not {name}")
    schedule = Schedule(seg, horizon)
    if epsilon is not None:
        epsilon = check_real("epsilon", epsilon, lower=0.0, lower_open=True)
        if name in ("gaussian", "pareto"):
            raise InvalidArgument(f"--epsilon (randomized response) needs Bernoulli rewards, not {name}")
    if name == "corrupt-bernoulli" and epsilon is None:
        raise InvalidArgument("corrupt-bernoulli needs --epsilon, the randomized-response level")
    if name == "gaussian":
        return Gaussian(schedule, sigma)
    if name == "pareto":
        return Pareto(schedule)
    corruption = None
    if epsilon is not None:
        p = 1.0 / (1.0 + np.exp(-epsilon))  # optimal ε-LDP randomized response, the same on every arm
        corruption = Corruption.randomized_response(np.full(seg.shape[1], p), np.full(seg.shape[1], p))
    return Bernoulli(schedule, corruption)


def build_policy(name: str, env, horizon: int, exploration=None, window=None):
    if name not in POLICIES:
        raise InvalidArgument(f"unknown policy {name!r} (one of {', '.join(POLICIES)})")
    spec = POLICIES[name]
    if spec.bernoulli_only and not isinstance(env, Bernoulli):
        raise InvalidArgument(f"{name} needs Bernoulli feedback")
    if exploration is not None:
        check_real("exploration", exploration, lower=0.0)
    if window is not None and (window != int(window) or window < 1):
        raise InvalidArgument(f"--window={window!r} must be an integer >= 1")
    return spec.build(env, horizon, exploration, None if window is None else int(window))
