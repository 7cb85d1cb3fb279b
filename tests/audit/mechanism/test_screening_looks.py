"""Looks during the screening of several pairs: a leak the screening already shows ends the audit on draws of its
own, a target with room to spare pays nothing, and a look that does not refute is said and spends only its share."""

import json
import shlex

import numpy as np
import pytest

import privcheck.audits.mechanism.screening as screening
from privcheck import PureDP, audit
from privcheck.cli import main
from privcheck.mechanisms.exact_sampling import discrete_laplace

#: the tell's pair among seven: x = 0 against x′ = 1 (the fifth)
PAIRS = [([0.0], [float(k)]) for k in (3, 4, 5, 6, 1, 7, 8)]


def rare_tell(x, rng, size):
    """A fair coin, but on input 1 three draws in a thousand say 2: a leak in rare events, on one pair only."""
    out = rng.integers(0, 2, size).astype(float)
    if x[0] == 1.0:
        out[rng.random(size) < 0.003] = 2.0
    return out


def grid_laplace(x, rng, size):
    """x plus discrete Laplace noise of scale 8 on the integers: ε = |x − x′|/8 exactly (1 at x′ = 8)."""
    return float(x[0]) + discrete_laplace(rng, 8, size).astype(float)


def test_a_leak_the_screening_shows_ends_the_audit_at_a_look():
    r = audit(rare_tell, PureDP(1.0), pairs=PAIRS, method="sample", samples=200_000, seed=1)
    looks = r.witness["looks"]
    assert r.violates_claim and r.epsilon_lower > 1.0
    assert looks["screening_round"] >= 2 and r.samples_per_side == looks["stopped_at"] <= 200_000 // 16
    assert r.witness["pair"] == [[1.0], [0.0]]  # (the numerator side first)
    (note,) = [n for n in r.notes if n.startswith("stopped early: a look in the screening")]
    assert "full_budget=True" in note and r.extra["reach"]["basis"] == "screening"
    # the full plan, for the full magnitude: no look, the selection and the certification at 200,000 a side
    full = audit(rare_tell, PureDP(1.0), pairs=PAIRS, method="sample", samples=200_000, seed=1, full_budget=True)
    assert full.violates_claim and full.epsilon_lower > 2 * r.epsilon_lower and full.samples_per_side == 200_000
    assert "looks" not in full.witness and not any("look" in n for n in full.notes)


def test_a_target_that_holds_pays_nothing_where_no_look_is_promised():
    kw = dict(pairs=[([0.0], [float(k)]) for k in range(1, 9)], method="sample", samples=100_000, seed=3)
    plain = audit(grid_laplace, PureDP(1.0), stages=0, **kw)  # (the full stage alone: its looks, no earlier stage)
    full = audit(grid_laplace, PureDP(1.0), full_budget=True, **kw)
    assert not plain.violates_claim and not any("look" in n for n in plain.notes)
    assert plain.epsilon_lower == full.epsilon_lower and plain.witness == full.witness


def test_a_look_that_does_not_refute_is_said_and_spends_only_its_share(monkeypatch):
    kw = dict(pairs=[([0.0], [float(k)]) for k in range(1, 9)], method="sample", samples=100_000, seed=3)
    plain = audit(grid_laplace, PureDP(1.0), stages=0, **kw)  # (the full stage alone: its looks, no earlier stage)
    # every look promised at its smallest size: made, and not refuting (ε ≤ 1 on every pair)
    monkeypatch.setattr(screening.Looks, "promised_size", lambda self, held, n_held: self.sizes[0])
    looked = audit(grid_laplace, PureDP(1.0), **kw)
    said = [n for n in looked.notes if "look in the screening" in n]
    assert not looked.violates_claim and len(said) == screening.LOOKS_MAX
    assert all("did not refute the claim" in n for n in said)
    assert f"the rest ({1 - screening.LOOKS_MAX * screening.LOOK_SHARE:.0%})" in " ".join(looked.notes)
    # the same selection and certification draws, at a smaller share of the failure probability
    assert looked.witness["event"] == plain.witness["event"]
    assert looked.witness["counts"] == plain.witness["counts"]
    assert 0 < looked.epsilon_lower < plain.epsilon_lower


def test_the_look_is_in_the_json_and_the_reproduce_line_reproduces(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tell.py").write_text(
        "import numpy as np\n\n\n"
        "def rare_tell(x, rng, size):\n"
        "    out = rng.integers(0, 2, size).astype(float)\n"
        "    if x[0] == 1.0:\n"
        "        out[rng.random(size) < 0.003] = 2.0\n"
        "    return out\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    argv = ["audit", "tell.py:rare_tell", "--epsilon", "1", "--method", "sample", "--samples", "200000", "--json"]
    for x, y in PAIRS:
        argv += ["--pair", json.dumps(x), json.dumps(y)]
    assert main([*argv, "--seed", "1"]) == 1
    first = json.loads(capsys.readouterr().out)
    assert first["witness"]["looks"]["screening_round"] >= 2 and first["samples_per_side"] < 200_000
    again = shlex.split(first["command"])[1:]
    assert main([*again, "--json"]) == 1
    second = json.loads(capsys.readouterr().out)
    assert second["epsilon_lower"] == first["epsilon_lower"] and second["witness"] == first["witness"]


@pytest.mark.parametrize("claim", [PureDP(1e-6), PureDP(700.0)])
def test_looks_at_the_edges_of_epsilon(claim):
    """ε = 10⁻⁶: the tell refutes at a look all the same; ε = 700: nothing can be promised, no look is made."""
    r = audit(rare_tell, claim, pairs=PAIRS, method="sample", samples=200_000, seed=2)
    made = [n for n in r.notes if "look in the screening" in n]
    if claim.epsilon < 1:
        assert r.violates_claim and r.witness["looks"]["stopped_at"] < 200_000
    else:
        assert not r.violates_claim and made == [] and np.isfinite(r.epsilon_lower)
