"""The long-running referee limits glibc's heap arenas (referee_app/heap.py): an idle demo's memory
crept up by about 70 MB a replay without it (issue 23, item 3)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

import referee_app.commands.serve as serve
from referee_app.cli import CliError, main

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"


@pytest.mark.skipif(not GLIBC, reason="glibc's mallopt")
def test_the_arenas_are_limited_unless_the_user_chose_their_number():
    code = "from referee_app.heap import limit_heap_growth; print(sorted(limit_heap_growth()))"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['MALLOC_ARENA_MAX']"
    out = subprocess.run([sys.executable, "-c", code], env={**env, "MALLOC_ARENA_MAX": "4"},
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_serve_limits_the_heap_before_it_builds_the_referee(monkeypatch, tmp_path):
    calls: list[str] = []
    monkeypatch.setattr("referee_app.heap.limit_heap_growth", lambda: calls.append("heap") or {})

    def build(args):
        calls.append("build")
        raise CliError("stop here", 1)

    monkeypatch.setattr(serve, "build_referee", build)
    assert main(["serve", "--port", "0", "--data", str(tmp_path)]) == 1
    assert calls == ["heap", "build"]
