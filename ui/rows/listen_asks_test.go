package rows

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcpoke/mcpoke/session"
)

// A subscriptions/listen row keeps its acknowledgement's filter, counts
// every notification and keeps the newest rowListenNotes.
func TestApplyListen(t *testing.T) {
	ref := session.Ref{Seq: 1, ID: session.IntID(1)}
	events := []session.Event{
		session.RequestStarted{Info: session.RequestInfo{Seq: 1, ID: session.IntID(1), Method: "subscriptions/listen"}},
		session.SubscriptionNotified{Ref: ref, Note: session.SubscriptionNote{Method: "notifications/subscriptions/acknowledged",
			Params: json.RawMessage(`{"notifications":{"toolsListChanged":true}}`)}},
	}
	for i := range rowListenNotes + 5 {
		events = append(events, session.SubscriptionNotified{Ref: ref, Note: session.SubscriptionNote{
			Method: fmt.Sprintf("notifications/%d", i)}})
	}
	s, _ := apply(t, events...)
	l := s.Get(1).Listen
	if l == nil || !l.Acked || string(l.Filter) != `{"toolsListChanged":true}` {
		t.Fatalf("listen %+v, want acknowledged with its filter", l)
	}
	if l.Count != rowListenNotes+5 || len(l.Last) != rowListenNotes || l.Last[0].Method != "notifications/5" {
		t.Errorf("count %d, kept %d from %q; want %d, the newest %d", l.Count, len(l.Last), l.Last[0].Method,
			rowListenNotes+5, rowListenNotes)
	}
}

// A question can arrive before its row: its note waits for the row. An
// answer the session withheld says why, once.
func TestAskNotesAndWithheldAnswers(t *testing.T) {
	s := NewStore()
	n := s.AskNote(4)
	n.Kind = "sampling"
	s.Apply(session.RequestStarted{Info: session.RequestInfo{Seq: 4, ID: session.StringID("s"), Incoming: true, Method: "sampling/createMessage"}})
	r := s.Get(4)
	if r.Ask != n || r.Ask.Kind != "sampling" {
		t.Fatalf("row's note %+v, want the one made before it", r.Ask)
	}
	v := r.Version()
	s.Apply(session.AnswerWithheld{Ref: r.Ref(), Why: "cancelled by the server", Answered: false})
	if n.NotSent != "" {
		t.Errorf("a question nobody answered says %q", n.NotSent)
	}
	e := s.Apply(session.AnswerWithheld{Ref: r.Ref(), Why: "cancelled by the server", Answered: true})
	s.Apply(session.AnswerWithheld{Ref: r.Ref(), Why: "the session ended", Answered: true})
	if want := "not sent: the server had cancelled the request (cancelled by the server)"; n.NotSent != want || e.Row != r {
		t.Errorf("not sent %q (row %v); want %q", n.NotSent, e.Row, want)
	}
	if r.Version() == v {
		t.Error("the row did not change version: its views would not redraw")
	}
}
