"""Reading a few labelled real photos with a dice reader: what the photo tests count."""

from __future__ import annotations

from typing import Any

import numpy as np

from vision.realdata import greedy_match, iou_matrix


def count_read(reader: Any, labels: Any, photos: tuple[str, ...]) -> tuple[int, int, int]:
    """(labelled dice, found at IoU 0.5, found and read with the labelled value) over `photos`, the
    label file's photos by name; the ones this copy of the data lacks count nothing."""
    from vision.sources import read_image

    labelled = found = right = 0
    for item in labels.items:
        if item.image not in photos:
            continue
        gt = np.array([o.bbox for o in item.objects], np.float64)
        det = reader.read(read_image(labels.path(item)))
        pairs = greedy_match(iou_matrix(gt, det.xyxy), 0.5)
        labelled += len(gt)
        found += len(pairs)
        right += sum(item.objects[i].value == int(det.values[j]) for i, j in pairs)
    return labelled, found, right
