"""What every command shares: the parser that reports usage errors as bad input, typed values (counts, JSON),
the claim under test, the parent parsers of the common flags, progress, output and the reproduce line."""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import time
from decimal import Decimal, InvalidOperation

from privcheck.core import InvalidArgument
from privcheck.core.execution import make_executor
from privcheck.core.resources import human_seconds

__all__ = [
    "EXIT_OK",
    "EXIT_REFUTED",
    "EXIT_INPUT",
    "EXIT_UNDECIDED",
    "EXIT_INTERNAL",
    "Parser",
    "count",
    "power_of_two",
    "json_value",
    "claim_from_args",
    "Progress",
    "executor_from",
    "typed_options",
    "EXECUTION",
    "SEED",
    "OUTPUT",
    "common_groups_last",
    "emit",
    "private_policy_options",
    "add_private_policy_options",
    "MAX_COUNT",
]

#: exit codes: 0 not refuted (an audit) / as expected (verify); 1 refuted; 2 bad input; 3 undecided (verify: a
#: check neither proved nor refuted); 4 an internal error of privcheck (a bug: please report it)
EXIT_OK, EXIT_REFUTED, EXIT_INPUT, EXIT_UNDECIDED, EXIT_INTERNAL = 0, 1, 2, 3, 4

#: the largest count a flag takes (draws, runs, rounds): beyond it nothing could be held or finished
MAX_COUNT = 10**12


def count(text: str) -> int:
    """A count of at least 1 written as ``100000``, ``100_000``, ``1e7`` or ``10**7`` (argparse type of --samples,
    --horizon, --runs and the other counts); anything else is refused with the reason."""
    if str(text).strip().startswith("-"):
        raise argparse.ArgumentTypeError(f"{text!r} is negative: a count is at least 1")
    value = whole_number(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def whole_number(text: str) -> int:
    """A whole number ≥ 0, written as :func:`count` reads it."""
    t = str(text).strip().replace("_", "")
    if t.startswith("-"):
        raise argparse.ArgumentTypeError(f"{text!r} is negative: it must be a whole number of at least 0")
    value = None
    m = re.fullmatch(r"(\d+)\*\*(\d+)", t)
    if m and len(m.group(2)) <= 3:
        value = int(m.group(1)) ** int(m.group(2)) if int(m.group(2)) <= 64 else MAX_COUNT + 1
    elif re.fullmatch(r"[+]?\d+", t):
        value = int(t)
    elif re.fullmatch(r"[+]?\d+(\.\d*)?[eE][+]?\d+", t):
        try:
            d = Decimal(t)
        except InvalidOperation:
            d = None
        if d is not None and d == d.to_integral_value() and d.adjusted() <= 15:
            value = int(d)
    if value is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number (write e.g. 100000, 1e6 or 10**6)")
    if value > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"{text!r} is more than {MAX_COUNT:.0e}: it could not be held or finished")
    return value


def power_of_two(text: str) -> float:
    """A positive number written as ``0.0009765625``, ``2**-10`` or ``2^-10`` (argparse type of --grid)."""
    t = str(text).strip().replace(" ", "")
    m = re.fullmatch(r"2(?:\*\*|\^)\(?([+-]?\d{1,4})\)?", t)
    try:
        return math.ldexp(1.0, int(m.group(1))) if m else float(t)
    except (ValueError, OverflowError):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (write e.g. 2**-20 or 9.5367431640625e-07)")


class _Formatter(argparse.HelpFormatter):
    """Every flag's help ends with its default when it has one (and the help does not already say it)."""

    def _get_help_string(self, action):
        text = action.help or ""
        if action.option_strings and action.default not in (None, False, argparse.SUPPRESS) and "default" not in text:
            text += " (default %(default)s)"
        return text


class Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message):
        raise InvalidArgument(message)


