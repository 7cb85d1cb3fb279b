"""A neighbouring relation is one class: this test adds one as DESIGN.md's recipe says — its name, what the report
says of it, its neighbours, its input search — registers it, and audits through it from Python and from the command
line with nothing else changed.  The relation: "the first user", reward tables differing in their first row only
(a policy that treats its first user differently, say one whose reward seeds an estimate)."""

import numpy as np
import pytest

from privcheck import InvalidArgument, PureDP, audit_policy
from privcheck.audits.policy import relations
from privcheck.audits.policy.inputs import NO_DEPENDENCE
from privcheck.audits.policy.relations import Table
from privcheck.core.neighbours import TableNeighbours


class FirstRowNeighbours(TableNeighbours):
    name = "first-user neighbours (the first row replaced)"

    def contains(self, x, x_prime) -> bool:
        a, b = np.asarray(x), np.asarray(x_prime)
        return a.shape == b.shape and a.ndim == 2 and bool(np.array_equal(a[1:], b[1:]))

    def candidate_pairs(self, x, rng, limit: int = 32) -> list:
        a = np.asarray(x, dtype=float)
        out = []
        for row in (1.0 - a[0], np.ones(a.shape[1]), np.zeros(a.shape[1])):
            b = a.copy()
            b[0] = row
            if not np.array_equal(a, b):
                out.append((a, b))
        return out


def _search(mech, relation, pairs, start, shape, seed, planned, cost, screening, executor=None):
    """The first row's neighbours of the start table (or the pairs given), kept when coupled runs tell them apart."""
    pairs = pairs or relation.candidate_pairs(np.zeros(shape) if start is None else start, None)
    moved = mech.coupled_differences(pairs, seed, 8, executor)
    return pairs, [] if any(moved) else [NO_DEPENDENCE.format(runs=8, pairs=len(pairs))]


class FirstUser(Table):
    """The first user's row of a reward table replaced; the actions observed."""

    name = "first-user"
    said = ", as first-user DP (the action sequence, when the first user's rewards change)"
    enumerates = False

    def neighbours(self):
        return FirstRowNeighbours()

    def searches(self) -> tuple:
        return _search, lambda mech, relation, start, shape, seed, cost, screening: 3 * 2 * 8


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setitem(relations.RELATIONS, "first-user", FirstUser())


class Seeded:
    """Explores arm 0 at round 1, then plays arm 1 for ever when that first reward was 1 (a planted leak of the
    first user's reward), else uniformly."""

    def __init__(self, n_arms, rng):
        self.rng, self.first = rng, None

    def act(self, t):
        return 0 if t == 1 else 1 if self.first == 1.0 else int(self.rng.integers(2))

    def update(self, t, arm, reward):
        if t == 1:
            self.first = reward


class Uniform(Seeded):
    def act(self, t):
        return int(self.rng.integers(2))


def test_a_relation_written_as_one_class_audits_from_python(registered):
    bug = audit_policy(Seeded, PureDP(1.0), "first-user", horizon=6, samples=500, seed=1)
    assert bug.violates_claim and bug.definition == "first-user"
    assert "as first-user DP" in str(bug) and "first-user neighbours" in str(bug)
    assert bug.to_dict()["definition"] == "first-user"
    fine = audit_policy(Uniform, PureDP(1.0), "first-user", horizon=6, samples=500, seed=1)
    assert not fine.violates_claim
    x = np.zeros((6, 2))
    y = x.copy()
    y[2] = 1.0  # the third user's row: not this relation's neighbours
    with pytest.raises(InvalidArgument, match="not neighbours under first-user neighbours"):
        audit_policy(Seeded, PureDP(1.0), "first-user", horizon=6, pairs=[(x, y)])


def test_and_from_the_command_line(registered, run, tmp_path):
    (tmp_path / "pol.py").write_text(
        "import numpy as np\n\n"
        "class Seeded:\n"
        "    def __init__(self, n_arms, rng):\n"
        "        self.rng, self.first = rng, None\n\n"
        "    def act(self, t):\n"
        "        return 0 if t == 1 else 1 if self.first == 1.0 else int(self.rng.integers(2))\n\n"
        "    def update(self, t, arm, reward):\n"
        "        if t == 1:\n"
        "            self.first = reward\n"
    )
    argv = ["audit", f"{tmp_path / 'pol.py'}:Seeded", "--epsilon", "1", "--definition", "first-user"]
    code, out, err = run(*argv, "--horizon", "6", "--samples", "500", "--seed", "1")
    assert code == 1 and "as first-user DP" in out, err
    code, _, err = run("audit", f"{tmp_path / 'pol.py'}:Seeded", "--epsilon", "1", "--definition", "second-user")
    assert code == 2 and "--definition second-user must be one of table, view, interactive, local, joint" in err
