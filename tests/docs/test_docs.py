"""Every command and code block of the documentation runs as shown: the site's pages (docs/) and the README.

A page runs top to bottom in a fresh folder holding a link to the repository's ``examples/``:

* ``{code-block} python`` with ``:caption: NAME`` — a file the reader writes: written there as NAME;
* ``python`` — executed (one namespace per page, the folder on ``sys.path``); a ``text`` block right after it is the
  output it must print;
* ``console`` — each ``$ privcheck …`` line runs in this process (``privcheck.cli.main``); the lines shown under it
  are its output, line by line, ``…`` standing for anything (times): the exit code must be 1 when the verdict shown
  is REFUTED, 2 when an error is shown, else 0 (``verify``: 1 when the formula shown is REFUTED, 3 UNDECIDED).
  ``$ python3 -m pytest …`` runs in a subprocess and must pass; ``$ pip …`` is not run;
* other languages (``text``, ``yaml``) are not run.

A MyST comment line before a block — ``% slow`` or ``% requires MODULE``, or the same as an HTML comment in the
README — puts the block in the slow tier or runs it only where MODULE imports.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts) + [ROOT / "README.md"]

_FENCE = re.compile(r"^(`{3,})\s*(\{code-block\}\s*)?([\w-]*)\s*$")


@dataclass
class Block:
    lang: str
    body: list[str]
    caption: str | None = None
    marks: list[str] = field(default_factory=list)
    line: int = 0


def blocks(text: str) -> list[Block]:
    """The fenced blocks of a MyST page, with their captions and the ``%`` comments just before them."""
    out, lines, i, marks = [], text.splitlines(), 0, []
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            s = lines[i].strip()
            if s.startswith("% "):
                marks.append(s[2:].strip())
            elif s.startswith("<!--") and s.endswith("-->"):  # the same in a page GitHub renders (the README)
                marks.append(s[4:-3].strip())
            elif s:
                marks = []
            i += 1
            continue
        fence, lang, start = m.group(1), m.group(3), i + 1
        i += 1
        caption, body = None, []
        while i < len(lines) and lines[i].startswith(":") and m.group(2):
            if lines[i].startswith(":caption:"):
                caption = lines[i].split(":caption:", 1)[1].strip()
            i += 1
        while i < len(lines) and lines[i].rstrip() != fence:
            body.append(lines[i])
            i += 1
        i += 1
        out.append(Block(lang, body, caption, marks, start))
        marks = []
    return out


def _commands(block: Block) -> list[tuple[str, list[str]]]:
    """(command, the output lines shown under it) of a console block."""
    out = []
    for line in block.body:
        if line.startswith("$ "):
            out.append((line[2:].strip(), []))
        elif out:
            out[-1][1].append(line)
    return out


def _expected_code(cmd: str, shown: list[str]) -> int:
    head = shown[0] if shown else ""
    if head.startswith("privcheck: error"):
        return 2
    if cmd.startswith("privcheck verify"):  # a formula's own line says PROVED, REFUTED or UNDECIDED
        return 1 if ": REFUTED" in head else 3 if ": UNDECIDED" in head else 0
    return 1 if "is REFUTED" in head else 0


def _matches(shown: str, actual: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in shown.rstrip().split("…"))
    return re.fullmatch(pattern, actual.rstrip()) is not None


def _run_privcheck(cmd: str, shown: list[str], where: str) -> None:
    from privcheck.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(shlex.split(cmd)[1:])
    printed = (out.getvalue() + err.getvalue()).splitlines()
    assert code == _expected_code(cmd, shown), (where, cmd, code, "\n".join(printed))
    assert len(printed) >= len(shown), (where, cmd, printed)
    for s, a in zip(shown, printed):
        assert _matches(s, a), (where, cmd, s, a)


def _run_pytest(cmd: str, where: str) -> None:
    argv = [sys.executable, *shlex.split(cmd)[1:], "-p", "no:xdist"]
    done = subprocess.run(argv, capture_output=True, text=True)
    assert done.returncode == 0, (where, cmd, done.stdout[-3000:], done.stderr[-3000:])


def _run_script(cmd: str, shown: list[str], tmp: Path, where: str) -> None:
    """A script the reader wrote, run as they run it (``python3 FILE.py`` in its folder): exit 0, its output as
    shown."""
    done = subprocess.run([sys.executable, *shlex.split(cmd)[1:]], capture_output=True, text=True, cwd=tmp)
    assert done.returncode == 0, (where, cmd, done.stdout[-3000:], done.stderr[-3000:])
    printed = done.stdout.splitlines()
    assert len(printed) == len(shown), (where, cmd, printed)
    for s, a in zip(shown, printed):
        assert _matches(s, a), (where, cmd, s, a)


def run_page(page: Path, tmp: Path, slow: bool) -> int:
    """Run the page's blocks in ``tmp``; the number of blocks run."""
    os.symlink(ROOT / "examples", tmp / "examples")
    namespace: dict = {"__name__": "__docs__"}
    todo = blocks(page.read_text())
    ran = 0
    sys.path.insert(0, str(tmp))
    try:
        for k, b in enumerate(todo):
            where = f"{page.relative_to(ROOT)}:{b.line}"
            needs = [m.split()[1] for m in b.marks if m.startswith("requires ")]
            if any(importlib.util.find_spec(n) is None for n in needs) or ("slow" in b.marks and not slow):
                continue
            if b.caption:
                (tmp / b.caption).write_text("\n".join(b.body) + "\n")
            elif b.lang == "python":
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    exec(compile("\n".join(b.body), where, "exec"), namespace)
                after = todo[k + 1] if k + 1 < len(todo) else None
                if after is not None and after.lang == "text" and not after.caption:
                    assert out.getvalue().splitlines() == after.body, (where, out.getvalue())
            elif b.lang == "console":
                for cmd, shown in _commands(b):
                    if cmd.startswith("privcheck "):
                        _run_privcheck(cmd, shown, where)
                    elif cmd.startswith("python3 -m pytest"):
                        _run_pytest(cmd, where)
                    elif re.fullmatch(r"python3 [\w./-]+\.py", cmd):
                        _run_script(cmd, shown, tmp, where)
                    elif not cmd.startswith("pip "):
                        raise AssertionError(f"{where}: no way to run {cmd!r}")
            else:
                continue
            ran += 1
    finally:
        sys.path.remove(str(tmp))
        for name in [m for m, mod in sys.modules.items() if getattr(mod, "__file__", "") and str(tmp) in mod.__file__]:
            del sys.modules[name]
    return ran


