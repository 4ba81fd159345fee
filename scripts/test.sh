#!/usr/bin/env bash
# The test command of README.md: set everything up, then run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
exec .venv/bin/python -m pytest tests "$@"
