#!/usr/bin/env bash
# The test command of README.md: set everything up, type-check the add-on,
# run the whole suite, then run the core's property suites once more, on a
# quarter of their examples, against a build of the Cython kernels with bounds
# checking on, signed integer overflow trapped (UBSan) and the portable,
# non-SSE2 row kernels.  That build compiles
# in the background while the main suite runs, which mostly keeps one core busy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
# the add-on tests bundle the core wheel bootstrap just built instead of compiling another
RETICULATE_CORE_WHEEL=$(ls build/core-wheel/reticulate_core-*.whl)
export RETICULATE_CORE_WHEEL
checked_log=$(mktemp)
# its own process group, so that an early exit stops pip and the compilers too
setsid bash scripts/build_core.sh --checked --target build/checked-core > "$checked_log" 2>&1 &
checked_build=$!
trap 'kill -- "-$checked_build" 2>/dev/null || true; rm -f "$checked_log"' EXIT
bash scripts/typecheck.sh
.venv/bin/python -m pytest tests "$@"
echo "test: property suites against a bounds-checked, overflow-trapping, portable-kernel build of the core"
if ! wait "$checked_build"; then
  cat "$checked_log" >&2
  echo "test: the bounds-checked build of the core failed" >&2
  exit 1
fi
RETICULATE_EXAMPLES_SCALE=0.25 PYTHONPATH=build/checked-core \
  .venv/bin/python -m pytest tests/core tests/mesher tests/grid "$@"
