"""The house rules that a change could quietly break: the layers, and no private name crossing modules."""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("privcheck", "mechanisms", "policies", "proofs")
#: the folders that install under privcheck's name (pyproject.toml's package-dir): folder -> installed package
INSTALLED_AS = {"mechanisms": "privcheck.mechanisms", "policies": "privcheck.policies", "proofs": "privcheck.proofs"}


def _path_of(module: str) -> pathlib.Path:
    """The file-system path (without suffix) of a dotted module name of the project."""
    for folder, name in INSTALLED_AS.items():
        if module == name or module.startswith(name + "."):
            module = folder + module[len(name) :]
    return ROOT / pathlib.Path(*module.split("."))


def _imports(path: pathlib.Path):
    """(module imported, names imported) of each import statement of a file, relative imports resolved."""
    package = _module(path) if path.name == "__init__.py" else _module(path).rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            yield base, [a.name for a in node.names]


def _files(*packages):
    for pkg in packages:
        yield from sorted((ROOT / pkg).rglob("*.py"))


@pytest.mark.parametrize("path", list(_files("privcheck/core", "privcheck/audits")), ids=lambda p: p.name)
def test_core_and_audits_do_not_import_what_they_audit_nor_the_command_line(path):
    for module, _ in _imports(path):
        assert not module.startswith(("privcheck.mechanisms", "privcheck.policies")), f"{path}: imports {module}"
        assert not module.startswith("privcheck.cli"), f"{path}: imports {module}"


def _module(path: pathlib.Path) -> str:
    """The installed dotted name of a file of the project (``mechanisms/tree.py`` is ``privcheck.mechanisms.tree``)."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    parts = tuple(INSTALLED_AS.get(parts[0], parts[0]).split(".")) + parts[1:]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph() -> dict:
    """module -> the project modules it imports (at any depth of the file: imports inside functions count)."""
    files = {_module(p): p for p in _files(*PACKAGES)}
    graph = {}
    for name, path in files.items():
        deps = set()
        for module, names in _imports(path):
            for cand in [f"{module}.{n}" for n in names] + [module]:
                if cand in files:
                    deps.add(cand)
                    break
                if _path_of(cand).with_suffix(".c").exists():
                    break  # a compiled submodule (policies._fastloop): not its package
        graph[name] = deps - {name}
    return graph


def test_no_import_cycle_anywhere():
    """No cycle among the project's modules, counting imports inside functions (a package's ``__init__`` importing
    its own submodules is not a cycle of theirs unless they import it back)."""
    graph = _graph()
    state, cycles = {}, []

    def visit(m, stack):
        state[m] = 1
        stack.append(m)
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                cycles.append(stack[stack.index(d) :] + [d])
            elif d not in state:
                visit(d, stack)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [])
    assert not cycles, "\n".join(" → ".join(c) for c in cycles[:5])


def test_engines_never_import_presentation():
    """The engines (the mechanism and policy packages) and the shared base never import the presentation; only
    the report's own methods reach it, when a report is printed or drawn."""
    graph = _graph()
    engines = [
        m
        for m in graph
        if m.startswith("privcheck.audits.")
        and not m.startswith("privcheck.audits.present")
        and m != "privcheck.audits.report"
    ]
    bad = [(m, d) for m in engines for d in graph[m] if d.startswith("privcheck.audits.present")]
    assert not bad, bad


def test_optional_hooks_are_asked_for_through_their_protocols():
    """No module probes an object for a hook declared in core/protocols (getattr/hasattr by its name): it asks
    ``provides(obj, Hook)``."""
    import re

    from privcheck.core import protocols

    hooks = {
        name
        for cls in vars(protocols).values()
        if isinstance(cls, type) and getattr(cls, "_is_protocol", False)
        for name in getattr(cls, "__annotations__", {}) | {k: 0 for k in protocols._methods(cls)}
    }
    probe = re.compile(r"\b(?:getattr|hasattr)\([^,()]+, [\"']([a-z_0-9]+)[\"']")
    hits = [
        f"{path.relative_to(ROOT)}:{i}: {line.strip()}"
        for path in _files("privcheck", "mechanisms", "policies")
        if path.name != "protocols.py"
        for i, line in enumerate(path.read_text().splitlines(), 1)
        for m in probe.finditer(line)
        if m.group(1) in hooks
    ]
    assert not hits, "\n".join(hits[:10])


def test_no_private_name_is_imported_from_another_module():
    crossings = []
    for path in _files(*PACKAGES):
        for module, names in _imports(path):
            for name in names:
                if name.startswith("_") and not name.startswith("__"):
                    target = f"{module}.{name}"
                    is_module = (
                        _path_of(target).with_suffix(".c").exists() or _path_of(target).with_suffix(".py").exists()
                    )
                    if not is_module:  # a private submodule (the C extension) may be imported by its package
                        crossings.append(f"{path.relative_to(ROOT)}: {target}")
    assert crossings == []


