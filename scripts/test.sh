#!/usr/bin/env bash
# Install everything the tests need into .venv and run the whole suite (lint included).
# Used by the README's second command and by .ci/run. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
# fast: numba, so the compiled 4x4 search (and the opening book's re-searches) are tested too
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev,fast]' \
  || .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]'
# The learned detectors' smoke test (train one epoch, export ONNX, read it back without torch) needs
# the training extra: about 6 GB, installed in CI or when HIGHWAY_TRAIN_TESTS=1. Without it that one
# test is skipped; a failed install is reported and the rest of the suite still runs.
if [ "${CI:-}" = "true" ] || [ "${HIGHWAY_TRAIN_TESTS:-}" = "1" ]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev,train,fast]' \
    || echo "scripts/test.sh: the training extra did not install; the training smoke test will be skipped" >&2
fi
# The page tests drive a real headless Chromium from Debian's packages (no browser download).
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null) \
    || echo "scripts/test.sh: could not install chromium; browser tests will be skipped" >&2
fi
.venv/bin/ruff check .
# One worker per core, at most 4 (each loads the models and may start a browser); a test file stays on
# one worker, so a module's fixtures are built once. TEST_WORKERS=0 runs everything in this process.
WORKERS=${TEST_WORKERS:-$(( $(nproc) < 4 ? $(nproc) : 4 ))}
if [ "$WORKERS" -gt 0 ] && .venv/bin/python -c "import xdist" 2>/dev/null; then
  exec .venv/bin/python -m pytest -n "$WORKERS" --dist loadfile "$@"
fi
exec .venv/bin/python -m pytest "$@"
