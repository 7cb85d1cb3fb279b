"""The audit figure: what an audit certified, drawn against what the claim allows.

Left, the trade-off plane of hypothesis-testing privacy (:mod:`privcheck.core.tradeoff`): the claim's curve (a
mechanism meeting the claim has every test's (α, β) on or above it), the exact curve of the pair shown where an
exact engine computed one, and the certified points — for a sampled audit each certified event's
Clopper–Pearson rectangle, whose upper-right corner is what is certified (the true point lies below and left of
it), the reported one marked.  A certified point strictly below the claim's curve refutes the claim.  Right, the
privacy profile δ(ε) the claim allows against the one certified (δ(ε) ≥ 1 − β − e^ε α for every certified
point; for an exact curve, its own profile).  The title states the target, the claim, the verdict and its
confidence.  Sized for a two-column paper at full text width (:data:`FIGSIZE` inches, :data:`DPI` for png).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from privcheck.core import InvalidArgument, describe_claim
from privcheck.core.errors import check_writable
from privcheck.core import tradeoff as tr
from privcheck.core.claims import parameters

from ..rules import claim_curve
from ..stats import confidence_text

__all__ = ["audit_figure", "save_figure", "FIGSIZE", "DPI", "FORMATS", "check_plot_path"]

FIGSIZE = (7.0, 3.2)
DPI = 200
FORMATS = ("png", "pdf", "svg")


def check_plot_path(path) -> Path:
    """The path, if its suffix names a format and its folder exists; else bad input (checked before any work)."""
    p = Path(path)
    fmt = p.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise InvalidArgument(
            f"plot={str(path)!r}: the figure's format is taken from the suffix, one of "
            f"{', '.join('.' + f for f in FORMATS)}"
        )
    check_writable("plot", p)
    return p


def _verdict(report) -> str:
    v = report.verdict.value
    if report.method == "exact":
        return f"{v} (exact)"
    return f"{v} ({confidence_text(report.confidence)} confidence, {report.samples_per_side:,} samples per side)"


def _eps_range(report, claim) -> np.ndarray:
    top = 4.0
    for v in (parameters(claim).get("epsilon"), report.epsilon_lower):
        if v is not None and math.isfinite(v):
            top = max(top, 1.3 * v)
    return np.linspace(0.0, min(top, 50.0), 400)


def audit_figure(report):
    """A matplotlib Figure of ``report`` (its claim's curve and profile, its certified points)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    claim, curve = report.claim, report.curve
    fig = Figure(figsize=FIGSIZE, dpi=DPI, layout="constrained")
    ax, bx = fig.subplots(1, 2)
    a = tr.ALPHA_GRID
    f = claim_curve(claim)
    fa = np.asarray(f(a), dtype=float)
    ax.plot([0, 1], [1, 0], color="0.7", lw=0.8, ls=":", label="no privacy loss")
    ax.plot(a, fa, color="black", lw=1.4, label=f"claim: {claim.kind()}")
    eps = _eps_range(report, claim)
    bx.plot(eps, tr.profile(f, eps), color="black", lw=1.4, label="claim")
    if curve is not None:
        _certified_points(ax, bx, curve, eps)
    ax.set(
        xlim=(0, 1),
        ylim=(0, 1),
        aspect="equal",
        title="trade-off",
        xlabel="type I error α = P[M(x′) ∈ S]",
        ylabel="type II error β = 1 − P[M(x) ∈ S]",
    )
    ax.legend(fontsize=6.5, loc="upper right", frameon=False)
    shown = np.concatenate([np.asarray(line.get_ydata(), dtype=float) for line in bx.get_lines()])
    positive = shown[shown > 1e-12]
    bottom = 10.0 ** math.floor(math.log10(positive.min())) if positive.size else 1e-6
    bx.set_yscale("log")
    bx.set(xlim=(0, float(eps[-1])), ylim=(bottom, 1.5), title="privacy profile", xlabel="ε", ylabel="δ(ε)")
    bx.legend(fontsize=6.5, loc="upper right", frameon=False)
    for axis in (ax, bx):
        axis.tick_params(labelsize=7)
        axis.xaxis.label.set_size(8)
        axis.yaxis.label.set_size(8)
        axis.title.set_size(9)
    fig.suptitle(f"{report.target}: {describe_claim(claim)}\n{_verdict(report)}", fontsize=9)
    return fig


def _certified_points(ax, bx, curve, eps) -> None:
    """The audit's own points on both panels: the exact curve of the pair shown and its chosen point, or the
    certified corners (Clopper–Pearson boxes) and the reported event; the profile they certify."""
    from matplotlib.patches import Rectangle

    if curve.exact:
        # a binned density has tens of thousands of vertices: a few thousand draw the same line
        keep = np.unique(np.linspace(0, len(curve.alpha_mid) - 1, min(len(curve.alpha_mid), 4000)).round().astype(int))
        ax.plot(curve.alpha_mid[keep], curve.beta_mid[keep], color="tab:blue", lw=1.2, label="exact curve of the pair")
        bx.plot(
            eps, tr.profile((curve.alpha_mid, curve.beta_mid), eps), color="tab:blue", lw=1.2, label="exact, pair shown"
        )
        c = curve.chosen
        ax.plot(
            [curve.alpha[c]],
            [curve.beta[c]],
            marker="*",
            ms=9,
            color="tab:red",
            ls="none",
            label="certified point shown",
        )
    else:
        for i in range(len(curve.alpha)):
            lo_a, lo_b = float(curve.alpha_low[i]), float(curve.beta_low[i])
            chosen = i == curve.chosen
            ax.add_patch(
                Rectangle(
                    (lo_a, lo_b),
                    float(curve.alpha[i]) - lo_a,
                    float(curve.beta[i]) - lo_b,
                    facecolor="tab:red",
                    alpha=0.25 if chosen else 0.12,
                    edgecolor="tab:red",
                    lw=0.8 if chosen else 0.4,
                )
            )
        ax.plot(
            curve.alpha,
            curve.beta,
            marker="o",
            ms=3,
            color="tab:red",
            ls="none",
            label="certified corners (Clopper–Pearson)",
        )
        c = curve.chosen
        ax.plot([curve.alpha[c]], [curve.beta[c]], marker="*", ms=9, color="tab:red", ls="none", label="reported event")
    bx.plot(
        eps,
        tr.profile((curve.alpha, curve.beta), eps),
        color="tab:red",
        lw=1.2,
        ls="--",
        label="certified lower bound",
    )


def save_figure(report, path):
    """Draw ``report`` to ``path`` (png, pdf or svg by its suffix); the Figure."""
    p = check_plot_path(path)
    fig = audit_figure(report)
    fig.savefig(p, format=p.suffix.lower().lstrip("."), dpi=DPI)
    return fig
