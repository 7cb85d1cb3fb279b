"""The policies and environments the command line knows by name.  The command line reads it; a worker rebuilds an
environment or a policy through :func:`build_environment` and :func:`build_policy` (descriptions,
:mod:`privcheck.core.targets`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from privcheck.core import InvalidArgument, PureDP, ZCDP, check_real
from privcheck.core.sequential import as_policy

from .corruption import Corruption
from .adac_ucb import AdaCUCB, EpisodicUCB
from .environments import (
    Bernoulli,
    Gaussian,
    Linear,
    LinearContextual,
    Pareto,
    Schedule,
    alternating_schedule,
    parse_means,
)
from .gope import GOPE
from .oful import OFUL
from .heavy_tailed import DPRobustSE, DPRobustUCB, LDPRobustSE, NonPrivateRobustSE, NonPrivateRobustUCB, check_nu
from .index import KLUCB, KLUCBCF, SWKLUCBCF, SWUCB, UCB1, UCBCF, sw_klucb_window
from .thompson import ThompsonSampling

__all__ = [
    "POLICIES",
    "ENVIRONMENTS",
    "RL_AGENTS",
    "build_environment",
    "build_policy",
    "PolicySpec",
    "AuditSchedule",
    "AUDIT_SCHEDULES",
    "SCHEDULE_OPTIONS",
    "user_policy",
]


#: the options that shorten a private policy's schedule (its phases, its widths) without touching its noise
SCHEDULE_OPTIONS = ("phase_scale", "width_scale")


@dataclass(frozen=True)
class AuditSchedule:
    """How ``privcheck audit NAME`` runs a private policy where its noise matters.  By default on its published
    schedule, at the smallest horizon where its releases decide actions: the round its first release ends (its
    :class:`~privcheck.core.protocols.ReleaseSchedule`) plus one round per arm — so that the arms left show —
    and at least ``horizon``.  On request (``schedule="shortened"``) on a shortened schedule: ``options`` (each
    shortens phases or widths only — the noise of every release is calibrated as published) at ``horizon``,
    ``why`` saying why that instance is representative."""

    horizon: int
    options: dict
    why: str
    antipodal: bool = False  # linear policies: two actions ±e₁ (else the random actions of the linear environment)


_SHORT_PHASES = AuditSchedule(
    8,
    {"phase_scale": 1e-9},
    (
        "phases shortened to one pull of each design action (phase_scale=1e-9), so every phase ends with a private "
        "estimate that can eliminate actions; each release is calibrated to its realised V, as in the published "
        "schedule"
    ),
)
_SHORT_SE = AuditSchedule(
    8,
    {"width_scale": 1e-3},
    (
        "widths × 1e-3 (width_scale=1e-3): phases of a few pulls per arm, so phase 1 ends within the horizon with a "
        "noisy elimination; the noise of each mean is calibrated as published (privacy does not depend on the "
        "widths)"
    ),
)

_ADAC_UCB = AuditSchedule(
    8,
    {},
    (
        "episodes double from one pull, so noisy means are released from the first rounds on and choose the arm "
        "of every later episode"
    ),
)
_ADAC_OFUL = AuditSchedule(
    8,
    {"width_scale": 1e-3},
    (
        "two actions ±e₁, so the action taken reveals the sign of the released estimate along the direction one "
        "reward moves it; episodes switch when det V doubles, from the first rounds on, each switch releasing a "
        "noisy Σ a·r; the optimism width × 1e-3 (width_scale=1e-3) so that the estimate, not the width, "
        "chooses the action (privacy does not depend on the width)"
    ),
    antipodal=True,
)
_DP_ROBUST_UCB = AuditSchedule(
    8,
    {"width_scale": 1e-3},
    (
        "every arm is pulled once, then the private tree sums choose each action; widths × 1e-3 (width_scale=1e-3) "
        "so that the noisy means, not the widths, decide (privacy does not depend on the widths)"
    ),
)


@dataclass(frozen=True)
class PolicySpec:
    """A built-in policy: its name, summary and builder, what it acts on, and — for a private policy — how
    ``privcheck audit NAME`` runs it (:mod:`.audited` decides the instance from these fields alone)."""

    name: str
    summary: str
    build: Callable  # (environment, {parameter: value}) -> policy: the options of :func:`build_policy` and horizon
    bernoulli_only: bool = False
    needs: tuple = ()  # options that must be given (e.g. "rho")
    linear: bool = False  # acts on the actions of a linear environment
    contextual: bool = False  # also takes a fresh action set each round (a linear contextual environment)
    phased: bool = False  # runs in phases whose length phase_scale= scales (the GOPE family)
    #: a private policy's shortened audit schedule (``schedule="shortened"``; its horizon is also the least audited)
    audit_schedule: AuditSchedule | None = None
    #: why its published schedule decides actions from the smallest horizon audited, where that needs saying
    published_why: str | None = None

    @property
    def private(self) -> bool:
        """Whether it adds noise of its own (is calibrated to ρ or ε)."""
        return bool({"rho", "epsilon"} & set(self.needs))


def _window(env, o):
    return o["window"] if "window" in o else sw_klucb_window(o["horizon"], env.schedule.n_segments)


def _c(o, default):
    return o.get("exploration", default)


def _u(env, o):
    """The moment bound u = E|X|^(1+ν): given, computed from a Pareto environment, or 1 for rewards in [0, 1]."""
    if "u" in o:
        return o["u"]
    if isinstance(env, Pareto):
        return float(env.moment(o["nu"]).max())
    if isinstance(env, Bernoulli):
        return 1.0
    raise InvalidArgument("give u=, the bound on E|X|^(1+ν), for this environment")


def _noise(o) -> dict:
    return {"noise_multiplier": o.get("noise_multiplier", 1.0)}


def _heavy(cls):
    return lambda e, o: cls(
        e.n_arms,
        o["epsilon"],
        o["nu"],
        _u(e, o),
        width_scale=o.get("width_scale", 1.0),
        **({"horizon": o["horizon"]} if cls is DPRobustUCB else {}),
        **_noise(o),
    )


def _bounds(o):
    """The public bounds R and L of the linear policies' statistics (1 and 1 unless given)."""
    return {"reward_bound": o.get("reward_bound", 1.0), "action_bound": o.get("action_bound", 1.0)}


