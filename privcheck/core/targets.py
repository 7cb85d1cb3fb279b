"""Targets that travel by description: a reference ``module:name`` (or ``file.py:name``) and its arguments.

A worker process — a local process pool or a Dask worker on another machine — rebuilds a :class:`Described`
target from its description instead of receiving a pickled object, so what it runs is exactly what the
description names.  The requirement this puts on users: the referenced module (or file, at the same path)
must be importable on every worker.

A file loaded by path is run as Python runs a script: its folder goes to the front of ``sys.path`` (for the rest
of the process, as ``python my.py`` keeps it), so that the file's own ``import helper`` of a sibling module — or of
its own ``policies.py``, which privcheck's installed names never shadow — works.  The folders so added travel with
every task (:func:`user_folders`, :func:`add_folders`), so a worker process or a Dask task can unpickle what refers to
those modules.  A built-in travels as a reference to its registry's factory and the
parameters the user gave; a user's mechanism as its ``module:function``.

Each process builds a description once (:meth:`Described.build` caches by the description).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pickle
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import cloudpickle

from .errors import InvalidArgument, raised

__all__ = ["Described", "load_object", "resolve", "user_folders", "add_folders", "own_path"]

#: the folders of the files loaded by path in this process, in the order they were loaded
_FOLDERS: list[str] = []


def user_folders() -> tuple[str, ...]:
    """The folders of the user files this process has loaded (what a worker must be able to import from)."""
    return tuple(_FOLDERS)


#: the folders :func:`add_folders` put on ``sys.path`` itself (one already there was the process's own)
_INSERTED: list[str] = []


def add_folders(folders) -> None:
    """Make each folder importable, as Python does for a script's folder: at the front of ``sys.path``."""
    for folder in folders:
        if folder not in _FOLDERS:
            _FOLDERS.append(folder)
        if folder not in sys.path:
            sys.path.insert(0, folder)
            _INSERTED.append(folder)


@contextmanager
def own_path():
    """``sys.path`` without the folders :func:`add_folders` put in front of it, while local processes start: a
    process starts on its parent's ``sys.path`` and imports privcheck first, so a user's folder holding a file named
    ``privcheck.py`` (their own script of that name) shadowed the privcheck package there — every worker failed as
    it started, a traceback on the screen, and the audit ran on one core.  The tasks put the folders back in front
    in the worker (:func:`add_folders`), once privcheck is imported there."""
    hidden = [(i, folder) for i, folder in enumerate(sys.path) if folder in _INSERTED]
    for i, _ in reversed(hidden):
        del sys.path[i]
    try:
        yield
    finally:
        for i, folder in hidden:
            sys.path.insert(i, folder)


def load_object(spec: str):
    """``path/to/file.py:name`` or ``package.module:name`` → the named object (:class:`InvalidArgument` if not)."""
    if ":" not in spec:
        raise InvalidArgument(f"target {spec!r} is neither a built-in (see `privcheck list`) nor module:function")
    mod_part, _, attr = spec.rpartition(":")
    if not attr or not mod_part:
        raise InvalidArgument(f"target {spec!r} must look like file.py:function or package.module:function")
    if mod_part.endswith(".py") or os.sep in mod_part:
        path = Path(mod_part)
        if not path.is_file():
            raise InvalidArgument(f"target file {mod_part!r} does not exist")
        mod_name = "privcheck_user_" + "".join(c if c.isalnum() else "_" for c in str(path.resolve()))
        if mod_name in sys.modules:
            module = sys.modules[mod_name]
        else:
            add_folders([str(path.resolve().parent)])
            try:
                sp = importlib.util.spec_from_file_location(mod_name, path)
                module = importlib.util.module_from_spec(sp)
                sys.modules[mod_name] = module
                sp.loader.exec_module(module)
                # its functions (a user's event or adversary) then travel to worker processes by value
                cloudpickle.register_pickle_by_value(module)
            except Exception as exc:
                sys.modules.pop(mod_name, None)
                raise raised(InvalidArgument, f"cannot import {mod_part}: {type(exc).__name__}: {exc}", exc) from None
    else:
        try:
            module = importlib.import_module(mod_part)
        except Exception as exc:
            raise raised(
                InvalidArgument, f"cannot import module {mod_part!r}: {type(exc).__name__}: {exc}", exc
            ) from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise InvalidArgument(f"{mod_part} has no attribute {attr!r}") from None


_BUILT: dict = {}


@dataclass(frozen=True)
class Described:
    """The object ``load_object(reference)`` — called with ``kwargs`` when ``call`` is true.

    Values in ``kwargs`` may themselves be :class:`Described` (built first), so an environment and the policy
    built for it travel as two small descriptions.
    """

    reference: str
    kwargs: dict = field(default_factory=dict)
    call: bool = True

    def build(self):
        key = pickle.dumps((self.reference, self.kwargs, self.call))
        if key not in _BUILT:
            obj = load_object(self.reference)
            if self.call:
                obj = obj(**{k: resolve(v) for k, v in self.kwargs.items()})
            _BUILT[key] = obj
        return _BUILT[key]

    def __str__(self):
        if not self.call:
            return self.reference
        args = ", ".join(f"{k}={v}" for k, v in self.kwargs.items())
        return f"{self.reference}({args})"


def resolve(obj):
    """``obj.build()`` for a description, ``obj`` itself otherwise."""
    return obj.build() if isinstance(obj, Described) else obj
