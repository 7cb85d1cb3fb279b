"""Azize & Basu, "Concentrated Differential Privacy for Bandits": the coupling identity, the lower-bound
crossings, and the exact Table-vs-View witness (Proposition 1(e))."""

from __future__ import annotations

import itertools
from fractions import Fraction

import sympy as sp

from .catalogue import register

SRC = "Azize & Basu, Concentrated Differential Privacy for Bandits"


@register("kl-coupling-identity", "A-T7a", SRC + ", Eq. 10",
          "E[(Σ B_i)²] = (Σ t_i)² + Σ t_i(1 − t_i) for independent Bernoulli(t_i), checked at n = 4")
def coupling():
    t = sp.symbols("t1:5", positive=True)
    total = 0
    for bits in itertools.product((0, 1), repeat=4):
        w = sp.prod([ti if b else 1 - ti for ti, b in zip(t, bits)])
        total += w * sum(bits) ** 2
    assert sp.expand(total - (sum(t) ** 2 + sum(ti * (1 - ti) for ti in t))) == 0
    return "proved", "sympy expand over the 16 outcomes", "second moment of a sum of independent Bernoullis"


@register("lower-bound-crossings", "A-T17a/A-T9a/A-R12", SRC + ", Table I and Remark 12",
          "the privacy term dominates exactly when ρ < K/T (finite-armed) or ρ < 1/T (linear); pure DP: ε* = √(K/T) ↦ ρ = K/(2T)")
def crossings():
    rho, K, T, d = sp.symbols("rho K T d", positive=True)
    assert sp.solve(sp.Eq(sp.sqrt(K * T), K / sp.sqrt(rho)), rho) == [K / T]
    assert sp.solve(sp.Eq(d * sp.sqrt(T), d / sp.sqrt(rho)), rho) == [1 / T]
    eps = sp.sqrt(K / T)
    assert sp.simplify(eps ** 2 / 2 - K / (2 * T)) == 0
    return "proved", "sympy solve", "ρ = K/T, ρ = 1/T, and ε²/2 = K/(2T)"


# the public witness: P(action 1 | history) for steps 1..3, histories read as binary numbers (first bit
# most significant); K = 2 actions, binary rewards, T = 3
_PI1 = [Fraction(1, 6)]
_PI2 = [Fraction(1, 2), Fraction(10, 17), Fraction(1, 13), Fraction(2, 11)]
_PI3 = [Fraction(*map(int, s.split("/"))) for s in
        "15/17 1/9 1/6 9/10 11/18 5/13 1/2 11/17 3/10 3/17 13/17 13/20 1/2 11/14 6/11 14/15".split()]


def _p_action(t, history, a):
    idx = 0
    for bit in history:
        idx = 2 * idx + bit
    p1 = (_PI1, _PI2, _PI3)[t][idx]
    return p1 if a == 1 else 1 - p1


def _view(rewards):
    out = {}
    for acts in itertools.product((0, 1), repeat=3):
        pr, hist = Fraction(1), []
        for t in range(3):
            pr *= _p_action(t, hist, acts[t])
            hist += [acts[t], rewards[t]]
        out[acts] = pr
    return out


def _table(table):
    return _view_from(lambda t, a: table[t][a])


def _view_from(reward):
    out = {}
    for acts in itertools.product((0, 1), repeat=3):
        pr, hist = Fraction(1), []
        for t in range(3):
            pr *= _p_action(t, hist, acts[t])
            hist += [acts[t], reward(t, acts[t])]
        out[acts] = pr
    return out


def _tv(P, Q):
    return sum(max(Fraction(0), P[k] - Q[k]) for k in P)


@register("table-view-witness", "A-P1e-exact", SRC + ", Proposition 1(e), App. B-A",
          "the witness policy is (0, δ)-View DP but not (0, δ)-Table DP for δ between 154517/238680 and 5268817/7775460")
def witness():
    lists = list(itertools.product((0, 1), repeat=3))
    view = max(_tv(_view(a), _view(b)) for a in lists for b in lists
               if sum(x != y for x, y in zip(a, b)) == 1)
    rows = list(itertools.product((0, 1), repeat=2))
    tables = list(itertools.product(rows, repeat=3))
    dists = {tb: _view_from(lambda t, a, tb=tb: tb[t][a]) for tb in tables}
    table = max(_tv(dists[a], dists[b]) for a in tables for b in tables
                if sum(x != y for x, y in zip(a, b)) == 1)
    assert view == Fraction(154517, 238680) and table == Fraction(5268817, 7775460)
    return "proved", "exact rational enumeration (8 lists, 64 tables, all neighbour pairs)", \
        f"TV_View = {view} ≈ {float(view):.4f} < TV_Table = {table} ≈ {float(table):.4f}"
