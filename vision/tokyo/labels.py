"""Connected components with their statistics, labelled the quicker way.

OpenCV's default labelling for 8-connectivity (Spaghetti) spends about 7 ms on the statistics of a
720p mask however little it holds, against 2 ms for the labels alone; Grana's block-based decision
tree (CCL_GRANA) gives the same labels, in the same order, and the same statistics and centroids in
about 3 ms (vision/route_dice/reader.py labels its dice so too). The Tokyo reader labels several
frame-sized masks a view.
"""

from __future__ import annotations

import cv2
import numpy as np


def components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """`cv2.connectedComponentsWithStats(mask)` (8-connectivity, int32 labels): count, labels, stats,
    centroids."""
    n, labels, stats, centroids = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S,
                                                                                cv2.CCL_GRANA)
    return n, labels, stats, centroids
