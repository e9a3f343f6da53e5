// Command client is an interop peer for mcpoke's tests: an MCP client on
// the official Go SDK that drives a server over Streamable HTTP (or the
// legacy SSE transport, or stdio: -stdio CMD ARGS...): tools/list, echo, sleep with progress, and a
// sleep it cancels. It prints what it saw and exits 1 on the first
// surprise.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"slices"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	url := flag.String("url", "", "the server's MCP endpoint, such as http://127.0.0.1:8080/mcp")
	sse := flag.Bool("sse", false, "use the legacy HTTP+SSE transport; -url is then the SSE endpoint")
	reconnect := flag.Bool("reconnect", false, "also call test_reconnection (demo-server --conformance-tools), whose answer arrives only on the resumed stream")
	protocol := flag.String("protocol", "", "the protocol version to ask for (default: the SDK's latest, 2026-07-28, probed with server/discover)")
	stdio := flag.Bool("stdio", false, "start the server given after the flags and talk to it over stdio")
	flag.Parse()
	if *url == "" && (!*stdio || flag.NArg() == 0) {
		log.Fatal("usage: client -url http://HOST:PORT/mcp [-sse] | client -stdio CMD ARGS...")
	}
	var transport mcp.Transport = &mcp.StreamableClientTransport{Endpoint: *url, MaxRetries: 2}
	switch {
	case *stdio:
		transport = &mcp.CommandTransport{Command: exec.Command(flag.Arg(0), flag.Args()[1:]...)}
	case *sse:
		transport = &mcp.SSEClientTransport{Endpoint: *url}
	}
	if err := run(transport, *reconnect, *protocol); err != nil {
		fmt.Fprintln(os.Stderr, "gosdk client:", err)
		os.Exit(1)
	}
}

func run(transport mcp.Transport, reconnect bool, protocol string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var progress atomic.Int32
	firstProgress := make(chan struct{}, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "gosdk-client", Version: "1.8.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			progress.Add(1)
			select {
			case firstProgress <- struct{}{}:
			default:
			}
		},
	})
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	fmt.Printf("connected: %s, protocol %s\n", cs.InitializeResult().ServerInfo.Name, cs.InitializeResult().ProtocolVersion)

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	var names []string
	for _, t := range tools.Tools {
		names = append(names, t.Name)
	}
	fmt.Printf("tools: %v\n", names)
	if !slices.Contains(names, "sleep") || !slices.Contains(names, "echo") {
		return errors.New("tools/list lacks sleep or echo")
	}

	echo, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello over HTTP"}})
	if err != nil {
		return fmt.Errorf("echo: %w", err)
	}
	if text := echo.Content[0].(*mcp.TextContent).Text; text != "hello over HTTP" {
		return fmt.Errorf("echo answered %q", text)
	}
	fmt.Println("echo: hello over HTTP")

	if reconnect {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_reconnection", Arguments: map[string]any{}})
		if err != nil {
			return fmt.Errorf("test_reconnection: %w", err)
		}
		fmt.Printf("resumed: %s\n", res.Content[0].(*mcp.TextContent).Text)
	}

	params := &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"seconds": 0.2, "steps": 4}}
	params.SetProgressToken("gosdk-1")
	slept, err := cs.CallTool(ctx, params)
	if err != nil {
		return fmt.Errorf("sleep: %w", err)
	}
	// The SDK runs notification handlers on their own goroutines: the last
	// may still be on its way when the call returns.
	for deadline := time.Now().Add(2 * time.Second); progress.Load() < 4 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Printf("sleep: %s, %d progress notifications\n", slept.Content[0].(*mcp.TextContent).Text, progress.Load())
	if progress.Load() != 4 {
		return fmt.Errorf("sleep sent %d progress notifications, want 4", progress.Load())
	}

	// The SDK cancels by notifications/cancelled when the call's context ends.
	<-firstProgress // drain
	callCtx, stop := context.WithCancel(ctx)
	long := &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"seconds": 30, "steps": 300}}
	long.SetProgressToken("gosdk-2")
	done := make(chan error, 1)
	go func() { _, err := cs.CallTool(callCtx, long); done <- err }()
	select {
	case <-firstProgress:
	case <-ctx.Done():
		stop()
		return errors.New("the long sleep sent no progress")
	}
	stop()
	if err := <-done; !errors.Is(err, context.Canceled) {
		return fmt.Errorf("cancelled sleep ended with %v, want context.Canceled", err)
	}
	fmt.Println("cancelled: sleep")
	// The SDK POSTs the cancel in the background: give it time to arrive
	// before Close ends the session with DELETE.
	time.Sleep(200 * time.Millisecond)
	return nil
}
