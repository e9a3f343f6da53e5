package proxy

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
)

// watchLines feeds lines to a new Watcher and returns it with every
// event, and the records it read.
func watchLines(t *testing.T, lines ...string) (*Watcher, []session.Event, []wire.Record) {
	t.Helper()
	w := NewWatcher(time.Unix(1000, 0))
	var events []session.Event
	var recs []wire.Record
	for _, l := range lines {
		rec, ev, ok := w.Line([]byte(l))
		if ok {
			recs = append(recs, rec)
		}
		events = append(events, ev...)
	}
	return w, events, recs
}

// states is each request's last state by its id, from the events.
func states(events []session.Event) map[string]session.State {
	out := map[string]session.State{}
	ids := map[uint64]string{}
	for _, e := range events {
		switch e := e.(type) {
		case session.RequestStarted:
			ids[e.Info.Seq] = e.Info.ID.String()
			out[e.Info.ID.String()] = e.Info.State
		case session.StateChanged:
			out[ids[e.Ref.Seq]] = e.To
		}
	}
	return out
}

func TestWatcherStatesOfAHostsRequests(t *testing.T) {
	w, events, recs := watchLines(t,
		`{"t":0,"dir":"relay","relay":"mcpoke proxy x (pid 1) relays to: server --flag"}`,
		`{"t":1,"dir":"out","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"Claude","version":"1.2"}}}}`,
		`{"t":2,"dir":"in","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","serverInfo":{"name":"srv","version":"3"}}}}`,
		`{"t":3,"dir":"out","msg":[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":7}}},{"jsonrpc":"2.0","id":"1","method":"tools/call","params":{"name":"b"}}]}`,
		`{"t":4,"dir":"in","msg":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}}`,
		`{"t":5,"dir":"in","msg":{"jsonrpc":"2.0","id":9,"method":"roots/list"}}`,
		`{"t":6,"dir":"out","msg":{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"Stop"}}}`,
		`{"t":8,"dir":"in","msg":{"jsonrpc":"2.0","id":1,"result":{}}}`,
		`{"t":9,"dir":"stderr","raw":"log line"}`,
		`{"t":10,"dir":"in","msg":{"jsonrpc":"2.0","id":"1","error":{"code":1,"message":"no"}}}`,
		`{"t":11,"dir":"out","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"c"}}}`,
		`{"t":12,"dir":"relay","relay":"the host closed its input"}`,
		`{"t":13,"dir":"relay","relay":"server exited with status 1"}`,
		`not json`,
	)
	if len(recs) != 13 {
		t.Errorf("%d records, want 13 (every line but the one that is not JSON)", len(recs))
	}
	got := states(events)
	want := map[string]session.State{`0`: session.Completed, `1`: session.Cancelled, `"1"`: session.Failed,
		`9`: session.Failed, `2`: session.Failed}
	for id, st := range want {
		if got[id] != st {
			t.Errorf("request %s is %v, want %v (all: %v)", id, got[id], st, got)
		}
	}
	var late, progress int
	for _, e := range events {
		switch e := e.(type) {
		case session.LateArrived:
			late++
			if e.Late.Kind != session.LateResponse || e.Late.AfterCancel != 2*time.Millisecond {
				t.Errorf("late %+v, want a response 2ms after the cancel", e.Late)
			}
		case session.ProgressUpdated:
			progress++
		}
	}
	if late != 1 || progress != 1 {
		t.Errorf("%d late and %d progress events, want 1 and 1", late, progress)
	}
	for id, want := range map[uint64]string{1: "", 2: "Stop", 5: ReasonHostGone} {
		info, _ := w.Info(id)
		if info.CancelReason != want && info.Failure != want {
			t.Errorf("request #%d: cancel %q, failure %q; want %q", id, info.CancelReason, info.Failure, want)
		}
	}
	if info, _ := w.Info(4); !info.Incoming || !strings.HasPrefix(info.Failure, ReasonServerGone) {
		t.Errorf("the server's roots/list: incoming %v, failure %q; want incoming, failed as the server exited", info.Incoming, info.Failure)
	}
	h := w.Header()
	if h.Host != "Claude 1.2" || h.Server != "srv 3" || h.Version != "2025-06-18" || h.Transport != "stdio" {
		t.Errorf("header %+v", h)
	}
}

func TestWatcherStreamClosedAndModernHeader(t *testing.T) {
	w, events, _ := watchLines(t,
		`{"t":0,"dir":"relay","relay":"mcpoke proxy x (pid 1) relays to: http://127.0.0.1:9/mcp"}`,
		`{"t":1,"dir":"out","msg":{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"sdk","version":"2"}}}}}`,
		`{"t":2,"dir":"relay","relay":"`+EventStreamClosed+`5"}`,
		`{"t":3,"dir":"out","msg":{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"b"}}}`,
	)
	info, _ := w.Info(1)
	if info.State != session.Cancelled || !info.CancelWire.StreamClosed || info.CancelReason != ReasonStream {
		t.Errorf("request 5: %v %+v %q; want cancelled by its closed stream", info.State, info.CancelWire, info.CancelReason)
	}
	h := w.Header()
	if h.Host != "sdk 2" || h.Version != "2026-07-28" || h.Transport != "http" {
		t.Errorf("header %+v", h)
	}
	// The stream ends with 6 pending: the proxy went without a word.
	end := w.End(time.Unix(2000, 0))
	if len(end) != 1 || states(append(events, end...))["6"] != session.Failed {
		t.Errorf("End: %v; want request 6 failed", end)
	}
	if info, _ := w.Info(2); info.Failure != ReasonProxyGone {
		t.Errorf("request 6 failure %q", info.Failure)
	}
}

