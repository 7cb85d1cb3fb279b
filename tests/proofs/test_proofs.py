"""The proof catalogue (each check has its expected status) and the user-formula checker, property-tested on
families with known answers."""

import json

import pytest
from hypothesis import given, settings, strategies as st

from privcheck.cli import main
from privcheck.core import InvalidArgument
from privcheck.proofs import CATALOGUE, check_identity, check_inequality
from privcheck.proofs.catalogue import load_checks, run_check

load_checks()


# the slow tier: the checks of 0.6 s and more (sympy integrals and mpmath sweeps; corollary2-typo also runs in the
# default tier, by docs/explanation/papers.md), which keeps the default tier under its two minutes; `privcheck
# verify` runs them all
_SLOW_CHECKS = {
    "table-view-proposition1",
    "gdp-to-zcdp",
    "gdp-to-dp",
    "pinsker",
    "gaussian-renyi",
    "sw-log-term-bound",
    "corollary2-typo",
    "pure-dp-to-zcdp",
    "rr-ldp-four-ratios",
    "definition2-sequences",
}


@pytest.mark.parametrize(
    "slug", [pytest.param(s, marks=pytest.mark.slow) if s in _SLOW_CHECKS else s for s in sorted(CATALOGUE)]
)
def test_catalogue_check_has_its_expected_status(slug):
    r = run_check(CATALOGUE[slug])
    assert r.as_expected, r.to_dict()
    assert r.claim_id and r.source and r.method
    if r.status == "refuted":
        assert r.counterexample or r.detail


def test_catalogue_has_the_papers_defects_as_refuted():
    refuted = {s for s, c in CATALOGUE.items() if c.expected == "refuted"}
    assert {
        "pinsker-strict",
        "corollary2-typo",
        "rr-two-ratio-condition",
        "sw-level-nonnegative",
        "definition2-sequences",
    } <= refuted
    assert len(CATALOGUE) >= 15 + 5


@settings(max_examples=12, deadline=None)
@given(st.integers(-5, 5), st.integers(1, 5))
def test_square_inequalities(c, k):
    # k(x − c)² ≥ 0 is tight on x = c: must be proved, never left to interval arithmetic
    r = check_inequality(f"{k}*(x-({c}))**2 >= 0", "-10<x<10")
    assert r.status in ("proved", "verified")
    # x² ≥ c² + 1 fails at x = c (inside the domain)
    r = check_inequality(f"x**2 >= {c * c + 1}", "-10<x<10")
    assert r.status == "refuted" and r.counterexample


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
@settings(max_examples=10, deadline=None)
@given(st.integers(1, 6))
def test_am_gm_and_strict_versions(k):
    assert check_inequality(f"x*y <= (x+y)**2/4 + {k - 1}", "0<x<5, 0<y<5").status in ("proved", "verified")
    assert check_inequality("x*y < (x+y)**2/4", "0<x<5, 0<y<5").status == "refuted"  # equality at x = y


@settings(max_examples=10, deadline=None)
@given(st.integers(-4, 4), st.integers(-4, 4))
def test_identities(a, b):
    assert check_identity(f"(x+({a}))*(x+({b}))", f"x**2 + ({a + b})*x + ({a * b})").status == "proved"
    r = check_identity(f"(x+({a}))**2", f"x**2 + {a * a + 1}")
    assert r.status == "refuted"


def test_identities_that_differ_off_a_set():
    assert check_identity("sqrt(x**2)", "x", "x>0").status == "proved"
    r = check_identity("sqrt(x**2)", "x", "-1<x<1")
    assert r.status == "refuted" and r.counterexample["x"] < 0
    assert check_identity("log(x*y)", "log(x)+log(y)", "x>0, y>0").status == "proved"


