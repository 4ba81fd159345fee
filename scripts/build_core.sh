#!/usr/bin/env bash
# Build the reticulate_core wheel from a clean copy of core/ and install it
# with .venv's pip: into .venv itself, or with `--target DIR` into DIR.
# `--wheel-dir DIR` keeps the wheel in DIR (emptied first; the extension build
# can bundle it, see build_extension.py --core-wheel).  `--checked` compiles
# the Cython kernels with bounds and wraparound checks on, signed integer
# overflow trapped (-fsanitize=signed-integer-overflow), and the portable C
# row kernels in place of the SSE2 ones.  The clean copy (core_source.py)
# keeps in-place development builds (.c/.so files, core/build) out of it.
set -euo pipefail
cd "$(dirname "$0")/.."
target=()
wheel_dir=
while [ $# -gt 0 ]; do
  case "$1" in
    --checked) export RETICULATE_BOUNDSCHECK=1 ;;
    --target) rm -rf "$2"; target=(--target "$2"); shift ;;
    --wheel-dir) wheel_dir=$2; shift ;;
    *) echo "build_core.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$work/core
.venv/bin/python scripts/core_source.py "$src"
if [ -z "$wheel_dir" ]; then
  wheel_dir=$work/wheel
fi
rm -rf "$wheel_dir"
mkdir -p "$wheel_dir"
.venv/bin/python -m pip wheel --quiet --no-deps --no-build-isolation -w "$wheel_dir" "$src"
.venv/bin/python -m pip install --quiet --no-deps --force-reinstall \
    "${target[@]}" "$wheel_dir"/reticulate_core-*.whl
