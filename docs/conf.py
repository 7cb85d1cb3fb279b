"""Sphinx configuration of privcheck's documentation site (``python3 -m sphinx -W -n -b html docs docs/_build``).

Sphinx with MyST: the pages are Markdown (the README's language, and what the tests read to run every command and
code block); the reference is generated — the command line from privcheck's own argparse parsers
(sphinx-argparse), the Python API from the docstrings (autodoc, numpydoc style through napoleon).  The field's
tools (OpenDP, Opacus, diffprivlib, hypothesis) document themselves the same way.  Nothing here reaches the
network: no intersphinx, no external images.
"""

from privcheck.version import __version__

project = "privcheck"
author = "the privcheck developers"
copyright = "2026, the privcheck developers"
release = version = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinxarg.ext",
]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build"]
myst_enable_extensions = ["dollarmath", "deflist", "colon_fence"]
myst_heading_anchors = 3

napoleon_google_docstring = False
napoleon_numpy_docstring = True
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the docstrings say the types in words
nitpicky = False  # autodoc's type names (numpy arrays, callables) are not all documented here

smartquotes = False  # flags keep their two hyphens (--delta, not –delta)
html_theme = "furo"
html_title = f"privcheck {version}"
html_static_path: list = []


def _descriptions_not_types(app, what, name, obj, options, lines):
    """privcheck's docstrings write ``name : what it is`` in their Parameters sections (a description, not a type):
    said to napoleon as a name line and an indented description, so that the words are not typeset as a type."""
    section = None
    for i, line in enumerate(list(lines)):
        if i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"} and line.strip():
            section = line.strip()
            continue
        if section in ("Parameters", "Other Parameters") and line and not line[0].isspace() and " : " in line:
            names, text = line.split(" : ", 1)
            lines[i] = names + "\n    " + text
    lines[:] = "\n".join(lines).splitlines()


def setup(app):
    app.connect("autodoc-process-docstring", _descriptions_not_types, priority=100)