def _has_slow(page: Path) -> bool:
    return any("slow" in b.marks for b in blocks(page.read_text()))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_page_runs_as_shown(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run_page(page, tmp_path, slow=False)


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if _has_slow(p)], ids=lambda p: str(p.relative_to(ROOT)))
def test_the_page_runs_as_shown_slow_blocks_included(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run_page(page, tmp_path, slow=True)


def test_the_reader_can_run_something_on_every_tutorial():
    for page in (DOCS / "tutorials").glob("*.md"):
        if page.name != "index.md":
            assert any(b.lang in ("console", "python") for b in blocks(page.read_text())), page


def test_the_block_parser_reads_captions_marks_and_outputs():
    text = "\n".join(
        [
            "% slow",
            "```{code-block} python",
            ":caption: f.py",
            "",
            "x = 1",
            "```",
            "text",
            "```console",
            "$ privcheck audit a --epsilon 1",
            "a: the claim 1-DP is REFUTED.",
            "  … s, seed 1.",
            "```",
        ]
    )
    b1, b2 = blocks(text)
    assert (b1.caption, b1.marks, b1.body) == ("f.py", ["slow"], ["", "x = 1"])
    assert b2.marks == [] and _commands(b2) == [("privcheck audit a --epsilon 1", b2.body[1:])]
    assert _expected_code("privcheck audit a", b2.body[1:]) == 1
    assert _matches("  … s, seed 1.", "  3.2 s, seed 1.") and not _matches("  … s, seed 1.", "  3.2 s, seed 2.")


def test_the_readme_links_into_the_site_resolve():
    """The README is read on its own, outside the Sphinx build (which checks the site's own links and that every page
    is in a toctree): every relative link it makes names a file of the repository."""
    text = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if "://" not in link]
    assert local, "the README links into the site"
    for link in local:
        assert (ROOT / link).exists(), link


_REPORTS = [
    "audit randomized-response --epsilon 1",
    "audit laplace --epsilon 1 --pair 0 1 --method sample --samples 5000 --stop-early --seed 1",
    "audit gaussian --mu 1",
    "audit tabular --rules examples/rules.json --definition view --epsilon 0.9 --delta 0.2 --method exact",
    "audit kl-ucb-cf --rr-epsilon 1 --epsilon 1 --definition interactive --horizon 3 --arms 2",
    "audit sw-klucb-cf --rr-epsilon 1 --epsilon 1 --definition local --sequence-length 3",
    "audit ldp-robust-se --epsilon 1 --nu 0.9",
    "audit kl-ucb-cf --rr-epsilon 1 --epsilon 1 --definition interactive --horizon 3 --arms 2 --method sample "
    "--samples 1000 --screening 200 --seed 1",
]


def test_every_field_of_the_json_report_is_documented(monkeypatch):
    """The reference's report schema names every field (and witness field) that real reports carry: a mechanism's
    exact and sampled audits, a μ-GDP claim, decision rules, exact and sampled Interactive DP, local audits and a
    built-in private policy's."""
    import json

    from privcheck.cli import main

    monkeypatch.chdir(ROOT)
    page = (DOCS / "reference" / "report-schema.md").read_text()
    documented = set(re.findall(r"`([a-z_0-9]+)`", page))
    keys, witness = set(), set()
    for cmd in _REPORTS:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(shlex.split(cmd) + ["--json", "--quiet"]) in (0, 1), cmd
        d = json.loads(out.getvalue())
        keys |= set(d)
        witness |= set(d["witness"])
    assert keys <= documented, sorted(keys - documented)
    assert witness <= documented, sorted(witness - documented)


def test_the_gallery_shows_every_figure_its_script_makes():
    sys.path.insert(0, str(DOCS))
    try:
        import make_gallery
    finally:
        sys.path.remove(str(DOCS))
    page = (DOCS / "gallery.md").read_text()
    for name, title, command, _ in make_gallery.FIGURES:
        assert (DOCS / "gallery" / name).is_file() and f"gallery/{name}" in page and command in page, name
