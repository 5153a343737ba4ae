"""The one pipeline for write/check/lint (pipeline), the semantic checks (lint), one reporter per format (report)."""
