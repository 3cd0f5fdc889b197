"""Pyodide's ``pyodide`` package: only its submodules this project imports are declared."""
