package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/cpumeter"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/otlprecv"
	"github.com/mcpoke/mcpoke/session"
)

// requestRun is a server opened for one request whose whole life is
// reported, as call does for tools/call and read and prompt for
// resources/read and prompts/get: the recorder and the diagram watch the
// session from before the handshake.
type requestRun struct {
	srv    *connect.Conn
	rec    *recorder
	pic    *callDiagram
	mode   session.CancelMode
	method string
	f      *callFlags
	// settle is the call's settle window (--settle; ≤ 0 for none).
	settle time.Duration
	// asked logs the server's questions and how the flags answered them;
	// side answers them, also in the rounds of a multi round-trip request.
	asked *askLog
	side  *mcp.ClientSide
	// recv receives the server's spans (--otlp-receive); nil without.
	recv *otlprecv.Receiver
}

// openRequestRun starts and initializes the server for a request of
// method; the caller closes run.srv.
func openRequestRun(ctx context.Context, g *globalFlags, spec connect.Spec, f *callFlags, method string) (*requestRun, error) {
	pic, err := newCallDiagram(f.diagram)
	if err != nil {
		return nil, err
	}
	mode, err := parseCancelMode(f.cancelMode)
	if err != nil {
		return nil, err
	}
	run := &requestRun{pic: pic, mode: mode, method: method, f: f, settle: g.callSettleWindow()}
	// The recorder subscribes before the handshake, so the report has the
	// server's stderr from its first line.
	opts := serverOptions{protocol: f.protocol, transcript: f.transcript, session: session.Config{SettleWindow: g.callSettleWindow(), CancelMode: mode},
		asked: func(cs *mcp.ClientSide, l *askLog) { run.side, run.asked = cs, l },
		started: func(c *connect.Conn) {
			run.rec = newRecorder(c.Session.Subscribe(), f.json, method)
			if pic != nil {
				pic.watch(c)
			}
		}}
	opts.followTasks = method == "tools/call" // call follows a task the server makes
	if f.otlpReceive != "" {
		if run.recv, err = otlprecv.Listen(f.otlpReceive); err != nil {
			return nil, withCode(ExitUsage, err)
		}
		opts.session.Trace = true
		if spec.Command != "" && !hasEnv(spec.Env, "OTEL_EXPORTER_OTLP_ENDPOINT") {
			spec.Env = append(append([]string(nil), spec.Env...), "OTEL_EXPORTER_OTLP_ENDPOINT="+run.recv.Endpoint())
		}
	}
	run.srv, err = openServer(ctx, g, spec, opts)
	if err != nil {
		if run.recv != nil {
			run.recv.Close()
		}
		return nil, err
	}
	if f.logLevel != "" {
		// By the era's rule: the level in every request's _meta from now
		// on, or logging/setLevel before the request.
		if err := mcp.SetLogLevel(ctx, run.srv.Session, f.logLevel, f.timeout); err != nil {
			run.srv.Close()
			return nil, fmt.Errorf("--log-level %s: %w", f.logLevel, err)
		}
	}
	return run, nil
}

// outgoing is how a request is sent: start sends it; retry, if set, may
// send it again once after it failed (tools/call after HeaderMismatch),
// returning the new call (nil for none) and what the report says of it.
type outgoing struct {
	start func(context.Context, session.CallOptions) (*session.Call, error)
	retry func(context.Context, *session.Call, error, session.CallOptions) (*session.Call, *reportRetry)
	// roundOpts, if set, are the options of a multi round-trip retry
	// (tools/call's Mcp-Param headers).
	roundOpts func(session.CallOptions) session.CallOptions
}

// plainRequest is an outgoing request of method with params, as built.
func plainRequest(s *session.Session, method string, params json.RawMessage) outgoing {
	return outgoing{start: func(ctx context.Context, opts session.CallOptions) (*session.Call, error) {
		return s.Call(ctx, method, params, opts)
	}}
}