def test_the_kernels_are_not_patched_into_module_globals():
    # after kernels have run, the modules still hold the objects they were given at import
    import numpy as np

    from privcheck.policies import KLUCB, index
    from privcheck.core import jit

    p = KLUCB(2)
    p.act(p.init(4), 1, np.full(4, 0.5))
    assert isinstance(index._index_ns, jit.Deferred) and index.prange is jit.prange


@pytest.mark.parametrize(
    "command,shared",
    [
        ("audit", ["randomness", "where the work runs", "output"]),
        ("regret", ["randomness", "where the work runs", "output"]),
        ("experiment", ["randomness", "where the work runs", "output"]),
        ("p2b", ["randomness", "output"]),
        ("verify", ["output"]),
        ("list", ["output"]),
    ],
)
def test_each_command_takes_the_shared_flags_from_one_parent_and_lists_them_last(command, shared):
    import re

    from privcheck.cli import make_parser

    sub = next(a for a in make_parser()._actions if a.dest == "command")
    text = sub.choices[command].format_help()
    titles = re.findall(r"^(\S[^\n:]*):$", text, flags=re.M)
    assert [t.split(" (")[0] for t in titles[-len(shared) :]] == shared, titles
    assert text.count("\n  --json") == 1
    if command in ("verify", "list", "p2b"):
        assert "--workers" not in text  # only the command's own flags


_FLAG = __import__("re").compile(r"(?<![\w-])--[a-z][a-z0-9-]+")


def test_the_library_speaks_python_not_flags():
    """Messages, docstrings and comments below the command line name Python arguments (``method="sample"``,
    ``horizon=``); ``privcheck.cli`` says them as flags (:func:`privcheck.cli.common.as_flags`)."""
    hits = [
        f"{path.relative_to(ROOT)}:{i}: {line.strip()}"
        for path in _files(
            "privcheck/core", "privcheck/audits", "mechanisms", "policies", "proofs", "privcheck/testing.py"
        )
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if _FLAG.search(line)
    ]
    assert not hits, "\n".join(hits[:5])


def test_the_command_line_says_python_arguments_as_flags(run):
    from privcheck import audit
    from privcheck.core import ExactMethodUnavailable, PureDP

    with pytest.raises(ExactMethodUnavailable) as e:
        audit(lambda x, rng, size: rng.random(size), PureDP(1.0), pairs=[(0, 1)], method="exact")
    assert 'method="sample"' in str(e.value) and "--" not in str(e.value)
    code, _, err = run("audit", "tree-counter", "--epsilon", "1", "--method", "exact")
    assert code == 2 and "--method sample" in err and 'method="sample"' not in err
    code, _, err = run("audit", "laplace", "--epsilon", "1", "--sampler", "float", "--grid", "2**-10")
    assert code == 2 and "--grid applies to the exact sampler (--sampler exact)" in err


def test_design_names_every_module():
    """DESIGN.md's module table names every module of the library (by its file name)."""
    import re

    text = (ROOT / "DESIGN.md").read_text()
    table = text[text.index("## Modules") : text.index("## The verdict path")]
    named = set(re.findall(r"([A-Za-z_0-9]+)\.py", table))
    missing = [
        str(p.relative_to(ROOT))
        for p in _files("privcheck", "mechanisms", "policies", "proofs")
        if p.stem not in ("__init__", "__main__") and p.stem not in named
    ]
    assert not missing, missing


@pytest.mark.parametrize("folder", ["privcheck", *PACKAGES[1:], "tests", "examples", "benchmarks", "docs"])
def test_nothing_imports_a_generic_top_level_name(folder):
    """The project's own code, tests, examples and docs import ``privcheck.mechanisms`` (never ``mechanisms``): a
    user's own ``policies.py`` beside their policy must stay theirs, so ours install under privcheck's name.  (A
    test may write a user's file that imports its own ``policies``: only import statements of our files count.)"""
    import re

    generic = ("mechanisms", "policies", "proofs")
    in_pages = re.compile(r"^\s*(?:from|import)\s+(?:mechanisms|policies|proofs)\b", re.M)
    hits = [
        str(p.relative_to(ROOT))
        for p in sorted((ROOT / folder).rglob("*.py"))
        if any(module.split(".")[0] in generic for module, _ in _imports(p))
    ]
    hits += [
        str(p.relative_to(ROOT))
        for p in sorted((ROOT / folder).rglob("*.md"))
        if "_build" not in p.parts and in_pages.search(p.read_text())
    ]
    assert not hits, hits


def test_the_installed_package_names_no_generic_top_level():
    """pyproject installs the implementation folders under privcheck's name and nothing else at the top level."""
    import tomllib

    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    tops = {p.split(".")[0] for p in conf["packages"]} | set(conf["py-modules"])
    assert tops == {"privcheck", "pytest_privcheck"}
    assert conf["package-dir"] == {name: folder for folder, name in INSTALLED_AS.items()}
