"""docgen: documentation for the nmp-rl-base image, derived from its real sources."""

try:   # written by setuptools-scm when docgen is built or installed (pyproject.toml, [tool.setuptools_scm])
    from docgen._version import version as __version__
except ImportError:   # run from a source tree that was never installed
    __version__ = "0.0.0+unknown"
