"""Every `highway-referee ...` command in README.md runs as written, so a README typo fails the suite.

What is taken from the README (its code blocks and `code spans`):
- a command (`highway-referee print highway-dice --out sheets/`) is run through `referee_app.cli.main`
  in an empty folder (match logs go to a temporary data folder) and must exit 0. `serve` is the one
  substitute: it needs a camera or a serial device, or serves until stopped, so its `_run` is replaced
  by one that only records what was parsed (the demo served with no arguments is also built, matches
  and all, without serving);
- a form with placeholders (`highway-referee grid show|solve|hint POSITION`, `serve ... --calibration
  cal.json`, `print highway-grid`): each command it names exists and each --option it uses is one of
  that command's options;
- an option alone (`--video match.mp4`): an option of the command the README spoke of just before;
- a path of the repository (`docs/rules/`): it exists.
"""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest

from referee_app.cli import load_commands, main

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
PROGRAM = "highway-referee"
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_-]*(\.[a-z]+)?$|\.\.\.|…")  # GAME, PLAN.json, "...", rtsp://…


def snippets(text: str) -> list[str]:
    """The README's code in reading order: each line of a fenced block, each inline code span."""
    out: list[str] = []
    for fenced, inline in re.findall(r"```[a-z]*\n(.*?)```|`([^`\n]+)`", text, re.S):
        if fenced:
            out.extend(line.strip() for line in fenced.splitlines() if line.strip())
        else:
            out.append(inline.replace("\\|", "|"))  # a '|' inside a table cell is escaped
    return out


def commands(snippet: str) -> list[list[str]]:
    """The argument lists of each `highway-referee` command in a snippet (a shell line may chain
    several with && or ;)."""
    out = []
    for part in re.split(r"\s(?:&&|;|\|)\s", snippet):
        words = shlex.split(part)
        for k, word in enumerate(words):
            if word == PROGRAM or word.endswith("/" + PROGRAM):
                out.append(words[k + 1:])
                break
    return out


