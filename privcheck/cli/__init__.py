"""``privcheck``: the command line, one module per command.

``privcheck.cli`` assembles the parser from the commands (:mod:`.audit`, :mod:`.regret`, :mod:`.experiment`,
:mod:`.p2b`, :mod:`.verify`, :mod:`.listing` — `privcheck list`), each of which adds its own flags and its ``run``
function;
:mod:`.common` holds what they share.  The name → object registries live with what they name
(``mechanisms.registry``, ``policies.registry``; the published experiments as command lines in
:mod:`privcheck.cli.experiments`); the command line only looks names up.

Exit codes: 0 = claim not refuted (verify: every check as expected), 1 = refuted, 2 = usage or input error
(one line on stderr, no verdict), 3 = undecided (verify), 4 = an internal error of privcheck.  stdout carries
only the report; progress goes to stderr, and only on a terminal.
"""

from __future__ import annotations

import importlib
import os
import sys

from privcheck.core import InvalidArgument, PrivcheckError

from .common import (
    EXIT_INPUT,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_REFUTED,
    EXIT_UNDECIDED,
    Parser,
    as_flags,
    claim_from_args,
    user_frames,
)

__all__ = [
    "main",
    "make_parser",
    "claim_from_args",
    "EXIT_OK",
    "EXIT_REFUTED",
    "EXIT_INPUT",
    "EXIT_UNDECIDED",
    "EXIT_INTERNAL",
]

#: the commands, in the order ``privcheck --help`` lists them (imported when the parser is made)
COMMANDS = ("audit", "regret", "experiment", "p2b", "verify", "listing")


def make_parser() -> Parser:
    from privcheck.version import __version__

    parser = Parser(prog="privcheck", description="Check differential-privacy claims.")
    parser.add_argument("--version", action="version", version=f"privcheck {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=Parser)
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


class _PipeSafe:
    """stdout that ends quietly when the reader closes the pipe (``privcheck list | head -1``): later writes are
    dropped and the descriptor is pointed at /dev/null, so neither a traceback nor an "internal error" appears
    and the command still returns its own exit code."""

    def __init__(self, stream):
        self._s, self._closed = stream, False

    def _drop(self):
        self._closed = True
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._s.fileno())
        except (OSError, ValueError):  # no descriptor to redirect: the writes below are dropped all the same
            return

    def write(self, text):
        if not self._closed:
            try:
                return self._s.write(text)
            except BrokenPipeError:
                self._drop()
        return len(text)

    def flush(self):
        if not self._closed:
            try:
                self._s.flush()
            except BrokenPipeError:
                self._drop()

    def __getattr__(self, name):
        return getattr(self._s, name)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if sys.stdout is sys.__stdout__ and sys.stdout is not None:
        sys.stdout = _PipeSafe(sys.stdout)
    try:
        code = _run(argv)
        sys.stdout.flush()
        return code
    finally:
        if isinstance(sys.stdout, _PipeSafe):
            sys.stdout = sys.stdout._s


def _command_parser(parser, argv):
    """The parser of the command in ``argv`` (its flags are the ones a message is translated into)."""
    for action in parser._actions:
        if getattr(action, "choices", None) and isinstance(action.choices, dict):
            for word in argv:
                if word in action.choices:
                    return action.choices[word]
    return parser


def _run(argv) -> int:
    if argv == ["--version"]:  # (the parser says the same, after importing every command and the engines behind them)
        from privcheck.version import __version__

        print(f"privcheck {__version__}")
        return EXIT_OK
    parser = make_parser()
    debug = "--debug" in argv or bool(os.environ.get("PRIVCHECK_DEBUG"))
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "run", None):
            raise InvalidArgument(
                "a command is required: audit, regret, experiment, p2b, verify or list (privcheck --help)"
            )
        import numpy as np

        with np.errstate(all="ignore"):  # floating-point edge cases (inf outputs, ε near 1e308) are handled
            return args.run(args, argv)  # where they arise; numpy's warnings never reach the user
    except PrivcheckError as exc:
        mine = getattr(exc, "user_exception", None)  # the user's own exception: one line, their frames on --debug
        more = " (--debug shows the traceback into your code)" if mine is not None and not debug else ""
        print(f"privcheck: error: {as_flags(str(exc), _command_parser(parser, argv), argv)}{more}", file=sys.stderr)
        if mine is not None and debug:
            print(user_frames(mine), file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("privcheck: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug in privcheck: one line, unless the user asks for the traceback
        if debug:
            raise
        print(f"privcheck: internal error: {type(exc).__name__}: {exc} (--debug for details)", file=sys.stderr)
        return EXIT_INTERNAL
