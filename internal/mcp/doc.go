// Package mcp is mcpoke's MCP client layer: typed requests and results
// over a *session.Session. The session knows JSON-RPC and the rules of
// cancellation; this package knows what MCP's methods mean: tools/list
// with its paging, the Tool type with its input schema read once,
// tools/call params, and the server's capabilities.
//
// The CLI, the UI and the demo server all use it, so a method is built
// in one place and an inputSchema is read one way: properties in schema
// order everywhere. New MCP features (resources, prompts, tasks,
// elicitation, sampling, roots) belong here too.
//
// Everything a server sends is untrusted: strings are kept raw here and
// sanitized where they are shown.
package mcp
