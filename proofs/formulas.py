"""Checking a user's own identities and inequalities: sympy first, then certified interval arithmetic.

``check_identity(lhs, rhs, assume)``: ``proved`` when sympy simplifies lhs − rhs to 0 (also after rewriting
hyperbolic functions in exponentials and expanding logarithms); ``refuted`` when a point of the domain makes
the two sides differ with a certified interval enclosure; else ``undecided``.

``check_inequality("A <= B", domain)``: with h = B − A (the side that must be ≥ 0, or > 0 for strict),

1. ``proved`` when sympy decides the sign of h from the domain's assumptions;
2. ``proved`` by the *critical-point reduction*: pick a variable v; the minimum of h over v's interval is at
   an end (a limit) or where ∂h/∂v = 0.  When sympy's ``solveset`` returns every such point (a finite set),
   the inequality follows from the same inequality at those points and at the ends, with one variable fewer
   (recursively).  This is how inequalities that are tight on a set are decided (Pinsker's d(x,y) ≥ 2(x−y)²
   is an equality on the whole diagonal; plain interval arithmetic can never certify it);
3. ``verified`` by interval arithmetic (mpmath.iv) with adaptive bisection of the box: every sub-box gets a
   certified enclosure of h with a positive lower end (≥ 0 for a non-strict inequality);
4. ``refuted`` when a point is found whose certified enclosure of h is negative;
5. otherwise ``undecided``, with the boxes left open.

Unbounded domains are cut to [10⁻⁶, 10⁶] (or [−10⁶, 10⁶]) for interval arithmetic, and the cut is stated in
the result.  mpmath.iv lacks tanh, sinh, cosh and atan: they are rewritten in exponentials/logarithms first.
"""

from __future__ import annotations

import itertools
import math
import re
import time

import mpmath
import sympy as sp
from mpmath import iv
from sympy.parsing.sympy_parser import convert_xor, parse_expr, rationalize, standard_transformations

from privcheck.core import InvalidArgument

from .result import CheckResult

__all__ = ["parse", "check_identity", "check_inequality", "Domain"]

_CUT = 1e6
_TINY = 1e-6
_NAMES = {
    "E": sp.E,
    "pi": sp.pi,
    "oo": sp.oo,
    "log": sp.log,
    "ln": sp.log,
    "exp": sp.exp,
    "sqrt": sp.sqrt,
    "sin": sp.sin,
    "cos": sp.cos,
    "tan": sp.tan,
    "tanh": sp.tanh,
    "sinh": sp.sinh,
    "cosh": sp.cosh,
    "atan": sp.atan,
    "Max": sp.Max,
    "Min": sp.Min,
    "Abs": sp.Abs,
    "abs": sp.Abs,
    "Sum": sp.Sum,
    "Product": sp.Product,
}
#: a name privcheck will not guess the meaning of: a variable only when the domain binds it
_AMBIGUOUS = {"e": "write E for Euler's number, or bind e in the domain (e.g. e>0) to make it a variable"}


