"""``langgraph._internal``: the private LangGraph modules LangChain's agents import.

LangChain's ``create_agent`` builds its nodes with ``langgraph._internal._runnable``'s
``RunnableCallable``; :mod:`._runnable` gives it with LangGraph's behaviour as a node.
Nothing else of LangGraph's private package is here.
"""
