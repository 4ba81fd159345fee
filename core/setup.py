"""Build the Cython kernels of reticulate_core.

Every ``reticulate_core/*.pyx`` becomes one extension module.  Set
``RETICULATE_BOUNDSCHECK=1`` to compile with bounds and wraparound checks on,
with the portable C row kernels instead of the SSE2 ones and, outside
Windows, with any signed integer overflow stopping the process
(``-fsanitize=signed-integer-overflow``); the property tests are run
against such a build too, so both kernels are tested.
Cython and the C compiler run one job per CPU.
"""
import glob
import os
import sys

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

checked = os.environ.get("RETICULATE_BOUNDSCHECK") == "1"
# the kernels are built with -fno-wrapv (below), so a signed overflow would
# be undefined behaviour: the checked build traps it instead
sanitize = (["-fsanitize=signed-integer-overflow", "-fno-sanitize-recover=all"]
            if checked and sys.platform != "win32" else [])
directives = {
    "language_level": 3,
    "boundscheck": checked,
    "wraparound": checked,
    "initializedcheck": checked,
    "cdivision": True,
}
here = os.path.dirname(os.path.abspath(__file__))
sources = sorted(glob.glob(os.path.join(here, "reticulate_core", "*.pyx")))
extensions = [
    Extension(
        "reticulate_core." + os.path.splitext(os.path.basename(path))[0],
        [os.path.relpath(path, here)],
        include_dirs=[numpy.get_include()],
        # -g0: no debug info (a 5x smaller wheel, same code).  -fno-wrapv
        # undoes the -fwrapv of Python's own CFLAGS: the kernels do no signed
        # arithmetic that overflows (hashes, tags and masks are unsigned; the
        # checked build traps any), and GCC can then widen int indices in
        # loops: 1-4% less time per chunk
        extra_compile_args=["-O3", "-g0", "-fno-wrapv"] + sanitize,
        extra_link_args=sanitize,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]
        + ([("RETICULATE_PORTABLE", "1")] if checked else []),
    )
    for path in sources
]
jobs = os.cpu_count() or 1
setup(ext_modules=cythonize(extensions, compiler_directives=directives,
                            include_path=[here], nthreads=jobs),
      options={"build_ext": {"parallel": jobs}})
