"""What a fresh `highway-referee grid solve` process imports, and whether the compiled search's
cache is judged by numba's own rule (content), not a file time."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("cv2", "flask", "onnxruntime", "engine.tokyo", "engine.railroad_ink", "engine.dice_road",
         "referee_app.web", "referee_app.commands.log")


def _fresh_modules(argv: list[str]) -> tuple[dict, set[str]]:
    """Run the CLI on `argv` in a fresh interpreter: its JSON output and the modules it imported."""
    code = ("import json, sys\n"
            "from referee_app.cli import main\n"
            f"code = main({argv!r})\n"
            "print(json.dumps(sorted(sys.modules)))\n"
            "sys.exit(code)\n")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=REPO, timeout=300, check=True).stdout
    head, _, last = out.rstrip().rpartition("\n")
    return json.loads(head), set(json.loads(last))


def test_grid_solve_imports_no_camera_web_or_other_game():
    # 12 empty cells; a short budget so the test never waits on a pure-Python search
    result, modules = _fresh_modules(["grid", "solve", ". . . 6 / . 12 9 . / . . . . / 11 . . .",
                                      "--json", "--time", "0.5"])
    assert result["best"]
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))


def test_small_grid_solve_does_not_import_numba():
    result, modules = _fresh_modules(["grid", "solve", "1 2 3 4 5 6 7 8 9 10 11 . . . . .", "--json"])
    assert result["exact"] and result["value"] == -11
    assert "numba" not in modules and "engine.grid.jitsearch" not in modules


def test_engine_imports_a_game_package_on_first_use():
    code = ("import sys, engine\n"
            "before = 'engine.tokyo' in sys.modules\n"
            "names = [g.name for g in engine.games()]\n"
            "print(before, 'engine.tokyo' in sys.modules, engine.tokyo.__name__, ','.join(names))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=REPO, timeout=120).stdout
    assert out.split() == ["False", "True", "engine.tokyo",
                           "highway-dice,highway-grid,railroad-ink,tokyo-highway"]


def test_a_command_outside_the_fast_path_still_parses():
    from referee_app.cli import _leaf, load_commands

    tree = load_commands(["grid", "solve", "x"])
    assert set(tree.root.children) == {"grid"} and _leaf(tree, ["grid", "solve"])
    assert not _leaf(tree, ["grid"])  # a group: every module's commands
    assert "serve" in load_commands(["grid"]).root.children
    assert "serve" in load_commands([]).root.children


def test_cached_follows_numbas_index_not_the_file_time(tmp_path, monkeypatch):
    jitsearch = pytest.importorskip("engine.grid.jitsearch")
    if not jitsearch.available():
        pytest.skip("numba is not installed")
    numba = pytest.importorskip("numba")
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")  # numba's cache beside the module
    source = tmp_path / "grid_cache_probe.py"
    source.write_text("import numba\n\n\n@numba.njit(cache=True)\ndef f(x):\n    return x * 3 + 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    probe = importlib.import_module("grid_cache_probe")
    assert not jitsearch.cached(probe.f)  # nothing compiled yet
    assert probe.f(2) == 7
    assert jitsearch.cached(probe.f)
    later = source.stat().st_mtime + 3600
    os.utime(source, (later, later))  # a fresh clone or a touched file: the same content
    stamp = probe.f._cache._impl.locator.get_source_stamp()
    if isinstance(stamp, tuple):  # numba before 0.68 stamps the file's time: stale, as numba says
        assert not jitsearch.cached(probe.f)
    else:
        assert jitsearch.cached(probe.f)
    source.write_text(source.read_text() + "# changed\n")
    os.utime(source, (later + 60, later + 60))
    assert not jitsearch.cached(probe.f)  # another source: numba would compile again


def test_content_key_ignores_file_times_and_places(tmp_path):
    from engine.grid import jitcache

    grid = REPO / "engine" / "grid"
    names = ("jitsearch.py", "exact.py", "paths.py")
    for name in names:
        (tmp_path / name).write_bytes((grid / name).read_bytes())  # another clone: new times, place
    key = jitcache.content_key([grid / n for n in names])
    assert jitcache.content_key([tmp_path / n for n in names]) == key
    (tmp_path / "paths.py").write_text((grid / "paths.py").read_text() + "# changed\n")
    assert jitcache.content_key([tmp_path / n for n in names]) != key


def test_the_search_is_cached_in_a_folder_named_by_content(tmp_path):
    pytest.importorskip("numba")
    code = ("from engine.grid import jitsearch as J, jitcache\n"
            "from pathlib import Path\n"
            "grid = Path(J.__file__).parent\n"
            "key = jitcache.content_key([grid / n for n in ('jitsearch.py', 'exact.py', 'paths.py')])\n"
            "print(J._search._cache._cache_path == str(Path(J.CACHE_DIR)), Path(J.CACHE_DIR).parent,"
            " Path(J.CACHE_DIR).name == jitcache.PREFIX + key, J.cached())\n")
    env = {**os.environ, "PYTHONPATH": str(REPO), "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=env, cwd=REPO, timeout=120).stdout.split()
    assert out == ["True", str(tmp_path), "True", "False"]  # an empty cache: not compiled


def test_grid_solve_names_grid_compile_when_the_search_is_not_compiled(tmp_path):
    pytest.importorskip("numba")
    env = {**os.environ, "PYTHONPATH": str(REPO), "NUMBA_CACHE_DIR": str(tmp_path)}  # nothing compiled
    done = subprocess.run([sys.executable, "-m", "referee_app.cli", "grid", "solve",
                           ". . . 6 / . 12 9 . / . . . . / 11 . . .", "--json", "--time", "0.3"],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=120, check=True)
    assert json.loads(done.stdout)["exact"] is False
    assert "highway-referee grid compile" in done.stderr


def test_the_script_entry_freezes_the_collector_and_a_call_with_argv_does_not():
    code = ("import gc, sys\n"
            "from referee_app.cli import main\n"
            "main(['grid', 'show', '. . . . . . . . . . . . . . . .', '--json'])\n"
            "before = gc.get_freeze_count()\n"
            "sys.argv = ['highway-referee', 'grid', 'show', '. . . . . . . . . . . . . . . .', '--json']\n"
            "code = main()\n"
            "print(before, gc.get_freeze_count() > 0, code, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=REPO, timeout=120)
    assert done.stderr.split() == ["0", "True", "0"]
