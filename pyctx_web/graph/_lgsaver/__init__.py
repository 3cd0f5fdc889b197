"""LangGraph's saver interface (``BaseCheckpointSaver``) on pyctx_web's checkpointers.

:mod:`.types` holds LangGraph's saver vocabulary, :mod:`.saver` the methods pyctx_web's
savers take it with, :mod:`.memory` and :mod:`.sqlite` the savers ``langgraph.checkpoint.*``
names, :mod:`.foreign` a user's own saver as a graph's checkpointer.
"""
