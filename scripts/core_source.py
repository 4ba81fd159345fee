"""A clean copy of ``core/`` to build the reticulate_core wheel from.

The copy leaves out what an in-place development build leaves behind
(``build/``, Cython's ``.c`` files, compiled ``.so`` modules, egg-info,
bytecode), so a wheel is always compiled from the sources and never bundles
a stale binary. ``scripts/build_core.sh`` and ``scripts/build_extension.py``
both copy through here.

    python scripts/core_source.py TARGET
"""
import shutil
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parent.parent / "core"
BUILD_OUTPUTS = ("build", "*.so", "*.c", "*.egg-info", "__pycache__", "*.pyc")


def clean_core_copy(target, source=CORE):
    """Copy ``source`` (default: the repository's ``core/``) to the new
    directory ``target`` without BUILD_OUTPUTS; returns ``target``."""
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(*BUILD_OUTPUTS))
    return Path(target)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: core_source.py TARGET")
    clean_core_copy(sys.argv[1])