// send makes the request, cancels it after --cancel-after, waits for its
// end and the traffic after it, and reports. after, if set, runs on the
// report before it is printed (read --out saves the contents there).
func (run *requestRun) send(ctx context.Context, stdout io.Writer, req outgoing, after func(*callReport) error) error {
	srv, rec, f := run.srv, run.rec, run.f
	callOpts := callTimeouts(f.timeout, f.maxTimeout)
	var cpu *cpumeter.Sampler
	if f.cancelAfter > 0 {
		// Whether the server's processes go on working after the cancel.
		cpu = startCPUSampler(srv.ServerPID())
		defer cpu.Finish()
	}
	c, err := req.start(ctx, callOpts)
	if err != nil {
		return fmt.Errorf("%s: %w", run.method, err)
	}
	rec.seq.Store(c.Seq())
	var current atomic.Pointer[session.Call] // the call --cancel-after cancels
	current.Store(c)
	// Cancelling between the rounds of a multi round-trip request
	// abandons it: nothing more is sent.
	roundsCtx, abandon := context.WithCancelCause(ctx)
	defer abandon(nil)
	if f.cancelAfter > 0 {
		reason := f.reason
		if reason == "" {
			reason = fmt.Sprintf("cancelled by mcpoke after %s (--cancel-after)", f.cancelAfter)
		}
		timer := time.AfterFunc(f.cancelAfter, func() {
			_ = srv.Session.Request(current.Load().Ref()).Cancel(reason)
			abandon(errors.New(reason))
		})
		defer timer.Stop()
	}
	_, state, callErr := c.Result()
	var retried *reportRetry
	if again, lost := reissueLost(ctx, srv.Session, c, state, req, callOpts); again != nil {
		retried, c = lost, again
		current.Store(c)
		rec.seq.Store(c.Seq())
		_, state, callErr = c.Result()
	}
	if state == session.Failed && req.retry != nil && ctx.Err() == nil && retried == nil {
		var again *session.Call
		if again, retried = req.retry(ctx, c, callErr, callOpts); again != nil {
			c = again
			current.Store(c)
			rec.seq.Store(c.Seq())
			_, state, _ = c.Result()
		}
	}
	var rounds []mcp.Round
	var roundsErr error
	if state == session.Completed && run.side != nil && ctx.Err() == nil {
		opts := callOpts
		if req.roundOpts != nil {
			opts = req.roundOpts(opts)
		}
		rounds, roundsErr = run.side.FollowRounds(roundsCtx, srv.Session, c, opts, func(next *session.Call) {
			current.Store(next)
			rec.seq.Store(next.Seq())
		})
		c = rounds[len(rounds)-1].Call
		_, state, _ = c.Result()
	}
	// A task lives on after the call's CreateTaskResult: the report is
	// about how the task ended.
	ref := c.Ref()
	task, isTask := followCallTask(ctx, srv.Session, ref, run.side)
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
	cpuSamples := cpu.Finish()
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
	// A round that still asks for input: its requestState is quoted, not
	// copied whole into the report (rounds give its size).
	if final.ResultType == mcp.ResultInputRequired {
		rep.Result = mcp.ElideState(rep.Result)
	}
	if !info.TraceParent.IsZero() {
		rep.TraceID = info.TraceParent.TraceIDString()
	}
	if run.recv != nil {
		collectServerSpans(ctx, run.recv, info, rep)
		run.recv.Close()
	}
	if isTask {
		rep.Task = taskReportOf(task, info.Started)
		rep.Task.Inputs = run.asked.taskInputs(task.Ref(), info.Started)
	}
	rep.watched = watched
	rep.Retried = retried
	rep.Rounds, rep.RoundsStopped = roundsReport(srv.Session, rounds, run.asked), roundsOutcome(roundsErr)
	rep.abandoned = abandoned(roundsErr)
	rep.ServerRequests, rep.ServerRequestCount = rec.serverRequests(info.Started, run.asked)
	if d, ok := final.Settled(); ok && run.settle > 0 {
		settled := ms(d)
		rep.SettledMs = &settled
	}
	if rep.Cancel != nil {
		rep.Cancel.ServerCPU = cpuAfterCancel(cpuSamples, final.LateFrom())
		rep.Cancel.Mode = run.mode.String()
		rep.Cancel.Meaning = cancelMeaning(run.mode, info.CancelWire, srv.Transport(), rep.Server.ProtocolVersion)
		if isTask {
			rep.Cancel.Mode, rep.Cancel.Meaning = "tasks/cancel", "the task was cancelled with tasks/cancel, as the spec asks of a task"
			if task.Task != nil && task.Task.Extension {
				rep.Cancel.Meaning = "tasks/cancel of the tasks extension: acknowledged, then tasks/get tells how the task ended (cancelling is cooperative)"
			}
		}
	}
	if after != nil {
		if err := after(rep); err != nil {
			return err
		}
	}
	pic := run.pic
	// The diagram follows a multi round-trip request from its first round.
	drawID := rep.RequestID.String()
	if len(rep.Rounds) > 0 {
		drawID = rep.Rounds[0].RequestID.String()
	}
	if f.json {
		var out any = rep
		if pic != nil {
			out = struct {
				*callReport
				Diagram string `json:"diagram"`
			}{rep, pic.draw(drawID, f, run.settle)}
		}
		if err := writeJSON(stdout, out, rep.textWarnings()); err != nil {
			return err
		}
	} else {
		printReport(stdout, rep, f)
		if pic != nil {
			fmt.Fprintf(stdout, "\n%s", pic.draw(drawID, f, run.settle))
		}
	}
	return quietExit(rep.exitCode())
}

// hasEnv reports whether env (KEY=VALUE pairs) sets key.
func hasEnv(env []string, key string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, key+"=") {
			return true
		}
	}
	return false
}
