"""The server tier: client flows of the LangGraph Server API, on the real server and pyctx_web."""
