package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// cancelWireWait bounds the wait for a listen's cancel to be written, so
// that the last line can say what it did on the wire.
const cancelWireWait = 2 * time.Second

// listenRun follows one listen: the session's events in their order,
// until mcpoke stops it or the server or the connection ends it.
type listenRun struct {
	out   listenPrinter
	f     *listenFlags
	srv   *connect.Conn
	sub   *session.Subscription
	start time.Time
	// count is the notifications printed, the acknowledgement not
	// counted; acked says the acknowledgement came.
	count int
	acked bool
	// call is the modern era's subscriptions/listen.
	call *session.Call
}

func newListenRun(w io.Writer, f *listenFlags, srv *connect.Conn, sub *session.Subscription) *listenRun {
	return &listenRun{out: listenPrinter{w: w, json: f.json}, f: f, srv: srv, sub: sub, start: time.Now()}
}

// listenEnd is how a listen ended.
type listenEnd struct {
	// by is mcpoke, server or connection.
	by     string
	reason string
	// cancel is what mcpoke's cancel did on the wire, when it cancelled.
	cancel string
	failed bool
}

// countReached says --count's notifications came.
func (l *listenRun) countReached() bool { return l.f.count > 0 && l.count >= l.f.count }

// deadline is --for's timer channel; nil (never) without it.
func (l *listenRun) deadline() <-chan time.Time {
	if l.f.forDur <= 0 {
		return nil
	}
	return time.After(l.f.forDur - time.Since(l.start))
}

// modern opens subscriptions/listen for filter and follows it.
func (l *listenRun) modern(ctx context.Context, filter mcp.ListenFilter) error {
	s := l.srv.Session
	// The clock starts before the request goes out: its acknowledgement
	// can arrive before Listen returns, and must not read as negative.
	start := time.Now()
	call, err := mcp.Listen(context.Background(), s, filter)
	if err != nil {
		return withCode(ExitFailed, err)
	}
	l.call, l.start = call, start
	l.out.listen(call.ID(), filter, true)
	end := l.follow(ctx, func(e session.Event) (listenEnd, bool) {
		switch e := e.(type) {
		case session.SubscriptionNotified:
			if e.Ref.Seq != call.Seq() {
				return listenEnd{}, false
			}
			if e.Note.Method == "notifications/subscriptions/acknowledged" {
				l.acked = true
				ack, err := mcp.ParseListenAck(e.Note.Params)
				l.out.acknowledged(l.at(e.Note.At), ack, filter.Declined(ack), err)
				return listenEnd{}, false
			}
			l.count++
			l.out.notification(l.at(e.Note.At), e.Note.Method, e.Note.Params, true)
			if l.countReached() {
				return l.stop("--count " + strconv.Itoa(l.f.count) + " reached"), true
			}
		case session.StateChanged:
			if e.Ref.Seq == call.Seq() && e.To.Final() {
				return l.endedByServer(e), true
			}
		case session.NotificationArrived:
			if isChange(e.Method) && !bytes.Contains(e.Params, []byte(session.MetaSubscriptionID)) {
				l.out.untagged(l.at(e.At), e.Method)
			}
		}
		return listenEnd{}, false
	})
	return l.finish(end)
}

// endedByServer says how the server ended the listen.
func (l *listenRun) endedByServer(e session.StateChanged) listenEnd {
	info, _ := l.srv.Session.Request(l.call.Ref()).Info()
	switch {
	case e.To == session.Completed && info.EndedByPeer != "":
		return listenEnd{by: "server", reason: info.EndedByPeer + " (legal: a 2026-07-28 server may cancel only a subscriptions/listen)"}
	case e.To == session.Completed:
		return listenEnd{by: "server", reason: "the server ended the subscription with a response (a graceful close)"}
	}
	_, _, err := l.call.Result()
	why := e.Reason
	if err != nil {
		why = err.Error()
	}
	return listenEnd{by: "server", reason: "subscriptions/listen " + e.To.String() + ": " + why, failed: true}
}

