package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
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
	// asked logs the server's questions and how the flags answered them.
	asked *askLog
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
		asked: func(l *askLog) { run.asked = l },
		started: func(c *connect.Conn) {
			run.rec = newRecorder(c.Session.Subscribe(), f.json, method)
			if pic != nil {
				pic.watch(c)
			}
		}}
	run.srv, err = openServer(ctx, g, spec, opts)
	if err != nil {
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
	c, err := req.start(ctx, callOpts)
	if err != nil {
		return fmt.Errorf("%s: %w", run.method, err)
	}
	rec.seq.Store(c.Seq())
	var current atomic.Pointer[session.Call] // the call --cancel-after cancels
	current.Store(c)
	if f.cancelAfter > 0 {
		reason := f.reason
		if reason == "" {
			reason = fmt.Sprintf("cancelled by mcpoke after %s (--cancel-after)", f.cancelAfter)
		}
		timer := time.AfterFunc(f.cancelAfter, func() { _ = srv.Session.Request(current.Load().Ref()).Cancel(reason) })
		defer timer.Stop()
	}
	_, state, callErr := c.Result()
	var retried *reportRetry
	if state == session.Failed && req.retry != nil && ctx.Err() == nil {
		var again *session.Call
		if again, retried = req.retry(ctx, c, callErr, callOpts); again != nil {
			c = again
			current.Store(c)
			rec.seq.Store(c.Seq())
			_, state, _ = c.Result()
		}
	}

	var watched time.Duration
	if ctx.Err() == nil {
		if state == session.Cancelled || state == session.TimedOut {
			watched = waitLate(ctx, srv.Session, c.Ref(), rec, f.waitLate)
		} else if f.waitLate > 0 {
			watched = waitAfter(ctx, srv.Session, c.Ref(), f.waitLate)
		}
		// Always: what the server sent before answering the ping is in
		// the report, so stray and duplicates do not vary from run to run.
		settle(ctx, srv.Session, rec)
	}
	info, _ := srv.Session.Request(c.Ref()).Info()
	srv.Close()
	select {
	case <-rec.done:
	case <-time.After(recorderWait):
	}

	rep := buildReport(info, rec, srv.Peer())
	rep.watched = watched
	rep.Retried = retried
	rep.ServerRequests, rep.ServerRequestCount = rec.serverRequests(info.Started, run.asked)
	if d, ok := info.Settled(); ok && run.settle > 0 {
		settled := ms(d)
		rep.SettledMs = &settled
	}
	if rep.Cancel != nil {
		rep.Cancel.Mode = run.mode.String()
		rep.Cancel.Meaning = cancelMeaning(run.mode, info.CancelWire, srv.Transport(), rep.Server.ProtocolVersion)
	}
	if after != nil {
		if err := after(rep); err != nil {
			return err
		}
	}
	pic := run.pic
	if f.json {
		var out any = rep
		if pic != nil {
			out = struct {
				*callReport
				Diagram string `json:"diagram"`
			}{rep, pic.draw(rep.RequestID.String(), f, run.settle)}
		}
		if err := writeJSON(stdout, out, rep.textWarnings()); err != nil {
			return err
		}
	} else {
		printReport(stdout, rep, f)
		if pic != nil {
			fmt.Fprintf(stdout, "\n%s", pic.draw(rep.RequestID.String(), f, run.settle))
		}
	}
	return quietExit(rep.exitCode())
}
