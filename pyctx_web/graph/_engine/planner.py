"""Planning a step: which tasks follow the nodes that finished, from edges, routers and goto."""

from __future__ import annotations

from collections.abc import Awaitable, Coroutine, Mapping, Sequence
from typing import Any, Final, TypeAlias

from pyctx_web._records import record
from pyctx_web.context import is_awaitable
from pyctx_web.graph._engine.records import TaskResult, TaskSpec, pull_task_id, task_id
from pyctx_web.graph._engine.spec import Branch, GraphSpec
from pyctx_web.graph._values import Send
from pyctx_web.graph.constants import END
from pyctx_web.graph.errors import InvalidUpdateError

__all__ = ["DEFERRED", "Planned", "Planner"]

DEFERRED: Final = "__defer__"
"""The barrier that holds ``defer=True`` nodes until nothing else is left to run."""

Planned: TypeAlias = tuple[tuple[TaskSpec, ...], dict[str, list[str]]]
"""A next step's tasks and the barriers after it."""


@record(frozen=True, slots=True)
class Planner:
    """Plans the tasks of a graph's next step."""

    spec: GraphSpec
    """The graph."""

    def _check_target(self, source: str, target: Any, what: str) -> None:
        if isinstance(target, str) and (target in self.spec.nodes or target == END):
            return
        known = ", ".join(repr(n) for n in self.spec.nodes)
        raise InvalidUpdateError(
            f"{what} of {source!r} chose {target!r}, which is not a node (known nodes: {known})",
            node=source,
        )

    def goto_list(self, node: str, goto: Any) -> list[str | Send]:
        """Normalise ``Command(goto=...)`` of ``node`` to a checked list."""
        if goto is None:
            return []
        items = [goto] if isinstance(goto, str | Send) else list(goto)
        for item in items:
            target = item.node if isinstance(item, Send) else item
            self._check_target(node, target, "Command(goto=...)")
        return items

    def _targets(self, branch: Branch, chosen: Any) -> list[str | Send]:
        """The checked targets of what the router of ``branch`` returned (awaited)."""
        items = list(chosen) if isinstance(chosen, (list, tuple)) else [chosen]
        out: list[str | Send] = []
        for item in items:
            if isinstance(item, Send):
                self._check_target(branch.source, item.node, "the router")
                out.append(item)
                continue
            if branch.path_map is not None:
                if item not in branch.path_map:
                    keys = ", ".join(repr(k) for k in branch.path_map)
                    raise InvalidUpdateError(
                        f"the router of {branch.source!r} returned {item!r}, which its path_map "
                        f"does not map (keys: {keys})",
                        node=branch.source,
                    )
                item = branch.path_map[item]
            self._check_target(branch.source, item, "the router")
            out.append(item)
        return out

    def joined(
        self, names: Sequence[str], barriers: Mapping[str, Sequence[str]]
    ) -> tuple[list[str], dict[str, list[str]]]:
        """The targets of ``add_edge([a, b], c)`` joins that ``names`` complete, and the
        sources each join has seen since it last fired."""
        seen = {key: list(sources) for key, sources in barriers.items()}
        fired: list[str] = []
        for join in self.spec.joins:
            key = join.key
            for name in names:
                if name in join.sources and name not in seen.setdefault(key, []):
                    seen[key].append(name)
            if set(seen.get(key, ())) == set(join.sources):
                fired.append(join.target)
                seen[key] = []
        return fired, {key: sources for key, sources in seen.items() if sources}

    def _deferred(
        self, targets: list[str | Send], barriers: dict[str, list[str]]
    ) -> tuple[list[str | Send], dict[str, list[str]]]:
        """Hold back ``defer=True`` nodes while any other node is to run.

        The held-back nodes wait in ``barriers[DEFERRED]``; they run in the first
        step that has nothing else to run.
        """
        nodes = self.spec.nodes
        waiting = barriers.pop(DEFERRED, [])
        held = [t for t in targets if isinstance(t, str) and t in nodes and nodes[t].defer]
        if not held and not waiting:
            return targets, barriers
        others = [t for t in targets if t not in held and t != END]
        if others:
            barriers[DEFERRED] = list(dict.fromkeys([*waiting, *held]))
            return others, barriers
        return list(dict.fromkeys([*waiting, *held])), barriers

    async def plan(
        self,
        checkpoint_id: str,
        finished: Sequence[tuple[str, TaskResult]],
        values: dict[str, Any],
        barriers: Mapping[str, Sequence[str]] | None = None,
    ) -> Planned:
        """The tasks that follow ``finished`` (node name, result) once ``values`` hold, and
        the barriers after them: joins (:meth:`joined`) and deferred nodes."""
        routed = self.route(finished, values)
        if not isinstance(routed, list):
            routed = await routed
        return self.tasks(checkpoint_id, finished, routed, barriers)

    def route(
        self, finished: Sequence[tuple[str, TaskResult]], values: dict[str, Any]
    ) -> list[str | Send] | Coroutine[Any, Any, list[str | Send]]:
        """Where ``finished`` go by their edges, routers and ``Command(goto)``, in that order.

        A list when every router answered at once; else a coroutine that awaits the
        router that did not, and goes on (the step of a graph with sync routers makes none).
        """
        targets: list[str | Send] = []
        waiting = self._route(finished, values, targets, 0, 0)
        return targets if waiting is None else self._routed(finished, values, targets, waiting)

    def _route(
        self,
        finished: Sequence[tuple[str, TaskResult]],
        values: dict[str, Any],
        targets: list[str | Send],
        index: int,
        branch_index: int,
    ) -> tuple[int, int, Awaitable[Any]] | None:
        """Add to ``targets`` where ``finished[index:]`` go, from the ``branch_index``-th
        router of the first (its edges are added only from its first router on).

        Stops at a router whose answer is awaitable: its place and that awaitable.
        """
        spec = self.spec
        nodes = spec.nodes
        for i in range(index, len(finished)):
            name, result = finished[i]
            first = branch_index if i == index else 0
            if first == 0:
                targets.extend(spec.edges.get(name, ()))
            branches = spec.branches.get(name, ())
            for j in range(first, len(branches)):
                branch = branches[j]
                chosen = branch.router(spec.schema.to_state(values, branch.source))
                if type(chosen) is str and branch.path_map is None and chosen in nodes:
                    targets.append(chosen)  # what most routers return: the name of a node
                elif is_awaitable(chosen):
                    return i, j, chosen
                else:
                    targets.extend(self._targets(branch, chosen))
            if result.goto:
                targets.extend(result.goto)
        return None

    async def _routed(
        self,
        finished: Sequence[tuple[str, TaskResult]],
        values: dict[str, Any],
        targets: list[str | Send],
        waiting: tuple[int, int, Awaitable[Any]] | None,
    ) -> list[str | Send]:
        """:meth:`route` from a router whose answer is awaited, to the end."""
        while waiting is not None:
            i, j, chosen = waiting
            branch = self.spec.branches[finished[i][0]][j]
            targets.extend(self._targets(branch, await chosen))
            waiting = self._route(finished, values, targets, i, j + 1)
        return targets

    def tasks(
        self,
        checkpoint_id: str,
        finished: Sequence[tuple[str, TaskResult]],
        routed: list[str | Send],
        barriers: Mapping[str, Sequence[str]] | None = None,
    ) -> Planned:
        """The tasks of the step after ``finished``, from where they were :meth:`route`-d and
        the joins they complete, and the barriers after it."""
        targets = routed
        spec = self.spec
        if spec.joins:
            fired, barriers = self.joined([name for name, _ in finished], barriers or {})
            targets = [*fired, *routed]
        if barriers or spec.defers:
            held = {key: list(sources) for key, sources in (barriers or {}).items()}
            targets, barriers = self._deferred(targets, held)
        if len(targets) == 1 and type(only := targets[0]) is str:
            # What most steps plan: one node, or the end.
            one = () if only == END else (TaskSpec(pull_task_id(checkpoint_id, only), only),)
            return one, _copied(barriers) if barriers else {}
        tasks: list[TaskSpec] = []
        pulled: set[str] = set()
        for target in targets:
            if isinstance(target, Send):
                pushed = task_id(checkpoint_id, "push", len(tasks), target.node)
                tasks.append(TaskSpec(pushed, target.node, target.arg))
            elif target != END and target not in pulled:
                pulled.add(target)
                tasks.append(TaskSpec(pull_task_id(checkpoint_id, target), target))
        return tuple(tasks), _copied(barriers)


def _copied(barriers: Mapping[str, Sequence[str]] | None) -> dict[str, list[str]]:
    """A checkpoint's own copy of ``barriers``."""
    if not barriers:
        return {}
    return {key: list(sources) for key, sources in barriers.items()}