// follow reads events until handle says the listen ended, mcpoke stops
// it (ctx, --for), or the connection ends. Violations and stderr lines
// are printed on the way, whatever the era.
func (l *listenRun) follow(ctx context.Context, handle func(session.Event) (listenEnd, bool)) listenEnd {
	if l.countReached() {
		return l.stop("--count reached")
	}
	done := ctx.Done()
	stopAt := l.deadline()
	for {
		select {
		case <-done:
			why := "interrupted"
			if c := context.Cause(ctx); c != nil && c != context.Canceled {
				why = c.Error() // "interrupt signal received"
			}
			return l.stop(why)
		case <-stopAt:
			return l.stop("--for " + l.f.forDur.String() + " elapsed")
		case e, ok := <-l.sub.C:
			if !ok {
				return listenEnd{by: "connection", reason: "the session ended", failed: true}
			}
			switch e := e.(type) {
			case session.Violation:
				l.out.violation(l.at(e.At), e)
			case session.StderrLine:
				if l.f.stderr {
					l.out.stderr(l.at(e.At), e.Line)
				}
			case session.Closed:
				why := "the server closed the connection"
				if e.Err != nil {
					why += ": " + e.Err.Error()
				}
				return listenEnd{by: "connection", reason: why, failed: true}
			}
			if end, ok := handle(e); ok {
				return end
			}
		}
	}
}

// stop is mcpoke ending the listen for why: in 2026-07-28 by cancelling
// it by the era's rule.
func (l *listenRun) stop(why string) listenEnd {
	end := listenEnd{by: "mcpoke", reason: why}
	if l.call == nil {
		return end
	}
	h := l.srv.Session.Request(l.call.Ref())
	if err := h.Cancel("mcpoke listen: " + why); err != nil {
		end.cancel = "not sent: " + err.Error()
		return end
	}
	l.waitCancelSent()
	info, _ := h.Info()
	end.cancel = cancelHow(info)
	return end
}

// waitCancelSent waits, a little at most, for the listen's cancel to
// be written, so that its request says what it did on the wire.
func (l *listenRun) waitCancelSent() {
	timeout := time.After(cancelWireWait)
	for {
		select {
		case e, ok := <-l.sub.C:
			if !ok {
				return
			}
			switch e := e.(type) {
			case session.CancelSent:
				if e.Ref.Seq == l.call.Seq() {
					return
				}
			case session.StderrLine:
				if l.f.stderr {
					l.out.stderr(l.at(e.At), e.Line)
				}
			}
		case <-timeout:
			return
		}
	}
}

// stderrQuietAfterStop and stderrWaitAfterStop bound how long --stderr
// waits, after mcpoke stopped the listen, for what the server logs about
// it: until its stderr is quiet that long, at most the wait.
const (
	stderrQuietAfterStop = 100 * time.Millisecond
	stderrWaitAfterStop  = 500 * time.Millisecond
)

// drainStderr prints the server's stderr lines that come soon after the
// stop: how it saw the cancel.
func (l *listenRun) drainStderr() {
	limit := time.After(stderrWaitAfterStop)
	quiet := time.NewTimer(stderrQuietAfterStop)
	defer quiet.Stop()
	for {
		select {
		case <-limit:
			return
		case <-quiet.C:
			return
		case e, ok := <-l.sub.C:
			if !ok {
				return
			}
			if line, isLine := e.(session.StderrLine); isLine {
				l.out.stderr(l.at(line.At), line.Line)
				quiet.Reset(stderrQuietAfterStop)
			}
		}
	}
}

// finish prints the end and gives the exit code: a listen the server
// never acknowledged failed, however it ended.
func (l *listenRun) finish(end listenEnd) error {
	if l.call != nil && !l.acked {
		end.failed = true
	}
	if l.f.stderr && end.by == "mcpoke" {
		l.drainStderr()
	}
	l.out.end(l.at(time.Now()), end, l.count, l.acked, l.call != nil)
	if end.failed {
		return quietExit(ExitFailed)
	}
	return nil
}

// at is t as milliseconds since the listen started.
func (l *listenRun) at(t time.Time) float64 { return ms(t.Sub(l.start)) }

// isChange reports whether method is a change notification.
func isChange(method string) bool {
	switch method {
	case mcp.ToolsListChanged, mcp.PromptsListChanged, mcp.ResourcesListChanged, mcp.ResourceUpdated:
		return true
	}
	return false
}

// compactParams is params without their _meta, for a line.
func compactParams(params json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil {
		return params
	}
	delete(m, "_meta")
	if len(m) == 0 {
		return nil
	}
	out, _ := json.Marshal(m)
	return out
}
