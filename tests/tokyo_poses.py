"""Camera placements the Tokyo Highway tests rebuild their simulated scenes with."""

from __future__ import annotations

from datasets.match_sim.core import SecondCamera

# camera 2 at camera 1's height (550 mm), where these scenes were found; the simulator's default now
# stands it 200 mm higher (SecondCamera.RAISE_MM)
AT_550 = SecondCamera(150.0, 550.0)
