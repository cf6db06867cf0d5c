"""Shared test fixtures. `shared_dir` is the project's development data (../shared), which CI
provides beside the clone; tests that need it skip cleanly where it is absent."""

from __future__ import annotations

import os

# as the CLI does: the readers' tiny matrix products are slower with BLAS threads
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def repo_dir() -> Path:
    return REPO


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared (development data) is not present")
    return SHARED


@pytest.fixture()
def hub(tmp_path: Path):
    """A referee hub over an empty match store of the test's own (the web and log tests drive it)."""
    from referee_app.hub import Hub
    from referee_app.store import MatchStore

    h = Hub(MatchStore(tmp_path / "data"))
    yield h
    h.bus.close()
