"""The line that reproduces a result — the one place that renders it, for the command line's reports and the
Python API's alike (:attr:`privcheck.audits.report.AuditReport.command`).

From a report's :class:`~privcheck.audits.report.Call`: the command typed, with its seed, when the audit came
from the command line; else a ``privcheck audit …`` command when the target is a function defined at the top of
a file and the claim and inputs can be said with flags; else a runnable Python call.  This module imports
nothing of the command line's own, so that the library can render a report's line without loading it.
"""

from __future__ import annotations

import inspect
import json
import os
import shlex

__all__ = ["reproduce_line", "command_line", "cli_command", "python_call", "EXECUTION_FLAGS"]

#: flags that only say where the work ran (they never change a result): left out of a reproduce line
EXECUTION_FLAGS = ("--workers", "--scheduler", "--scheduler-timeout")


def command_line(argv, seed: int) -> str:
    """The command that reproduces a command-line run: ``argv`` with the seed, without :data:`EXECUTION_FLAGS`."""
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
    return "privcheck " + " ".join(shlex.quote(w) for w in words)


def reproduce_line(call) -> str:
    """The line that reproduces the audit described by ``call`` ("" when none can: no call, or a target that
    draws outside its generator)."""
    if call is None or not call.reproducible:
        return ""
    if call.command_line:
        return call.command_line
    a = call.arguments
    if call.function == "audit_policy":
        return python_call(
            call.target,
            a["claim"],
            method=a["method"],
            samples=a.get("samples"),
            confidence=a.get("confidence"),
            seed=a["seed"],
            pairs=a.get("pairs"),
            input=a.get("input"),
            function="audit_policy",
            leading=(json.dumps(a["definition"]),),
            more={
                "horizon": a.get("horizon"),
                "arms": a.get("arms"),
                "factory_args": a.get("factory_args"),
                **{k: a.get(k) for k in ("dim", "context_bound", "contexts", "reward_range")},
                **a.get("options", {}),
            },
        )
    raw = call.source
    line = None
    if inspect.isfunction(raw):  # a function (not a mechanism object) may be said as file.py:name
        line = cli_command(
            raw,
            a["claim"],
            pairs=a.get("pairs"),
            input=a.get("input"),
            samples=a.get("samples"),
            confidence=a.get("confidence"),
            seed=a["seed"],
            method=a["method"],
            options=a.get("options"),
        )
    return line or python_call(
        getattr(raw, "__name__", call.target),
        a["claim"],
        method=a["method"],
        samples=a.get("samples"),
        confidence=a.get("confidence"),
        seed=a["seed"],
        pairs=a.get("pairs"),
        input=a.get("input"),
        more=a.get("options"),
    )


def _plain(x):
    """An input as JSON-ready lists and numbers."""
    return x.tolist() if hasattr(x, "tolist") else x


def cli_command(target, claim, *, pairs, input, samples, confidence, seed, method, options=None) -> str | None:
    """The ``privcheck audit`` command reproducing an audit of a top-level function defined in a file, or None
    when the target, the claim's relation or the inputs cannot be said on the command line.  ``samples`` None
    (an exact audit) leaves out the sampling flags."""
    from privcheck.core import AddRemove, ReplaceOne, ReplaceRecord, Unspecified
    from privcheck.core.claims import parameters

    name = getattr(target, "__qualname__", "")
    try:
        path = inspect.getsourcefile(target)
    except TypeError:
        path = None
    if not path or not name or "." in name or "<" in name:
        return None
    try:
        path = os.path.relpath(path)
    except ValueError:  # on another drive than the working directory (Windows): the absolute path stays
        path = os.path.abspath(path)
    args = ["privcheck", "audit", f"{path}:{name}"]
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
    inputs = _inputs(pairs, input)
    if inputs is None:
        return None
    for a, b in inputs.get("pairs", ()):
        args += ["--pair", json.dumps(a), json.dumps(b)]
    if "input" in inputs:
        args += ["--input", json.dumps(inputs["input"])]
    args += ["--method", method]
    if samples is not None:
        args += ["--samples", str(samples), "--confidence", f"{confidence!r}"]
    for k, v in (options or {}).items():  # Options.said(): --screening N, --stop-early
        args += [f"--{k.replace('_', '-')}"] + ([] if v is True else [str(v)])
    args += ["--seed", str(seed)]
    return " ".join(shlex.quote(a) for a in args)


def _inputs(pairs, input) -> dict | None:
    """{"pairs": [[x, x'], …], "input": x} as JSON-ready values (those given), or None when one is not JSON."""
    out = {}
    if pairs is not None:
        out["pairs"] = [[_plain(a), _plain(b)] for a, b in pairs]
    if input is not None:
        out["input"] = _plain(input)
    try:
        json.dumps(out)
    except (TypeError, ValueError):
        return None
    return out


def python_call(
    name, claim, *, method, samples, confidence, seed, pairs=None, input=None, function="audit", leading=(), more=None
) -> str:
    """``privcheck.audit(...)`` (or ``function``) with the claim written as the constructor call it is (runnable
    after ``from privcheck import *`` with the target bound to its name); ``leading`` further positional
    arguments, ``more`` further keywords (None values left out)."""
    args = [name, repr(claim), *leading]
    args += [f"{k}={json.dumps(v)}" for k, v in (_inputs(pairs, input) or {}).items()]
    args += [f"{k}={v!r}" for k, v in (more or {}).items() if v is not None]
    args.append(f"method={method!r}")
    if samples is not None:
        args += [f"samples={samples}", f"confidence={confidence!r}"]
    args.append(f"seed={seed}")
    return f"privcheck.{function}({', '.join(args)})"
