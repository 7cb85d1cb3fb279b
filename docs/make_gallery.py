"""The gallery of audit figures: runs each audit below with ``--plot``, writes its figure to docs/gallery/ and the
page docs/gallery.md that shows them with their commands and verdicts.

    python3 docs/make_gallery.py            # from the repository root; about two minutes on two cores

Every figure is a real audit's, reproducible from its command (seeds fixed).
"""

from __future__ import annotations

import contextlib
import io
import json
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "gallery"
PAGE = ROOT / "docs" / "gallery.md"

#: (file name, title, the command without --plot, what the figure shows)
FIGURES = [
    (
        "laplace-exact.png",
        "The Laplace mechanism, exactly",
        "privcheck audit laplace --epsilon 1",
        "The built-in Laplace mechanism, calibrated to 1-DP, audited exactly: its trade-off curve on the worst pair "
        "touches the claim's curve from above — the claim is tight.",
    ),
    (
        "laplace-half-noise.png",
        "Half the noise",
        "privcheck audit laplace --scale 0.5 --epsilon 1",
        "Half the noise: the exact curve of the pair falls below the claim's curve, and δ(ε) above the claim's.",
    ),
    (
        "gaussian-mu-sampled.png",
        "A Gaussian's μ, sampled",
        "privcheck audit gaussian --mu 1 --method sample --samples 1000000 --seed 1",
        "The grid Gaussian calibrated to 1-GDP, sampled: each certified event is a Clopper–Pearson rectangle of "
        "(type I, type II) error, all above the Gaussian trade-off curve.",
    ),
    (
        "box-muller-leak.png",
        "Box–Muller's bits",
        "privcheck audit examples/float_samplers.py:box_muller --epsilon 1 --delta 1e-6 --pair 0 1 --method sample "
        "--samples 1000000 --seed 1",
        "A Box–Muller Gaussian calibrated to (1, 10⁻⁶)-DP, refuted by its floating-point bits: the learned event "
        "holds 15 % of the draws on x and none of those on x′, a test far below the claim's curve; the certified "
        "δ(ε) stays above the claim's up to ε ≈ 10.",
    ),
    (
        "kl-ucb-cf-table.png",
        "kl-UCB-CF on reward tables",
        "privcheck audit kl-ucb-cf --rr-epsilon 1 --epsilon 1 --definition table --horizon 5",
        "kl-UCB-CF behind ε = 1 randomized response, as Table DP over every binary reward table of five rounds, "
        "exactly: the worst pair's curve stays above the claim's, its exact δ(ε) below the claim's — post-processing "
        "of the private feedback costs nothing.",
    ),
    (
        "adac-ucb-half-noise.png",
        "AdaC-UCB with half its noise",
        "privcheck audit adac-ucb --rho 0.5 --noise-multiplier 0.5 --samples 20000 --seed 1",
        "AdaC-UCB with half its noise against five adaptive adversaries in turn (Interactive zCDP): refuted by the "
        "first, the identity adversary, so the other four were not sampled (--full-budget samples every one).",
    ),
]


def run(command: str, png: Path) -> dict:
    from privcheck.cli import main

    argv = shlex.split(command)[1:] + ["--plot", str(png), "--json", "--quiet"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    if code not in (0, 1):
        raise SystemExit(f"{command}: exit {code}")
    return json.loads(out.getvalue())


def page(verdicts: dict) -> str:
    lines = [
        "# Gallery",
        "",
        "Figures of real audits, each made by the command under it (`python3 docs/make_gallery.py` remakes them all).",
        "Left: the claim's trade-off curve (the smallest type II error a test at each type I error may have), the",
        "exact curve of the pair where an exact engine computed one, and the certified points; a point below the",
        "claim's curve refutes it. Right: the privacy profile δ(ε) the claim allows against the one certified.",
        "",
    ]
    for name, title, command, caption in FIGURES:
        lines += [
            f"## {title}",
            "",
            f"![{caption}](gallery/{name})",
            "",
            caption,
            "",
            "```text",
            f"{command}    # {verdicts.get(name, '…')}",
            "```",
            "",
        ]
    return "\n".join(lines)


def main(argv=None):
    OUT.mkdir(exist_ok=True)
    verdicts = {}
    for name, _, command, _ in FIGURES:
        report = run(command, OUT / name)
        verdicts[name] = report["verdict"]
        print(f"{name}: {report['verdict']}", file=sys.stderr)
    PAGE.write_text(page(verdicts))


if __name__ == "__main__":
    main()
