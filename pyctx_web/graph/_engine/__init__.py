"""The graph engine: what runs a compiled graph, and nothing of the run context.

Graph spec (:mod:`.spec`), channels and reducers (:mod:`.channels`), the step
loop (:mod:`.loop`, :mod:`.planner`), checkpoint records (:mod:`.records`),
serialisation (:mod:`.serde`), questions and answers (:mod:`.interrupts`,
:mod:`.resume`). The engine never imports the run-context layer
(:mod:`pyctx_web.graph._runctx`): that layer plugs in through
:class:`.extension.RunExtension`, which the engine declares with the values it
speaks (:mod:`.extension`) and a :class:`.frames.Run` carries; :mod:`.runtime`
holds the :class:`~pyctx_web.graph.runtime.Runtime` a node gets.
"""
