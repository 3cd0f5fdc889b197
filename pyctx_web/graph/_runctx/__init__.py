"""The run-context layer: what nodes and tools see of their run, and what surrounds it.

The run context, its log, the services a compiled graph gives every run
(tools, middleware, hooks, memory, listeners), a run's life and cancellation,
and what surrounds each node and tool call. It plugs into the engine
(:mod:`pyctx_web.graph._engine`) through the engine's
:class:`~pyctx_web.graph._engine.frames.RunPlug`; the public face is
:mod:`pyctx_web.graph.runtime`.
"""
