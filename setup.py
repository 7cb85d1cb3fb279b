"""Build script for the compiled extensions (the metadata is in pyproject.toml).

``policies._fastloop`` (the simulator's fused loop) and ``mechanisms._exactloop`` (the exact discrete Laplace
sampler's loop) are optional: where no C compiler is available the install goes on without them and the numba
kernels run instead (the results are the same).  ``csrc/take.h`` holds their shared buffer checks.
``-ffp-contract=off`` keeps the compiler
from fusing multiply-adds, so that the extension's arithmetic is the numba kernels' operation for operation.
"""

from setuptools import Extension, setup

FLAGS = ["-O2", "-ffp-contract=off", "-fno-fast-math"]

setup(
    ext_modules=[
        Extension(
            "privcheck.policies._fastloop",
            ["policies/_fastloop.c"],
            include_dirs=["csrc"],
            optional=True,
            extra_compile_args=FLAGS,
        ),
        Extension(
            "privcheck.mechanisms._exactloop",
            ["mechanisms/_exactloop.c"],
            include_dirs=["csrc"],
            optional=True,
            extra_compile_args=FLAGS,
        ),
    ]
)
