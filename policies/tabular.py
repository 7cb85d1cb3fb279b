"""Finite policies given as decision-rule tables (Azize & Basu, "Concentrated Differential Privacy for
Bandits", App. B-A): two actions, binary rewards, horizon T.

Rule t (t = 1..T) has 4^(t−1) rows, one per history (a_1, r_1, …, a_{t−1}, r_{t−1}) read as a binary number with
the first bit most significant; row ``index`` is (P[action 0], P[action 1]).  Example: history (a1=1, r1=0) is
row 2 of rule 2; history (0, 1, 1, 1) is row 7 of rule 3.  JSON form: ``{"rules": [rule_1, …, rule_T]}`` with
every probability a number or an exact fraction string such as ``"2/3"``; with fractions the exact engine
computes in rational arithmetic.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

import numpy as np

from privcheck.core import InvalidArgument

from .base import check_runs

__all__ = ["TabularPolicy", "load_rules"]


def _prob(v, where: str):
    if isinstance(v, bool):
        raise InvalidArgument(f"{where}: {v!r} is not a probability")
    if isinstance(v, str):
        try:
            f = Fraction(v.strip())
        except (ValueError, ZeroDivisionError):
            raise InvalidArgument(f'{where}: {v!r} is not a number or a fraction such as "2/3"') from None
    elif isinstance(v, int):
        f = Fraction(v)
    elif isinstance(v, float):
        if not np.isfinite(v):
            raise InvalidArgument(f"{where}: {v!r} is not finite")
        f = v
    else:
        raise InvalidArgument(f"{where}: {v!r} is not a number or a fraction string")
    if not 0 <= f <= 1:
        raise InvalidArgument(f"{where}: probability {v!r} is outside [0, 1]")
    return f


def load_rules(source) -> list:
    """Rules from a JSON file path, a JSON string or an already parsed object; validated."""
    obj = source
    if isinstance(source, (str, Path)):
        text = str(source)
        if Path(text).is_file():
            try:
                text = Path(text).read_text()
            except OSError as exc:
                raise InvalidArgument(f"cannot read rules file {source}: {exc}") from None
        elif not text.lstrip().startswith("{"):
            raise InvalidArgument(f"rules file {source} does not exist")
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidArgument(f"rules JSON is malformed: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("rules"), list) or not obj["rules"]:
        raise InvalidArgument('rules JSON must be {"rules": [rule_1, ..., rule_T]} with T >= 1')
    rules = []
    for t, rule in enumerate(obj["rules"], start=1):
        want = 4 ** (t - 1)
        if not isinstance(rule, list) or len(rule) != want:
            got = len(rule) if isinstance(rule, list) else type(rule).__name__
            raise InvalidArgument(f"rule {t} must have 4^{t - 1} = {want} rows (one per history), got {got}")
        rows = []
        for i, row in enumerate(rule):
            where = f"rule {t}, row {i}"
            if not isinstance(row, list) or len(row) != 2:
                raise InvalidArgument(f"{where} must be [P(action 0), P(action 1)]")
            p0, p1 = _prob(row[0], where), _prob(row[1], where)
            total = p0 + p1
            if (isinstance(total, Fraction) and total != 1) or abs(float(total) - 1) > 1e-9:
                raise InvalidArgument(f"{where}: probabilities sum to {float(total):.12g}, not 1")
            rows.append((p0, p1))
        rules.append(rows)
    return rules


class TabularState(NamedTuple):
    index: np.ndarray  # (runs,) the history read as a binary number


class TabularPolicy:
    """The policy of decision-rule tables; two arms, binary feedback, horizon = number of rules."""

    n_arms = 2
    n_uniforms = 1
    name = "tabular"

    def __init__(self, rules):
        self.rules = (
            rules
            if isinstance(rules, list)
            and rules
            and isinstance(rules[0], list)
            and rules[0]
            and isinstance(rules[0][0], tuple)
            else load_rules(rules)
        )
        self.horizon = len(self.rules)
        self.exact = all(isinstance(p, Fraction) for rule in self.rules for row in rule for p in row)
        # both probabilities of a row as given (never one as 1 minus the other): the exact engine reads them as the
        # exact rationals they denote
        self.p0 = [np.array([float(row[0]) for row in rule]) for rule in self.rules]
        self.p1 = [np.array([float(row[1]) for row in rule]) for rule in self.rules]

    def init(self, runs: int) -> TabularState:
        return TabularState(np.zeros(check_runs(runs), dtype=np.int64))

    def _check_t(self, t):
        if not 1 <= t <= self.horizon:
            raise InvalidArgument(f"round t={t} is outside the rules' horizon 1..{self.horizon}")

    def probs(self, state, t: int) -> np.ndarray:
        self._check_t(t)
        return np.stack([self.p0[t - 1][state.index], self.p1[t - 1][state.index]], axis=1)

    def exact_probs(self, state, t: int) -> np.ndarray:
        """The rows as given (Fractions, or the doubles read exactly): what the exact engine computes with."""
        self._check_t(t)
        rule = self.rules[t - 1]
        out = np.empty((len(state.index), 2), dtype=object)
        for n, i in enumerate(state.index):
            out[n, 0], out[n, 1] = rule[int(i)]
        return out

    def act(self, state, t: int, u) -> np.ndarray:
        self._check_t(t)
        u = np.asarray(u, dtype=float)
        u = u[:, 0] if u.ndim == 2 else u
        return (u < self.p1[t - 1][state.index]).astype(np.int64)

    def update(self, state, t: int, arms, feedback, u=None) -> TabularState:
        fb = np.asarray(feedback)
        if not np.all((fb == 0) | (fb == 1)):
            raise InvalidArgument("the tabular policy needs binary feedback")
        return TabularState(4 * state.index + 2 * np.asarray(arms, dtype=np.int64) + fb.astype(np.int64))

    def __repr__(self):
        return f"TabularPolicy(T={self.horizon}, exact={self.exact})"
