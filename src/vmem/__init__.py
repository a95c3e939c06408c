"""vmem: version control for what a team and its AI agents believe."""

__version__ = "0.1.0"
