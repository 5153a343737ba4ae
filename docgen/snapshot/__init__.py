"""Phase A (maintainers, when NeMo-RL moves): an RL checkout -> the committed snapshot (build, and the
registry, pyproject and lock readers); and the typed view phase B loads from it (load)."""
