"""Benchmark of the Highway dice-road engine on one core.

1. Judged actions per second on random games (legal and illegal actions mixed): in the referee
   loop (judge, then apply: states hand unchanged road statuses on), and on cold states (every road
   status recomputed: the worst case), against a naive judge that enumerates every legal action and
   checks membership.
2. Complete random 4-player games per second (random legal plays until someone reaches the centre),
   against the same games played with a deep copy of the state before every apply.

Usage: python bench/dice_engine.py [--games 40] [--sample 4000] [--seed 1]
"""

from __future__ import annotations

import argparse
import copy
import random
import time

from engine.core import step
from engine.dice_road import DiceState, Play, Reclaim, Roll, new_state


def _policy(state: DiceState, rng: random.Random):
    if state.roll is None:
        if rng.random() < 0.03:
            block = state.oldest_block(state.turn)
            if block is not None:
                return Reclaim(block.cell)
        return Roll(rng.randint(1, 6), rng.randint(1, 6))
    uses = state.legal_uses()
    if uses:
        use = rng.choice(uses)
        rest = list(state.roll)
        if use.source == "roll":
            rest.remove(use.die)
        return use.action(rng.choice([None, *rest]))
    return Play(store=rng.choice([None, *state.roll]))


def _record(n: int, rng: random.Random) -> list[tuple[int, list]]:
    """Random games as (players, actions): the policy's legal actions, and in half of the plays a
    die put on a random cell instead (mostly illegal: the turn is lost). About n actions in all."""
    games: list[tuple[int, list]] = []
    total = 0
    while total < n:
        players = rng.choice([2, 3, 4])
        state = new_state(players)
        cells = sorted(state.board.cells)
        actions = []
        while not state.is_terminal() and total < n:
            action = _policy(state, rng)
            if state.roll is not None and rng.random() < 0.5:
                pool = state.pools[state.turn]
                dice = [(v, False) for v in state.roll] + ([(pool, True)] if pool else [])
                die, from_pool = rng.choice(dice)
                action = Play(die, rng.choice(cells), None, from_pool)
            actions.append(action)
            state = state.apply(action)
            total += 1
        games.append((players, actions))
    return games


def _sample(games: list[tuple[int, list]]) -> list[tuple[DiceState, object]]:
    """Every (position, action) pair of the recorded games."""
    out = []
    for players, actions in games:
        state = new_state(players)
        for action in actions:
            out.append((state, action))
            state = state.apply(action)
    return out


def referee_loop(games: list[tuple[int, list]]) -> tuple[float, float]:
    """Replay the games as the referee does (judge, then apply with that verdict): judged actions
    per second counting judge time only, and judge-plus-apply steps per second."""
    judge_time = 0.0
    n = 0
    t0 = time.perf_counter()
    clock = time.perf_counter
    for players, actions in games:
        state = new_state(players)
        for action in actions:
            t = clock()
            verdict = state.judge(action)
            judge_time += clock() - t
            state = state.apply(action, verdict)
            n += 1
    return n / judge_time, n / (time.perf_counter() - t0)


def _cold(state: DiceState) -> DiceState:
    state._memo.clear()
    return state


def _rate(sample: list, repeats: int) -> float:
    t0 = time.perf_counter()
    for _ in range(repeats):
        for state, action in sample:
            _cold(state).judge(action)
    return repeats * len(sample) / (time.perf_counter() - t0)


def _naive_rate(sample: list) -> float:
    t0 = time.perf_counter()
    for state, action in sample:
        _ = action in set(_cold(state).legal_actions())  # the naive judge: enumerate, then look up
    return len(sample) / (time.perf_counter() - t0)


def bench_games(games: int, seed: int, deep_copy: bool) -> tuple[float, float]:
    rng = random.Random(seed)
    actions = 0
    t0 = time.perf_counter()
    for _ in range(games):
        state = new_state(4)
        while not state.is_terminal():
            action = _policy(state, rng)
            if deep_copy:
                state = copy.deepcopy(state)
            state, _ = step(state, action)
            actions += 1
    dt = time.perf_counter() - t0
    return games / dt, actions / games


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--sample", type=int, default=8000, help="actions recorded from random games")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    games = _record(args.sample, random.Random(args.seed))
    loop_judge, loop_steps = max(referee_loop(games) for _ in range(args.repeats))
    print(f"judged actions/s in the referee loop:      {loop_judge:12,.0f}")
    print(f"judge + apply steps/s in the referee loop: {loop_steps:12,.0f}")
    sample = _sample(games)
    plays = [(s, a) for s, a in sample if isinstance(a, Play)]
    print(f"judged actions/s, all kinds (cold state):  {_rate(sample, args.repeats):12,.0f}")
    fast, naive = _rate(plays, args.repeats), _naive_rate(plays[: max(1, len(plays) // 5)])
    print(f"judged plays/s (cold state):               {fast:12,.0f}")
    print(f"naive judge of plays by enumeration, /s:   {naive:12,.0f}")
    print(f"ratio judge / naive:                       {fast / naive:12.1f}x")
    g_fast, per_game = bench_games(args.games, args.seed, deep_copy=False)
    g_naive, _ = bench_games(max(1, args.games // 4), args.seed, deep_copy=True)
    print(f"random 4-player games/s:                   {g_fast:12.1f}  ({per_game:.0f} actions a game)")
    print(f"games/s with deep-copy apply (baseline):   {g_naive:12.1f}")
    print(f"ratio games / deep-copy games:             {g_fast / g_naive:12.1f}x")


if __name__ == "__main__":
    main()
