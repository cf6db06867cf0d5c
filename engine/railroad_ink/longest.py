"""Longest highway / railway under both readings of the seed's "a square may count twice".

The graph for one route kind has a node per square showing that kind and an edge between two
adjacent squares whose facing sides are both that kind.

* ``trail`` (default, the seed's reading): the most connections in a walk that never reuses a
  connection, plus one. A square entered again by another connection counts again.
* ``path``: the most distinct squares on a path that never revisits a square.

Trees (most components) are solved by two sweeps (both readings agree there). Components with
cycles are compressed: squares with two connections are folded into chains between branch squares,
and a depth-first search runs over the few chains that remain, pruned by an upper bound.
"""

from __future__ import annotations

from collections.abc import Sequence

READINGS = ("trail", "path")


def longest_route(adj: dict[int, list[int]], reading: str = "trail", trace: bool = False
                  ) -> tuple[int, list[int]]:
    """The longest route's length in squares and (with trace=True) the squares along it in order."""
    best, best_route = 0, []
    seen: set[int] = set()
    for start in adj:
        if start in seen:
            continue
        comp = _component(adj, start)
        seen.update(comp)
        size = len(comp)
        if size <= best and reading == "path":
            continue  # a path cannot be longer than its component
        edges = sum(len(adj[n]) for n in comp) // 2
        if edges == size - 1:  # a tree: both readings are its diameter
            if size <= best:
                continue
            if size <= 2:
                value, route = size, comp
            else:
                value, route = _tree_diameter(adj, start, trace)
        elif reading == "trail":
            if edges + 1 <= best:
                continue  # a trail cannot use more connections than its component has
            value, route = _longest_trail(adj, comp, edges, trace)
        else:
            value, route = _longest_path(adj, comp, trace)
        if value > best:
            best, best_route = value, route
    return best, best_route


def _component(adj: dict[int, list[int]], start: int) -> list[int]:
    comp = [start]
    mark = {start}
    i = 0
    while i < len(comp):
        for m in adj[comp[i]]:
            if m not in mark:
                mark.add(m)
                comp.append(m)
        i += 1
    return comp


def _far(adj: dict[int, list[int]], start: int) -> tuple[int, dict[int, int]]:
    parent = {start: start}
    frontier = [start]
    last = start
    while frontier:
        nxt = []
        for n in frontier:
            for m in adj[n]:
                if m not in parent:
                    parent[m] = n
                    nxt.append(m)
        if nxt:
            last = nxt[0]
        frontier = nxt
    return last, parent


def _tree_diameter(adj: dict[int, list[int]], start: int, trace: bool) -> tuple[int, list[int]]:
    a, _ = _far(adj, start)
    b, parent = _far(adj, a)
    route = [b]
    while route[-1] != a:
        route.append(parent[route[-1]])
    return len(route), route if trace else []


def _chains(adj: dict[int, list[int]], comp: Sequence[int]
            ) -> tuple[list[int], list[tuple[int, int, list[int]]]]:
    """Branch squares (not exactly two connections) and the chains between them: (a, b, squares a..b)."""
    branch = [n for n in comp if len(adj[n]) != 2]
    if not branch:  # a plain loop: cut it open at one square
        branch = [comp[0]]
    is_branch = set(branch)
    used: set[tuple[int, int]] = set()
    chains = []
    for b in branch:
        for first in adj[b]:
            if (b, first) in used:
                continue
            squares = [b, first]
            prev, cur = b, first
            while cur not in is_branch:
                n0, n1 = adj[cur]
                prev, cur = cur, (n1 if n0 == prev else n0)
                squares.append(cur)
            used.add((b, first))
            used.add((cur, prev))
            chains.append((b, cur, squares))
    return branch, chains


def _longest_trail(adj: dict[int, list[int]], comp: Sequence[int], edges: int, trace: bool
                   ) -> tuple[int, list[int]]:
    """The heaviest connected set of chains with at most two odd squares (Euler: exactly the sets a
    single walk can cover). Search by taking chains away at odd squares, pruned by a parity bound."""
    branch, chains = _chains(adj, comp)
    weight = [len(sq) - 1 for _, _, sq in chains]
    inc: dict[int, list[int]] = {b: [] for b in branch}
    for i, (a, b, _) in enumerate(chains):
        inc[a].append(i)
        if b != a:
            inc[b].append(i)
    odd0 = frozenset(b for b in branch if len(adj[b]) % 2)
    best: list = [-1, 0]  # weight, removed-chains mask of the best
    seen: set[tuple[int, frozenset[int]]] = set()

    def components(removed: int) -> tuple[int, int]:
        parent = {b: b for b in branch}

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for i, (a, b, _) in enumerate(chains):
            if not removed >> i & 1:
                parent[find(a)] = find(b)
        total: dict[int, int] = {}
        for i, (a, _, _) in enumerate(chains):
            if not removed >> i & 1:
                r = find(a)
                total[r] = total.get(r, 0) + weight[i]
        if not total:
            return 0, branch[0]
        root = max(total, key=total.__getitem__)
        return total[root], root

    def search(removed: int, left: int, odd: frozenset[int], ends: frozenset[int]) -> None:
        key = (removed, ends)
        if key in seen:
            return
        seen.add(key)
        open_odd = odd - ends
        need = max(0, len(open_odd) - (2 - len(ends)))
        if left - (need + 1) // 2 <= best[0]:
            return  # each chain taken away fixes at most two odd squares
        if not open_odd:
            value, _ = components(removed)
            if value > best[0]:
                best[0], best[1] = value, removed
            return
        v = min(open_odd, key=lambda n: sum(1 for i in inc[n] if not removed >> i & 1))
        if len(ends) < 2:
            search(removed, left, odd, ends | {v})
        for i in inc[v]:
            if removed >> i & 1:
                continue
            a, b, _ = chains[i]
            search(removed | 1 << i, left - weight[i], odd ^ {a, b}, ends)

    search(0, sum(weight), odd0, frozenset())
    route: list[int] = []
    if trace:
        route = _euler_route(chains, best[1], components(best[1])[1], inc)
    return best[0] + 1, route