def _oful(rho):
    def build(e, o):
        actions = e.actions if isinstance(e, Linear) else None  # fixed actions, or a fresh set each round
        return OFUL(
            e.n_arms,
            e.dim,
            o["rho"] if rho else None,
            actions=actions,
            sigma=e.sigma,
            **_bounds(o),
            **(_noise(o) if rho else {}),
            width_scale=o.get("width_scale", 1.0),
        )

    return build


POLICIES: dict[str, PolicySpec] = {
    p.name: p
    for p in [
        PolicySpec("ucb1", "UCB1 on the feedback", lambda e, o: UCB1(e.n_arms)),
        PolicySpec("kl-ucb", "kl-UCB on the feedback (c = 0 by default)", lambda e, o: KLUCB(e.n_arms, _c(o, 0.0))),
        PolicySpec(
            "ts",
            "Bernoulli Thompson sampling on the feedback",
            lambda e, o: ThompsonSampling(e.n_arms),
            bernoulli_only=True,
        ),
        PolicySpec(
            "sw-ucb",
            "sliding-window UCB (ξ = 0.6; window as SW-KLUCB-CF unless window= is given)",
            lambda e, o: SWUCB(e.n_arms, _window(e, o)),
        ),
        PolicySpec(
            "kl-ucb-cf",
            "kl-UCB-CF: kl-UCB through g⁻¹ (c = 0 by default)",
            lambda e, o: KLUCBCF(e.corruption, _c(o, 0.0)),
        ),
        PolicySpec("ucb-cf", "UCB-CF: Hoeffding bound through g⁻¹", lambda e, o: UCBCF(e.corruption, _c(o, 0.0))),
        PolicySpec(
            "ts-cf",
            "TS-CF: Beta posterior on λ, argmax g⁻¹(θ)",
            lambda e, o: ThompsonSampling(e.n_arms, e.corruption, name="ts-cf"),
            bernoulli_only=True,
        ),
        PolicySpec(
            "sw-klucb-cf",
            "SW-KLUCB-CF (c = 3, w = ⌈√(4eT/(L+4))⌉ by default)",
            lambda e, o: SWKLUCBCF(e.corruption, _window(e, o), _c(o, 3.0)),
        ),
        PolicySpec(
            "adac-ucb",
            "AdaC-UCB: doubling episodes with forgetting, Gaussian noise (ρ-Interactive zCDP)",
            lambda e, o: AdaCUCB(e.n_arms, o["rho"], **_noise(o)),
            needs=("rho",),
            audit_schedule=_ADAC_UCB,
            published_why=_ADAC_UCB.why,
        ),
        PolicySpec(
            "episodic-ucb",
            "AdaC-UCB's non-private twin: the same episodes and forgetting, no noise",
            lambda e, o: EpisodicUCB(e.n_arms),
        ),
        PolicySpec(
            "dp-robust-ucb",
            "DP Robust UCB: truncation + tree-based private sums (ε-DP, heavy tails)",
            _heavy(DPRobustUCB),
            needs=("epsilon", "nu"),
            audit_schedule=_DP_ROBUST_UCB,
            published_why=(
                "every arm is pulled once, then the private tree sums choose each action (arms pulled equally often "
                "have equal widths: their noisy means decide)"
            ),
        ),
        PolicySpec(
            "dp-robust-se",
            "DP Robust SE: successive elimination, truncated means + Laplace (ε-DP)",
            _heavy(DPRobustSE),
            needs=("epsilon", "nu"),
            audit_schedule=_SHORT_SE,
        ),
        PolicySpec(
            "ldp-robust-se",
            "LDP Robust SE: every reward truncated + Laplace on the user's side (ε-LDP)",
            _heavy(LDPRobustSE),
            needs=("epsilon", "nu"),
            audit_schedule=_SHORT_SE,
        ),
        PolicySpec(
            "robust-ucb",
            "DP Robust UCB's non-private twin: the same index and truncation, exact sums",
            lambda e, o: NonPrivateRobustUCB(
                e.n_arms, o["nu"], _u(e, o), o["horizon"], width_scale=o.get("width_scale", 1.0)
            ),
            needs=("nu",),
        ),
        PolicySpec(
            "robust-se",
            "DP/LDP Robust SE's non-private twin: the same phases, truncated means, no noise",
            lambda e, o: NonPrivateRobustSE(e.n_arms, o["nu"], _u(e, o), width_scale=o.get("width_scale", 1.0)),
            needs=("nu",),
        ),
        PolicySpec(
            "gope",
            "GOPE: G-optimal phased elimination (linear bandits)",
            lambda e, o: GOPE(e.actions, **_bounds(o), phase_scale=o.get("phase_scale", 1.0)),
            linear=True,
            phased=True,
        ),
        PolicySpec(
            "adac-gope",
            "AdaC-GOPE: GOPE with Gaussian noise on V^(1/2)θ̂ per phase (ρ-Interactive zCDP)",
            lambda e, o: GOPE(
                e.actions,
                o["rho"],
                variant="adac-gope",
                **_bounds(o),
                **_noise(o),
                phase_scale=o.get("phase_scale", 1.0),
            ),
            needs=("rho",),
            linear=True,
            phased=True,
            audit_schedule=_SHORT_PHASES,
        ),
        PolicySpec(
            "adar-gope-var",
            "AdaR-GOPE-Var: GOPE with Gaussian noise on each per-action reward sum",
            lambda e, o: GOPE(
                e.actions,
                o["rho"],
                variant="adar-gope-var",
                **_bounds(o),
                **_noise(o),
                phase_scale=o.get("phase_scale", 1.0),
            ),
            needs=("rho",),
            linear=True,
            phased=True,
            audit_schedule=_SHORT_PHASES,
        ),
        PolicySpec(
            "rs-oful",
            "RS-OFUL: rarely switching OFUL (linear and linear contextual bandits)",
            _oful(False),
            linear=True,
            contextual=True,
        ),
        PolicySpec(
            "adac-oful",
            "AdaC-OFUL: RS-OFUL with Gaussian noise on Σ a r at each episode (ρ-Interactive zCDP)",
            _oful(True),
            needs=("rho",),
            linear=True,
            contextual=True,
            audit_schedule=_ADAC_OFUL,
            published_why=(
                "two actions ±e₁, whose optimism widths are equal, so the action taken is the sign of the released "
                "estimate along the direction one reward moves it; episodes switch when det V doubles, from the first "
                "rounds on, each switch releasing a noisy Σ a·r"
            ),
        ),
    ]
}

