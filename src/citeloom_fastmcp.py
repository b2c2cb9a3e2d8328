"""Entry point for `fastmcp run fastmcp.json`.

fastmcp imports the file named in fastmcp.json by path, as a top-level module, so the file
cannot be a module of the package (its relative imports would fail). This one imports the
real server object from the installed package: the same server as `citeloom serve`.
"""

from citeloom.mcp.server import mcp

__all__ = ["mcp"]
