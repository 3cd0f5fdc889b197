"""Planning a step: which tasks follow the nodes that finished, from edges, routers and goto."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pyctx_web.context import is_awaitable
from pyctx_web.graph._engine.records import TaskResult, TaskSpec, stable_id
from pyctx_web.graph._engine.spec import Branch, GraphSpec
from pyctx_web.graph._engine.values import Send
from pyctx_web.graph.constants import END
from pyctx_web.graph.errors import InvalidUpdateError

__all__ = ["Planner"]


@dataclass(frozen=True, slots=True)
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

    async def _route(self, branch: Branch, values: dict[str, Any]) -> list[str | Send]:
        chosen = branch.router(self.spec.schema.to_state(values, branch.source))
        if is_awaitable(chosen):
            chosen = await chosen
        items = list(chosen) if isinstance(chosen, list | tuple) else [chosen]
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

    async def plan(
        self, checkpoint_id: str, finished: Sequence[tuple[str, TaskResult]], values: dict[str, Any]
    ) -> tuple[TaskSpec, ...]:
        """The tasks that follow ``finished`` (node name, result) once ``values`` hold."""
        targets: list[str | Send] = []
        for name, result in finished:
            targets.extend(self.spec.edges.get(name, ()))
            for branch in self.spec.branches.get(name, ()):
                targets.extend(await self._route(branch, values))
            targets.extend(result.goto)
        tasks: list[TaskSpec] = []
        pulled: set[str] = set()
        for target in targets:
            if isinstance(target, Send):
                task_id = stable_id(checkpoint_id, "push", len(tasks), target.node)
                tasks.append(TaskSpec(task_id, target.node, target.arg))
            elif target != END and target not in pulled:
                pulled.add(target)
                tasks.append(TaskSpec(stable_id(checkpoint_id, "pull", target), target))
        return tuple(tasks)
