"""A policy audit's witness in the words of its subject: rounds and arms.

The sampled engine states its events over coordinates and features of the action sequence (``{o[24] <= 0}``,
``{pulls_of_arm_1(o) > 699.5}``); here they are said as a researcher reads them — "the action at round 25 is
arm 0", "arm 1 is pulled at least 700 times in 1,400 rounds" — with the engine's form kept beside them."""

from __future__ import annotations

import math
import re

__all__ = ["action_event_text", "summary_event_text"]


def _arms(arms: list) -> str:
    if len(arms) == 1:
        return f"arm {arms[0]}"
    return "one of arms " + ", ".join(str(a) for a in arms)


def _count(c: float, above: bool) -> tuple[str, int]:
    """An integer feature's event {f > c} as "at least n", {f <= c} as "at most n"."""
    return ("at least", math.floor(c) + 1) if above else ("at most", math.floor(c))


def _projection(event: dict) -> str:
    """A projection's event {Σ_t w_t·a_t > c} said with the rounds that weigh most."""
    weights = event["largest_weights"]
    rounds = ", ".join(f"{int(i) + 1:,} ({w:+.2f})" for i, w in list(weights.items())[:4])
    op = ">" if event["direction"] == "above" else "≤"
    return (
        f"the arms played, weighted by round, sum to {op} {event['threshold']:.4g} (the weights largest at rounds "
        f"{rounds}{', …' if len(weights) > 4 else ''})"
    )


def action_event_text(event: dict, n_arms: int, horizon: int) -> str | None:
    """The event in rounds and arms, or None when it cannot be (a learned score)."""
    stat, kind = event.get("statistic", ""), event.get("kind")
    if kind not in ("threshold", "set"):
        return None
    if event.get("largest_weights"):
        return _projection(event)
    coord = re.fullmatch(r"o\[(\d+)\]", stat)
    if coord:
        r = int(coord.group(1)) + 1
        if kind == "threshold":
            above = event["direction"] == "above"
            arms = [a for a in range(n_arms) if (a > event["threshold"]) == above]
        else:
            if event["size"] > len(event["values"]):
                return None
            chosen = {int(v) for v in event["values"] if float(v).is_integer()}
            arms = sorted(set(range(n_arms)) - chosen) if event["complement"] else sorted(chosen)
        return f"the action at round {r} is {_arms(arms)}" if arms else None
    if kind != "threshold":
        return None
    above, c = event["direction"] == "above", float(event["threshold"])
    feature = re.fullmatch(r"(pulls_of_arm|first_round_of_arm)_(\d+)\(o\)|(switches)\(o\)", stat)
    if not feature:
        return None
    if feature.group(3):
        how, n = _count(c, above)
        return f"the action changes {how} {n} times in {horizon:,} rounds"
    k = int(feature.group(2))
    if feature.group(1) == "pulls_of_arm":
        how, n = _count(c, above)
        return f"arm {k} is pulled {how} {n:,} times in {horizon:,} rounds"
    # the first round arm k is played (horizon + 1 when never)
    if above:
        n = math.floor(c)
        return f"arm {k} is first played after round {n:,}" + (" (or never)" if n < horizon else "")
    return f"arm {k} is played by round {math.floor(c):,}"


def summary_event_text(event: dict, names: list, n_arms: int) -> str | None:
    """An event on a long run's summary (:mod:`.summaries`, whose columns ``names`` says in rounds and arms) in
    those words, or None when it cannot be (a learned score, a whole summary's category)."""
    kind = event.get("kind")
    if kind == "threshold" and event.get("largest_weights"):
        weights = event["largest_weights"]
        top = "; ".join(f"{names[int(i)]} ({w:+.2f})" for i, w in list(weights.items())[:3])
        op = ">" if event["direction"] == "above" else "≤"
        return f"a weighted sum of the run's counts {op} {event['threshold']:.4g}, weighing most {top}"
    coord = re.fullmatch(r"o\[(\d+)\]", event.get("statistic", ""))
    if kind not in ("threshold", "set") or not coord or int(coord.group(1)) >= len(names):
        return None
    name = names[int(coord.group(1))]
    if name.startswith("the action at round "):  # said as the action at a round of a whole sequence
        r = int(name.removeprefix("the action at round ").replace(",", ""))
        return action_event_text({**event, "statistic": f"o[{r - 1}]"}, n_arms, r)
    if kind == "set":
        values = ", ".join(f"{v:g}" for v in event["values"][:6]) + (", …" if event["size"] > 6 else "")
        return f"{name} is {'not ' if event['complement'] else ''}one of {values}"
    how, n = _count(float(event["threshold"]), event["direction"] == "above")
    return f"{name} is {how} {n:,}"