def json_value(text: str, what: str):
    """A flag's JSON value: written inline, or read from a file named ``@path.json`` (a reproduce line then names
    the file, not its contents)."""
    if text.startswith("@"):
        path = text[1:]
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as exc:
            raise InvalidArgument(f"{what} @{path}: cannot read the file ({exc.strerror})") from None
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidArgument(f"{what} @{path} is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        hint = ""
        if os.path.isfile(text) or text.lower().endswith(".json"):
            hint = f": to read the file, write {what} @{text}"
        raise InvalidArgument(f"{what} value {text!r} is not valid JSON{hint}") from None


def claim_from_args(args):
    """The claim under test from its flags — one per claim parameter (:func:`privcheck.core.claims.claim_parameters`)
    — or None when none is given (:func:`privcheck.core.claims.claim_from_parameters`)."""
    from privcheck.core.claims import claim_from_parameters, claim_parameters

    return claim_from_parameters({name: getattr(args, name, None) for name in claim_parameters()})


class Progress:
    """Feedback on a long run, on stderr, silenced by ``--quiet``: a progress bar with the time left on a
    terminal; and, on a terminal or not, one line as soon as :data:`NOTICE_SAMPLE` seconds of work show that the
    planned work will take more than :data:`NOTICE_AFTER` seconds.  The rate is measured from the end of the first
    unit reported: that one carries the start-up (imports, compilation, caches) and would inflate the estimate.

    ``update`` (None under ``--quiet``, else this object) is the progress callable handed to the engines:
    ``update(n)`` counts n more units done, and an engine that learns the size of its work only when it starts
    (draws, inputs, pairs, checks) announces it with ``update.plan(total, unit)``, which starts the count again."""

    def __init__(self, args=None, total=None, unit=" draws", hint="--samples or --horizon set the size"):
        self.total, self.unit, self.bar, self.update, self.hint = total, unit, None, None, hint
        self.quiet = bool(getattr(args, "quiet", False))
        self._done, self._noticed, self._tty, self._said = 0, False, False, None  # _said: (when, seconds left)
        self._first = None  # (time, units done) at the first report: the rate is measured from there

    def __enter__(self):
        if self.quiet:
            return self
        self._tty = sys.stderr.isatty()
        self.update = self
        if self.total is not None:
            self._open()
        return self

    def _open(self):
        """The bar, on a terminal, once the plan is known (or the first units are done without one)."""
        if self._tty and self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=self.total, unit=self.unit, unit_scale=True, file=sys.stderr, leave=False)

    def plan(self, total, unit=None, seconds=None, ceiling=False):
        """Start counting ``total`` units; an engine that timed a probe of its work gives ``seconds``, and a plan
        longer than :data:`NOTICE_AFTER` is announced at once.  A plan made again (a policy audit's, once its input
        search has kept its pairs) is announced again when its estimate is off the one said by more than
        :data:`REVISED_BY` either way; a ``ceiling`` (the most the work can take) is said as one."""
        self.total, self.unit, self._done, self._first = total, unit or self.unit, 0, None
        if self._said is None:  # nothing said yet: the new plan is measured afresh (an earlier stage was short)
            self._noticed = False
        if self.bar is not None:
            self.bar.unit = self.unit
            self.bar.reset(total=total)
        self._open()
        if seconds is None:
            return
        if self._said is not None:
            left = max(self._said[1] - (time.perf_counter() - self._said[0]), 0.0)
            if max(seconds, 1.0) > REVISED_BY * max(left, 1.0) or max(left, 1.0) > REVISED_BY * max(seconds, 1.0):
                self._say(seconds, "revised: ")
        elif seconds > NOTICE_AFTER and not self._noticed:
            self._noticed = True
            self._say(seconds, "at most " if ceiling else "")

    def _say(self, left, how=""):
        self._said = (time.perf_counter(), left)
        most = " (the search decides how many pairs are sampled)" if how == "at most " else ""
        line = (
            f"privcheck: {how}about {human_seconds(left)} left for {self.total:,}{self.unit} planned{most} "
            f"({self.hint}; --quiet silences this)"
        )
        if self.bar is not None:
            self.bar.write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr, flush=True)

    def __call__(self, n):
        self._open()
        if self.bar is not None:
            self.bar.update(n)
        self._done += n
        if self._noticed or not self.total or not self._done:
            return
        now = time.perf_counter()
        if self._first is None:
            self._first = (now, self._done)
            return
        elapsed, done = now - self._first[0], self._done - self._first[1]
        if elapsed >= NOTICE_SAMPLE and done:
            self._noticed = True
            left = elapsed / done * max(self.total - self._done, 0)
            if left > NOTICE_AFTER:
                self._say(left)

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.close()


#: the work planned is announced when its first NOTICE_SAMPLE seconds predict more than NOTICE_AFTER seconds
#: in all (the rate has to be measured: it depends on the target, so no estimate can come before any work)
NOTICE_SAMPLE, NOTICE_AFTER = 1.0, 60.0
#: a plan made again is announced again when its estimate is off the time left of the one said by this factor
REVISED_BY = 1.5


