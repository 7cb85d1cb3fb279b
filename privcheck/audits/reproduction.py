"""How an audit is reproduced, as a value (:class:`Reproduction`), from a report's
:class:`~privcheck.audits.report.Call` (:func:`reproduction`): the call's function, its target (and, for a
function defined at the top of a file, that file and name), its arguments by their Python names, and — when the
audit came from the command line — the words typed.  ``str()`` writes it as one line: the words typed, else the
Python call (runnable after ``from privcheck import *`` with the target bound to its name).  The library imports
nothing of the command line: the command line writes a reproduction as a ``privcheck audit`` command
(:func:`privcheck.cli.reproduce.as_command`).
"""

from __future__ import annotations

import inspect
import json
import os
import shlex
from dataclasses import dataclass, field

__all__ = ["Reproduction", "reproduction", "json_inputs", "InScope"]


@dataclass(frozen=True)
class Reproduction:
    """An audit's reproduction: ``function`` (``"audit"``, ``"audit_policy"``) called on ``target`` with
    ``arguments`` (by Python name: the claim, the inputs, the method, the sampling, the seed, the options, …);
    ``source``, ``"path/to/file.py:name"`` when the target is a function defined at the top of a file (None
    otherwise); ``command``, the words typed after ``privcheck``, when the audit came from the command line."""

    function: str
    target: str
    arguments: dict = field(default_factory=dict)
    source: str | None = None
    command: tuple | None = None

    def __str__(self) -> str:
        if self.command is not None:
            return "privcheck " + " ".join(shlex.quote(w) for w in self.command)
        return python_call(self)


class InScope(str):
    """An argument a reproduce line writes as the Python expression that makes it (a user's object, not a value a
    line can hold: an environment, said ``gymnasium.make('FrozenLake-v1')`` or by its class): ``repr`` is that
    expression."""

    def __repr__(self) -> str:
        return str(self)


def reproduction(call) -> Reproduction | None:
    """How to reproduce the audit described by ``call`` (None when it cannot be: no call, or a target that draws
    outside its generator)."""
    if call is None or not call.reproducible:
        return None
    raw = call.source
    target = call.target if call.function == "audit_policy" else getattr(raw, "__name__", call.target)
    source = _file_function(raw) if call.function == "audit" and inspect.isfunction(raw) else None
    command = tuple(call.command_line) if call.command_line else None
    return Reproduction(call.function, target, dict(call.arguments), source, command)


def _file_function(target) -> str | None:
    """``path:name`` of a function defined at the top of a file (the path relative to the working folder), or
    None."""
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
    return f"{path}:{name}"


def _plain(x):
    """An input as JSON-ready lists and numbers."""
    return x.tolist() if hasattr(x, "tolist") else x


def json_inputs(pairs, input) -> dict | None:
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


def python_call(r: Reproduction) -> str:
    """``privcheck.audit(...)`` (or ``audit_policy``) with the claim written as the constructor call it is: the
    target, the claim, a policy audit's definition, the inputs, then the other keywords (None values left out),
    the method, the sampling and the seed."""
    a = r.arguments
    args = [r.target, repr(a["claim"])]
    more = dict(a.get("options") or {})
    if r.function == "audit_policy":
        args.append(json.dumps(a["definition"]))
        more = {
            "horizon": a.get("horizon"),
            "arms": a.get("arms"),
            "factory_args": a.get("factory_args"),
            **{k: a.get(k) for k in ("dim", "context_bound", "contexts", "reward_range", "releases")},
            **more,
        }
    if r.function == "audit_episodic":
        args.append(json.dumps(a["definition"]))
        keys = ("episodes", "horizon", "states", "actions", "mdp", "dim", "releases", "first_episodes", "factory_args")
        more = {**{k: a.get(k) for k in keys}, **more}
    args += [f"{k}={json.dumps(v)}" for k, v in (json_inputs(a.get("pairs"), a.get("input")) or {}).items()]
    args += [f"{k}={v!r}" for k, v in more.items() if v is not None]
    args.append(f"method={a['method']!r}")
    if a.get("samples") is not None:
        args += [f"samples={a['samples']}", f"confidence={a.get('confidence')!r}"]
    args.append(f"seed={a['seed']}")
    return f"privcheck.{r.function}({', '.join(args)})"
