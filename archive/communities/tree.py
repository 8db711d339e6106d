"""The tree's shape, pure: communities as a map of id → parent id (None at the top).

>>> parents = {1: None, 2: 1, 3: 2}
>>> makes_cycle(1, 3, parents), makes_cycle(3, 1, parents), makes_cycle(2, 2, parents)
(True, False, True)
>>> sorted(descendants(1, parents)), sorted(descendants(3, parents))
([1, 2, 3], [3])
"""
from __future__ import annotations

from collections.abc import Mapping


def makes_cycle(node: int | None, parent: int | None, parents: Mapping[int, int | None]) -> bool:
    """Whether giving `node` the parent `parent` would make it its own ancestor (a new
    node, None, never does)."""
    seen = set()
    while parent is not None and parent not in seen:
        if parent == node:
            return True
        seen.add(parent)
        parent = parents.get(parent)
    return False


def descendants(node: int, parents: Mapping[int, int | None]) -> set[int]:
    """`node` and every community under it."""
    children: dict[int | None, list[int]] = {}
    for child, parent in parents.items():
        children.setdefault(parent, []).append(child)
    found, todo = set(), [node]
    while todo:
        current = todo.pop()
        if current not in found:
            found.add(current)
            todo.extend(children.get(current, ()))
    return found