def executor_from(args):
    """The executor of the execution flags (a timeout not typed: the library's default)."""
    timeout = {} if args.scheduler_timeout is None else {"timeout": args.scheduler_timeout}
    return make_executor(args.scheduler, args.workers, **timeout)


def _parent(title: str, add) -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    add(parent.add_argument_group(title))
    return parent


def said_as_flags(text: str) -> str:
    """An audit option's help (:data:`privcheck.audits.options.OPTIONS`) with the options it names said as flags."""
    from privcheck.audits.options import OPTIONS

    return text.format_map({o.name: "--" + o.name.replace("_", "-") for o in OPTIONS})


def add_option(group, name: str) -> None:
    """The flag of the audit option ``name``, made from its one declaration (:data:`privcheck.audits.options.OPTIONS`):
    ``--name`` with dashes, its help said with flags (and the library's default, where it has one).  The flag itself
    has no default (None): a flag not typed is not passed, and the library applies its own default — the one place
    defaults live, and the library tells a value given from its default where that matters (``screening``: the
    input search scales with it, and a sized audit shrinks only a screening not given)."""
    from privcheck.audits.options import OPTION

    option = OPTION[name]
    kw = dict(option.cli or {})
    if kw.get("type") == "count":
        kw["type"] = count
    elif kw.get("type") == "whole":
        kw["type"] = whole_number
    text = said_as_flags(option.help)
    if option.default not in (None, False):
        shown = f"{option.default:g}" if isinstance(option.default, float) else str(option.default)
        text += f" (default {shown})"
    group.add_argument("--" + name.replace("_", "-"), default=None, help=text, **kw)


def typed_options(args) -> dict:
    """The audit options whose flags were typed (:func:`add_option`: a flag not typed is None), by name."""
    from privcheck.audits.options import OPTIONS

    return {o.name: getattr(args, o.name) for o in OPTIONS if getattr(args, o.name, None) is not None}


def _execution(g):
    from privcheck.audits.options import OPTIONS

    for option in OPTIONS:
        if option.shared:
            add_option(g, option.name)


#: The parent parsers of the flags several commands share, each in its own help group: ``sub.add_parser(name,
#: parents=[...])`` takes them, and :func:`common_groups_last` moves their groups after the command's own.
EXECUTION = _parent("where the work runs (never changes a result)", _execution)
SEED = _parent(
    "randomness",
    lambda g: g.add_argument(
        "--seed",
        type=int,
        help="the seed of every draw (default: a fresh one, printed in the report with the command that reproduces it)",
    ),
)


def _output(g):
    g.add_argument("--json", action="store_true", help="one JSON object instead of text")
    g.add_argument(
        "--quiet", action="store_true", help="no progress bar (shown on a terminal) and no time-left line on stderr"
    )
    g.add_argument(
        "--debug",
        action="store_true",
        help="when your own code raises, show its traceback (your frames) after the one-line error; on an internal "
        "error, privcheck's whole traceback",
    )


OUTPUT = _parent("output", _output)
_PARENT_TITLES = {g.title for parent in (EXECUTION, SEED, OUTPUT) for g in parent._action_groups[2:]}


