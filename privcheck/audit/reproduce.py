"""The line that reproduces an audit: a ``privcheck audit …`` command when the target is a function defined at
the top of a file and the claim and inputs can be said with flags, else a runnable Python call."""

from __future__ import annotations

import json
import os
import shlex

__all__ = ["cli_command", "python_call"]


def _flag_value(x) -> str:
    return json.dumps(x if not hasattr(x, "tolist") else x.tolist())


def cli_command(target, claim, *, pairs, input, samples, confidence, seed, method) -> str | None:
    """The ``privcheck audit`` command reproducing an audit of a top-level function defined in a file, or None
    when the target, the claim's relation or the inputs cannot be said on the command line."""
    import inspect

    from privcheck.core import AddRemove, ApproxDP, PureDP, RenyiDP, ReplaceOne, ReplaceRecord, Unspecified, ZCDP

    name = getattr(target, "__qualname__", "")
    try:
        path = inspect.getsourcefile(target)
    except TypeError:
        path = None
    if not path or not name or "." in name or "<" in name:
        return None
    try:
        path = os.path.relpath(path)
    except ValueError:
        pass
    args = ["privcheck", "audit", f"{path}:{name}"]
    if isinstance(claim, PureDP):
        args += ["--epsilon", f"{claim.epsilon!r}"]
    elif isinstance(claim, ApproxDP):
        args += ["--epsilon", f"{claim.epsilon!r}", "--delta", f"{claim.delta!r}"]
    elif isinstance(claim, RenyiDP):
        args += ["--order", f"{claim.order!r}", "--epsilon", f"{claim.epsilon!r}"]
    elif isinstance(claim, ZCDP):
        args += ["--rho", f"{claim.rho!r}"]
    else:
        return None
    rel = claim.relation
    if isinstance(rel, ReplaceOne):
        args += ["--neighbours", f"replace-{rel.norm}", "--sensitivity", f"{rel.sensitivity!r}"]
    elif isinstance(rel, AddRemove):
        args += ["--neighbours", "add-remove", "--sensitivity", f"{rel.sensitivity!r}"]
    elif isinstance(rel, ReplaceRecord) and rel.bound is None:
        args += ["--neighbours", "replace-record"]
    elif not isinstance(rel, Unspecified):
        return None
    try:
        for a, b in pairs or ():
            args += ["--pair", _flag_value(a), _flag_value(b)]
        if input is not None:
            args += ["--input", _flag_value(input)]
    except TypeError:
        return None
    args += ["--method", method, "--samples", str(samples), "--confidence", f"{confidence!r}", "--seed", str(seed)]
    return " ".join(shlex.quote(a) for a in args)



def python_call(name, claim, *, method, samples, confidence, seed, pairs=None) -> str:
    """``privcheck.audit(...)`` with the claim written as the constructor call it is (runnable after
    ``from privcheck import *`` with the target bound to its name)."""
    args = [name, repr(claim)]
    if pairs is not None:
        try:
            args.append("pairs=" + json.dumps([[_plain(a), _plain(b)] for a, b in pairs]))
        except TypeError:
            pass
    args.append(f"method={method!r}")
    if samples is not None:
        args += [f"samples={samples}", f"confidence={confidence!r}"]
    args.append(f"seed={seed}")
    return f"privcheck.audit({', '.join(args)})"


def _plain(x):
    return x.tolist() if hasattr(x, "tolist") else x
