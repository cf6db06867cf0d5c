"""The `highway-referee` command line.

Commands live in `referee_app/commands/*.py`; each module defines `register(cli: CommandTree)` and
adds its commands by path, e.g. `cli.add(("eval", "dice"), setup, run, help=...)`. Modules are
discovered automatically, so a new reader or game adds its commands without touching this file.
Run with no command, the CLI starts the main job (`serve` on the bundled demo match).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import pkgutil
import sys

# The readers run many tiny matrix products: BLAS worker threads make them 10-30x slower on a busy
# machine. Set before numpy is first imported by any command (a user's own setting wins).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from collections.abc import Callable, Sequence  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402

from referee_app import __version__  # noqa: E402

Setup = Callable[[argparse.ArgumentParser], None]
Run = Callable[[argparse.Namespace], int]


class CliError(Exception):
    """A user-facing error: printed as `highway-referee: error: ...` with exit status `code`."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def positive_number(text: str) -> float:
    """An argparse type: a finite number > 0 (a budget or a speed). float() takes "nan" and "inf",
    and a budget of nan never runs out: `grid hint --time nan` searched for ever."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value < float("inf"):  # also false for nan
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


@dataclass
class _Node:
    help: str = ""
    setup: Setup | None = None
    run: Run | None = None
    children: dict[str, _Node] = field(default_factory=dict)


class CommandTree:
    def __init__(self) -> None:
        self.root = _Node()

    def add(self, path: Sequence[str], setup: Setup | None, run: Run, help: str = "") -> None:
        node = self.root
        for part in path:
            node = node.children.setdefault(part, _Node())
        if node.run is not None:
            raise RuntimeError(f"command {' '.join(path)!r} registered twice")
        node.setup, node.run, node.help = setup, run, help

    def group(self, path: Sequence[str], help: str) -> None:
        node = self.root
        for part in path:
            node = node.children.setdefault(part, _Node())
        node.help = node.help or help

    def build(self) -> argparse.ArgumentParser:
        parser = argparse.ArgumentParser(
            prog="highway-referee",
            description="Referee for Highway (dice and 4x4), Tokyo Highway and Railroad Ink. "
            "With no command: serve the bundled demo match on http://127.0.0.1:8765/.",
        )
        parser.add_argument("--version", action="version", version=f"highway-referee {__version__}")
        self._attach(parser, self.root, [])
        return parser

    def _attach(self, parser: argparse.ArgumentParser, node: _Node, path: list[str]) -> None:
        if node.setup:
            node.setup(parser)
        if node.run:
            parser.set_defaults(_run=node.run)
        if node.children:
            sub = parser.add_subparsers(dest="_cmd_" + "_".join(path), metavar="COMMAND")
            for name in sorted(node.children):
                child = node.children[name]
                child_parser = sub.add_parser(name, help=child.help, description=child.help)
                if not child.run:
                    child_parser.set_defaults(_group_parser=child_parser)
                self._attach(child_parser, child, [*path, name])


def _register(tree: CommandTree, module_name: str) -> None:
    module = importlib.import_module(module_name)
    register = getattr(module, "register", None)
    if register is not None:
        register(tree)


def _leaf(tree: CommandTree, words: Sequence[str]) -> bool:
    """Whether the leading `words` of a command line name a command of `tree` that runs (not a
    group: a group's help lists what every module adds to it)."""
    node = tree.root
    for word in words:
        if word.startswith("-"):
            break
        if word not in node.children:
            return False
        node = node.children[word]
        if node.run is not None:
            return not node.children
    return False


def load_commands(argv: Sequence[str] | None = None) -> CommandTree:
    """Every command module's commands. Given the command line `argv`, only the module named after
    its first word or two (`grid solve` -> commands/grid.py, `eval match` -> commands/eval_match.py)
    when that module alone defines the command asked for: each module imports what its commands
    need (OpenCV, Flask, ...), and `grid solve` should not pay for the camera's imports."""
    import referee_app.commands as pkg

    names = sorted(m.name for m in pkgutil.iter_modules(pkg.__path__))
    words = [w for w in (argv or [])[:2] if not w.startswith("-")]
    for k in range(len(words), 0, -1):
        name = "_".join(words[:k]).replace("-", "_")
        if name in names:
            tree = CommandTree()
            _register(tree, f"{pkg.__name__}.{name}")
            if _leaf(tree, argv or []):
                return tree
    tree = CommandTree()
    for name in names:
        _register(tree, f"{pkg.__name__}.{name}")
    return tree


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line `argv` (default: the process's own, as the `highway-referee` script
    does; then the process is about to exit, and the garbage collector is frozen on return)."""
    if argv is None:
        try:
            return _run_argv(list(sys.argv[1:]))
        finally:
            # At exit the interpreter's final collections walk every object left (numba's compiler
            # state alone: 0.15-0.2 s of CPU after `grid solve` has printed its answer). Frozen,
            # they are freed by reference counts as the modules go; only cyclic garbage is left
            # to the operating system. Not for a caller that passes argv (tests: many calls).
            gc.freeze()
    return _run_argv(list(argv))


def _run_argv(argv: list[str]) -> int:
    tree = load_commands(argv)
    parser = tree.build()
    # no command: the main job (serve the bundled recorded matches); bare options go to it too,
    # so `highway-referee --port 9000` works like `highway-referee serve --demo --port 9000`
    if "serve" in tree.root.children and (
            not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version"))):
        argv = ["serve", "--demo", *argv]
    args = parser.parse_args(argv)
    run = getattr(args, "_run", None)
    if run is None:
        group = getattr(args, "_group_parser", parser)
        group.print_help(sys.stderr)
        return 2
    try:
        return int(run(args) or 0)
    except CliError as exc:
        print(f"highway-referee: error: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the output was piped into a reader that stopped early (`| head`): not our error, and Python
        # would otherwise print a traceback while flushing stdout at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    # `python -m referee_app.cli` runs this file as __main__, a second copy of the module whose
    # CliError is not the one the commands raise: run the imported module's main instead
    from referee_app.cli import main as _main

    sys.exit(_main())