def common_groups_last(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Order ``p``'s help: its own groups first, then the shared ones (randomness, where the work runs,
    output)."""
    own = [g for g in p._action_groups if g.title not in _PARENT_TITLES]
    order = [g.title for parent in (SEED, EXECUTION, OUTPUT) for g in parent._action_groups[2:]]
    shared = sorted((g for g in p._action_groups if g.title in _PARENT_TITLES), key=lambda g: order.index(g.title))
    p._action_groups[:] = own + shared
    return p


def emit(report, as_json: bool) -> int:
    print(report.to_json(indent=2) if as_json else str(report))
    return EXIT_REFUTED if report.violates_claim else EXIT_OK


def private_policy_options(args) -> dict:
    """The values of the flags :func:`add_private_policy_options` adds, as :func:`build_policy` options."""
    return {
        "nu": args.nu,
        "u": args.u,
        "width_scale": args.width_scale,
        "reward_bound": args.reward_bound,
        "action_bound": args.action_bound,
        "noise_multiplier": args.noise_multiplier,
        "phase_scale": args.phase_scale,
    }


def add_private_policy_options(p):
    p.add_argument("--nu", type=float, help="heavy tails: the moment order 1 + ν of E|X|^(1+ν) <= u, ν in (0, 1]")
    p.add_argument(
        "--u", type=float, help="heavy tails: the moment bound u (computed for --env pareto, 1 for Bernoulli)"
    )
    p.add_argument(
        "--width-scale",
        type=float,
        help="multiply the confidence widths of the heavy-tailed policies and "
        "of RS-OFUL/AdaC-OFUL (default 1; privacy does not depend on them)",
    )
    p.add_argument("--reward-bound", type=float, help="linear policies: rewards clipped to [-R, R] (default 1)")
    p.add_argument("--action-bound", type=float, help="linear policies: actions scaled by 1/max(L, ‖a‖) (default 1)")
    p.add_argument(
        "--noise-multiplier",
        type=float,
        metavar="M",
        help="private policies: the calibrated noise times M, the claim unchanged (default 1; 0.5 is a "
        "mis-calibrated copy with half the noise)",
    )
    p.add_argument(
        "--phase-scale",
        type=float,
        help="GOPE policies: every phase length c_ℓ times this (default 1; "
        "an audit shortens them, see privcheck audit's report)",
    )


#: Python argument names whose flag is spelled otherwise (``pairs=`` is given as repeated ``--pair``)
_ALIASES = {"pairs": "pair"}
_ARGUMENT = re.compile(r"""\b([a-z][a-z0-9_]*)=("[^"]*"|'[^']*'|[^\s,;:)]*)""")


#: Python arguments that more than one flag gives (a policy's start table is ``input=``): said as the one typed
_TYPED = {"input": ("--table", "--input")}


def as_flags(message: str, parser, argv=()) -> str:
    """A library message, which names Python arguments (``method="sample"``, ``horizon=``), said in the command
    line's words (``--method sample``, ``--horizon``): every argument the command's parser has a flag for (one
    that several flags give, the one in ``argv``, the words typed)."""
    flags = {
        a.dest: max(a.option_strings, key=len)
        for a in parser._actions
        if a.option_strings and a.dest not in ("help", "version")
    }
    for python, dest in _ALIASES.items():
        if dest in flags:
            flags.setdefault(python, flags[dest])
    for python, typed in _TYPED.items():
        flags.update({python: flag for flag in typed[::-1] if flag in argv})
    switches = {a.dest for a in parser._actions if a.option_strings and a.nargs == 0 and a.const is True}

    def in_call(i: int) -> bool:  # inside a repr such as PureDP(epsilon=0.3): the nearest open "(" follows a name
        depth = 0
        for j in range(i - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(message[j], 0)
            if depth < 0:
                return j > 0 and (message[j - 1].isalnum() or message[j - 1] == "_")
        return False

    def swap(m):
        name, value = m.group(1), m.group(2)
        if name not in flags or in_call(m.start()):
            return m.group(0)
        value = value[1:-1] if value[:1] in "\"'" and value[-1:] == value[:1] and len(value) >= 2 else value
        if name in switches and value == "True":  # a switch (store_true) takes no value: one_based=True is the flag
            value = ""
        return f"{flags[name]} {value}" if value else flags[name]

    return _ARGUMENT.sub(swap, message)


def user_frames(exc: BaseException) -> str:
    """The traceback of a user's own exception, cut to the frames of the user's code (files outside privcheck and
    the libraries it runs on), with the exception's last line — what ``--debug`` shows."""
    import traceback
    from pathlib import Path

    import numpy

    # privcheck's own folders — privcheck/, and mechanisms/, policies/, proofs/ wherever they are installed from —
    # and numpy's: every loaded package module's folder
    packages = [m for n, m in list(sys.modules.items()) if n.split(".")[0] in ("privcheck", "numpy")]
    roots = {Path(p).resolve() for m in packages for p in getattr(m, "__path__", ())} | {
        Path(p).resolve() for p in numpy.__path__
    }
    frames = [
        f
        for f in traceback.extract_tb(exc.__traceback__)
        if not any(Path(f.filename).resolve().is_relative_to(r) for r in roots)
    ]
    if not frames:
        frames = traceback.extract_tb(exc.__traceback__)
    lines = ["Traceback into your code (most recent call last):\n", *traceback.format_list(frames)]
    lines += traceback.format_exception_only(type(exc), exc)
    return "".join(lines).rstrip("\n")
