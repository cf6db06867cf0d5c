"""Joint column heights: a road's two grey columns differ by one unit, used as a soft prior."""

from __future__ import annotations

import numpy as np

from vision.tokyo.columns import ColumnFit
from vision.tokyo.joint_heights import choose_heights, road_edges


def _fit(ends: list[tuple[int, int]], scores: list[float]) -> ColumnFit:
    options = [(s, h + 1, 0.0, 0.0, np.zeros(2)) for h, s in enumerate(scores)]
    best = int(np.argmax(scores))
    return ColumnFit(ends, np.zeros(2), best + 1, 0.0, 0.0, max(scores), 0.0, options)


def test_uncertain_column_follows_its_road_neighbour() -> None:
    # column 0 is clearly 3 high; column 1 cannot tell 3 from 4 (3 a hair ahead): the road says 4 or 2
    fits = [_fit([(0, 0)], [0.2, 0.3, 0.95, 0.3]), _fit([(0, 1)], [0.2, 0.3, 0.81, 0.80])]
    picks = choose_heights(fits, [False, False])
    assert [fits[k].options[p][1] for k, p in enumerate(picks)] == [3, 4]


def test_strong_evidence_beats_the_prior_and_junctions_are_free() -> None:
    fits = [_fit([(0, 0)], [0.2, 0.3, 0.95, 0.3]), _fit([(0, 1)], [0.2, 0.3, 0.95, 0.4])]
    picks = choose_heights(fits, [False, False])
    assert [fits[k].options[p][1] for k, p in enumerate(picks)] == [3, 3]
    weak = [_fit([(0, 0)], [0.2, 0.3, 0.95, 0.3]), _fit([(0, 1)], [0.2, 0.3, 0.81, 0.80])]
    assert road_edges(weak, [True, False]) == []
    picks = choose_heights(weak, [True, False])
    assert [weak[k].options[p][1] for k, p in enumerate(picks)] == [3, 3]


def test_chain_is_settled_as_a_whole() -> None:
    # three roads in a chain, sure ends 2 and 3; each middle column alone leans to 2 by a hair
    fits = [
        _fit([(0, 0)], [0.1, 0.9, 0.1, 0.1]),
        _fit([(0, 1), (1, 0)], [0.1, 0.52, 0.5, 0.1]),
        _fit([(1, 1), (2, 0)], [0.1, 0.5, 0.49, 0.1]),
        _fit([(2, 1)], [0.1, 0.1, 0.9, 0.1]),
    ]
    assert road_edges(fits, [False] * 4) == [(0, 1), (1, 2), (2, 3)]
    alone = choose_heights(fits, [False] * 4, penalty=0.0)
    assert [fits[k].options[p][1] for k, p in enumerate(alone)] == [2, 2, 2, 3]
    picks = choose_heights(fits, [False] * 4)
    assert [fits[k].options[p][1] for k, p in enumerate(picks)] == [2, 3, 2, 3]
