"""Build script for the one compiled extension (the metadata is in pyproject.toml).

``policies._fastloop`` is optional: where no C compiler is available the install goes on without it and the
simulator runs its numba kernels instead (the results are the same).  ``-ffp-contract=off`` keeps the compiler
from fusing multiply-adds, so that the extension's arithmetic is the numba kernels' operation for operation.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("policies._fastloop", ["policies/_fastloop.c"], optional=True,
                             extra_compile_args=["-O2", "-ffp-contract=off", "-fno-fast-math"])])
