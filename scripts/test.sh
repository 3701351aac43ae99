#!/usr/bin/env bash
# Every test: unit tests of lib, the nbval regression of the executed chapters in book/, and the
# check that the built site renders its math offline (headless Chromium; installed here if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/ensure-chromium.sh || echo "[test] chromium is not available: the site-rendering test will be skipped" >&2
echo "[test] ruff (pyflakes F, bugbear B, complexity C901 <= 15) on lib, tests, benchmarks" >&2
.venv/bin/ruff check lib tests benchmarks
export ATR_QUIET=1   # no progress bars inside re-executed chapters
workers=${ATR_TEST_WORKERS:-2}
# one file to one worker, the files sent longest first (tests/conftest.py)
exec .venv/bin/python -m pytest -n "$workers" --dist loadfile --no-loadscope-reorder --durations=15 \
  --nbval-lax --nbval-current-env --nbval-sanitize-with tests/sanitize.cfg \
  tests book "$@"
