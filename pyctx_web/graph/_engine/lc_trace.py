"""A graph run and its node calls as LangChain chain runs, for the callbacks of a run's config
(imported only then).

When ``invoke(..., config={"callbacks": [...]})`` gives LangChain callbacks (a tracer,
LangSmith's), the run is a chain run named after the graph (or the config's
``run_name``, with its ``run_id``), with its input and its values (or its error); each
node call is a chain run of it named after the node, ended with the node's return value
or its error, and the parent of the LangChain calls the node makes (its models and tools
see the run's callbacks, tags and metadata). A graph run inside a traced node (a
subgraph) is a chain run of that node's. A node's ``TracePolicy`` turns its input and
output into what tracers record; other handlers get them as they are, as in LangGraph.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks.base import BaseCallbackHandler, BaseCallbackManager
from langchain_core.callbacks.manager import CallbackManager, CallbackManagerForChainRun
from langchain_core.runnables.config import var_child_runnable_config
from langchain_core.tracers.base import BaseTracer

from pyctx_web.context import is_awaitable
from pyctx_web.graph._engine.frames import current_task
from pyctx_web.graph.errors import GraphBubbleUp, GraphInterrupt

if TYPE_CHECKING:
    from pyctx_web.graph._engine.frames import Run
    from pyctx_web.graph._engine.spec import NodeSpec

__all__ = ["node_callbacks", "traced_call", "traced_run"]


def _recorded(value: Any, process: Callable[[Any], Any] | None) -> Any:
    return value if process is None else process(value)


def _as_chain_io(value: Any) -> Any:
    """A chain run's inputs and outputs are dicts: anything else goes under ``"output"``."""
    return value if isinstance(value, dict) else {"output": value}


def _handlers(callbacks: Any) -> list[BaseCallbackHandler]:
    if isinstance(callbacks, BaseCallbackManager):
        return list(callbacks.inheritable_handlers)
    return list(callbacks) if isinstance(callbacks, list) else []


def _start(run: Run, node: NodeSpec, arg: Any, parent: Any) -> CallbackManagerForChainRun:
    config = run.config
    metadata = {**(config.get("metadata") or {}), "langgraph_node": node.name}
    metadata["langgraph_step"] = run.step
    manager = CallbackManager.configure(
        parent if parent is not None else config.get("callbacks"),
        inheritable_tags=config.get("tags"),
        inheritable_metadata=metadata,
    )
    # The handlers of the config around the call (the messages stream's) stay with it.
    around = var_child_runnable_config.get()
    for handler in _handlers(around.get("callbacks") if around else None):
        manager.add_handler(handler, inherit=True)
    inputs = _as_chain_io(arg)
    policy = node.trace_policy
    process = getattr(policy, "process_inputs", None)
    if process is None:
        return manager.on_chain_start(None, inputs, name=node.name)
    # Tracers record what the policy makes of the input; other handlers get it whole.
    tracers: list[BaseCallbackHandler] = [h for h in manager.handlers if isinstance(h, BaseTracer)]
    others = manager.copy()
    others.handlers = [h for h in manager.handlers if not isinstance(h, BaseTracer)]
    run_manager = others.on_chain_start(None, inputs, name=node.name)
    recorded = manager.copy()
    recorded.handlers = tracers
    recorded.on_chain_start(
        None, _recorded(inputs, process), name=node.name, run_id=run_manager.run_id
    )
    run_manager.handlers = manager.handlers
    return run_manager


def _end(run_manager: CallbackManagerForChainRun, node: NodeSpec, ret: Any) -> None:
    outputs = _as_chain_io(ret)
    process = getattr(node.trace_policy, "process_outputs", None)
    if process is None:
        run_manager.on_chain_end(outputs)
        return
    handlers = run_manager.handlers
    run_manager.handlers = [h for h in handlers if isinstance(h, BaseTracer)]
    run_manager.on_chain_end(_recorded(outputs, process))
    run_manager.handlers = [h for h in handlers if not isinstance(h, BaseTracer)]
    run_manager.on_chain_end(outputs)
    run_manager.handlers = handlers


def node_callbacks() -> Any:
    """The callbacks of the traced node call the calling code runs in, else ``None``."""
    if current_task.get_store() is None:
        return None
    config = var_child_runnable_config.get()
    return None if config is None else config.get("callbacks")


async def traced_run(run: Run, input: Any, execute: Callable[[Any], Awaitable[Any]]) -> Any:
    """Run ``execute(parent)`` (the graph's run of ``input``) as a chain run named after the
    graph; ``parent`` is what its node runs start under. Returns what it returns."""
    callbacks = node_callbacks() or run.config.get("callbacks")
    manager = CallbackManager.configure(
        callbacks,
        inheritable_tags=run.config.get("tags"),
        inheritable_metadata=run.config.get("metadata"),
    )
    name = run.config.get("run_name") or run.graph_name
    run_id = run.config.get("run_id")
    run_manager = manager.on_chain_start(None, _as_chain_io(input), name=name, run_id=run_id)
    try:
        result = await execute(run_manager.get_child())
    except BaseException as error:
        run_manager.on_chain_error(error)
        raise
    run_manager.on_chain_end(_as_chain_io(getattr(result, "values", result)))
    return result


async def traced_call(
    run: Run, node: NodeSpec, arg: Any, call: Callable[[], Any], parent: Any = None
) -> Any:
    """Run ``call()`` (the node on ``arg``, awaited if it returns an awaitable) as a chain run
    of ``parent`` (the graph's run; else a root run of the config's callbacks)."""
    run_manager = _start(run, node, arg, parent)
    # The graph run's own name and id are not its children's, as in LangGraph.
    child = {k: v for k, v in run.config.items() if k not in ("run_name", "run_id")}
    child["callbacks"] = run_manager.get_child()
    token = var_child_runnable_config.set(child)  # type: ignore[arg-type]
    try:
        ret = call()
        if is_awaitable(ret):
            ret = await ret
    except (GraphInterrupt, GraphBubbleUp) as paused:
        # A pause or a command to the parent graph is no failure of the node.
        run_manager.on_chain_end({"output": None}, tags=[type(paused).__name__])
        raise
    except BaseException as error:
        run_manager.on_chain_error(error)
        raise
    finally:
        var_child_runnable_config.reset(token)
    _end(run_manager, node, ret)
    return ret
