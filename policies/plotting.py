"""Regret curves as a picture: one curve per policy with a 95 % band (mean ± 1.96 standard errors)."""

from __future__ import annotations

__all__ = ["plot_regret"]


def plot_regret(summaries: dict, path: str, title: str = "", log_time: bool = False) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, s in summaries.items():
        t = np.asarray(s["curve"]["t"])
        m = np.asarray(s["curve"]["mean"])
        se = np.asarray(s["curve"]["stderr"])
        ax.plot(t, m, label=name)
        ax.fill_between(t, m - 1.96 * se, m + 1.96 * se, alpha=0.2)
    if log_time:
        ax.set_xscale("log")
    ax.set_xlabel("round t")
    ax.set_ylabel("cumulative pseudo-regret")
    ax.set_title(title, fontsize=9)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
