"""Reproductions written as commands: the words that reproduce a command-line run (those typed, with the seed made
explicit and without the flags that only say where the work ran), and a library audit's
:class:`~privcheck.audits.reproduction.Reproduction` written as the ``privcheck audit`` command that reproduces it,
where its target and arguments can be said with flags."""

from __future__ import annotations

import json
from dataclasses import replace

from privcheck.audits.reproduction import Reproduction, json_inputs

__all__ = ["command_words", "command_line", "as_command", "with_command", "EXECUTION_FLAGS"]

#: flags that only say where the work ran (they never change a result): left out of a reproduce line
EXECUTION_FLAGS = ("--workers", "--scheduler", "--scheduler-timeout")


def command_words(argv, seed: int) -> tuple:
    """The words of the command that reproduces a command-line run: ``argv`` with the seed, without
    :data:`EXECUTION_FLAGS`."""
    words, skip = [], False
    for w in argv:
        if skip:
            skip = False
        elif w in EXECUTION_FLAGS:
            skip = True
        elif not w.startswith(tuple(f + "=" for f in EXECUTION_FLAGS)):
            words.append(w)
    if "--seed" not in words and not any(w.startswith("--seed=") for w in words):
        words += ["--seed", str(seed)]
    return tuple(words)


def command_line(argv, seed: int) -> str:
    """That command as one line (``privcheck …``)."""
    return str(Reproduction("", "", command=command_words(argv, seed)))


def as_command(r: Reproduction | None) -> tuple | None:
    """The words (after ``privcheck``) of the ``privcheck audit`` command reproducing a mechanism audit of a function
    defined at the top of a file, or None when the target, the claim's relation or the inputs cannot be said with
    flags (an exact audit has no sampling flags)."""
    from privcheck.core import AddRemove, ReplaceOne, ReplaceRecord, Unspecified
    from privcheck.core.claims import parameters

    if r is None or r.command is not None:
        return None if r is None else r.command
    if r.function != "audit" or r.source is None:
        return None
    a = r.arguments
    claim = a["claim"]
    args = ["audit", r.source]
    said = parameters(claim)
    if not said:  # an f-DP claim: its function has no command-line form
        return None
    for name, value in said.items():
        args += [f"--{name}", f"{value!r}"]
    rel = claim.relation
    if isinstance(rel, ReplaceOne):
        args += ["--neighbours", f"replace-{rel.norm}", "--sensitivity", f"{rel.sensitivity!r}"]
    elif isinstance(rel, AddRemove):  # --sensitivity is the bound on the record added or removed
        args += ["--neighbours", "add-remove", "--sensitivity", f"{rel.bound!r}"]
    elif isinstance(rel, ReplaceRecord):  # --sensitivity, when given, bounds the records
        args += ["--neighbours", "replace-record"] + ([] if rel.bound is None else ["--sensitivity", f"{rel.bound!r}"])
    elif not isinstance(rel, Unspecified):
        return None
    inputs = json_inputs(a.get("pairs"), a.get("input"))
    if inputs is None:
        return None
    for x, y in inputs.get("pairs", ()):
        args += ["--pair", json.dumps(x), json.dumps(y)]
    if "input" in inputs:
        args += ["--input", json.dumps(inputs["input"])]
    args += ["--method", a["method"]]
    if a.get("samples") is not None:
        args += ["--samples", str(a["samples"]), "--confidence", f"{a.get('confidence')!r}"]
    for k, v in (a.get("options") or {}).items():  # Options.said(): --screening N, --stop-early
        args += [f"--{k.replace('_', '-')}"] + ([] if v is True else [str(v)])
    args += ["--seed", str(a["seed"])]
    return tuple(args)


def with_command(report):
    """``report`` reproduced by its ``privcheck audit`` command where it has one (:func:`as_command`): what a test
    run in CI says, a line to paste into a shell."""
    words = as_command(report.reproduction)
    if words is None or report.call is None:
        return report
    return replace(report, call=replace(report.call, command_line=words))