def _children(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def check_form(root: argparse.ArgumentParser, words: list[str]) -> list[str]:
    """Problems with a command form: a command it names that does not exist, or an option that its
    command does not take. Returns the command path of the first alternative (the next option-only
    snippet's context)."""
    parsers = [(root, [])]
    # as `main` does: no command, or options only, is the main job `serve --demo`
    rest = list(words) if words and not words[0].startswith("-") else ["serve", "--demo", *words]
    while rest and any(_children(p) for p, _ in parsers):
        word = rest[0]
        if word.startswith("-") or (PLACEHOLDER.search(word) and word != "COMMAND"):
            break
        rest.pop(0)
        nxt = []
        for parser, path in parsers:
            children = _children(parser)
            if word == "COMMAND":  # any command: `highway-referee COMMAND --help`
                assert children, f"{' '.join(path)} has no commands"
                nxt.extend((child, [*path, name]) for name, child in children.items())
                continue
            for alternative in word.split("|"):
                assert alternative in children, \
                    f"README: `{PROGRAM} {' '.join(words)}`: no command {' '.join([*path, alternative])!r}"
                nxt.append((children[alternative], [*path, alternative]))
        parsers = nxt
    for parser, path in parsers:
        assert not _children(parser) or parser.get_default("_run") or "--help" in rest, \
            f"README: `{PROGRAM} {' '.join(words)}`: {' '.join(path)!r} needs a command after it"
        for word in rest:
            if word.startswith("--"):
                option = word.split("=", 1)[0]
                assert option in parser._option_string_actions, \
                    f"README: `{PROGRAM} {' '.join(words)}`: {' '.join(path)} has no option {option}"
    return parsers[0][1]


def is_form(words: list[str]) -> bool:
    return any(PLACEHOLDER.search(w) or "|" in w for w in words)


def readme_items() -> list[tuple[str, list[str]]]:
    """(kind, words): kind is 'run', 'form', 'option' (with its context command first) or 'path'."""
    tree = load_commands()
    top = set(tree.root.children)
    items: list[tuple[str, list[str]]] = []
    for snippet in snippets(README.read_text(encoding="utf-8")):
        found = commands(snippet)
        if found:
            items.extend(("form" if is_form(words) else "run", words) for words in found)
            continue
        words = shlex.split(snippet)
        if len(words) > 1 and words[0] in top:  # `serve --led /dev/ttyACM0`, `print highway-grid`
            items.append(("form", words))
        elif words and words[0].startswith("--"):
            items.append(("option", words))
        elif re.fullmatch(r"(docs|engine|vision|referee_app|firmware|datasets|bench|tests|scripts)(/[\w.-]+)*/?",
                          snippet):
            items.append(("path", [snippet]))
    return items


ITEMS = readme_items()


def test_the_readme_has_commands_of_each_kind():
    kinds = {kind for kind, _ in ITEMS}
    assert kinds == {"run", "form", "option", "path"}
    assert sum(kind == "run" for kind, _ in ITEMS) >= 6


def test_every_form_names_real_commands_and_options():
    root = load_commands().build()
    context: list[str] = []
    for kind, words in ITEMS:
        if kind in ("run", "form"):
            context = check_form(root, words)
        elif kind == "option":
            assert context, f"README: option `{' '.join(words)}` follows no command"
            check_form(root, [*context, *words])


def test_every_repository_path_exists():
    for kind, words in ITEMS:
        if kind == "path":
            assert (REPO / words[0]).exists(), f"README names {words[0]}, which is not in the repository"


def test_help_explains_each_command(capsys):
    """`highway-referee COMMAND --help`, for every COMMAND."""
    for command in ["", *sorted(load_commands().root.children)]:
        with pytest.raises(SystemExit) as done:
            main([command, "--help"] if command else ["--help"])
        out = capsys.readouterr().out
        assert done.value.code == 0 and out.startswith(f"usage: {PROGRAM} {command}".rstrip()), command


def _mat_photo(folder: Path) -> Path:
    """A photo of the printed Tokyo Highway mat (printed by the CLI) lying on a table, seen by a
    1280x720 camera from 0.7 m in front and 0.55 m above its centre."""
    import cv2
    import numpy as np

    dpi = 100.0
    assert main(["print", "tokyo-highway", "--out", str(folder / "mat"), "--dpi", str(dpi)]) == 0
    sheet = cv2.imread(str(folder / "mat" / "tokyo-mat.png"))
    w_mm, h_mm = 420.0, 297.0
    centre = np.array([0.0, -700.0, 550.0])
    forward = -centre / np.linalg.norm(centre)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    R = np.vstack([right, down, forward])
    t = -R @ centre
    K = np.array([[900.0, 0, 640], [0, 900.0, 360], [0, 0, 1]])
    table_to_image = K @ np.column_stack([R[:, 0], R[:, 1], t])
    mm = 25.4 / dpi
    sheet_to_table = np.array([[mm, 0, -w_mm / 2], [0, -mm, h_mm / 2], [0, 0, 1]])
    photo = cv2.warpPerspective(sheet, table_to_image @ sheet_to_table, (1280, 720),
                                borderValue=(90, 110, 130))
    path = folder / "photo.jpg"
    cv2.imwrite(str(path), photo)
    return path


def test_every_command_runs_as_written(tmp_path, monkeypatch, capsys):
    import referee_app.commands.serve as serve

    work = tmp_path / "table"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("HIGHWAY_REFEREE_DATA", str(tmp_path / "data"))
    served: list[argparse.Namespace] = []

    def parse_only(args: argparse.Namespace) -> int:
        served.append(args)
        if args.demo and not any(getattr(args, a) is not None for a in ("camera", "led")):
            hub, loops = serve.build_referee(args)  # the demo needs no device: build it, serve nothing
            assert loops and hub.featured
        return 0

    monkeypatch.setattr(serve, "_run", parse_only)
    ran = 0
    for kind, words in ITEMS:
        if kind != "run":
            continue
        if words[:2] == ["tokyo", "calibrate"]:
            _mat_photo(tmp_path).replace(work / words[2])  # the photo the user takes of the mat
        try:
            code = main(list(words))
        except SystemExit as exc:  # argparse refused the command line
            code = exc.code
        out, err = capsys.readouterr()
        assert code == 0, f"README: `{PROGRAM} {shlex.join(words)}` exited {code}: {err or out}"
        if words[:2] == ["tokyo", "calibrate"]:
            assert "--calibration" in out  # the way to use it that the README gives
        ran += 1
    assert ran >= 6 and served  # the main job (no arguments) and the camera line went through serve
