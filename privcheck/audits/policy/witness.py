"""A policy audit's witness in the words of its subject: rounds and arms.

The sampled engine states its events over coordinates and features of the action sequence (``{o[24] <= 0}``,
``{pulls_of_arm_1(o) > 699.5}``); here they are said as a researcher reads them — "the action at round 25 is
arm 0", "arm 1 is pulled at least 700 times in 1,400 rounds" — with the engine's form kept beside them.  Each is
read from the event's structured fields (its statistic's kind, coordinate, feature and arm; a summary's columns),
never from its name."""

from __future__ import annotations

import math


from ..mechanism.events import InSet, Kind, Threshold

__all__ = ["action_event_text", "summary_event_text"]


def _arms(arms: list) -> str:
    if len(arms) == 1:
        return f"arm {arms[0]}"
    return "one of arms " + ", ".join(str(a) for a in arms)


def _count(c: float, above: bool) -> tuple[str, int]:
    """An integer feature's event {f > c} as "at least n", {f <= c} as "at most n"."""
    return ("at least", math.floor(c) + 1) if above else ("at most", math.floor(c))


def _values(event: InSet) -> str:
    shown = ", ".join(f"{float(v):.6g}" for v in event.values[:6])
    return shown + (f", … ({len(event.values)} values)" if len(event.values) > 6 else "")


def _projection(event) -> str:
    """A projection's event {Σ_t w_t·a_t > c} (or ∈ V) said with the rounds that weigh most."""
    weights = event.statistic.largest_weights()
    rounds = ", ".join(f"{int(i) + 1:,} ({w:+.2f})" for i, w in list(weights.items())[:4])
    if isinstance(event, Threshold):
        what = f"sum to {'>' if event.above else '≤'} {event.threshold:.4g}"
    else:
        what = f"sum to {'none' if event.complement else 'one'} of {_values(event)}"
    return (
        f"the arms played, weighted by round, {what} (the weights largest at rounds "
        f"{rounds}{', …' if len(weights) > 4 else ''})"
    )


def _named(event) -> str | None:
    """Events over what no round or arm says: the whole sequence as a category, a classifier's score."""
    stat = event.statistic
    if stat.kind == Kind.ROW and isinstance(event, InSet):
        n = len(event.values)
        return f"the action sequence is {'none' if event.complement else 'one'} of {n} sequence{'s' * (n != 1)}"
    if stat.kind == Kind.LEARNED and isinstance(event, Threshold):
        return (
            f"the score of {stat.fn_name} on the action sequence is {'>' if event.above else '≤'} "
            f"{event.threshold:.4g} (a classifier trained on the selection runs)"
        )
    return None


def _action_at(event, r: int, n_arms: int) -> str | None:
    """An event on the action at round ``r`` (a coordinate of the sequence)."""
    if isinstance(event, Threshold):
        arms = [a for a in range(n_arms) if (a > event.threshold) == event.above]
    else:
        chosen = {int(v) for v in event.values if float(v).is_integer()}
        arms = sorted(set(range(n_arms)) - chosen) if event.complement else sorted(chosen)
    return f"the action at round {r} is {_arms(arms)}" if arms else None


def action_event_text(event, n_arms: int, horizon: int) -> str | None:
    """The event on whole action sequences in rounds and arms, or None when it cannot be (a learned score)."""
    if not isinstance(event, (Threshold, InSet)):
        return None
    stat = event.statistic
    if stat.kind == Kind.PROJECTION and stat.largest_weights():
        return _projection(event)
    if _named(event) is not None:
        return _named(event)
    if stat.kind == Kind.COORD:
        return _action_at(event, stat.index + 1, n_arms)
    if stat.kind != Kind.FEATURE:
        return None
    if isinstance(event, InSet):
        return _counted_in(event, stat, horizon)
    above, c = event.above, float(event.threshold)
    if stat.feature == "switches":
        how, n = _count(c, above)
        return f"the action changes {how} {n} times in {horizon:,} rounds"
    k = stat.arm
    if stat.feature == "pulls":
        how, n = _count(c, above)
        return f"arm {k} is pulled {how} {n:,} times in {horizon:,} rounds"
    if stat.feature == "longest":
        how, n = _count(c, above)
        return f"arm {k}'s longest stretch of rounds in a row is {how} {n:,} in {horizon:,} rounds"
    if stat.feature != "first_round":
        return None
    # the first round arm k is played (horizon + 1 when never)
    if above:
        n = math.floor(c)
        return f"arm {k} is first played after round {n:,}" + (" (or never)" if n < horizon else "")
    return f"arm {k} is played by round {math.floor(c):,}"


def _counted_in(event: InSet, stat, horizon: int) -> str | None:
    """An event {feature ∈ V} on a count (pulls, a longest stretch, switches) or a first round in rounds and arms."""
    counts = {
        "pulls": f"arm {stat.arm} is pulled",
        "longest": f"arm {stat.arm}'s longest stretch of rounds in a row is",
        "first_round": f"the first round arm {stat.arm} is played (T + 1 if never) is",
        "switches": "the action changes",
    }
    what = counts.get(stat.feature)
    if what is None or not all(float(v).is_integer() for v in event.values):
        return None
    values = sorted(int(v) for v in event.values)
    shown = ", ".join(f"{v:,}" for v in values[:6]) + (f", … ({len(values)} values)" if len(values) > 6 else "")
    times = " times" if stat.feature in ("pulls", "switches") else ""
    which = ("not " if event.complement else "") + "one of " * (len(values) > 1)
    return f"{what} {which}{shown}{times} in {horizon:,} rounds"


def summary_event_text(event, summary, n_arms: int) -> str | None:
    """An event on a long run's summary (:mod:`.summaries`: ``summary.names()`` says its columns in rounds and arms,
    the first ``len(summary.rounds)`` being the actions at those rounds) in those words, or None when it cannot be (a
    learned score, a whole summary's category)."""
    if not isinstance(event, (Threshold, InSet)):
        return None
    stat, names = event.statistic, summary.names()
    if stat.kind == Kind.PROJECTION and stat.largest_weights():
        weights = stat.largest_weights()
        top = "; ".join(f"{names[int(i)]} ({w:+.2f})" for i, w in list(weights.items())[:3])
        if isinstance(event, Threshold):
            what = f"{'>' if event.above else '≤'} {event.threshold:.4g}"
        else:
            what = f"is {'none' if event.complement else 'one'} of {_values(event)}"
        return f"a weighted sum of the run's counts {what}, weighing most {top}"
    if _named(event) is not None:
        return _named(event).replace("action sequence", "run's summary")
    if stat.kind != Kind.COORD or stat.index >= len(names):
        return None
    if stat.index < len(summary.rounds):  # the action at a chosen round, said as in a whole sequence
        return _action_at(event, int(summary.rounds[stat.index]), n_arms)
    name = names[stat.index]
    if isinstance(event, InSet):
        shown = event.to_json()
        values = ", ".join(f"{v:g}" for v in shown["values"][:6]) + (", …" if shown["size"] > 6 else "")
        return f"{name} is {'not ' if event.complement else ''}one of {values}"
    how, n = _count(float(event.threshold), event.above)
    return f"{name} is {how} {n:,}"
