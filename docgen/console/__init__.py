"""Executable console transcripts in Markdown, run with Sybil in one hardened container per session.

Import from the submodules: `parser` (no dependencies beyond docgen), `shell` (bash over Docker exec
or on the host), `evaluator` (Sybil glue), `pytest_plugin` (fixture and collector).
"""
