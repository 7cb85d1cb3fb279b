"""The neighbouring relation walked as data: one policy audit run under a profiler that, at every call of a function
of privcheck's own, looks for the audit's definition in the new frame's arguments — the definition's name itself
(a string equal to it) or, where the code has them, its relation object (:mod:`privcheck.audits.policy.relations`).
An argument that holds it — an object whose ``definition`` or ``relation`` attribute is it (a mechanism over the
policy's runs, a resolved audit), a dict whose ``"definition"`` is it (a call's arguments) — counts too; the
relation's own methods do not (its home, not a room it walks into).  Each such call is a *stay*, each function a
*room*; a *return* is a stay in a room already left.

    python3 benchmarks/relation_trace.py                 # this tree
    PYTHONPATH=/tmp/privcheck_same_json/94c35f4/site python3 benchmarks/relation_trace.py   # an earlier install

The audits: Table DP of the README's sequential policy (sampled, a small budget), and joint DP of the contextual
example (sampled), each on one worker; the counts are the call events, not the lines.  A frame's arguments are read
when it is entered (a value bound later in its body is not seen).
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))


def trace(definition: str, run, holders: bool = True) -> tuple[int, int, int]:
    import privcheck

    home = os.path.dirname(os.path.dirname(privcheck.__file__))
    ours = (os.path.join(home, "privcheck") + os.sep,)
    try:
        from privcheck.audits.policy.relations import PolicyRelation
    except ImportError:  # (before relations were objects)
        PolicyRelation = ()
    stays, order, left = Counter(), [], set()
    stack = []

    def it(v) -> bool:
        return (isinstance(v, str) and v == definition) or bool(PolicyRelation and isinstance(v, PolicyRelation))

    def held(frame) -> bool:
        code = frame.f_code
        names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        if names and names[0] == "self" and PolicyRelation and isinstance(frame.f_locals.get("self"), PolicyRelation):
            return False  # the relation's own methods: its home, not a room it walks into
        for name in names:
            v = frame.f_locals.get(name)
            own = (
                getattr(v, "__dict__", None) or {}
            )  # (an object holding it: a mechanism, an audit, a call's arguments)
            held_by = [own.get("definition"), own.get("relation")] + (
                [v.get("definition")] if isinstance(v, dict) else []
            )
            if it(v) or (holders and any(it(h) for h in held_by)):
                return True
        return False

    def profile(frame, event, arg):
        if event == "call":
            file = frame.f_code.co_filename
            room = f"{os.path.relpath(file, home)}:{frame.f_code.co_name}" if file.startswith(ours) else None
            here = room is not None and held(frame)
            stack.append(room if here else None)
            if here:
                stays[room] += 1
                order.append(room)
        elif event == "return" and stack:
            room = stack.pop()
            if room is not None:
                left.add(room)

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    seen, returns = set(), 0
    for room in order:
        returns += room in seen
        seen.add(room)
    return sum(stays.values()), len(stays), returns


def main() -> None:
    import linear
    import sequential
    from privcheck import PureDP, audit_policy

    def table():
        audit_policy(sequential.make, PureDP(1.0), "table", horizon=20, samples=400, seed=1, workers=1)

    def joint():
        audit_policy(linear.make, PureDP(1.0), "joint", arms=2, dim=2, horizon=12, samples=400, seed=1, workers=1)

    for name, run in (("table", table), ("joint", joint)):
        for holders in (False, True):
            stays, rooms, returns = trace(name, run, holders)
            how = "as an argument or held by one" if holders else "as an argument"
            print(f"{name} ({how}): {stays} stays in {rooms} rooms, {returns} returns to a room already left")


if __name__ == "__main__":
    main()
