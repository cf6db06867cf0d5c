# ruff: noqa  (measurement scripts of branch tokyospeed, kept as run)
import collections
import sys
import time

from referee_app.commands import eval_match as em
from referee_app.games import tokyo as tk
from referee_app.games import tokyo_reuse as tr

LAST = {}
_settle = tr.StillViews.settle
def settle(self, camera, image):
    before = self._kept.get(camera)
    out = _settle(self, camera, image)
    LAST[camera] = "same" if (before is not None and out[0] is before[0]) else "new"
    return out
tr.StillViews.settle = settle
RT = [0]
_rt = tk.TokyoAdapter._read_table
def rt(self, *a, **k):
    RT[0] += 1
    return _rt(self, *a, **k)
tk.TokyoAdapter._read_table = rt
import vision.tokyo.stereo as st

VR = [0]
_rtk = st.read_tokyo
def rtk(*a, **k):
    VR[0] += 1
    return _rtk(*a, **k)
st.read_tokyo = rtk
C = collections.Counter()
_read = tk.TokyoAdapter.read
def read(self, frame):
    LAST.clear(); RT[0] = 0; VR[0] = 0
    t = time.process_time()
    o = _read(self, frame)
    dt = time.process_time() - t
    key = (tuple(sorted(LAST.items())), RT[0], VR[0], bool(o.blocked), self._remembered.settled)
    C[key] += 1; C[("cpu",) + key] += dt
    return o
tk.TokyoAdapter.read = read
from datasets.match_sim.core import SecondCamera

setup = em.make_setup("1280x720", 550, 40, "normal", False, em.LENS_DEG.get("tokyo-highway", 70.0),
                      None, 2, SecondCamera(SecondCamera.around_deg, None, None))
res = em.run_match(em.simulate("tokyo-highway", int(sys.argv[1]), setup))
for k, v in sorted(C.items(), key=str):
    if k[0] != "cpu": print(k, v, round(C[("cpu",) + k], 2))
