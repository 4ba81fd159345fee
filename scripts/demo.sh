#!/usr/bin/env bash
# The README's demo: set up .venv (bpy + the compiled core), then mesh a sample
# .vox through the add-on in headless Blender, save out/demo.blend, render
# out/demo.png (Cycles CPU) and out/demo_naive.png (the naive culled-face mesh
# of the same model, for comparison) and print the statistics.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
mkdir -p out
BLENDER_USER_RESOURCES=${BLENDER_USER_RESOURCES:-$(mktemp -d)} exec .venv/bin/python scripts/demo.py "$@"
