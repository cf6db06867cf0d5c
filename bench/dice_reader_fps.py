"""The Highway dice road reader (`DiceAdapter.read`) on its bundled recording, in process CPU time, the
way bench/run_all.py's loop pass meets it: the models loaded by a first adapter, then a fresh adapter
that has read the first frame reads the first N frames; best and median of R such passes, and how
many crops the learned crop network ran per pass.

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python bench/dice_reader_fps.py [--frames 12] [--passes 3]

It imports the code on PYTHONPATH (nothing of its own), so a checkout of another commit can be
measured with this same script, interleaved with this one (docs/benchmarks/readers.md).
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time


def main() -> None:
    import cv2

    from referee_app.demo import bundled_demos
    from referee_app.games.dice import DiceAdapter
    from vision.learned.onnx_model import OnnxModel

    cv2.setNumThreads(1)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=12)
    ap.add_argument("--passes", type=int, default=3)
    args = ap.parse_args()
    demo = next(d for d in bundled_demos() if d.game == "highway-dice")
    frames = list(itertools.islice(demo.frames(realtime=False), args.frames))
    crops = [0]
    run = OnnxModel.run

    def counted(self: OnnxModel, blob):  # noqa: ANN001, ANN202
        crops[0] += len(blob)
        return run(self, blob)

    OnnxModel.run = counted  # type: ignore[method-assign]
    warm = DiceAdapter()
    for f in [frames[0], *frames]:
        warm.read(f)  # models loaded, sessions made
    fps, ran = [], []
    for _ in range(args.passes):
        adapter = DiceAdapter()
        adapter.read(frames[0])
        crops[0] = 0
        t = time.process_time()
        for f in frames:
            adapter.read(f)
        fps.append(len(frames) / (time.process_time() - t))
        ran.append(crops[0])
    print(f"{len(frames)} frames: best {max(fps):.1f} fps, median {statistics.median(fps):.1f} fps (CPU), "
          f"{ran[0]} network crops a pass")


if __name__ == "__main__":
    main()
