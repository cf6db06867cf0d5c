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
