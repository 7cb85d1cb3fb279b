"""A user's file is loaded as Python runs a script: its folder is importable while it loads, when its code runs and
on every worker, and the user's own ``policies.py``, ``mechanisms/`` and ``proofs.py`` are theirs — privcheck's
installed names (``privcheck.policies`` …) never shadow them — while their own script named ``privcheck.py``, beside
their files or where they run, shadows nothing on the workers."""

import json
import subprocess
import sys
import textwrap

import pytest

FILES = {
    "policies.py": """
        import helper
        from mechanisms.noise import laplace


        class Commit:
            def __init__(self, rng, scale):
                self.rng, self.scale, self.total, self.choice = rng, scale, 0.0, 0

            def act(self, t):
                if t == helper.ROUNDS + 1:
                    self.choice = int(self.total + laplace(self.rng, self.scale) < 2.5)
                return 0 if t <= helper.ROUNDS else self.choice

            def update(self, t, arm, reward):
                import helper as later  # an import at run time, in whichever process runs the policy

                self.total += reward if t <= later.ROUNDS else 0.0
        """,
    "mechanisms/__init__.py": "",
    "mechanisms/noise.py": """
        def laplace(rng, scale):
            return rng.laplace(0.0, scale)
        """,
    "proofs.py": """
        def scale_for(epsilon, broken):
            return (0.05 if broken else 1.0) / epsilon
        """,
    "helper.py": "ROUNDS = 5\n",
    "privcheck.py": """
        # the researcher's own script of that name, beside their policy
        print("auditing my policy")
        """,
    "mypolicy.py": """
        import policies
        import proofs


        def make(rng, epsilon):
            return policies.Commit(rng, proofs.scale_for(epsilon, broken=False))


        def make_broken(rng, epsilon):
            return policies.Commit(rng, proofs.scale_for(epsilon, broken=True))
        """,
}


_CONSOLE_SCRIPT = """import sys
from privcheck.cli import main
if __name__ == "__main__":
    sys.exit(main())
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    top = tmp_path_factory.mktemp("user")
    home = top / "research"
    for name, text in FILES.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(textwrap.dedent(text))
    (top / "elsewhere").mkdir()
    (top / "bin").mkdir()  # the console script `privcheck`, as pip writes it: its own folder first on the path
    (top / "bin" / "privcheck").write_text(_CONSOLE_SCRIPT)
    return home


@pytest.fixture(scope="module")
def broken_serial(folder):
    """The planted bug's audit in one process (each test compares against it)."""
    return _audit(folder, "make_broken")


def _audit(folder, function, *extra, cwd=None):
    """``privcheck audit`` in a fresh process whose working folder is neither the user's nor this checkout (or
    ``cwd``): the installed privcheck, as a user runs it."""
    argv = [sys.executable, str(folder.parent / "bin" / "privcheck"), "audit", f"{folder / 'mypolicy.py'}:{function}"]
    argv += ["--epsilon", "1"]
    argv += ["--definition", "table", "--arms", "2", "--horizon", "8", "--samples", "2000", "--seed", "4", "--json"]
    done = subprocess.run(argv + list(extra), capture_output=True, text=True, cwd=cwd or folder.parent / "elsewhere")
    return done.returncode, done.stdout, done.stderr


def _figures(out):
    report = json.loads(out)
    return report["verdict"], report["epsilon_lower"], report["witness"]


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_a_users_own_policies_mechanisms_and_proofs_modules_are_theirs(folder, broken_serial):
    code, out, err = broken_serial
    assert code == 1, err
    code_ok, out_ok, err_ok = _audit(folder, "make")
    assert code_ok == 0, err_ok
    assert json.loads(out_ok)["verdict"] == "not refuted"


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_the_users_folder_is_importable_on_every_worker(folder, broken_serial):
    one = broken_serial
    two = _audit(folder, "make_broken", "--workers", "2")
    assert one[0] == two[0] == 1, (one[2], two[2])
    assert _figures(one[1]) == _figures(two[1])


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_a_privcheck_py_of_the_users_shadows_nothing_on_the_workers(folder, broken_serial):
    """The user's folder holds their own ``privcheck.py``, and they run the audit from there: the fork server,
    started as ``python -c`` (its working folder first on its path), imported that file as privcheck, and every
    worker failed as it started (a traceback, then the audit on one core, or with ``--workers 2`` no audit)."""
    two = _audit(folder, "make_broken", "--workers", "2", cwd=folder)
    assert two[0] == 1 and "Traceback" not in two[2], two[2]
    assert _figures(broken_serial[1]) == _figures(two[1])


@pytest.mark.slow
def test_the_users_folder_is_importable_in_every_dask_task(folder, broken_serial):
    one = broken_serial
    dask = _audit(folder, "make_broken", "--scheduler", "local", "--workers", "2")
    assert dask[0] == 1, dask[2]
    assert _figures(one[1]) == _figures(dask[1])
