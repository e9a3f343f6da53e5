package cli

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// callFlags are the call command's flags.
type callFlags struct {
	args        string
	cancelAfter time.Duration
	timeoutFlags
	reason     string
	waitLate   time.Duration
	transcript string
	json       bool
	protocol   string
	stderr     bool
	diagram    string
	cancelMode string
	// task calls the tool as a task where its taskSupport is optional.
	task bool
	// logLevel is the level the server is asked to log from (--log-level).
	logLevel string
	// unlisted calls the tool without tools/list and argument checks.
	unlisted bool
	// otlpReceive is --otlp-receive: where the server's spans come in.
	otlpReceive string
}

// Bounds on the waits after a call has ended.
const (
	// barrierTimeout bounds the ping that shows the server has handled
	// our cancellation.
	barrierTimeout = 2 * time.Second
	// stderrQuiet is how long stderr must stay quiet after that ping
	// before the report is written: a server's stderr and stdout are two
	// pipes, so its log line about the cancel may trail the ping's answer.
	stderrQuiet = 25 * time.Millisecond
	// stderrWaitMax bounds the wait for quiet stderr.
	stderrWaitMax = 250 * time.Millisecond
	// recorderWait bounds the wait for the event stream to end after Close.
	recorderWait = 5 * time.Second
)