def parse(text: str, symbols: dict | None = None) -> sp.Expr:
    """A sympy expression from text.  Every name written is a real variable unless it is a function or constant
    privcheck reads (:data:`_NAMES`: ``E`` is Euler's number, ``pi``, ``oo``, ``log``, ``Sum``, …); a bare ``e`` is
    refused unless ``symbols`` (the domain) binds it.  What cannot be read is said: the unknown function called, or
    the position of the syntax error."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidArgument(f"expression {text!r} is empty")
    symbols = symbols or {}
    written = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text))
    for name, how in _AMBIGUOUS.items():
        if name in written and name not in symbols:
            raise InvalidArgument(f"{text!r} writes {name}, which privcheck does not guess: {how}")
    local = dict(_NAMES)
    for name in written - set(_NAMES):
        local[name] = sp.Symbol(name, real=True)
    local.update(symbols)
    called = [n for n in re.findall(r"([A-Za-z_][A-Za-z_0-9]*)\s*\(", text) if n not in _NAMES]
    if called:
        raise InvalidArgument(
            f"cannot read {text!r}: {called[0]}(…) is not a function privcheck reads "
            f"(it reads {', '.join(n for n, v in _NAMES.items() if callable(v) and not isinstance(v, sp.Basic))})"
        )
    try:
        expr = parse_expr(
            text, local_dict=local, transformations=standard_transformations + (convert_xor, rationalize), evaluate=True
        )
    except SyntaxError as exc:
        where = f" at column {exc.offset}" if getattr(exc, "offset", None) else ""
        raise InvalidArgument(f"cannot read {text!r}: invalid syntax{where}") from None
    except Exception as exc:
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InvalidArgument(f"cannot read {text!r}: {why}") from None
    if not isinstance(expr, (sp.Expr, sp.Rel, sp.logic.boolalg.BooleanAtom)):
        raise InvalidArgument(f"{text!r} is not an expression")
    return expr


def _names_in(*texts) -> set:
    """Every name written in the texts (a domain may declare e or E as a variable)."""
    return {n for t in texts for n in re.findall(r"[A-Za-z_][A-Za-z_0-9]*", t)}


class Domain:
    """Bounds per variable from text such as ``0<x<1, y>0, e>0``: open or closed ends, possibly infinite."""

    def __init__(self, text: str | None):
        self.bounds: dict[str, list] = {}  # name -> [lo, lo_closed, hi, hi_closed]
        if not text or not text.strip():
            return
        for part in re.split(r"[,;]|\band\b", text):
            part = part.strip()
            if not part:
                continue
            tokens = re.split(r"(<=|>=|<|>)", part)
            if len(tokens) < 3 or len(tokens) % 2 == 0:
                raise InvalidArgument(f"domain condition {part!r} must look like 0<x<1 or x>0")
            for i in range(0, len(tokens) - 2, 2):
                self._add(tokens[i].strip(), tokens[i + 1], tokens[i + 2].strip(), part)
        for name, (lo, lc, hi, hc) in self.bounds.items():
            if lo > hi or (lo == hi and not (lc and hc)):
                raise InvalidArgument(f"the domain of {name} is empty")

    def _add(self, a: str, op: str, b: str, part: str):
        def is_name(s):
            return re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", s) is not None and s not in ("E", "pi", "oo")

        if is_name(a) and not is_name(b):
            name, value, upper = a, b, op in ("<", "<=")
        elif is_name(b) and not is_name(a):
            name, value, upper = b, a, op in (">", ">=")
        else:
            raise InvalidArgument(f"domain condition {part!r} must compare one variable with a number")
        try:
            v = float(sp.sympify(value, locals={"E": sp.E, "pi": sp.pi}))
        except Exception:
            hint = " (write E for Euler's number)" if value.strip() == "e" else ""
            raise InvalidArgument(f"domain bound {value!r} in {part!r} is not a number{hint}") from None
        closed = op in ("<=", ">=")
        b = self.bounds.setdefault(name, [-math.inf, False, math.inf, False])
        if upper:
            if v < b[2] or (v == b[2] and not closed):
                b[2], b[3] = v, closed
        elif v > b[0] or (v == b[0] and not closed):
            b[0], b[1] = v, closed

    def symbols(self) -> dict:
        out = {}
        for name, (lo, _, hi, _) in self.bounds.items():
            kw = {"real": True}
            if lo >= 0:
                kw["nonnegative"] = True
            if lo > 0 or (lo == 0 and not self.bounds[name][1]):
                kw["positive"] = True
            if hi <= 0:
                kw["nonpositive"] = True
            out[name] = sp.Symbol(name, **kw)
        return out

    def assumptions(self, symbols: dict):
        """The domain as sympy Q-facts, for ``refine``."""
        facts = []
        for name, (lo, lc, hi, hc) in self.bounds.items():
            v = symbols.get(name)
            if v is None:
                continue
            if math.isfinite(lo):
                facts.append(sp.Q.ge(v, sp.nsimplify(lo)) if lc else sp.Q.gt(v, sp.nsimplify(lo)))
            if math.isfinite(hi):
                facts.append(sp.Q.le(v, sp.nsimplify(hi)) if hc else sp.Q.lt(v, sp.nsimplify(hi)))
        return sp.And(*facts) if facts else True

    def box(self, names) -> tuple[list, list]:
        """Finite interval bounds per variable, and the cuts that were applied."""
        box, cuts = [], []
        for n in names:
            lo, _, hi, _ = self.bounds.get(n, [-math.inf, False, math.inf, False])
            if lo == -math.inf:
                lo = -_CUT
                cuts.append(f"{n} >= -{_CUT:g}")
            if hi == math.inf:
                hi = _CUT
                cuts.append(f"{n} <= {_CUT:g}")
            lo_closed, hi_closed = self.bounds.get(n, [0, True, 0, True])[1], self.bounds.get(n, [0, True, 0, True])[3]
            if math.isfinite(self.bounds.get(n, [-math.inf])[0]) and not lo_closed:
                lo += _TINY * max(1.0, abs(lo))  # open ends (logs, divisions there): kept away by a stated margin
                cuts.append(f"{n} >= {lo:.6g}")
            if math.isfinite(self.bounds.get(n, [0, 0, math.inf])[2]) and not hi_closed:
                hi -= _TINY * max(1.0, abs(hi))
                cuts.append(f"{n} <= {hi:.6g}")
            box.append([lo, hi])
        return box, cuts


def _prepare(expr):
    """Rewrite functions mpmath.iv lacks in exponentials and logarithms."""
    # tanh a = 1 − 2/(e^(2a) + 1): one occurrence of a, so its interval enclosure stays tight
    return (
        expr.replace(sp.tanh, lambda a: 1 - 2 / (sp.exp(2 * a) + 1))
        .replace(sp.sinh, lambda a: (sp.exp(a) - sp.exp(-a)) / 2)
        .replace(sp.cosh, lambda a: (sp.exp(a) + sp.exp(-a)) / 2)
        .replace(sp.atan, lambda a: sp.I / 2 * sp.log((sp.I + a) / (sp.I - a)))
    )


def _iv_func(expr, syms):
    mods = {
        "exp": iv.exp,
        "log": iv.log,
        "sqrt": iv.sqrt,
        "sin": iv.sin,
        "cos": iv.cos,
        "pi": iv.pi,
        "E": iv.e,
        "e": iv.e,
        "Abs": abs,
        "mpf": iv.mpf,
    }  # constants become intervals too
    return sp.lambdify(syms, _prepare(expr), modules=[mods, "mpmath"])


def _enclose(f, intervals):
    try:
        with mpmath.workdps(30):
            val = f(*[iv.mpf(list(b)) for b in intervals])
        if not isinstance(val, type(iv.mpf(0))):
            val = iv.mpf(val)
        lo, hi = float(val.a), float(val.b)
        if math.isnan(lo) or math.isnan(hi):
            return None
        return lo, hi
    except (ZeroDivisionError, ValueError, TypeError, OverflowError, NotImplementedError):
        return None


def _nonneg_symbolic(h, strict: bool):
    s = sp.simplify(h)
    val = s.is_positive if strict else s.is_nonnegative
    if val is None and not strict:
        val = s.is_nonnegative
    return val, s


def check_inequality(
    text: str,
    domain: str | None = None,
    *,
    name: str = "inequality",
    max_boxes: int = 20000,
    claim_id: str = "",
    source: str = "",
    progress=None,
) -> CheckResult:
    """Prove, refute or leave undecided the inequality ``text`` on ``domain``; ``progress``, if given, is told of
    the boxes the interval cover examines (at most ``max_boxes``)."""
    t0 = time.perf_counter()
    dom = Domain(domain)
    syms = dom.symbols()
    rel = parse(text, syms)
    unknown = set(dom.bounds) - _names_in(text)
    if unknown:
        raise InvalidArgument(f"domain= names {sorted(unknown)[0]!r}, which is not in the formula")
    if not re.search(r"<=|>=|<|>", text):
        raise InvalidArgument(f"{text!r} must be an inequality A <= B (or <, >=, >)")
    if isinstance(rel, sp.logic.boolalg.BooleanAtom):  # sympy decided it while parsing, from the assumptions
        return CheckResult(
            name,
            "proved" if rel == sp.true else "refuted",
            "sympy (decided from the assumptions)",
            claim_id=claim_id,
            source=source,
            statement=text,
        )
    if not isinstance(rel, sp.Rel) or rel.rel_op not in ("<=", "<", ">=", ">"):
        raise InvalidArgument(f"{text!r} must be an inequality A <= B (or <, >=, >)")
    strict = rel.rel_op in ("<", ">")
    h = (rel.rhs - rel.lhs) if rel.rel_op in ("<=", "<") else (rel.lhs - rel.rhs)
    free = sorted(h.free_symbols, key=lambda s: s.name)

    def done(status, method, **kw):
        return CheckResult(
            name,
            status,
            method,
            claim_id=claim_id,
            source=source,
            statement=text,
            seconds=time.perf_counter() - t0,
            **kw,
        )

    if rel in (sp.true, sp.false) or not free:
        ok = bool(sp.simplify(h) > 0) if strict else bool(sp.simplify(h) >= 0)
        return done("proved" if ok else "refuted", "sympy (constant)")
    val, hs = _nonneg_symbolic(h, strict)
    if val is True:
        return done("proved", "sympy (sign from assumptions)")
    h, free, unsummed = _closed_sums(h, free)
    if unsummed:
        return done("undecided", "sympy", detail=unsummed)
    names = [s.name for s in free]
    box, cuts = dom.box(names)
    f = _iv_func(h, free)
    # a quick search for a counterexample first: random and grid points, certified by interval evaluation
    cex = _find_counterexample(f, box, strict) or (_exact_zero(h, free, box) if strict else None)
    if cex is not None:
        return done(
            "refuted",
            "interval arithmetic at a point",
            counterexample=dict(zip(names, cex[0])),
            detail=f"h = {cex[1]} there",
        )
    if not strict:
        reduced = _critical_point_reduction(h, free, dom, depth=0)
        if reduced is not None:
            return done("proved", "critical-point reduction (sympy solveset and limits)", detail=reduced)
    status, detail, open_boxes = _interval_cover(f, box, strict, max_boxes, progress)
    note = f"; domain cut: {', '.join(cuts)}" if cuts else ""
    if status == "verified":
        return done(
            "verified",
            "interval arithmetic with adaptive subdivision",
            detail=detail + note,
            open_region=_outside(cuts) if cuts else None,
        )
    return done(
        "undecided",
        "interval arithmetic with adaptive subdivision",
        open_region="; ".join(_fmt_box(names, b) for b in open_boxes[:5]) + (" …" if len(open_boxes) > 5 else ""),
        detail=detail + note,
    )


def _closed_sums(h, free):
    """(h, its free symbols, why it cannot be evaluated or ""): finite sums and products in closed form, where sympy
    finds one; a sum of a variable number of terms it cannot close has no interval form, said."""
    if not h.has(sp.Sum, sp.Product):
        return h, free, ""
    h = h.doit()
    unsummed = [s for s in h.atoms(sp.Sum, sp.Product) if s.free_symbols]
    why = (
        f"{unsummed[0]} has a variable number of terms and no closed form sympy finds; the interval cover evaluates "
        "closed forms only — give the number of terms, or the sum's closed form or a bound of it"
        if unsummed
        else ""
    )
    return h, sorted(h.free_symbols, key=lambda s: s.name), why


def _outside(cuts) -> str:
    """The region a cut domain leaves out, said as the negation of each cut (``x <= 1e+06`` leaves out x > 1e+06)."""
    flip = {"<=": ">", ">=": "<", "<": ">=", ">": "<="}
    parts = []
    for c in cuts:
        for op in ("<=", ">=", "<", ">"):
            if f" {op} " in c:
                lhs, rhs = c.split(f" {op} ", 1)
                parts.append(f"{lhs} {flip[op]} {rhs}")
                break
        else:
            parts.append(f"not ({c})")
    return "not examined: " + " or ".join(parts) + " (outside the cut domain " + ", ".join(cuts) + ")"


def _fmt_box(names, b):
    return ", ".join(f"{n} in [{lo:.6g}, {hi:.6g}]" for n, (lo, hi) in zip(names, b))


def _find_counterexample(f, box, strict, n=400):
    import random

    rnd = random.Random(0)
    grid = [_probe_values(lo, hi) for lo, hi in box]
    pts = list(itertools.islice(itertools.product(*grid), 2000))
    pts += [[rnd.choice(g) * (1 + 0.01 * rnd.random()) for g in grid] for _ in range(n)]
    pts = [[min(max(x, lo), hi) for x, (lo, hi) in zip(p, box)] for p in pts]
    for p in pts:
        enc = _enclose(f, [[x, x] for x in p])
        if enc is None:
            continue
        if enc[1] < 0 or (strict and enc[1] <= 0 and enc[0] == enc[1] == 0 and False):
            return p, f"[{enc[0]:.6g}, {enc[1]:.6g}] < 0"
    return None


def _exact_zero(h, free, box):
    """For a strict inequality: a rational probe point where h is exactly 0 (then h > 0 fails)."""
    grid = [
        [r for r in (sp.Rational(v).limit_denominator(1000) for v in _probe_values(lo, hi)[:8]) if lo <= r <= hi]
        for lo, hi in box
    ]
    for p in itertools.islice(itertools.product(*grid), 64):
        val = h.subs(dict(zip(free, p)))
        try:
            if abs(complex(val.evalf(50))) < 1e-40 and sp.simplify(val) == 0:
                return [float(x) for x in p], "exactly 0"
        except (TypeError, ValueError):
            continue
    return None


def _probe_values(lo, hi):
    """Points to try in [lo, hi]: a uniform grid of the part within ±10, and some larger magnitudes."""
    a, b = max(lo, -10.0), min(hi, 10.0)
    vals = [a + (b - a) * k / 10 for k in range(11)] if a <= b else []
    vals += [v for v in (1e-3, 0.01, 0.1, 0.5, 1, 2, math.e, 5, 20, 100, 1e3, -0.5, -1, -2, -20) if lo <= v <= hi]
    return sorted(set(vals)) or [lo, hi]


def _interval_cover(f, box, strict, max_boxes, progress=None):
    from privcheck.core.execution import plan

    plan(progress, max_boxes, " boxes")
    stack = [box]
    certified = 0
    open_boxes = []
    processed = 0
    while stack:
        b = stack.pop()
        processed += 1
        if progress and processed % 256 == 0:
            progress(256)
        enc = _enclose(f, b)
        if enc is not None and (enc[0] > 0 or (not strict and enc[0] >= 0)):
            certified += 1
            continue
        if processed + len(stack) >= max_boxes:
            open_boxes.append(b)
            continue
        widths = [hi - lo for lo, hi in b]
        k = max(range(len(b)), key=lambda i: widths[i] / max(1.0, abs(b[i][0]) + abs(b[i][1])))
        if widths[k] <= 1e-12 * max(1.0, abs(b[k][0])):
            open_boxes.append(b)
            continue
        lo, hi = b[k]
        mid = 0.5 * (lo + hi) if hi / max(lo, 1e-300) < 100 or lo <= 0 else math.sqrt(lo * hi)
        left, right = [list(x) for x in b], [list(x) for x in b]
        left[k][1], right[k][0] = mid, mid
        stack += [left, right]
    if not open_boxes:
        return "verified", f"{certified} boxes certified", []
    return "undecided", f"{certified} boxes certified, {len(open_boxes)} left open", open_boxes


def _monotone(deriv, v, interval) -> bool:
    """Whether sympy shows that h' keeps one sign on the interval (its minimum ≥ 0 or its maximum ≤ 0): then h is
    monotone there and its infimum is at an end — even when h' has infinitely many zeros (1 − cos x)."""
    for bound, ok in ((sp.minimum, lambda m: m >= 0), (sp.maximum, lambda m: m <= 0)):
        try:
            if ok(bound(deriv, v, interval)) == sp.true:
                return True
        except Exception:  # sympy cannot find the range: fall back to the sign changes
            continue
    return False


