"""privcheck's pytest plugin: privacy claims as tests in any project's CI.

Installed with privcheck (the ``pytest11`` entry point), it gives every test a ``privcheck`` fixture::

    def test_noisy_count(privcheck):
        privcheck.assert_private(noisy_count, PureDP(1.0, ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)])

    def test_planted_bug_is_caught(privcheck):
        privcheck.assert_refuted(half_noise, PureDP(1.0, ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)])

``audit``, ``assert_private`` and ``assert_refuted`` take the arguments of :func:`privcheck.audit`; the fixture
supplies the seed, the sample size and the confidence.  Given ``definition=``, they audit a bandit policy with
:func:`privcheck.audit_policy` — a policy object, or a factory, including one of one object per run::

    def test_my_bandit(privcheck):
        privcheck.assert_private(make_my_bandit, PureDP(1.0), definition="table", arms=2, horizon=1000)

at ``--privcheck-policy-samples`` runs per side (default 2,000: every draw is a whole run; a quarter of that per
pair when screening the pairs the input search found).

**Seeds.** An audit's seed is a hash of ``--privcheck-seed`` (default 0: a plain rerun reproduces every audit),
the test's node id and the audit's own arguments (target, claim, pairs, input, sample size, method) — not the
order in which audits run, so ``-n`` (xdist) changes nothing, and a hypothesis example replayed (as when it
reports a shrunk failure) gets the seed it had.

**False alarms, budgeted.** ``--privcheck-false-alarm`` (default 1e-6) bounds the probability that *any*
correct claim of the whole run is refuted.  The rule: the budget is split equally over the collected tests
that use the fixture (N of them; the same set in every xdist worker and in every rerun), and within a test the
j-th distinct audit gets 6/(π² j²) of the test's share (these shares sum to less than 1 however many audits a
test makes — hypothesis tests make many); an audit repeated with the same arguments is the same deterministic
computation and reuses its share.  So audit (test t, j) runs at confidence 1 − budget · 6/(π² j² N), and by the
union bound a run whose claims are all correct fails with probability at most the budget.  An explicit
``confidence=`` in a call is honoured and counted in the budget used.

**Settings**: command-line options, else ``[tool.privcheck]`` in the ``pyproject.toml`` of the rootdir
(``samples``, ``policy-samples``, ``false-alarm``, ``seed``, ``slow``), else the defaults.  Audits of tests marked
``@pytest.mark.privcheck_slow`` belong to a slow tier: skipped unless ``--privcheck-slow`` (or ``slow = true``).

**Reports**: a ``privcheck`` section in the terminal summary (test, target, claim, bound, verdict, samples,
seconds, and the budget used) and, with ``--privcheck-report PATH``, a JSON list of the audit records (the
report schema of ``privcheck audit --json`` plus ``nodeid`` and ``confidence_share``), sorted by node id and
identical across reruns except ``seconds`` and ``versions``.

This module imports only the standard library and pytest at load time; privcheck is imported when an audit
runs, so a pytest run that never uses the fixture pays nothing.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from pathlib import Path

import pytest

#: the defaults of privcheck.testing (TEST_SAMPLES, TEST_POLICY_SAMPLES, TEST_FALSE_ALARM, TEST_SEED), restated
#: because this plugin must not import privcheck until a test uses it; tests/plugin checks that the two sets are one
DEFAULT_SAMPLES = 200_000
DEFAULT_POLICY_SAMPLES = 6_000
DEFAULT_FALSE_ALARM = 1e-6
DEFAULT_SEED = 0
_KEY = "privcheck_records"
_SETTINGS = ("samples", "policy-samples", "false-alarm", "seed", "slow")


# ------------------------------------------------------------------------------------------------ settings


def pytest_addoption(parser):
    g = parser.getgroup("privcheck", "privacy audits (privcheck)")
    g.addoption(
        "--privcheck-samples",
        type=int,
        default=None,
        help=f"samples per side of each audit (default {DEFAULT_SAMPLES:,}, or [tool.privcheck] samples)",
    )
    g.addoption(
        "--privcheck-policy-samples",
        type=int,
        default=None,
        help=f"runs per side of each policy audit (default {DEFAULT_POLICY_SAMPLES:,}, or [tool.privcheck] "
        "policy-samples)",
    )
    g.addoption(
        "--privcheck-false-alarm",
        type=float,
        default=None,
        help=f"probability budget of any false alarm over the whole run (default {DEFAULT_FALSE_ALARM:g})",
    )
    g.addoption(
        "--privcheck-seed",
        type=int,
        default=None,
        help=f"base seed of every audit (default {DEFAULT_SEED}: reruns reproduce)",
    )
    g.addoption("--privcheck-report", default=None, metavar="PATH", help="write the audit records as JSON")
    g.addoption("--privcheck-slow", action="store_true", default=None, help="run the tests marked privcheck_slow")


def _pyproject(rootpath: Path) -> dict:
    path = Path(rootpath) / "pyproject.toml"
    if not path.is_file():
        return {}
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib
        except ImportError:
            raise pytest.UsageError("reading [tool.privcheck] needs Python 3.11 or the tomli package") from None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except Exception as exc:
        raise pytest.UsageError(f"{path}: {exc}") from None
    table = data.get("tool", {}).get("privcheck", {})
    unknown = sorted(set(table) - set(_SETTINGS))
    if unknown:
        raise pytest.UsageError(f"{path}: [tool.privcheck] {unknown[0]!r} is not one of {', '.join(_SETTINGS)}")
    return table


class Settings:
    def __init__(self, config):
        table = _pyproject(config.rootpath)

        def pick(option, key, default, kind):
            value = config.getoption(option)
            if value is None:
                value = table.get(key, default)
            try:
                return kind(value)
            except (TypeError, ValueError):
                raise pytest.UsageError(f"privcheck setting {key} = {value!r} is not a valid {kind.__name__}") from None

        self.samples = pick("privcheck_samples", "samples", DEFAULT_SAMPLES, int)
        self.policy_samples = pick("privcheck_policy_samples", "policy-samples", DEFAULT_POLICY_SAMPLES, int)
        self.budget = pick("privcheck_false_alarm", "false-alarm", DEFAULT_FALSE_ALARM, float)
        self.seed = pick("privcheck_seed", "seed", DEFAULT_SEED, int)
        self.slow = pick("privcheck_slow", "slow", False, bool)
        self.report = config.getoption("privcheck_report")
        for key, value in (("samples", self.samples), ("policy-samples", self.policy_samples)):
            if value < 1:
                raise pytest.UsageError(f"privcheck {key} = {value} must be >= 1")
        if not 0 < self.budget < 1:
            raise pytest.UsageError(f"privcheck false-alarm budget = {self.budget} must be in (0, 1)")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "privcheck_slow: the test's audits belong to privcheck's slow tier (run with --privcheck-slow)"
    )
    config.stash[_SETTINGS_KEY] = Settings(config)
    config.stash[_RECORDS_KEY] = []
    config.stash[_USERS_KEY] = 1


_SETTINGS_KEY = pytest.StashKey()
_RECORDS_KEY = pytest.StashKey()
_USERS_KEY = pytest.StashKey()


def pytest_collection_modifyitems(config, items):
    settings = config.stash[_SETTINGS_KEY]
    users = 0
    for item in items:
        if "privcheck" in getattr(item, "fixturenames", ()):
            users += 1
        if not settings.slow and item.get_closest_marker("privcheck_slow") is not None:
            item.add_marker(pytest.mark.skip(reason="privcheck slow tier: run with --privcheck-slow"))
    config.stash[_USERS_KEY] = max(1, users)


# ------------------------------------------------------------------------------------------------ fixture


def _object_text(v) -> str:
    """An object's text that does not change between runs (no memory addresses)."""
    if hasattr(v, "__array__"):
        import numpy as np

        return np.asarray(v).tolist()
    if callable(v) and hasattr(v, "__qualname__"):
        return f"{getattr(v, '__module__', '')}.{v.__qualname__}"
    text = repr(v)
    if " at 0x" in text:
        return f"{type(v).__module__}.{type(v).__qualname__}:{getattr(v, 'name', '')}"
    return text


