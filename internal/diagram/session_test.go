package diagram

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// twoSessions is a proxy's transcript over HTTP: host sessions s1 and s2
// both call with id 2; s1 cancels its call and gets a late answer, s2's
// is answered, and s2 sends last.
const twoSessions = `{"t":0,"dir":"relay","relay":"mcpoke proxy relays to: http://127.0.0.1:1/mcp"}
{"t":1,"dir":"out","session":"s1","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}}
{"t":2,"dir":"out","session":"s2","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"quick"}}}
{"t":3,"dir":"out","session":"s1","msg":{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"Stop"}}}
{"t":4,"dir":"in","session":"s2","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[]}}}
{"t":5,"dir":"in","session":"s1","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[]}}}
`

// Host sessions through one proxy may reuse ids: a request's diagram
// is of its own session's traffic only, and without a session it is the
// last request sent with the id, in its session.
func TestDiagramOfOneHostSession(t *testing.T) {
	tr := readString(t, twoSessions)
	for _, c := range []struct {
		name string
		o    Options
		want string
	}{
		{"s1", Options{Request: "2", Session: "s1", Relayed: true}, "tools/call slow (id 2)\nnotifications/cancelled (id 2) \"Stop\"\nresult · passed on (cancel +2ms)\n"},
		{"s2", Options{Request: "2", Session: "s2", Relayed: true}, "tools/call quick (id 2)\nresult\n"},
		{"no session: the last sent", Options{Request: "2", Relayed: true}, "tools/call quick (id 2)\nresult\n"},
		{"the default request", Options{Relayed: true}, "tools/call quick (id 2)\nresult\n"},
	} {
		l, err := Build(tr, c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := arrowLabels(l); got != c.want {
			t.Errorf("%s: arrows:\n%s\nwant:\n%s", c.name, got, c.want)
		}
	}
	if _, err := Build(tr, Options{Request: "2", Session: "s3"}); !errors.Is(err, ErrNoRequest) || !strings.Contains(err.Error(), "in host session s3") {
		t.Errorf("a session without the request: %v, want ErrNoRequest naming the session", err)
	}
	reqs := Requests(tr)
	if len(reqs) != 2 || reqs[0].Session != "s1" || reqs[1].Session != "s2" {
		t.Errorf("Requests: %+v, want s1's and s2's", reqs)
	}
}

// The live view (a Follower fed records, as the TUI's timeline is) skips
// the other sessions' traffic too.
func TestFollowerOfOneHostSession(t *testing.T) {
	start := time.Unix(0, 0)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	recs := []wire.Record{
		{At: at(1), Dir: wire.Out, Kind: wire.KindFrame, Session: "s1", Data: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}`)},
		{At: at(2), Dir: wire.Out, Kind: wire.KindFrame, Session: "s2", Data: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"quick"}}`)},
		{At: at(4), Dir: wire.In, Kind: wire.KindFrame, Session: "s2", Data: []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`)},
	}
	f := NewFollower(Options{Request: "2", Session: "s1", Relayed: true})
	for i, r := range recs {
		if it, ok := ItemOf(start, r, i+1); ok {
			f.Add(it)
		}
	}
	l, ok := f.Life(Options{Request: "2", Session: "s1", Relayed: true, Live: true, Now: 5})
	if !ok {
		t.Fatal("the follower did not find s1's request")
	}
	if got, want := arrowLabels(l), "tools/call slow (id 2)\n"; got != want {
		t.Errorf("s1's live arrows:\n%s\nwant:\n%s", got, want)
	}
}
