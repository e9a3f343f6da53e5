// Command gosdk is an interop peer for mcpoke's tests: an MCP server built
// on the official Go SDK. The SDK cancels a handler's context on
// notifications/cancelled and still sends the handler's answer, so a
// cancelled `slow` call produces a real late response.
package main

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type slowArgs struct {
	Seconds float64 `json:"seconds" jsonschema:"how long to work"`
}

func main() {
	server := mcp.NewServer(&mcp.Implementation{Name: "gosdk-peer", Version: "1.8.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "slow", Description: "works for a while; stops when cancelled but still answers"},
		func(ctx context.Context, _ *mcp.CallToolRequest, a slowArgs) (*mcp.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(a.Seconds * float64(time.Second))):
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
			case <-ctx.Done():
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint("stopped: ", ctx.Err())}}}, nil, nil
			}
		})
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Printf("server ended: %v", err)
	}
}
