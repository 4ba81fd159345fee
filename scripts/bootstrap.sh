#!/usr/bin/env bash
# Set up .venv (Python 3.11, bpy from PyPI, test tools) and build and install
# the Cython core into it.  Idempotent: the venv is reused while
# requirements-dev.txt is unchanged; the core is rebuilt every time.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3.11}
VENV=.venv
stamp="$VENV/.requirements.sha256"
want=$(sha256sum requirements-dev.txt | cut -d' ' -f1)
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "bootstrap: creating $VENV with $PYTHON (bpy is ~400 MB, first run takes a minute)"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  "$VENV/bin/python" -m pip install --quiet -r requirements-dev.txt
  echo "$want" > "$stamp"
fi
echo "bootstrap: building reticulate_core"
bash scripts/build_core.sh --wheel-dir build/core-wheel
