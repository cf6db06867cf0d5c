#!/usr/bin/env bash
# Install everything the tests need into .venv and run the whole suite (lint included).
# Used by the README's second command and by .ci/run. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]'
# The page tests drive a real headless Chromium from Debian's packages (no browser download).
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null) \
    || echo "scripts/test.sh: could not install chromium; browser tests will be skipped" >&2
fi
.venv/bin/ruff check .
exec .venv/bin/python -m pytest "$@"