#: the audit instance of each private policy (the others are audited as given), from the catalogue
AUDIT_SCHEDULES = {name: spec.audit_schedule for name, spec in POLICIES.items() if spec.audit_schedule is not None}

#: the episodic agents (private reinforcement learning) built in: name -> (what ``privcheck audit`` is given, what it
#: is, what it publishes after each episode — the names ``releases=`` audits)
RL_AGENTS = {
    "pucb": (
        "privcheck.policies.private_ucbvi:make",
        "PUCB (Vietri et al. 2020): optimistic value iteration on visits, rewards and transitions released through "
        "binary-mechanism counters with discrete Laplace noise, ε-joint-DP per episode; without a claim's ε the "
        "non-private twin (UCB-VI)",
        ("visits", "rewards", "transitions"),
    ),
    "dp-lsvi": (
        "privcheck.policies.dp_lsvi:make",
        "DP-LSVI (Luyo et al. 2021), a linear MDP's agent (give dim=): least-squares value iteration on its Gram "
        "matrix, reward and transition sums per step released through binary-mechanism counters with discrete "
        "Gaussian noise, ρ-joint-zCDP (or an (ε, δ) claim through the zCDP conversion); without a claim the "
        "non-private twin",
        ("gram", "rewards", "transitions"),
    ),
    "ldp-ucbvi": (
        "privcheck.policies.ldp_ucbvi:make",
        "Locally private optimistic value iteration (the LDP-OBI family, Garcelon et al. 2021): each user sends "
        "their episode's visits, rewards and transitions with discrete Laplace noise, ε-LDP per report "
        "(definition='local' audits its report(trajectory)); without a claim's ε the non-private twin",
        ("visits", "rewards", "transitions"),
    ),
}


