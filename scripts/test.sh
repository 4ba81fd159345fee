#!/usr/bin/env bash
# The test command of README.md: set everything up, type-check the add-on,
# run the whole suite, then run the core's property suites once more against
# a build of the Cython kernels with bounds checking on (and the portable,
# non-SSE2 row kernels).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
bash scripts/typecheck.sh
.venv/bin/python -m pytest tests "$@"
echo "test: property suites against a bounds-checked, portable-kernel build of the core"
bash scripts/build_core.sh --checked --target build/checked-core
PYTHONPATH=build/checked-core .venv/bin/python -m pytest tests/core tests/mesher tests/grid "$@"
