"""The command line: a thin shell over the service."""

from citeloom.cli.main import main

__all__ = ["main"]
