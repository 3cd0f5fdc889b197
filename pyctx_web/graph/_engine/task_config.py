"""The config a task runs with, as LangGraph gives it to a node: ``get_config()`` in a node.

LangGraph gives each task the run's config made its own: the ``configurable`` gets
the task's namespace (``checkpoint_ns``, ``"node:task_id"``, under the caller's for a
subgraph's node or a ``@task`` call), the checkpoint each enclosing graph runs from
(``checkpoint_map``) and ``checkpoint_id`` ``None``; the ``metadata`` gets the
run's ``thread_id`` (and the other :data:`PROPAGATED` entries of the
``configurable``) and the task's ``langgraph_step``, ``langgraph_node``,
``langgraph_triggers``, ``langgraph_path`` and ``langgraph_checkpoint_ns``; the
config's ``run_id`` and ``run_name`` name the run, not the task, and are left out.

A task's config is made the first time something asks for it (a node's ``config``
parameter, ``get_config()``, a subgraph, the ``messages`` stream), then kept on its
frame: a node that asks for nothing costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, Protocol

from pyctx_web.context import AsyncLocalStorage
from pyctx_web.graph._engine.frames import current_task
from pyctx_web.graph._engine.options import NAMESPACE_SEPARATOR

if TYPE_CHECKING:
    from pyctx_web.graph._engine.frames import Run, TaskFrame

__all__ = [
    "PROPAGATED",
    "ConfiguredCall",
    "call_config",
    "node_config",
    "run_config",
    "running_call",
    "task_config",
    "visible_config",
]

PROPAGATED: Final = (
    "thread_id",
    "checkpoint_id",
    "checkpoint_ns",
    "task_id",
    "run_id",
    "assistant_id",
    "graph_id",
)
"""The ``configurable`` entries a run's ``metadata`` gets, when set and not there yet."""

_RUN_ONLY: Final = frozenset({"run_id", "run_name"})
"""Config entries that name the run: a task's config leaves them out."""


class ConfiguredCall(Protocol):
    """A ``@task`` call whose body runs: the config it runs with."""

    @property
    def frame(self) -> TaskFrame:
        """The node (or entrypoint) task the call belongs to."""
        ...

    def task_config(self) -> dict[str, Any]:
        """The call's config (:func:`call_config`), made once."""
        ...


running_call: AsyncLocalStorage[ConfiguredCall] = AsyncLocalStorage(
    name="pyctx_web.graph.func.call"
)
"""The ``@task`` call whose body runs (unset in a node's own code)."""


def run_config(run: Run) -> dict[str, Any]:
    """The config of ``run`` outside its tasks (a router): as given, with its thread, a
    ``metadata`` and its ``run_id``."""
    config = dict(run.config)
    configurable = dict(config.get("configurable") or {})
    configurable.setdefault("thread_id", _thread(run))
    configurable.setdefault("checkpoint_ns", "")
    config["configurable"] = configurable
    config["metadata"] = dict(config.get("metadata") or {})
    config.setdefault("run_id", run.run_id)
    return config


def _thread(run: Run) -> str | None:
    # A subgraph's checkpoints are kept under the thread and its namespace: the thread first.
    thread = run.thread_id
    return None if thread is None else thread.split(NAMESPACE_SEPARATOR, 1)[0]


def task_config(frame: TaskFrame) -> dict[str, Any]:
    """The config of ``frame``'s task (see the module), made once; not to be changed."""
    made = frame.config
    if made is None:
        from pyctx_web.graph._engine.records import NO_ARG  # run machinery: loaded by a run

        run, task = frame.run, frame.task
        own = f"{task.name}:{task.id}"
        pushed = task.arg is not NO_ARG
        made = _config(
            run,
            checkpoint_map={**(run.parents or {}), run.checkpoint_ns: frame.checkpoint_id},
            node=task.name,
            # A Send's position among the step's Sends is not known here: 0 is the first's.
            path=("__pregel_push", 0, False) if pushed else ("__pregel_pull", task.name),
            triggers=("__pregel_push",) if pushed else (f"branch:to:{task.name}",),
            namespace=f"{run.checkpoint_ns}|{own}" if run.checkpoint_ns else own,
        )
        frame.config = made
    return made


def _config(
    run: Run,
    *,
    checkpoint_map: dict[str, str],
    node: str,
    path: tuple[Any, ...],
    triggers: tuple[str, ...],
    namespace: str,
) -> dict[str, Any]:
    given = run.config
    config = {key: value for key, value in given.items() if key not in _RUN_ONLY}
    configurable = dict(given.get("configurable") or {})
    if "thread_id" not in configurable and run.thread_id is not None:
        configurable = {"thread_id": _thread(run), **configurable}
    metadata = dict(given.get("metadata") or {})
    for key in PROPAGATED:
        value = configurable.get(key)
        if value and key not in metadata:
            metadata[key] = value
    metadata.update(
        langgraph_step=run.step,
        langgraph_node=node,
        langgraph_triggers=triggers,
        langgraph_path=path,
        langgraph_checkpoint_ns=namespace,
    )
    configurable.update(checkpoint_map=checkpoint_map, checkpoint_id=None, checkpoint_ns=namespace)
    config["configurable"] = configurable
    config["metadata"] = metadata
    return config


def call_config(caller: dict[str, Any], name: str, call_id: str, key: str) -> dict[str, Any]:
    """The config of the ``@task`` call ``key`` (``"2"``, ``"2.0"``) made by the node or call
    whose config is ``caller``: a task of its own, pushed by its caller, in its namespace."""
    index = int(key.rsplit(".", 1)[-1])
    configurable = caller["configurable"]
    metadata = caller["metadata"]
    namespace = f"{configurable['checkpoint_ns']}|{name}:{call_id}"
    # The call runs from its caller's checkpoint, under the caller's namespace too.
    checkpoint_map = dict(configurable["checkpoint_map"])
    checkpoint_map[configurable["checkpoint_ns"]] = checkpoint_map[_last(checkpoint_map)]
    return {
        **caller,
        "configurable": {
            **configurable,
            "checkpoint_map": checkpoint_map,
            "checkpoint_ns": namespace,
        },
        "metadata": {
            **metadata,
            "langgraph_node": name,
            "langgraph_triggers": ("__pregel_push",),
            "langgraph_path": ("__pregel_push", metadata["langgraph_path"], index, True),
            "langgraph_checkpoint_ns": namespace,
        },
    }


def _last(checkpoint_map: dict[str, str]) -> str:
    return next(reversed(checkpoint_map))


def visible_config(run: Run) -> dict[str, Any]:
    """The config the code running now sees, as ``get_config()`` gives it: its ``@task``
    call's, its task's, or (outside a task) the run's; a copy, so changing it changes nothing."""
    call = running_call.get_store()
    if call is not None and call.frame.run is run:
        return _copy(call.task_config())
    frame = current_task.get_store()
    if frame is not None and frame.run is run:
        return node_config(frame)
    return run_config(run)


def node_config(frame: TaskFrame) -> dict[str, Any]:
    """A copy of ``frame``'s task config, as a node's ``config`` parameter gets it."""
    return _copy(task_config(frame))


def _copy(config: dict[str, Any]) -> dict[str, Any]:
    return {
        **config,
        "configurable": dict(config["configurable"]),
        "metadata": dict(config["metadata"]),
    }
