#!/usr/bin/env bash
# Create the project's virtual environment in .venv if it is missing or out of date with
# pyproject.toml. Idempotent: a second run with nothing changed returns in well under a second.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
stamp=.venv/.stamp-pyproject
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ -x .venv/bin/python ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
echo "[setup] creating the environment in .venv (first run: a few minutes)" >&2
t0=$(date +%s)
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .
echo "$want" > "$stamp"
echo "[setup] done in $(( $(date +%s) - t0 )) s" >&2
