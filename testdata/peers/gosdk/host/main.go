// Command host is an interop peer for mcpoke's proxy tests: an MCP host
// on the official Go SDK's client, driven line by line on stdin, so that
// a test can start calls, cancel them and watch what the SDK does while
// mcpoke proxy kills a call or provokes the host with a fault.
//
//	host -url http://HOST:PORT/mcp [-protocol V]
//	host -stdio [-protocol V] CMD ARGS...
//
// Commands on stdin, one a line:
//
//	call LABEL TOOL ARGSJSON [timeout=D] [progress]
//	                 call TOOL in the background; timeout=D gives the call a
//	                 context deadline, progress asks for progress (token LABEL)
//	list LABEL       tools/list in the background
//	cancel LABEL     cancel the call's context (the user pressed Stop)
//	quit             close the session and exit (so does EOF)
//
// What it prints, one line each, LABEL first:
//
//	connected: SERVER, protocol V, N tools   (after tools/list)
//	LABEL answered: TEXT
//	LABEL error: code N: MESSAGE      a JSON-RPC error the call returned
//	LABEL error: MESSAGE              any other error
//	LABEL deadline exceeded           the call's own timeout ended it
//	LABEL cancelled                   cancel ended it
//	LABEL progress N                  a progress notification (N so far)
//
// Each call's end line carries its time: "(after 1.234s)".
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	url := flag.String("url", "", "the server's Streamable HTTP endpoint")
	stdio := flag.Bool("stdio", false, "start the server given after the flags and talk to it over stdio")
	protocol := flag.String("protocol", "", "the protocol version to ask for (default: the SDK's latest)")
	flag.Parse()
	if *url == "" && (!*stdio || flag.NArg() == 0) {
		log.Fatal("usage: host -url http://HOST:PORT/mcp | host -stdio CMD ARGS...")
	}
	var transport mcp.Transport = &mcp.StreamableClientTransport{Endpoint: *url, MaxRetries: 1}
	if *stdio {
		cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
		cmd.Stderr = os.Stderr
		transport = &mcp.CommandTransport{Command: cmd}
	}
	if err := run(transport, *protocol); err != nil {
		fmt.Fprintln(os.Stderr, "gosdk host:", err)
		os.Exit(1)
	}
}

// out serialises the host's lines.
var out = struct {
	sync.Mutex
	w *bufio.Writer
}{w: bufio.NewWriter(os.Stdout)}

func say(format string, args ...any) {
	out.Lock()
	defer out.Unlock()
	fmt.Fprintf(out.w, format+"\n", args...)
	out.w.Flush()
}

func run(transport mcp.Transport, protocol string) error {
	var mu sync.Mutex
	progress := map[string]int{}
	client := mcp.NewClient(&mcp.Implementation{Name: "gosdk-host", Version: "1.8.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			label := fmt.Sprint(req.Params.ProgressToken)
			mu.Lock()
			progress[label]++
			n := progress[label]
			mu.Unlock()
			say("%s progress %d", label, n)
		},
	})
	ctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	stop()
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	// As a host does: in 2026-07-28 the tools' x-mcp-header marks, which
	// the SDK learns from tools/list, say which headers a call carries.
	ctx, stop = context.WithTimeout(context.Background(), 30*time.Second)
	tools, err := cs.ListTools(ctx, nil)
	stop()
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	say("connected: %s, protocol %s, %d tools", cs.InitializeResult().ServerInfo.Name, cs.InitializeResult().ProtocolVersion, len(tools.Tools))

	cancels := map[string]context.CancelFunc{}
	var calls sync.WaitGroup
	defer calls.Wait()
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 0:
		case f[0] == "quit":
			return nil
		case f[0] == "list" && len(f) == 2:
			label := f[1]
			calls.Add(1)
			go func() {
				defer calls.Done()
				ctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
				defer stop()
				start := time.Now()
				tools, err := cs.ListTools(ctx, nil)
				took := fmt.Sprintf("(after %s)", time.Since(start).Round(time.Millisecond))
				if err != nil {
					say("%s error: %v %s", label, err, took)
					return
				}
				say("%s answered: %d tools %s", label, len(tools.Tools), took)
			}()
		case f[0] == "cancel" && len(f) == 2:
			if c := cancels[f[1]]; c != nil {
				c()
			} else {
				say("%s error: no such call", f[1])
			}
		case f[0] == "call" && len(f) >= 4:
			label, tool := f[1], f[2]
			// The arguments are one JSON object, spaces and all; the
			// options follow it.
			rest := strings.SplitN(strings.TrimSpace(sc.Text()), " ", 4)[3]
			dec := json.NewDecoder(strings.NewReader(rest))
			var args map[string]any
			if err := dec.Decode(&args); err != nil {
				say("%s error: arguments: %v", label, err)
				continue
			}
			params := &mcp.CallToolParams{Name: tool, Arguments: args}
			var timeout time.Duration
			var bad error
			for _, opt := range strings.Fields(rest[dec.InputOffset():]) {
				switch {
				case opt == "progress":
					params.SetProgressToken(label)
				case strings.HasPrefix(opt, "timeout="):
					timeout, bad = time.ParseDuration(strings.TrimPrefix(opt, "timeout="))
				default:
					bad = fmt.Errorf("unknown option %q", opt)
				}
			}
			if bad != nil {
				say("%s error: %v", label, bad)
				continue
			}
			callCtx, cancel := context.WithCancel(context.Background())
			if timeout > 0 {
				callCtx, cancel = context.WithTimeout(context.Background(), timeout)
			}
			cancels[label] = cancel
			calls.Add(1)
			go func() {
				defer calls.Done()
				defer cancel()
				start := time.Now()
				res, err := cs.CallTool(callCtx, params)
				took := fmt.Sprintf("(after %s)", time.Since(start).Round(time.Millisecond))
				var wire *jsonrpc.Error
				switch {
				case errors.Is(err, context.DeadlineExceeded):
					say("%s deadline exceeded %s", label, took)
				case errors.Is(err, context.Canceled):
					say("%s cancelled %s", label, took)
				case errors.As(err, &wire):
					say("%s error: code %d: %s %s", label, wire.Code, wire.Message, took)
				case err != nil:
					say("%s error: %v %s", label, err, took)
				case len(res.Content) == 0:
					say("%s answered: (no content) %s", label, took)
				default:
					text, _ := res.Content[0].(*mcp.TextContent)
					if text == nil {
						say("%s answered: (not text) %s", label, took)
					} else {
						say("%s answered: %s %s", label, text.Text, took)
					}
				}
			}()
		default:
			say("error: unknown command %q", sc.Text())
		}
	}
	return sc.Err()
}