@pytest.mark.slow  # slow tier: two tight inequalities (2.4 s); the default tier proves AM–GM, squares, the catalogue
def test_tight_examples_of_the_issue():
    assert check_inequality("x*log(x/y)+(1-x)*log((1-x)/(1-y)) >= 2*(x-y)**2", "0<x<1, 0<y<1").status == "proved"
    assert check_inequality("L*log(sqrt(T/L)) <= sqrt(L*T)/E", "T>0, L>0").status == "proved"


def test_undecided_is_never_proved():
    r = check_inequality("exp(x) >= 1 + x + x**2/3", "0<x<3")  # true, tight at 0, transcendental derivative
    assert r.status in ("undecided", "verified", "proved")
    if r.status == "undecided":
        assert r.open_region


@pytest.mark.parametrize(
    "args", [("x <=* 2", None), ("x <= 2", "y>0"), ("x <= 2", "1<x<0"), ("x + 2", None), ("x <= 2", "x>")]
)
def test_bad_formulas(args):
    with pytest.raises(InvalidArgument):
        check_inequality(*args)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_verify_cli(capsys):
    assert main(["verify", "rr-optimality", "pinsker-strict"]) == 0
    out = capsys.readouterr().out
    assert "rr-optimality" in out and "refuted" in out
    assert main(["verify", "rr-optimality", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["schema_version"] == 1 and d["status"] == "proved" and d["claim_id"]
    for k in ("status", "method", "claim_id", "source", "counterexample", "open_region", "seconds"):
        assert k in d
    assert main(["verify", "--identity", "(exp(e)-1)/(exp(e)+1)", "tanh(e/2)", "--assume", "e>0"]) == 0
    assert main(["verify", "--inequality", "x**2 >= x", "--domain", "0<x<2"]) == 1
    assert main(["verify", "--inequality", "exp(x) >= 1 + x + x**2/3", "--domain", "0<x<3"]) in (0, 3)
    capsys.readouterr()
    assert main(["verify", "nosuch"]) == 2
    assert "unknown check" in capsys.readouterr().err


@pytest.mark.slow  # slow tier (python3 -m pytest -m slow): every check also runs alone in the default tier
def test_whole_catalogue_json(capsys):
    assert main(["verify", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["schema_version"] == 1 and len(d["checks"]) == len(CATALOGUE)
    assert all(c["as_expected"] for c in d["checks"])


def test_monotone_differences_are_proved_even_with_infinitely_many_critical_points():
    r = check_inequality("sin(x) <= x", "x>0")
    assert r.status == "proved"
    assert check_inequality("x - sin(x) >= 1/10", "x>0").status == "refuted"
    assert check_inequality("x <= sin(x)", "x>0").status == "refuted"


def test_a_bare_e_is_never_silently_eulers_number():
    from privcheck.core import InvalidArgument
    from privcheck.proofs import check_inequality

    with pytest.raises(InvalidArgument, match="write E for Euler's number, or bind e in the domain"):
        check_inequality("exp(e) - 1 <= 2*e")
    assert check_inequality("exp(e) - 1 <= 2*e", "0<e<1").status == "proved"  # bound: a variable
    assert check_inequality("exp(E) - 1 <= 2*E").status == "refuted"  # E: Euler's number


def test_what_cannot_be_read_is_said_and_finite_sums_are_read():
    from privcheck.core import InvalidArgument
    from privcheck.proofs import check_inequality

    with pytest.raises(InvalidArgument, match=r"foo\(…\) is not a function privcheck reads \(it reads log"):
        check_inequality("foo(x) <= 2", "x>0")
    with pytest.raises(InvalidArgument, match="invalid syntax at column"):
        check_inequality("x + <= 2", "x>0")
    assert check_inequality("Sum(1/t**2, (t, 1, 10)) <= 2").status == "proved"
    assert check_inequality("Sum(t, (t, 1, T)) <= T**2", "T>=1").status == "proved"  # closed form T(T+1)/2
    open_sum = check_inequality("Sum(1/sqrt(t), (t, 1, T)) <= 2*sqrt(T)", "T>=1")
    assert open_sum.status == "undecided" and "variable number of terms" in open_sum.detail
