"""The differential tier: LangGraph's documented programs on real LangGraph and on pyctx_web."""
