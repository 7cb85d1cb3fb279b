"""Named experiments: each is a list of ``privcheck regret`` commands (one per row) and a baseline policy.

``privcheck experiment NAME`` runs the rows through the same code as ``privcheck regret`` (so every row can be
rerun alone with the command it prints) and tabulates each policy's final pseudo-regret with its standard error
and its ratio to the baseline.  The settings are those of the papers' experiments:

* ``adac-ucb`` — AdaC-UCB against its non-private twin on Bernoulli means {0.75, 0.625, 0.5, 0.375, 0.25} over
  a ρ grid and two horizons (Azize & Basu, "Concentrated Differential Privacy for Bandits", §VI): the price of
  privacy should vanish for ρ ≥ 1 and fall as T grows.
* ``gope`` — AdaC-GOPE and AdaR-GOPE-Var against GOPE on a linear bandit (10 actions, θ* on the unit sphere
  of R³, N(0, 1) noise).
* ``oful`` — AdaC-OFUL against RS-OFUL on the linear contextual bandit of §VI (10 fresh actions per round,
  d = 3), with the unit bounds of the paper's assumption and with public bounds R = 4, L = 2 that fit the data.
* ``heavy`` — DP Robust UCB, DP Robust SE and LDP Robust SE against their non-private twins on the three Pareto
  instances of Tao et al., "Optimal Rates of (Locally) Differentially Private Heavy-tailed Multi-Armed
  Bandits", ν ∈ {0.5, 0.9}, ε ∈ {0.5, 1}, with confidence widths scaled by 0.1 (at the published constants the
  elimination policies are still in their first phase at T = 10⁵; privacy does not depend on the widths).
* ``fig2b`` — kl-UCB-CF behind optimal ε-randomized response on (0.9, 0.8 × 9), ε ∈ {1/8, …, 8}, c ∈ {0, 3}
  (Fig. 2b of "Corrupt Bandits for Preserving Local Privacy", ALT 2018).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Experiment", "EXPERIMENTS"]

ADAC_MEANS = "0.75,0.625,0.5,0.375,0.25"
PARETO = ("0.9,0.7,0.5,0.3,0.1", "0.9,0.55,0.3,0.15,0.1", "0.9,0.85,0.7,0.45,0.1")


@dataclass(frozen=True)
class Experiment:
    name: str
    summary: str
    baselines: dict  # {private policy: the non-private policy it is compared with}
    rows: tuple  # ((label, (privcheck regret arguments …)), …), without --runs/--seed; labels omit T
    runs: int  # default number of runs


def _adac_ucb():
    rows = []
    for T in (10**4, 10**5):
        for rho in ("0.1", "1", "10"):
            rows.append(
                (
                    f"rho={rho}",
                    (
                        "--env",
                        "bernoulli",
                        "--means",
                        ADAC_MEANS,
                        "--policies",
                        "episodic-ucb,adac-ucb",
                        "--rho",
                        rho,
                        "--horizon",
                        str(T),
                    ),
                )
            )
    return Experiment(
        "adac-ucb",
        "AdaC-UCB vs episodic UCB, ρ ∈ {0.1, 1, 10}, T ∈ {10⁴, 10⁵}",
        {"adac-ucb": "episodic-ucb"},
        tuple(rows),
        20,
    )


def _gope():
    rows = tuple(
        (
            f"rho={rho}",
            (
                "--env",
                "linear",
                "--arms",
                "10",
                "--dim",
                "3",
                "--policies",
                "gope,adac-gope,adar-gope-var",
                "--rho",
                rho,
                "--horizon",
                str(10**5),
            ),
        )
        for rho in ("0.1", "1", "10")
    )
    return Experiment(
        "gope",
        "AdaC-GOPE and AdaR-GOPE-Var vs GOPE, linear bandit K = 10, d = 3, T = 10⁵",
        {"adac-gope": "gope", "adar-gope-var": "gope"},
        rows,
        10,
    )


def _oful():
    rows = []
    for bounds, extra in (("R=L=1", ()), ("R=4 L=2", ("--reward-bound", "4", "--action-bound", "2"))):
        for rho in ("1", "10"):
            rows.append(
                (
                    f"{bounds} rho={rho}",
                    (
                        "--env",
                        "linear-contextual",
                        "--arms",
                        "10",
                        "--dim",
                        "3",
                        "--policies",
                        "rs-oful,adac-oful",
                        "--rho",
                        rho,
                        *extra,
                        "--horizon",
                        str(10**4),
                    ),
                )
            )
    return Experiment(
        "oful",
        "AdaC-OFUL vs RS-OFUL, linear contextual bandit K = 10, d = 3, T = 10⁴",
        {"adac-oful": "rs-oful"},
        tuple(rows),
        10,
    )


def _heavy():
    rows = []
    for means in PARETO:
        for nu in ("0.5", "0.9"):
            for eps in ("0.5", "1"):
                rows.append(
                    (
                        f"means={means} nu={nu} eps={eps}",
                        (
                            "--env",
                            "pareto",
                            "--means",
                            means,
                            "--policies",
                            "robust-se,dp-robust-se,ldp-robust-se,robust-ucb,dp-robust-ucb",
                            "--nu",
                            nu,
                            "--epsilon",
                            eps,
                            "--width-scale",
                            "0.1",
                            "--horizon",
                            str(10**5),
                        ),
                    )
                )
    return Experiment(
        "heavy",
        "heavy-tailed DP/LDP policies vs their non-private twins, Pareto, T = 10⁵, widths × 0.1",
        {"dp-robust-se": "robust-se", "ldp-robust-se": "robust-se", "dp-robust-ucb": "robust-ucb"},
        tuple(rows),
        10,
    )


def _fig2b():
    rows = []
    for c in ("0", "3"):
        for eps in ("0.125", "0.25", "0.5", "1", "2", "4", "8"):
            rows.append(
                (
                    f"c={c} eps={eps}",
                    (
                        "--env",
                        "corrupt-bernoulli",
                        "--means",
                        "0.9,0.8x9",
                        "--rr-epsilon",
                        eps,
                        "--policies",
                        "kl-ucb-cf",
                        "--exploration",
                        c,
                        "--horizon",
                        str(10**5),
                    ),
                )
            )
    return Experiment(
        "fig2b", "ALT 2018 Fig. 2b: kl-UCB-CF behind ε-RR, 10 arms, T = 10⁵, c ∈ {0, 3}", {}, tuple(rows), 100
    )


EXPERIMENTS: dict[str, Experiment] = {e.name: e for e in (_adac_ucb(), _gope(), _oful(), _heavy(), _fig2b())}
