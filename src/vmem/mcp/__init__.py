"""The MCP face (SPEC 13): a Model Context Protocol server over stdio, on the official `mcp` SDK."""
