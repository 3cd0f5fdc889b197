"""Behaviour scenarios shared by the CPython and Pyodide tiers (plain modules, no pytest)."""
