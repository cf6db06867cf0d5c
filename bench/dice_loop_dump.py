"""What the dice road reader and its referee loop make of the bundled recording, as text, to compare two
checkouts byte for byte: per frame, read with and without reuse, the items, confidences, beliefs,
blocked text, unseen zones, every die's readings (float reprs), unreadable zones and hashes of the
annotated picture and of the learned empty sheet; then the loop's whole match log as run_all runs
the loop (a fresh adapter that learned the first frame), its times and match id left out.

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python bench/dice_loop_dump.py OUT [--frames N]
    cmp OUT_main OUT_branch

It imports the code on PYTHONPATH (run it from each checkout). docs/benchmarks/readers.md."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _loop_dump import digest, dump, observed  # noqa: E402


def observation(obs: Any, adapter: Any) -> str:
    reader = adapter._reader
    last = reader.last_reading
    dice = {z: [(d.value, repr(d.confidence), d.color, repr(d.box_mm), repr(sorted(d.readings.items())))
                for d in ds] for z, ds in sorted(last.dice.items())}
    return observed(obs, dice=dice, unreadable=sorted(last.unreadable.items()),
                    learned=digest(reader.zones.reference))


def main() -> None:
    from referee_app.games.dice import DiceAdapter

    dump("highway-dice", lambda reuse: DiceAdapter(reuse=reuse), observation, __doc__.splitlines()[0])


if __name__ == "__main__":
    main()
