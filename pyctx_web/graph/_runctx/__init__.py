"""The run-context layer: what pyctx_web adds to a run, and what surrounds its nodes and tools.

The services a compiled graph gives every run (:mod:`.services`: tools,
middleware, memory, the default context), a run's part of them and its log
(:mod:`.extension`), a run's life and cancellation (:mod:`.lifecycle`),
middleware (:mod:`.middleware`, :mod:`.hitl`, :mod:`.approval`), tools and their
schemas (:mod:`.tools`, :mod:`.tool_calls`, :mod:`.signature_schema`,
:mod:`.jsonschema`) and memory (:mod:`.memory`). It plugs into the engine
(:mod:`pyctx_web.graph._engine`) through the engine's
:class:`~pyctx_web.graph._engine.extension.RunExtension`; the public face is
:class:`pyctx_web.graph.runtime.Runtime`.
"""