def _euler_route(chains: list[tuple[int, int, list[int]]], removed: int, root: int,
                 inc: dict[int, list[int]]) -> list[int]:
    """Hierholzer's walk over the kept chains of `root`'s component, as squares in order."""
    kept = {i for i in range(len(chains)) if not removed >> i & 1}
    comp = {root}
    grew = True
    while grew:
        grew = False
        for i in kept:
            a, b, _ = chains[i]
            if (a in comp) != (b in comp):
                comp |= {a, b}
                grew = True
    kept = {i for i in kept if chains[i][0] in comp}
    degree = {n: 0 for n in comp}
    for i in kept:
        degree[chains[i][0]] += 1
        degree[chains[i][1]] += 1
    start = next((n for n in sorted(comp) if degree[n] % 2), root)
    unused = set(kept)
    stack: list[tuple[int, int | None]] = [(start, None)]
    walk: list[tuple[int, int | None]] = []
    while stack:
        node, via = stack[-1]
        nxt = next((i for i in inc[node] if i in unused), None)
        if nxt is None:
            walk.append(stack.pop())
            continue
        unused.discard(nxt)
        a, b, _ = chains[nxt]
        stack.append((b if a == node else a, nxt))
    walk.reverse()
    route = [walk[0][0]] if walk else [root]
    for k in range(1, len(walk)):
        node, via = walk[k]
        assert via is not None
        sq = chains[via][2]
        sq = sq if sq[0] == walk[k - 1][0] else sq[::-1]
        route.extend(sq[1:])
    return route


def _longest_path(adj: dict[int, list[int]], comp: Sequence[int], trace: bool) -> tuple[int, list[int]]:
    branch, chains = _chains(adj, comp)
    inc: dict[int, list[tuple[int, int, int]]] = {b: [] for b in branch}
    for i, (a, b, sq) in enumerate(chains):
        inc[a].append((i, b, len(sq) - 2))  # interior squares of the chain
        if b != a:
            inc[b].append((i, a, len(sq) - 2))
    total = len(comp)
    best: list = [0, None]

    def ends(node: int, visited: set[int], used: int) -> list[tuple[int, int]]:
        # chains from an end of the path into squares it can still take: the far end is already on
        # the path (or is the same square), so the path stops inside the chain
        return [(inner, i) for i, other, inner in inc[node]
                if inner and not used >> i & 1 and other in visited]

    def dfs(start: int, node: int, visited: set[int], used: int, length: int, seq: tuple) -> bool:
        a = ends(start, visited, used)
        b = ends(node, visited, used) if node != start or seq else a
        extra, pick = 0, ((), ())
        for x in a or [(0, -1)]:
            for y in b or [(0, -1)]:
                if x[1] == y[1] and x[1] >= 0:
                    gain, choice = x[0], ((x[1], start), ())
                else:
                    gain, choice = x[0] + y[0], ((x[1], start) if x[1] >= 0 else (),
                                                 (y[1], node) if y[1] >= 0 else ())
                if gain > extra:
                    extra, pick = gain, choice
        if length + extra > best[0]:
            best[0], best[1] = length + extra, (start, seq, pick)
            if best[0] >= total:
                return True
        for i, other, inner in inc[node]:
            if not used >> i & 1 and other not in visited:
                visited.add(other)
                if dfs(start, other, visited, used | 1 << i, length + inner + 1, seq + ((i, node),)):
                    return True
                visited.discard(other)
        return False

    for b in branch:
        if dfs(b, b, {b}, 0, 1, ()):
            break
    route: list[int] = []
    if trace and best[1] is not None:
        start, seq, (head, tail) = best[1]
        route = [start]
        for i, frm in seq:
            sq = chains[i][2]
            sq = sq if sq[0] == frm else sq[::-1]
            route.extend(sq[1:])
        if head:
            sq = chains[head[0]][2]
            sq = sq if sq[0] == start else sq[::-1]
            route = sq[1:-1][::-1] + route
        if tail:
            sq = chains[tail[0]][2]
            sq = sq if sq[0] == route[-1] else sq[::-1]
            route = route + sq[1:-1]
    return best[0], route