def _stable(value) -> str:
    """A stable text of an audit argument (arrays and tuples as lists, functions by qualified name)."""
    try:
        return json.dumps(value, default=_object_text, sort_keys=True)
    except (TypeError, ValueError):
        return _object_text(value) if not isinstance(value, (list, tuple, dict)) else repr(value)


def _seed(base: int, nodeid: str, key: str) -> int:
    digest = hashlib.sha256(f"{base}\x00{nodeid}\x00{key}".encode()).digest()
    return int.from_bytes(digest[:8], "little") >> 1  # a non-negative 63-bit seed


def _current_test() -> str:
    """The node id of the running test (pytest sets PYTEST_CURRENT_TEST to "<nodeid> (<phase>)")."""
    return os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]


class PrivcheckFixture:
    """The ``privcheck`` fixture: :func:`privcheck.audit` with the running test's seed, samples and confidence.

    One object serves the whole session and reads the running test from pytest, so that it can be used inside
    hypothesis' ``@given`` tests (no function-scoped fixture for hypothesis to warn about).
    """

    def __init__(self, config):
        self._config = config
        self._settings = config.stash[_SETTINGS_KEY]
        self._shares: dict = {}  # (node id, audit key) -> j, the audit's rank among its test's distinct audits
        self._per_test: dict = {}  # node id -> how many distinct audits so far

    @property
    def samples(self) -> int:
        return self._settings.samples

    def _share(self, nodeid: str, key: str) -> float:
        if (nodeid, key) not in self._shares:
            self._per_test[nodeid] = self._per_test.get(nodeid, 0) + 1
            self._shares[(nodeid, key)] = self._per_test[nodeid]
        j = self._shares[(nodeid, key)]
        return 6.0 / (math.pi**2 * j * j) / self._config.stash[_USERS_KEY]

    def audit(self, target, claim=None, **kw):
        """:func:`privcheck.audit` with the fixture's seed, samples and confidence unless given; given
        ``definition=``, :func:`privcheck.audit_policy`."""
        from privcheck.cli.reproduce import with_command
        from privcheck.testing import audit_target

        policy = kw.get("definition") is not None
        kw.setdefault("samples", self._settings.policy_samples if policy else self._settings.samples)
        kw.setdefault("method", "auto")
        if _is_worker(self._config):  # pytest-xdist already runs a test per CPU: no processes of the audit's own
            kw.setdefault("workers", 1)
        nodeid = _current_test()
        said = [target, claim, kw.get("pairs"), kw.get("input"), kw["samples"], kw["method"], kw.get("event")]
        said += [kw.get(k) for k in ("definition", "horizon", "arms", "screening")] if policy else [kw.get("relation")]
        key = "|".join(_stable(v) for v in said)
        share = self._share(nodeid, key)
        explicit = "confidence" in kw
        kw.setdefault("confidence", 1.0 - self._settings.budget * share)
        kw.setdefault("seed", _seed(self._settings.seed, nodeid, key))
        report = with_command(audit_target(target, claim, **kw))  # reproduced by a `privcheck audit` command, if any
        record = dict(
            report.to_dict(),
            nodeid=nodeid,
            confidence_share=None if explicit else share,
            false_alarm_used=1.0 - float(kw["confidence"]),
        )
        self._config.stash[_RECORDS_KEY].append(record)
        return report

    def assert_private(self, target, claim=None, **kw):
        """Audit; fail the test (with the witness and the command that reproduces it) if the claim is refuted."""
        report = self.audit(target, claim, **kw)
        if report.violates_claim:
            pytest.fail(_message("privacy claim refuted", report), pytrace=False)
        return report

    def assert_refuted(self, target, claim=None, **kw):
        """Audit; fail the test if the claim is *not* refuted (a planted bug that the audit must catch)."""
        report = self.audit(target, claim, **kw)
        if not report.violates_claim:
            pytest.fail(_message("privacy claim not refuted (expected a refutation)", report), pytrace=False)
        return report