ENVIRONMENTS = {
    "bernoulli": "Bernoulli rewards (feedback through randomized response when rr_epsilon= is given)",
    "corrupt-bernoulli": "Bernoulli rewards seen through ε-randomized response (rr_epsilon= required)",
    "piecewise-bernoulli": "piecewise-stationary Bernoulli: segments in means= separated by ';', or breakpoints=L",
    "gaussian": "N(μ, σ²) rewards (sigma=, default 1)",
    "pareto": "Pareto rewards of shape 3 with the given means (heavy tails)",
    "linear": "linear bandit: arms= actions and θ* drawn on the unit sphere of R^dim (dim=, env_seed=), N(0, σ²) noise",
    "linear-contextual": "linear contextual bandit: arms= fresh actions N(1/√d·1, I/10) per round, θ* on the sphere",
}


def build_environment(
    name: str,
    means: str | None,
    horizon: int,
    rr_epsilon: float | None = None,
    breakpoints: int | None = None,
    arms: int | None = None,
    sigma: float = 1.0,
    dim: int | None = None,
    env_seed: int = 0,
):
    if name not in ENVIRONMENTS:
        raise InvalidArgument(f"unknown environment {name!r} (one of {', '.join(ENVIRONMENTS)})")
    if name in ("linear", "linear-contextual"):
        if means is not None or rr_epsilon is not None or breakpoints is not None:
            raise InvalidArgument(f"env={name!r} draws its own means: no means=, rr_epsilon= or breakpoints=")
        if dim is not None and (dim != int(dim) or dim < 1):
            raise InvalidArgument(f"dim={dim!r} must be an integer >= 1")
        cls = Linear if name == "linear" else LinearContextual
        return cls.random(
            10 if arms is None else arms, 3 if dim is None else int(dim), np.random.default_rng(env_seed), sigma
        )
    if dim is not None:
        raise InvalidArgument('dim= applies to env="linear"')
    if breakpoints is not None:
        if name != "piecewise-bernoulli":
            raise InvalidArgument("breakpoints= applies to piecewise-bernoulli only")
        if means is not None:
            raise InvalidArgument("give either means= or breakpoints=, not both")
        if breakpoints < 1:
            raise InvalidArgument(f"breakpoints={breakpoints} must be >= 1")
        seg = alternating_schedule(2 if arms is None else arms, breakpoints)
    elif means is None:
        raise InvalidArgument("means= is required (e.g. 0.9,0.8x9)")
    else:
        seg = parse_means(means)
    if seg.shape[0] > 1 and name != "piecewise-bernoulli":
        raise InvalidArgument(f"segments (';') need env=\"piecewise-bernoulli\", not {name}")
    schedule = Schedule(seg, horizon)
    if rr_epsilon is not None:
        rr_epsilon = check_real("rr_epsilon", rr_epsilon, lower=0.0, lower_open=True)
        if name in ("gaussian", "pareto"):
            raise InvalidArgument(f"rr_epsilon= (randomized response) needs Bernoulli rewards, not {name}")
    if name == "corrupt-bernoulli" and rr_epsilon is None:
        raise InvalidArgument("corrupt-bernoulli needs rr_epsilon=, the feedback channel's randomized-response level")
    if name == "gaussian":
        return Gaussian(schedule, sigma)
    if name == "pareto":
        return Pareto(schedule)
    corruption = None
    if rr_epsilon is not None:
        p = 1.0 / (1.0 + np.exp(-rr_epsilon))  # optimal ε-LDP randomized response, the same on every arm
        corruption = Corruption.randomized_response(np.full(seg.shape[1], p), np.full(seg.shape[1], p))
    return Bernoulli(schedule, corruption)


