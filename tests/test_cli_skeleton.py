import subprocess
import sys

from referee_app.cli import main


def test_games_lists_grid(capsys):
    assert main(["games"]) == 0
    assert "highway-grid" in capsys.readouterr().out


def test_cli_module_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "referee_app", "games", "--json"], capture_output=True,
                         text=True, check=True)
    assert '"name": "highway-grid"' in out.stdout


def test_a_user_error_is_one_line_by_every_entry_point(tmp_path):
    """`python -m referee_app.cli` (the form the developer guide gives) reports a user error as the
    command does, not as a traceback (it ran cli.py twice, as __main__ and as referee_app.cli)."""
    for module in ("referee_app", "referee_app.cli"):
        out = subprocess.run([sys.executable, "-m", module, "grid", "solve", str(tmp_path / "nosuch.jsonl")],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 2, (module, out.stderr)
        assert out.stderr.strip() == f"highway-referee: error: {tmp_path / 'nosuch.jsonl'}: no such file", module
