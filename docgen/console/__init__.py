"""Executable console transcripts in Markdown, run with Sybil in one hardened container per page: `parser`,
`shell` (the bash protocol, the host shells), `container` (the page's container, the engine), `evaluator`
(Sybil glue), `pytest_plugin` (fixture and collector)."""
