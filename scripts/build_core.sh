#!/usr/bin/env bash
# Build reticulate_core from a clean copy of core/ and install it with .venv's
# pip: into .venv itself, or with `--target DIR` into DIR.  `--checked`
# compiles the Cython kernels with bounds and wraparound checks on, and the
# portable C row kernels in place of the SSE2 ones.  The clean
# copy keeps in-place development builds (.c/.so files, core/build) out of it.
set -euo pipefail
cd "$(dirname "$0")/.."
target=()
while [ $# -gt 0 ]; do
  case "$1" in
    --checked) export RETICULATE_BOUNDSCHECK=1 ;;
    --target) rm -rf "$2"; target=(--target "$2"); shift ;;
    *) echo "build_core.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
tar -C core --exclude=build --exclude='*.so' --exclude='*.c' --exclude='*.egg-info' \
    --exclude=__pycache__ -cf - . | tar -C "$src" -xf -
.venv/bin/python -m pip install --quiet --no-build-isolation --no-deps --force-reinstall \
    "${target[@]}" "$src"
