// Command gosdk is an interop peer for mcpoke's tests: an MCP server built
// on the official Go SDK. The SDK cancels a handler's context on
// notifications/cancelled and still sends the handler's answer, so a
// cancelled `slow` call produces a real late response.
//
// With -http ADDR it serves the SDK's Streamable HTTP handler at /mcp
// instead of stdio: sessions and an in-memory event store by default,
// -stateless for no sessions, -json for application/json responses,
// -eventstore=false for no resumption, -cut-first-call to drop the first
// tools/call stream after its priming event (see cut.go).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type slowArgs struct {
	Seconds float64 `json:"seconds" jsonschema:"how long to work"`
}

// outcome logs how a slow call ended, on stderr, in HTTP mode only: the
// scripts read it to tell what a cancel or a closed stream did to the
// handler. Over stdio mcpoke's own report says it.
var outcome = func(string, ...any) {}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP at `addr`/mcp instead of stdio")
	stateless := flag.Bool("stateless", false, "HTTP: no sessions (StreamableHTTPOptions.Stateless)")
	jsonResp := flag.Bool("json", false, "HTTP: answer POSTs with application/json (StreamableHTTPOptions.JSONResponse)")
	eventStore := flag.Bool("eventstore", true, "HTTP: keep an in-memory event store for resumption")
	cut := flag.Bool("cut-first-call", false, "HTTP: drop the first tools/call POST's connection after its priming event")
	flag.Parse()
	server := mcp.NewServer(&mcp.Implementation{Name: "gosdk-peer", Version: "1.8.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "slow", Description: "works for a while; stops when cancelled but still answers"},
		func(ctx context.Context, _ *mcp.CallToolRequest, a slowArgs) (*mcp.CallToolResult, any, error) {
			start := time.Now()
			select {
			case <-time.After(time.Duration(a.Seconds * float64(time.Second))):
				outcome("slow %gs: done", a.Seconds)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
			case <-ctx.Done():
				// The time says what stopped it: a cancellation or the end
				// of a session.
				outcome("slow %gs: stopped after %.1fs: %v", a.Seconds, time.Since(start).Seconds(), ctx.Err())
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint("stopped: ", ctx.Err())}}}, nil, nil
			}
		})
	if *addr != "" {
		outcome = log.Printf
		opts := &mcp.StreamableHTTPOptions{Stateless: *stateless, JSONResponse: *jsonResp}
		if *eventStore {
			opts.EventStore = mcp.NewMemoryEventStore(nil)
		}
		var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, opts)
		if *cut {
			h = cutFirstCall(h)
		}
		mux := http.NewServeMux()
		mux.Handle("/mcp", h)
		log.Fatal(http.ListenAndServe(*addr, mux))
	}
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Printf("server ended: %v", err)
	}
}
