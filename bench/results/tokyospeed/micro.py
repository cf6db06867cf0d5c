# ruff: noqa  (measurement scripts of branch tokyospeed, kept as run)
import time

import numpy as np

import vision.tokyo.piece_evidence as pe
from vision.tokyo.under_roads import RoadPixels

rng = np.random.default_rng(3)
H, W = 40, 30
big = [(rng.standard_normal((360, 640)) * 2).astype(np.float32) for _ in range(3)]
maps = pe.PieceMaps(*big)
win = (slice(100, 100 + H), slice(200, 200 + W))
mk = lambda p: rng.random((H, W)) < p
fp = pe.Footprint(win, mk(.2), mk(.2), mk(.15), mk(.05), mk(.3), mk(.25), mk(.05), mk(.02))
label = (rng.random((360, 640)) * 4).astype(np.uint16); label[rng.random(label.shape) < .7] = 0
count = np.bincount(label.ravel(), minlength=4).astype(np.float64)
roads = RoadPixels(label, count * 0.3, count)
yk = rng.random((360, 640)) < 0.1
orig = pe._compiled_sums
for name, f in (("compiled", orig), ("numpy", lambda: None)):
    pe._compiled_sums = f
    for _ in range(200): pe.footprint_scores(maps, fp, (False, True), roads, yk)
    t = time.process_time()
    for _ in range(3000): pe.footprint_scores(maps, fp, (False, True), roads, yk)
    print(name, "%.1f us" % ((time.process_time() - t) / 3000 * 1e6))
    t = time.process_time()
    for _ in range(3000): pe.footprint_scores(maps, fp, (False,), None, None)
    print(name, "plain no roads %.1f us" % ((time.process_time() - t) / 3000 * 1e6))
pe._compiled_sums = orig
from vision.tokyo import score_jit as sj

s = sj.compiled_sums()
args = None
t = time.process_time()
for _ in range(3000): sj.candidate_sums(s, maps, fp, True, roads, yk)
print("candidate_sums %.1f us" % ((time.process_time() - t) / 3000 * 1e6))