def _sign_changes(num, v, interval):
    """Every point of the interval where num (the derivative's numerator) can change sign, or None if
    sympy cannot list them.  Factors of even multiplicity never change sign and are skipped; a polynomial
    factor's roots come from ``solve`` (complete), another factor's from ``solveset`` (a finite set or
    nothing)."""
    try:
        _, factors = sp.factor_list(num)
    except Exception:
        return None
    points = []
    for fac, mult in factors:
        if mult % 2 == 0 or v not in fac.free_symbols:
            continue
        try:
            if fac.is_polynomial(v):
                roots = sp.solve(fac, v)
            else:
                sol = sp.solveset(fac, v, domain=interval)
                if not isinstance(sol, sp.FiniteSet):
                    return None
                roots = list(sol)
        except Exception:
            return None
        for r in roots:
            if r.is_real is False:
                continue
            inside = interval.contains(r)
            if inside is sp.false:
                continue
            points.append(r)
    return points


def _critical_point_reduction(h, free, dom, depth):
    """Return a description of the proof if h ≥ 0 follows from critical points and limits, else None."""
    if depth > 3:
        return None
    hs = sp.simplify(h)  # for the sign tests only: derivatives and limits use h as written
    if not hs.free_symbols:
        return "constant ≥ 0" if bool(hs >= 0) else None
    val = hs.is_nonnegative
    if val is True:
        return "sign from assumptions"
    if val is False:
        return None
    for v in sorted(h.free_symbols, key=lambda s: s.name):
        lo, lc, hi, hc = dom.bounds.get(v.name, [-math.inf, False, math.inf, False])
        interval = sp.Interval(
            sp.nsimplify(lo) if math.isfinite(lo) else -sp.oo,
            sp.nsimplify(hi) if math.isfinite(hi) else sp.oo,
            not lc,
            not hc,
        )
        try:
            deriv = sp.together(sp.diff(h, v))
            num, den = sp.fraction(deriv)
            poles = sp.solveset(den, v, domain=interval)
        except Exception:
            continue
        if poles != sp.EmptySet:  # h' must exist everywhere inside
            continue
        crit = [] if _monotone(deriv, v, interval) else _sign_changes(num, v, interval)
        if crit is None:
            continue
        parts = []
        ok = True
        candidates = [h.subs(v, c) for c in crit]
        for end, closed, direction in ((interval.start, lc, "+"), (interval.end, hc, "-")):
            if closed:
                candidates.append(h.subs(v, end))
            else:
                try:
                    candidates.append(sp.limit(h, v, end, direction))
                except Exception:
                    ok = False
                    break
        if not ok:
            continue
        facts = dom.assumptions({s.name: s for s in h.free_symbols | {v}})
        for c in candidates:
            c = sp.refine(c, facts)  # before simplify: simplify(oo*sign(1 - x)) is nan
            c = c if c in (sp.oo, -sp.oo) else sp.simplify(sp.refine(sp.simplify(c), facts))
            if c in (sp.oo,):
                continue
            if c.has(sp.nan, sp.zoo, -sp.oo, sp.AccumBounds):
                ok = False
                break
            sub = _critical_point_reduction(c, free, dom, depth + 1)
            if sub is None:
                ok = False
                break
            parts.append(f"{sp.sstr(c)}: {sub}")
        if ok:
            return f"in {v}: sign changes of ∂h/∂{v} at {sp.sstr(crit)} and both ends give values ≥ 0"
    return None


