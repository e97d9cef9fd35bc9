"""The MCP server: the memory tools for assistants, over stdio and streamable HTTP."""
