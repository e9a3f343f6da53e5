package transport

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

func TestParseRoutingKeepsRawIDsAndTokens(t *testing.T) {
	for _, c := range []struct {
		frame             string
		id, method, token string
		kind              string
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":"p"}}}`, "7", "tools/call", `"p"`, "request"},
		{`{"jsonrpc":"2.0","id":"7","result":{}}`, `"7"`, "", "", "response"},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1.5,"progress":1}}`, "", "notifications/progress", "1.5", "notification"},
		{`{"jsonrpc":"2.0","id":1,"method":"x","params":[1,2]}`, "1", "x", "", "request"},
	} {
		e, err := parseRouting([]byte(c.frame))
		if err != nil {
			t.Fatalf("%s: %v", c.frame, err)
		}
		kind := map[bool]string{e.isRequest(): "request", e.isResponse(): "response", e.isNotification(): "notification"}[true]
		if e.id != c.id || e.method != c.method || e.token != c.token || kind != c.kind {
			t.Errorf("%s: got %+v (%s)", c.frame, e, kind)
		}
	}
	if _, err := parseRouting([]byte(`{"jsonrpc":"2.0"}`)); err == nil {
		t.Error("a message with neither id nor method was accepted")
	}
}

func TestEventIDsRoundTrip(t *testing.T) {
	n, seq, ok := parseEventID(eventID(12, 345))
	if !ok || n != 12 || seq != 345 {
		t.Fatalf("got %d %d %v", n, seq, ok)
	}
	for _, bad := range []string{"", "12", "a-1", "1-b", "-1-2"} {
		if _, _, ok := parseEventID(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestAppendSSEEventSplitsLines(t *testing.T) {
	got := string(appendSSEEvent(nil, "1-2", "message", []byte("{\n\"a\":1\r\n}"), 500))
	want := "id: 1-2\nevent: message\nretry: 500\ndata: {\ndata: \"a\":1\ndata: }\n\n"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := string(appendSSEEvent(nil, "0-0", "", nil, 0)); got != "id: 0-0\ndata: \n\n" {
		t.Fatalf("priming event %q", got)
	}
}

func TestEventStreamStoreIsBounded(t *testing.T) {
	st := newEventStream(1)
	for i := 0; i < 10; i++ {
		st.add([]byte(strings.Repeat("x", 10)), false, 4, 1000)
	}
	if len(st.events) != 4 || st.events[0].seq != 7 {
		t.Fatalf("kept %d events from seq %d; want the last 4", len(st.events), st.events[0].seq)
	}
	for i := 0; i < 3; i++ {
		st.add([]byte(strings.Repeat("y", 400)), false, 100, 1000)
	}
	if st.bytes > 1000 {
		t.Fatalf("kept %d bytes, over the 1000 limit", st.bytes)
	}
	if got := st.after(st.nextSeq - 2); len(got) != 1 {
		t.Fatalf("after the second-to-last: %d events, want 1", len(got))
	}
}

// FuzzAppendSSEEvent: whatever a frame holds, a reader gets it back, its
// line breaks made \n, and one event with the given id.
func FuzzAppendSSEEvent(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	f.Add([]byte("{\r\n\"a\":\r1\n}"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		out := appendSSEEvent(nil, "3-4", "", data, 0)
		e, err := nextServerEvent(bufio.NewReader(bytes.NewReader(out)))
		if err != nil {
			t.Fatalf("reading back %q: %v", out, err)
		}
		want := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(data))
		if e.id != "3-4" || e.data != want {
			t.Fatalf("read back id %q data %q from %q; want %q", e.id, e.data, out, want)
		}
	})
}
