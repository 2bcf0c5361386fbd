"""Runnable examples: `python -m loom.examples.digits`."""
