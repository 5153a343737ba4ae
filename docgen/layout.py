"""Where docgen finds a repository's inputs and keeps what it writes, relative to the repository root,
and what its commands exit with. One place, so the CLI, the blocks commands and the model agree."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent   # the checkout docgen runs from
DEFAULT_DOCKERFILE = "Dockerfile.nmp-rl-base"
DEFAULT_SNAPSHOT = "snapshot/nemo-rl.json"
FACTS_FILE = "docs/.docgen-facts.json"             # the facts the docs were last rendered from
IMAGE_SIZE_FILE = "docs/data/image-size.json"      # bench/image_size.py --record

EXIT_OK, EXIT_FINDINGS, EXIT_BAD_INPUT = 0, 1, 2
