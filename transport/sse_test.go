package transport

import (
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// oracleEvent is what a reader of the stream sees: dispatched events and
// the reconnection time, per the WHATWG algorithm.
type oracleEvent struct {
	Type, Data, LastID string
}

// sseOracle is the WHATWG event-stream algorithm written as plainly as
// possible over the whole input, to check sseReader against.
func sseOracle(in string) (events []oracleEvent, retry int) {
	in = strings.TrimPrefix(in, "\ufeff")
	retry = -1
	in = strings.ReplaceAll(in, "\r\n", "\n")
	in = strings.ReplaceAll(in, "\r", "\n")
	lines := strings.Split(in, "\n")
	lines = lines[:len(lines)-1] // the last piece has no end of line: dropped
	var data, typ, lastID string
	hasData := false
	for _, l := range lines {
		if l == "" {
			if hasData {
				events = append(events, oracleEvent{typ, strings.TrimSuffix(data, "\n"), lastID})
			}
			data, typ, hasData = "", "", false
			continue
		}
		if l[0] == ':' {
			continue
		}
		name, value, found := strings.Cut(l, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch name {
		case "data":
			data += value + "\n"
			hasData = true
		case "event":
			typ = value[:min(len(value), sseFieldKeep)]
		case "id":
			if !strings.Contains(value, "\x00") && len(value) <= sseFieldKeep {
				lastID = value
			}
		case "retry":
			if n, err := strconv.Atoi(value); err == nil && value != "" && strings.Trim(value, "0123456789") == "" && len(value) <= 9 {
				retry = n
			}
		}
	}
	return events, retry
}

// parseAll runs sseReader over in and returns what the oracle returns.
func parseAll(t testing.TB, r io.Reader, max int) (events []oracleEvent, retry int, blocks []sseEvent, err error) {
	sr := newSSEReader(r, max)
	retry = -1
	for {
		ev, err := sr.next()
		if ev.RetrySet {
			retry = ev.Retry
		}
		if err != nil {
			return events, retry, blocks, err
		}
		blocks = append(blocks, ev)
		if ev.RetrySet {
			retry = ev.Retry
		}
		if ev.Dispatch && !ev.Oversize {
			events = append(events, oracleEvent{ev.Type, string(ev.Data), ev.LastID})
		}
		if len(ev.Data) > max {
			t.Fatalf("kept %d bytes of data, limit %d", len(ev.Data), max)
		}
	}
}

func TestSSESpecExamples(t *testing.T) {
	cases := []struct {
		name, in string
		want     []oracleEvent
		retry    int
	}{
		{"stock", "data: YHOO\ndata: +2\ndata: 10\n\n", []oracleEvent{{"", "YHOO\n+2\n10", ""}}, -1},
		{"comment and ids", ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n",
			[]oracleEvent{{"", "first event", "1"}, {"", "second event", ""}, {"", " third event", ""}}, -1},
		{"empty data", "data\n\ndata\ndata\n\ndata:", []oracleEvent{{"", "", ""}, {"", "\n", ""}}, -1},
		{"space after colon", "data:test\n\ndata: test\n\n", []oracleEvent{{"", "test", ""}, {"", "test", ""}}, -1},
		{"CRLF and CR", "event: a\r\ndata: x\r\n\r\ndata: y\r\rdata: z\n\n",
			[]oracleEvent{{"a", "x", ""}, {"", "y", ""}, {"", "z", ""}}, -1},
		{"BOM", "\ufeffdata: b\n\n", []oracleEvent{{"", "b", ""}}, -1},
		{"retry", "retry: 1500\n\nretry: 12a\n\ndata: x\n\n", []oracleEvent{{"", "x", ""}}, 1500},
		{"id with NUL ignored", "id: 7\ndata: a\n\nid: 8\x00\ndata: b\n\n", []oracleEvent{{"", "a", "7"}, {"", "b", "7"}}, -1},
		{"no data is no event", "id: 5\nevent: x\n\ndata: y\n\n", []oracleEvent{{"", "y", "5"}}, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			oracle, oretry := sseOracle(c.in)
			if !reflect.DeepEqual(oracle, c.want) || oretry != c.retry {
				t.Fatalf("oracle disagrees with the spec example: %q retry %d", oracle, oretry)
			}
			for _, r := range []io.Reader{strings.NewReader(c.in), iotest.OneByteReader(strings.NewReader(c.in))} {
				got, retry, _, err := parseAll(t, r, 1<<20)
				if err != nil && err != io.EOF && !errors.Is(err, errSSETruncated) {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, c.want) || retry != c.retry {
					t.Errorf("got %q retry %d, want %q retry %d", got, retry, c.want, c.retry)
				}
			}
		})
	}
}

func TestSSEKeepsRawFields(t *testing.T) {
	in := ": keepalive\n: again\n\nid: 42\nretry: 3000\nevent: message\ndata: {}\n\n"
	_, _, blocks, _ := parseAll(t, strings.NewReader(in), 1<<10)
	if len(blocks) != 2 {
		t.Fatalf("got %d blocks, want 2: %+v", len(blocks), blocks)
	}
	if b := blocks[0]; b.Dispatch || b.CommentCount != 2 || b.Comments[0] != " keepalive" {
		t.Errorf("comment block: %+v", b)
	}
	if b := blocks[1]; !b.Dispatch || !b.IDSet || b.LastID != "42" || b.Retry != 3000 || b.Type != "message" {
		t.Errorf("event block: %+v", b)
	}
}

func TestSSEOversizeEventSkippedBounded(t *testing.T) {
	const max = 1000
	in := "id: 1\ndata: " + strings.Repeat("x", 5000) + "\ndata: y\n\ndata: ok\n\n"
	events, _, blocks, _ := parseAll(t, strings.NewReader(in), max)
	if len(blocks) != 2 || !blocks[0].Oversize || blocks[0].Size != 5000+1+1 || len(blocks[0].Data) != max {
		t.Fatalf("blocks: %d, first oversize %v size %d kept %d", len(blocks), blocks[0].Oversize, blocks[0].Size, len(blocks[0].Data))
	}
	if len(events) != 1 || events[0].Data != "ok" || events[0].LastID != "1" {
		t.Errorf("events after the oversize one: %q", events)
	}
}

func TestSSETruncatedEventReported(t *testing.T) {
	_, _, _, err := parseAll(t, strings.NewReader("data: a\n\ndata: {\"half"), 1<<10)
	if !errors.Is(err, errSSETruncated) {
		t.Fatalf("err = %v, want errSSETruncated", err)
	}
}

func FuzzSSE(f *testing.F) {
	for _, s := range []string{
		"data: YHOO\ndata: +2\n\n", ": c\r\nid: 1\r\nretry: 10\r\ndata\r\n\r\n", "\ufeffdata:x\rdata:y\r\r",
		"event: endpoint\ndata: /messages?s=1\n\n", "id: a\x00b\ndata: z\n\n", "data: " + strings.Repeat("x", 70) + "\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const max = 64
		want, wantRetry := sseOracle(string(in))
		var kept []oracleEvent
		for _, e := range want {
			if len(e.Data) <= max {
				kept = append(kept, e)
			}
		}
		got, retry, _, err := parseAll(t, iotest.HalfReader(strings.NewReader(string(in))), max)
		if err != io.EOF && !errors.Is(err, errSSETruncated) {
			t.Fatalf("unexpected error %v", err)
		}
		if !reflect.DeepEqual(got, kept) || retry != wantRetry {
			t.Fatalf("input %q:\n got %q retry %d\nwant %q retry %d", in, got, retry, kept, wantRetry)
		}
	})
}

// A stream cut between events (net/http reports a chunked body cut short
// as io.ErrUnexpectedEOF) is not an event cut in the middle: the complete
// event is delivered and the read error comes back as it is.
func TestSSECutBetweenEventsIsNotTruncated(t *testing.T) {
	r := newSSEReader(io.MultiReader(strings.NewReader("id: a_0\nevent: prime\ndata:\n\n"), iotest.ErrReader(io.ErrUnexpectedEOF)), 1<<10)
	ev, err := r.next()
	if err != nil || ev.LastID != "a_0" {
		t.Fatalf("first block: %+v, %v", ev, err)
	}
	if _, err := r.next(); err != io.ErrUnexpectedEOF {
		t.Fatalf("err = %v, want io.ErrUnexpectedEOF itself", err)
	}
	// Cut inside a line or a block, it is truncated.
	for _, in := range []string{"data: {\"half", "id: b\ndata: x\n"} {
		r := newSSEReader(io.MultiReader(strings.NewReader(in), iotest.ErrReader(io.ErrUnexpectedEOF)), 1<<10)
		if _, err := r.next(); !errors.Is(err, errSSETruncated) {
			t.Errorf("%q: err = %v, want errSSETruncated", in, err)
		}
	}
}
