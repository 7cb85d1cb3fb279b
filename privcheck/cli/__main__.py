"""``python -m privcheck.cli``: the same as the ``privcheck`` command."""

import sys

from . import main

sys.exit(main())
