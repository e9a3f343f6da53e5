package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
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
	return run, nil
}

// send makes the request, cancels it after --cancel-after, waits for its
// end and the traffic after it, and reports. after, if set, runs on the
// report before it is printed (read --out saves the contents there).
func (run *requestRun) send(ctx context.Context, stdout io.Writer, params json.RawMessage, after func(*callReport) error) error {
	srv, rec, f := run.srv, run.rec, run.f
	c, err := srv.Session.Call(ctx, run.method, params, callTimeouts(f.timeout, f.maxTimeout))
	if err != nil {
		return fmt.Errorf("%s: %w", run.method, err)
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
	rep.ServerRequests, rep.ServerRequestCount = rec.serverRequests(info.Started, run.asked)
	if d, ok := info.Settled(); ok && run.settle > 0 {
		settled := ms(d)
		rep.SettledMs = &settled
	}
	if rep.Cancel != nil {
		rep.Cancel.Mode = run.mode.String()
		rep.Cancel.Meaning = cancelMeaning(run.mode, srv.Transport(), rep.Server.ProtocolVersion)
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
