"""bench/dice_reuse_ab.py's variant names stand for the adapters its doc says, relative to main's
default exact steps (vision.zones.DEFAULT_EXACT holds "prep" since b07a11b): `main` is
`DiceAdapter()`, `x-faces` is prep+faces, not faces alone."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from vision.zones import DEFAULT_EXACT, EXACT_STEPS

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.fixture(scope="module")
def variant():
    before = list(sys.path)
    try:
        spec = importlib.util.spec_from_file_location("dice_reuse_ab", BENCH / "dice_reuse_ab.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module.variant
    finally:
        sys.path[:] = before


def _steps(exact: frozenset[str] | None) -> frozenset[str]:
    return DEFAULT_EXACT if exact is None else frozenset(exact)


def test_main_is_the_shipped_adapter(variant) -> None:
    for name in ("main", "noA", "noB", "off"):
        assert _steps(variant(name).exact) == DEFAULT_EXACT, name
    assert variant("main").reuse and not variant("off").reuse


def test_x_steps_add_to_the_default(variant) -> None:
    assert "prep" in DEFAULT_EXACT
    assert _steps(variant("x-faces").exact) == DEFAULT_EXACT | {"faces"}
    assert _steps(variant("x-batch+f32").exact) == DEFAULT_EXACT | {"batch", "f32"}
    assert _steps(variant("exact").exact) == EXACT_STEPS
    assert _steps(variant("x-none").exact) == frozenset()