def user_policy(
    reference: str,
    n_arms: int,
    horizon: int | None,
    claim=None,
    adapter: str | None = None,
    one_based: bool = False,
    factory_args: dict | None = None,
    dim: int | None = None,
    contexts=None,
    context_bound=None,
):
    """A user's policy named ``path/to/file.py:name`` or ``module:name``: a batched policy object, a factory of
    one, or a factory of one-object-per-run policies (:mod:`privcheck.core.sequential`), given the ``n_arms``,
    ``horizon``, claim parameters and ``factory_args`` it declares — through the ``adapter`` of
    :mod:`privcheck.adapters` when one is named (arms numbered from 1 with ``one_based``)."""
    from privcheck.core.foreign import adapt
    from privcheck.core.targets import load_object

    obj = load_object(reference)
    if adapter is not None:
        obj, one_based = adapt(obj, adapter, one_based=one_based), False
    return as_policy(
        obj,
        n_arms=n_arms,
        horizon=horizon,
        claim=claim,
        name=reference,
        factory_args=factory_args,
        dim=dim,
        contexts=contexts,
        context_bound=context_bound,
        one_based=one_based,
    )


def build_policy(name: str, env, horizon: int, options: dict | None = None):
    """The registered policy ``name`` for ``env``, or a user's policy ``path.py:factory`` (:func:`user_policy`).
    ``options``: exploration, window, rho (zCDP level), epsilon (central or local ε of the heavy-tailed
    policies), nu, u, width_scale, reward_bound and action_bound (the linear policies' public bounds R and L);
    None values are absent."""
    if name not in POLICIES and ":" in name:
        o = options or {}
        claim = (
            PureDP(o["epsilon"])
            if o.get("epsilon") is not None
            else ZCDP(o["rho"])
            if o.get("rho") is not None
            else None
        )
        return user_policy(name, env.n_arms, horizon, claim)
    if name not in POLICIES:
        raise InvalidArgument(f"unknown policy {name!r} (one of {', '.join(POLICIES)})")
    o = {k: v for k, v in (options or {}).items() if v is not None}
    spec = POLICIES[name]
    if isinstance(env, LinearContextual) and not spec.contextual:
        raise InvalidArgument(f'{name} does not take a fresh action set each round: not for env="linear-contextual"')
    if spec.linear and not isinstance(env, (Linear, LinearContextual)):
        raise InvalidArgument(
            f'{name} acts on the actions of a linear bandit: use env="linear"'
            + (" or linear-contextual" if spec.contextual else "")
        )
    if spec.bernoulli_only and not isinstance(env, Bernoulli):
        raise InvalidArgument(f"{name} needs Bernoulli feedback")
    for k in spec.needs:
        if k not in o:
            raise InvalidArgument(f"{name} needs {k}=")
    if "noise_multiplier" in o and not spec.private:
        raise InvalidArgument(f"noise_multiplier= applies to the private policies; {name} adds no noise")
    if "phase_scale" in o and not spec.phased:
        raise InvalidArgument(f"phase_scale= applies to the GOPE policies, not {name}")
    if "exploration" in o:
        check_real("exploration", o["exploration"], lower=0.0)
    if "window" in o:
        if o["window"] != int(o["window"]) or o["window"] < 1:
            raise InvalidArgument(f"window={o['window']!r} must be an integer >= 1")
        o["window"] = int(o["window"])
    if "rho" in o:
        check_real("rho", o["rho"], lower=0.0, lower_open=True)
    if "nu" in o:
        check_nu(o["nu"])
    return spec.build(env, {**o, "horizon": horizon})
