"""The move decoder: vision only chooses among the moves that could have happened.

Readers report per-item beliefs (vision.beliefs); evidence.py averages them over the usable frames;
each game's adapter enumerates the candidate changes from the engine's state (candidates.py), legal
and illegal alike; decide.py scores them and commits, asks, flags or waits. See docs/referee.md.
"""