// The proxy's own relay lines (hold, kill) are no server exit: a hold
// leaves every request pending, the kill cancels its one request.
func TestWatcherProxysOwnWords(t *testing.T) {
	w, events, _ := watchLines(t,
		`{"t":0,"dir":"relay","relay":"mcpoke proxy x (pid 1) relays to: mcpoke demo-server"}`,
		`{"t":1,"dir":"out","msg":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a"}}}`,
		`{"t":2,"dir":"out","msg":{"jsonrpc":"2.0","id":"4","method":"tools/call","params":{"name":"b"}}}`,
		`{"t":3,"dir":"relay","relay":"`+EventHeld+`3 (until released, at most 5m0s)"}`,
		`{"t":4,"dir":"relay","relay":"`+EventProxyCancelled+`\"4\""}`,
	)
	st := states(events)
	if st["3"] != session.Pending || st[`"4"`] != session.Cancelled {
		t.Fatalf("states %v; want 3 pending (held), \"4\" cancelled by the proxy", st)
	}
	if info, _ := w.Info(2); info.CancelReason != ReasonProxyKilled {
		t.Errorf("request \"4\" reason %q", info.CancelReason)
	}
}

// Two HTTP sessions' requests with the same id are two rows, each with
// its session; one session's cancel and answer reach only its own.
func TestWatcherKeepsSessionsApart(t *testing.T) {
	_, events, _ := watchLines(t,
		`{"t":1,"session":"s1","dir":"out","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep"}}}`,
		`{"t":2,"session":"s2","dir":"out","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep"}}}`,
		`{"t":3,"session":"s2","dir":"out","msg":{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}}`,
		`{"t":4,"session":"s1","dir":"in","msg":{"jsonrpc":"2.0","id":2,"result":{}}}`,
	)
	state := map[string]session.State{}
	bySeq := map[uint64]string{}
	for _, e := range events {
		switch e := e.(type) {
		case session.RequestStarted:
			bySeq[e.Info.Seq] = e.Info.Session
			state[e.Info.Session] = e.Info.State
		case session.StateChanged:
			state[bySeq[e.Ref.Seq]] = e.To
		}
	}
	if len(bySeq) != 2 || state["s1"] != session.Completed || state["s2"] != session.Cancelled {
		t.Errorf("rows by session: %v, want s1 completed and s2 cancelled", state)
	}
}

// An answer the proxy holds reaches the host only when the hold ends:
// the row stays pending until then. Held until the host cancels
// (--answer-after-cancel), it is late; dropped, the host never gets it.
func TestWatcherHoldsAnswersUntilReleased(t *testing.T) {
	w := NewWatcher(time.Unix(1000, 0))
	var events []session.Event
	var holds []Hold
	feed := func(l string) {
		_, ev, _ := w.Line([]byte(l))
		events = append(events, ev...)
		holds = append(holds, w.Holds()...)
	}
	feed(`{"t":1,"dir":"out","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}}`)
	feed(`{"t":2,"dir":"out","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}}`)
	feed(`{"t":3,"dir":"out","msg":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"c"}}}`)
	for _, id := range []string{"1", "2", "3"} {
		feed(`{"t":10,"dir":"relay","relay":"` + EventHeld + id + ` (until released, at most 5m0s)"}`)
		feed(`{"t":11,"dir":"in","msg":{"jsonrpc":"2.0","id":` + id + `,"result":{}}}`)
	}
	if st := states(events); st["1"] != session.Pending || st["2"] != session.Pending || st["3"] != session.Pending {
		t.Fatalf("held answers show as %v, want all pending", st)
	}
	if len(holds) != 3 || !holds[0].Ended.IsZero() || holds[0].At != time.Unix(1000, 10*int64(time.Millisecond)) {
		t.Fatalf("holds begun: %+v", holds)
	}
	feed(`{"t":50,"dir":"relay","relay":"` + EventReleased + `1"}`)
	feed(`{"t":60,"dir":"out","msg":{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}}`)
	feed(`{"t":70,"dir":"relay","relay":"` + EventReleased + `2"}`)
	feed(`{"t":80,"dir":"relay","relay":"` + EventDropped + `3"}`)
	st := states(events)
	if st["1"] != session.Completed || st["2"] != session.Cancelled || st["3"] != session.Pending {
		t.Errorf("after the holds: %v, want 1 completed, 2 cancelled, 3 still pending", st)
	}
	var late []session.LateArrived
	for _, e := range events {
		if l, ok := e.(session.LateArrived); ok {
			late = append(late, l)
		}
	}
	if len(late) != 1 || late[0].Ref.ID.String() != "2" || late[0].Late.AfterCancel != 10*time.Millisecond {
		t.Errorf("late answers: %+v, want 2's, 10ms after its cancel", late)
	}
	if len(holds) != 6 || holds[3].Dropped || holds[3].Ended.Sub(holds[3].At) != 40*time.Millisecond || !holds[5].Dropped {
		t.Errorf("holds ended: %+v", holds[3:])
	}
}
