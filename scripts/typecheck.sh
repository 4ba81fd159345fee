#!/usr/bin/env bash
# Type-check the Blender add-on with mypy and the fake-bpy-module stubs of the
# oldest supported Blender (4.2), in its own venv .venv-typecheck (created on
# first use, reused while this script's pins are unchanged).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3.11}
VENV=.venv-typecheck
PINS="mypy==2.4.1 fake-bpy-module-4.2==20260730 numpy>=1.26,<2.0"
stamp="$VENV/.pins"
if [ ! -x "$VENV/bin/mypy" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$PINS" ]; then
  echo "typecheck: creating $VENV"
  "$PYTHON" -m venv "$VENV"
  # shellcheck disable=SC2086
  "$VENV/bin/python" -m pip install --quiet $PINS
  echo "$PINS" > "$stamp"
fi
exec "$VENV/bin/mypy" --config-file mypy.ini "$@"