func newCallCommand(g *globalFlags) *cobra.Command {
	f := &callFlags{}
	cmd := &cobra.Command{
		Use:   "call TOOL [flags] [-- CMD ARGS...]",
		Short: "Call a tool, optionally cancel it, and report what happened",
		Long: `Call a tool once and report its whole life: progress notifications, the result or
error, and when cancelled (--cancel-after) or timed out (--timeout), the cancellation
sent and any traffic that arrived after it (--wait-late keeps listening for it,
also after a normal response). The report also lists duplicate responses, lines
that are not JSON (noise), oversize frames, malformed messages and protocol
violations by the server, each as a count and the first few.

Arguments are checked against the tool's inputSchema before anything is sent.
Without a server command (after --) or --config, the built-in demo server is used;
its tools are sleep, stubborn, flood, echo, fail, ask, roots and research (a task).

` + exitCodesHelp,
		Example: `  # A tool with arguments
  mcpoke call echo --args '{"text":"hello"}'

  # Cancel after 500ms; the server honours it (exit status 3)
  mcpoke call sleep --cancel-after 500ms --stderr

  # A server that ignores the cancel: its response arrives late
  mcpoke call stubborn --args '{"seconds":1}' --cancel-after 300ms --wait-late 3s

  # 10,000 progress notifications, as JSON, with a transcript of the wire
  mcpoke call flood --json --transcript flood.ndjson | jq '.progress | length'

  # The run as a Mermaid sequence diagram, for a bug report
  mcpoke call sleep --cancel-after 500ms --diagram mermaid

  # Any stdio server, after --
  mcpoke call echo --args '{"message":"hi"}' -- npx -y @modelcontextprotocol/server-everything`,
		Args: oneArgBeforeDash("call", "TOOL name", "TOOL", "tools"),
		RunE: onServer(g, f.check, func(cmd *cobra.Command, args []string, spec connect.Spec) error {
			return runCall(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), g, spec, args[0], f)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&f.args, "args", "", "tool arguments as a JSON OBJECT")
	fl.BoolVar(&f.task, "task", false, "call the tool as a task (tasks/get, tasks/result; --cancel-after sends tasks/cancel) where its taskSupport is optional; "+
		"a tool that requires a task is always called as one")
	fl.BoolVar(&f.unlisted, "unlisted", false, "call the tool without listing tools first nor checking --args (for servers that hide a tool, or tests)")
	addRequestFlags(fl, f, "call")
	return cmd
}

// Default timeouts of a call: no request waits for ever on a server that
// went quiet, while one that reports progress may run up to the maximum.
const (
	defaultCallTimeout = 60 * time.Second
	defaultMaxTimeout  = 10 * time.Minute
)

// callTimeouts are the session's options for --timeout and --max-timeout,
// where 0 means none.
func callTimeouts(timeout, maxTimeout time.Duration) session.CallOptions {
	o := session.CallOptions{Timeout: timeout, ResetTimeoutOnProgress: true, MaxTimeout: maxTimeout}
	if maxTimeout == 0 {
		o.MaxTimeout = -1
	}
	return o
}

// toolArgCount is how many arguments come before --.
// runCall connects, checks the arguments, makes the call and reports.
func runCall(ctx context.Context, stdout, stderr io.Writer, g *globalFlags, spec connect.Spec, toolName string, f *callFlags) error {
	args, err := parseArgs(f.args)
	if err != nil {
		return err
	}
	run, err := openRequestRun(ctx, g, spec, f, "tools/call")
	if err != nil {
		return err
	}
	defer run.srv.Close()
	srv := run.srv
	tool := mcp.Tool{Name: toolName}
	var listed *mcp.Tool // nil for --unlisted
	var params json.RawMessage
	if f.unlisted {
		params, err = mcp.CallToolParams(toolName, args)
	} else {
		tool, params, err = prepareTool(ctx, srv, toolName, args, stderr, g.force, f.timeoutFlags)
		listed = &tool
	}
	if err != nil {
		return err
	}
	asTask, err := decideCallTask(srv, listed, f.task, g.force)
	if err != nil {
		return err
	}
	if asTask {
		if params, err = mcp.AsTaskParams(params, 0); err != nil {
			return err
		}
	}

	return run.send(ctx, stdout, toolCall(srv, g, tool, params, args, f, stderr), nil)
}

// toolCall is the outgoing tools/call of tool with params (args, and a
// task member when it runs as a task): its Mcp-Param headers in
// 2026-07-28, and the spec's one retry after HeaderMismatch (the tools
// listed again, since a tool's x-mcp-header marks may have changed),
// unless the call is --unlisted.
func toolCall(srv *connect.Conn, g *globalFlags, tool mcp.Tool, params, args json.RawMessage, f *callFlags, stderr io.Writer) outgoing {
	out := outgoing{start: func(ctx context.Context, opts session.CallOptions) (*session.Call, error) {
		return mcp.StartToolCallParams(ctx, srv.Session, tool, params, opts)
	}, roundOpts: func(opts session.CallOptions) session.CallOptions {
		if srv.Session.Era2026() {
			opts.ParamHeaders, _ = mcp.ParamHeaders(tool, args) // checked by the first round
		}
		return opts
	}}
	if f.unlisted {
		return out
	}
	out.retry = func(ctx context.Context, failed *session.Call, callErr error, opts session.CallOptions) (*session.Call, *reportRetry) {
		if !mcp.HeaderMismatch(callErr) {
			return nil, nil
		}
		retried := &reportRetry{RequestID: failed.ID(), Error: callErr.Error()}
		again, list, err := mcp.RetryAfterHeaderMismatch(ctx, srv.Session, tool.Name, args, f.listOptions(srv, g.force), opts)
		warnRejected(stderr, list.Rejected)
		if err != nil {
			warn(stderr, "retrying after HeaderMismatch: "+err.Error())
			return nil, retried
		}
		return again, retried
	}
	return out
}

// waitLate keeps listening after a cancel or timeout until d has passed
// since it, a late response or error came (nothing more is expected for
// the request), the server is gone, or ctx ends (mcpoke is interrupted).
// It returns how long after the cancel it listened, counted like late
// traffic: from when the cancel reached the transport.
func waitLate(ctx context.Context, s *session.Session, ref session.Ref, rec *recorder, d time.Duration) time.Duration {
	info, _ := s.Request(ref).Info()
	from := info.LateFrom()
	if d <= 0 || !info.CancelWire.LateObservable() {
		return time.Since(from)
	}
	t := time.NewTimer(time.Until(from.Add(d)))
	defer t.Stop()
	select {
	case <-t.C:
	case <-rec.lateAnswer:
	case <-s.Done():
	case <-ctx.Done():
	}
	return time.Since(from)
}

// waitAfter keeps listening after the call's final response for d, for
// traffic that follows it (progress after completion, duplicates), until
// the server is gone or ctx ends. It returns how long it listened.
func waitAfter(ctx context.Context, s *session.Session, ref session.Ref, d time.Duration) time.Duration {
	info, _ := s.Request(ref).Info()
	t := time.NewTimer(time.Until(info.Ended.Add(d)))
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.Done():
	case <-ctx.Done():
	}
	return time.Since(info.Ended)
}

// settle is the barrier before the report: a ping is answered only after
// everything the server sent before it was read, such as its late or
// stray traffic and its handling of our cancellation; then stderr gets a
// moment to catch up, as it is a pipe of its own.
func settle(ctx context.Context, s *session.Session, rec *recorder) {
	err := mcp.Ping(ctx, s, barrierTimeout)
	if err != nil && errors.Is(err, session.ErrSessionClosed) {
		return
	}
	deadline := time.Now().Add(stderrWaitMax)
	time.Sleep(stderrQuiet)
	for !rec.stderrQuietFor(stderrQuiet) && time.Now().Before(deadline) {
		time.Sleep(stderrQuiet / 5)
	}
}