def check_identity(
    lhs: str, rhs: str, assume: str | None = None, *, name: str = "identity", claim_id: str = "", source: str = ""
) -> CheckResult:
    t0 = time.perf_counter()
    dom = Domain(assume)
    syms = dom.symbols()
    a, b = parse(lhs, syms), parse(rhs, syms)
    if not isinstance(a, sp.Expr) or not isinstance(b, sp.Expr):
        raise InvalidArgument("an identity compares two expressions, not relations")
    diff = a - b
    unknown = set(dom.bounds) - _names_in(lhs, rhs)
    if unknown:
        raise InvalidArgument(f"assume= names {sorted(unknown)[0]!r}, which is not in the formula")

    def done(status, method, **kw):
        return CheckResult(
            name,
            status,
            method,
            claim_id=claim_id,
            source=source,
            statement=f"{lhs} = {rhs}",
            seconds=time.perf_counter() - t0,
            **kw,
        )

    for how, transform in (
        ("simplify", sp.simplify),
        ("rewrite(exp) + simplify", lambda e: sp.simplify(e.rewrite(sp.exp))),
        ("expand_log(force) + simplify", lambda e: sp.simplify(sp.expand_log(e, force=True))),
    ):
        try:
            if transform(diff) == 0:
                return done("proved", f"sympy {how}")
        except Exception:
            continue
    # the variables of the two sides (the difference may have lost them: x + 1 − (x + 2) = −1), so that a
    # refutation names a point of the formula's own variables
    free = sorted(a.free_symbols | b.free_symbols, key=lambda s: s.name)
    names = [s.name for s in free]
    box, cuts = dom.box(names)
    f = _iv_func(diff, free)
    import random

    rnd = random.Random(1)
    grid = [_probe_values(lo, hi) for lo, hi in box]
    for _ in range(300):
        p = [min(max(rnd.choice(g) * (1 + 0.01 * rnd.random()), lo), hi) for g, (lo, hi) in zip(grid, box)]
        enc = _enclose(f, [[x, x] for x in p])
        if enc is not None and (enc[0] > 0 or enc[1] < 0):
            return done(
                "refuted",
                "interval arithmetic at a point",
                counterexample=dict(zip(names, p)),
                detail=f"lhs − rhs in [{enc[0]:.6g}, {enc[1]:.6g}]",
            )
    return done(
        "undecided",
        "sympy could not simplify the difference to 0; it vanished at 300 random points",
        open_region=_fmt_box(names, box),
    )
