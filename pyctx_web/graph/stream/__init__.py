"""Event-stream runs of a graph (``stream_events(version="v3")``) and their transformers.

``graph.stream_events(input, version="v3")`` returns a
:class:`GraphRunStream` (``await graph.astream_events(...)`` an
:class:`AsyncGraphRunStream`) whose streams are read to drive the run:
``run.values`` (the state after each step), ``run.messages`` (a LangChain
``ChatModelStream`` per model call), ``run.lifecycle`` and ``run.subgraphs``
(a handle per subgraph run, with streams of its own), the streams of the
transformers given to ``compile(transformers=[...])`` or to the call, and
``run.output``. Iterating the run gives its raw events (:class:`ProtocolEvent`).

A transformer (:class:`StreamTransformer`) reads every event and builds streams
(:class:`StreamChannel`) of its own; it is made per scope by a factory
(``factory(scope)``; a transformer class is one), so each subgraph's handle gets
its own. Under ``install_as_langgraph()`` this package is ``langgraph.stream``.
"""

from __future__ import annotations

from pyctx_web.graph.stream._mux import StreamMux, TransformerFactory
from pyctx_web.graph.stream._types import ProtocolEvent, StreamTransformer
from pyctx_web.graph.stream.run_stream import (
    AsyncGraphRunStream,
    AsyncSubgraphRunStream,
    GraphRunStream,
    SubgraphRunStream,
)
from pyctx_web.graph.stream.stream_channel import StreamChannel
from pyctx_web.graph.stream.transformers import (
    CheckpointsTransformer,
    CustomTransformer,
    DebugTransformer,
    LifecyclePayload,
    LifecycleTransformer,
    MessagesTransformer,
    SubgraphStatus,
    SubgraphTransformer,
    TasksTransformer,
    UpdatesTransformer,
    ValuesTransformer,
)

__all__ = [
    "AsyncGraphRunStream",
    "AsyncSubgraphRunStream",
    "CheckpointsTransformer",
    "CustomTransformer",
    "DebugTransformer",
    "GraphRunStream",
    "LifecyclePayload",
    "LifecycleTransformer",
    "MessagesTransformer",
    "ProtocolEvent",
    "StreamChannel",
    "StreamMux",
    "StreamTransformer",
    "SubgraphRunStream",
    "SubgraphStatus",
    "SubgraphTransformer",
    "TasksTransformer",
    "TransformerFactory",
    "UpdatesTransformer",
    "ValuesTransformer",
]
