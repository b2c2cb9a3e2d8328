"""The MCP server for Claude: a thin shell over the service."""
