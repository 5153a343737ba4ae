"""docgen: documentation for the nmp-rl-base image, derived from its real sources."""

__version__ = "0.1.0"