def _message(head: str, report) -> str:
    from privcheck.core import describe_claim

    return f"{head}: {report.target} — {describe_claim(report.claim)} (seed {report.seed})\n\n{report}"


@pytest.fixture(scope="session")
def privcheck(pytestconfig):
    """Audit privacy claims: ``privcheck.audit``, ``privcheck.assert_private``, ``privcheck.assert_refuted``."""
    return PrivcheckFixture(pytestconfig)


# ------------------------------------------------------------------------------------------------ reports


def _is_worker(config) -> bool:
    return hasattr(config, "workerinput")


def pytest_sessionfinish(session):
    config = session.config
    if _is_worker(config):  # xdist: hand this worker's records to the controller
        config.workeroutput[_KEY] = json.dumps(config.stash[_RECORDS_KEY])


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    data = getattr(node, "workeroutput", {}).get(_KEY)
    if data:
        node.config.stash[_RECORDS_KEY].extend(json.loads(data))


def _sorted(records) -> list:
    return sorted(records, key=lambda r: (r["nodeid"], r["seed"], r["target"]))


def pytest_terminal_summary(terminalreporter, config):
    if _is_worker(config):
        return
    records = _sorted(config.stash[_RECORDS_KEY])
    settings = config.stash[_SETTINGS_KEY]
    if settings.report:
        Path(settings.report).write_text(json.dumps(records, indent=1, sort_keys=True), encoding="utf-8")
    if not records:
        return
    tr = terminalreporter
    tr.section("privcheck")
    for r in records:
        eps = "∞" if r["epsilon_lower_infinite"] else f"{r['epsilon_lower']:.4g}"
        samples = "exact" if r["samples_per_side"] is None else f"{r['samples_per_side']:,}"
        claim = r["claim"]
        stated = ", ".join(f"{k}={claim[k]:g}" for k in ("epsilon", "delta", "rho", "order", "mu") if claim.get(k))
        tr.write_line(
            f"{r['nodeid']}  {r['target']}  {claim['type']}({stated})  ε ≥ {eps}  {r['verdict']}  "
            f"{samples}  {r['seconds']:.2f} s"
        )
    used = sum(r["false_alarm_used"] for r in records)
    tr.write_line(
        f"{len(records)} audits; false-alarm probability used {used:.3g} of the budget "
        f"{settings.budget:g}" + (f"; records in {settings.report}" if settings.report else "")
    )
