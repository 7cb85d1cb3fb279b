"""Each audit option is declared once (``privcheck.audits.options.OPTIONS``): the table makes the keywords of
``audit`` and ``audit_policy`` and their documentation, the checks of ``Options`` and the command line's flags."""

import inspect

import pytest

from privcheck import audit, audit_policy
from privcheck.audits.options import OPTIONS, Options
from privcheck.cli import make_parser
from privcheck.cli.common import typed_options
from privcheck.core import InvalidArgument, PureDP


@pytest.mark.parametrize("entry", [audit, audit_policy], ids=["audit", "audit_policy"])
def test_the_entry_points_take_every_option_with_its_default_and_document_it(entry):
    params = inspect.signature(entry).parameters
    for o in OPTIONS:
        assert params[o.name].kind is inspect.Parameter.KEYWORD_ONLY
        assert params[o.name].default == o.default
        assert f"{o.name} : " in entry.__doc__
    assert "{options}" not in entry.__doc__


@pytest.mark.parametrize("entry", [audit, audit_policy], ids=["audit", "audit_policy"])
def test_an_unknown_keyword_is_refused_naming_it(entry):
    args = (lambda x, rng, size: rng.random(size), PureDP(1.0)) + (("table",) if entry is audit_policy else ())
    with pytest.raises(InvalidArgument, match="sampels"):
        entry(*args, sampels=10)


def test_options_are_checked_by_the_table():
    for name, bad in [
        ("samples", 0),
        ("confidence", 1.0),
        ("classifier", "maybe"),
        ("stop_early", 1),
        ("screening", 2.5),
        ("scheduler_timeout", 0),
        ("max_hours", -1),
        ("event", 3),
    ]:
        with pytest.raises(InvalidArgument, match=name):
            Options(**{name: bad})
    assert Options().confidence == 0.95 and Options(samples=10).samples == 10


def _flags(command):
    sub = next(a for a in make_parser()._actions if a.dest == "command")
    return {a.dest: a for a in sub.choices[command]._actions}


def test_every_option_with_a_flag_is_a_flag_of_audit_that_says_the_librarys_default_and_passes_only_if_typed():
    flags = _flags("audit")
    for o in OPTIONS:
        if o.cli is None:
            assert o.name not in flags
            continue
        assert flags[o.name].option_strings == ["--" + o.name.replace("_", "-")]
        # (no flag has a default of its own: not typed, not passed — the library's default applies, said in the help)
        assert flags[o.name].default is None
        shown = f"{o.default:g}" if isinstance(o.default, float) else str(o.default)
        assert o.default in (None, False) or f"(default {shown})" in flags[o.name].help
        assert "{" not in flags[o.name].help  # options named in the help are said as flags
    assert "--samples" in flags["selection_samples"].help
    parsed = make_parser().parse_args(["audit", "laplace", "--epsilon", "1", "--confidence", "0.9", "--stop-early"])
    assert typed_options(parsed) == {"confidence": 0.9, "stop_early": True}


def test_the_execution_flags_of_every_command_come_from_the_table():
    for command in ("audit", "regret", "experiment"):
        flags = _flags(command)
        for o in OPTIONS:
            if o.shared:
                assert flags[o.name].default is None  # (the library's default applies: executor_from)
        assert "--scheduler local" in flags["workers"].help
        assert flags["workers"].type("2") == 2  # a count, as every command reads it
