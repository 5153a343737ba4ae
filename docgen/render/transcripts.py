"""Console transcripts rendered from the model, for pages whose commands the test suite runs in the
built image (docgen/console). The expected output comes from the model, so a Dockerfile change moves the
transcript with `docgen write`, and the rebuilt image must then print exactly that."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from docgen.model import ImageModel


def console_venvs(model: "ImageModel") -> str:
    """The venv directory, its entries as `ls` lists them (C-locale byte order) and their count."""
    names = sorted(v.actor for v in model.venvs)
    lines = ["```console",
             '$ echo "$NEMO_RL_VENV_DIR"', model.venv_dir,
             f"$ ls {model.venv_dir}", *names,
             f"$ ls {model.venv_dir} | wc -l", str(len(names)),
             "```"]
    return "\n".join(lines) + "\n"
