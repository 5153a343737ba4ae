"""Executable console transcripts in Markdown, run with Sybil in one hardened container per page.

Import from the submodules: `parser` (no dependencies beyond docgen), `shell` (the bash protocol and the
host shells), `container` (the page's container and the engine), `evaluator` (Sybil glue),
`pytest_plugin` (fixture and collector).
"""
