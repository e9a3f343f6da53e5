package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	timeout     time.Duration
	maxTimeout  time.Duration
	reason      string
	waitLate    time.Duration
	transcript  string
	json        bool
	protocol    string
	stderr      bool
	diagram     string
	cancelMode  string
	// task calls the tool as a task where its taskSupport is optional.
	task bool
	// unlisted calls the tool without tools/list and argument checks.
	unlisted bool
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
its tools are sleep, stubborn, flood, echo, fail and research (a task).

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
		Args: func(cmd *cobra.Command, args []string) error {
			if n := toolArgCount(cmd, args); n != 1 {
				if n == 0 {
					return usageError("call needs a TOOL name; run mcpoke tools to list them")
				}
				return usageError("unexpected argument %s: put the server command after --, e.g. mcpoke call TOOL -- node server.js", quote(args[1]))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.waitLate < 0 || f.cancelAfter < 0 || f.timeout < 0 || f.maxTimeout < 0 {
				return usageError("durations must not be negative")
			}
			if f.reason != "" && f.cancelAfter == 0 {
				return usageError("--reason goes with --cancel-after")
			}
			spec, err := resolveSpec(g, dashArgs(cmd, args))
			if err != nil {
				return err
			}
			return runCall(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), g, spec, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.args, "args", "", "tool arguments as a JSON OBJECT")
	fl.DurationVar(&f.cancelAfter, "cancel-after", 0, "cancel the call after DUR (notifications/cancelled; tasks/cancel for a task)")
	fl.DurationVar(&f.timeout, "timeout", defaultCallTimeout, "give up on the call after DUR without an answer or progress: it ends timed_out and is cancelled on the wire (0: never)")
	fl.DurationVar(&f.maxTimeout, "max-timeout", defaultMaxTimeout, "give up on the call after DUR in all, whatever progress it makes (0: never)")
	fl.StringVar(&f.reason, "reason", "", "the reason sent with the cancellation (default: says who cancelled after how long)")
	fl.DurationVar(&f.waitLate, "wait-late", 0, "after a cancel or timeout, keep listening up to DUR and report late traffic; "+
		"after a response, listen DUR for traffic that follows it (progress after completion, duplicates)")
	fl.BoolVar(&f.task, "task", false, "call the tool as a task (tasks/get, tasks/result; --cancel-after sends tasks/cancel) where its taskSupport is optional; "+
		"a tool that requires a task is always called as one")
	fl.BoolVar(&f.unlisted, "unlisted", false, "call the tool without listing tools first nor checking --args (for servers that hide a tool, or tests)")
	fl.StringVar(&f.cancelMode, "cancel-mode", "notify", "how to cancel over HTTP: notify (notifications/cancelled), close (drop the request's response stream) or both")
	fl.StringVar(&f.transcript, "transcript", "", "write an NDJSON transcript of the wire to FILE")
	fl.BoolVar(&f.json, "json", false, "print the report as one JSON object")
	protocolFlag(fl, &f.protocol)
	fl.BoolVar(&f.stderr, "stderr", false, "show what the server wrote to stderr (always in --json)")
	fl.StringVar(&f.diagram, "diagram", "", "after the report, draw the call as a sequence diagram: mermaid or text "+
		"(with --json, as the string \"diagram\"); mcpoke diagram draws the same from a --transcript file")
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
func toolArgCount(cmd *cobra.Command, args []string) int {
	if at := cmd.ArgsLenAtDash(); at >= 0 {
		return at
	}
	return len(args)
}

// runCall connects, checks the arguments, makes the call and reports.
func runCall(ctx context.Context, stdout, stderr io.Writer, g *globalFlags, spec connect.Spec, toolName string, f *callFlags) error {
	args, err := parseArgs(f.args)
	if err != nil {
		return err
	}
	pic, err := newCallDiagram(f.diagram)
	if err != nil {
		return err
	}
	// The recorder subscribes before the handshake, so the report has the
	// server's stderr from its first line.
	mode, err := parseCancelMode(f.cancelMode)
	if err != nil {
		return err
	}
	var rec *recorder
	opts := serverOptions{protocol: f.protocol, transcript: f.transcript, session: session.Config{SettleWindow: g.callSettleWindow(), CancelMode: mode},
		started: func(c *connect.Conn) {
			rec = newRecorder(c.Session.Subscribe(), f.json)
			if pic != nil {
				pic.watch(c)
			}
		}}
	srv, err := openServer(ctx, g, spec, opts)
	if err != nil {
		return err
	}
	defer srv.Close()
	var params json.RawMessage
	var tool *mcp.Tool
	if f.unlisted {
		params, err = mcp.CallToolParams(toolName, args)
	} else {
		var t mcp.Tool
		t, params, err = prepareTool(ctx, srv, toolName, args, stderr, g.force)
		tool = &t
	}
	if err != nil {
		return err
	}
	asTask, err := decideCallTask(srv, tool, f.task, g.force)
	if err != nil {
		return err
	}
	if asTask {
		if params, err = mcp.AsTaskParams(params, 0); err != nil {
			return err
		}
	}

	c, err := srv.Session.Call(ctx, "tools/call", params, callTimeouts(f.timeout, f.maxTimeout))
	if err != nil {
		return fmt.Errorf("tools/call: %w", err)
	}
	rec.seq.Store(c.Seq())
	if f.cancelAfter > 0 {
		reason := f.reason
		if reason == "" {
			reason = fmt.Sprintf("cancelled by mcpoke after %s (--cancel-after)", f.cancelAfter)
		}
		timer := time.AfterFunc(f.cancelAfter, func() { _ = srv.Session.Request(c.Ref()).Cancel(reason) })
		defer timer.Stop()
	}
	_, state, _ := c.Result()
	// A task lives on after the call's CreateTaskResult: the report is
	// about how the task ended.
	ref := c.Ref()
	task, isTask := followCallTask(ctx, srv.Session, ref)
	if isTask {
		ref, state = task.Ref(), task.State
		rec.seq.Store(task.Seq)
	}

	var watched time.Duration
	if ctx.Err() == nil {
		if state == session.Cancelled || state == session.TimedOut {
			watched = waitLate(ctx, srv.Session, ref, rec, f.waitLate)
		} else if f.waitLate > 0 {
			watched = waitAfter(ctx, srv.Session, ref, f.waitLate)
		}
		// Always: what the server sent before answering the ping is in
		// the report, so stray and duplicates do not vary from run to run.
		settle(ctx, srv.Session, rec)
	}
	info, _ := srv.Session.Request(c.Ref()).Info()
	if isTask {
		task, _ = srv.Session.Request(ref).Info()
	}
	srv.Close()
	select {
	case <-rec.done:
	case <-time.After(recorderWait):
	}

	final := info
	if isTask {
		// The task's end, timed from when the call was sent.
		final = task
		final.Started = info.Started
	}
	rep := buildReport(final, rec, srv.Peer())
	if isTask {
		rep.Task = taskReportOf(task, info.Started)
	}
	rep.watched = watched
	if rep.Cancel != nil {
		rep.Cancel.Mode = mode.String()
		rep.Cancel.Meaning = cancelMeaning(mode, srv.Transport(), rep.Server.ProtocolVersion)
		if isTask {
			rep.Cancel.Mode, rep.Cancel.Meaning = "tasks/cancel", "the task was cancelled with tasks/cancel, as the spec asks of a task"
		}
	}
	if f.json {
		var out any = rep
		if pic != nil {
			out = struct {
				*callReport
				Diagram string `json:"diagram"`
			}{rep, pic.draw(rep.RequestID.String(), f)}
		}
		if err := writeJSON(stdout, out, rep.textWarnings()); err != nil {
			return err
		}
	} else {
		printReport(stdout, rep, f)
		if pic != nil {
			fmt.Fprintf(stdout, "\n%s", pic.draw(rep.RequestID.String(), f))
		}
	}
	return quietExit(rep.exitCode())
}

// waitLate keeps listening after a cancel or timeout until d has passed
// since it, a late response or error came (nothing more is expected for
// the request), the server is gone, or ctx ends (mcpoke is interrupted).
// It returns how long after the cancel it listened, counted like late
// traffic: from when the cancel reached the transport.
func waitLate(ctx context.Context, s *session.Session, ref session.Ref, rec *recorder, d time.Duration) time.Duration {
	info, _ := s.Request(ref).Info()
	from := info.LateFrom()
	if d <= 0 {
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
	_, err := s.Do(ctx, "ping", nil, session.CallOptions{Timeout: barrierTimeout, NoProgressToken: true})
	if err != nil && errors.Is(err, session.ErrSessionClosed) {
		return
	}
	deadline := time.Now().Add(stderrWaitMax)
	time.Sleep(stderrQuiet)
	for !rec.stderrQuietFor(stderrQuiet) && time.Now().Before(deadline) {
		time.Sleep(stderrQuiet / 5)
	}
}
