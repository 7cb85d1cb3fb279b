"""Pictures: regret curves (one per policy, with a 95 % band of mean ± 1.96 standard errors) and the P2B arms' average
reward against the number of early users (with their 95 % intervals)."""

from __future__ import annotations

__all__ = ["plot_regret", "plot_p2b"]


def _axes():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(7, 4.5))


def _save(fig, ax, path: str, xlabel: str, ylabel: str, title: str) -> None:
    import matplotlib.pyplot as plt

    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_regret(summaries: dict, path: str, title: str = "", log_time: bool = False) -> None:
    import numpy as np

    fig, ax = _axes()
    for name, s in summaries.items():
        t = np.asarray(s["curve"]["t"])
        m = np.asarray(s["curve"]["mean"])
        se = np.asarray(s["curve"]["stderr"])
        ax.plot(t, m, label=name)
        ax.fill_between(t, m - 1.96 * se, m + 1.96 * se, alpha=0.2)
    if log_time:
        ax.set_xscale("log")
    _save(fig, ax, path, "round t", "cumulative pseudo-regret", title)


def plot_p2b(points: list, path: str, title: str = "") -> None:
    """``points``: :meth:`policies.p2b.P2BResult.summary` dicts, one per early-user count."""
    import numpy as np

    fig, ax = _axes()
    x = np.array([p["early_users"] for p in points])
    for arm, label in (("cold", "cold"), ("warm", "warm, non-private"), ("p2b", "warm, private (P2B)")):
        m = np.array([p["average_reward"][arm]["mean"] for p in points])
        lo = np.array([p["average_reward"][arm]["ci95"][0] for p in points])
        hi = np.array([p["average_reward"][arm]["ci95"][1] for p in points])
        ax.errorbar(x, m, yerr=[m - lo, hi - m], marker="o", capsize=3, label=label)
    ax.set_xscale("log")
    _save(fig, ax, path, "early users", "average reward of late users", title)
