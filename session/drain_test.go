package session

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/transport"
)

// A client that pipes its requests and closes its input still gets every
// answer: `cat requests | mcpoke demo-server`.
func TestDrainOnEOFAnswersRequestsInFlight(t *testing.T) {
	release := make(chan struct{})
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"slow"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n")
	outR, outW := io.Pipe()
	s := New(transport.NewStream(in, outW, 0), Config{DrainOnEOF: time.Minute, Handlers: map[string]Handler{
		"slow": func(ctx context.Context, _ *Incoming) (any, error) {
			select {
			case <-release: // the input has long ended by now
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return map[string]bool{"ok": true}, nil
		},
	}})
	lines := make(chan string, 2)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(what string) string {
		t.Helper()
		select {
		case l := <-lines:
			return l
		case <-time.After(hangGuard):
			t.Fatalf("no %s within %v", what, hangGuard)
		}
		return ""
	}
	if l := next("ping answer"); !strings.Contains(l, `"id":2`) {
		t.Fatalf("ping answer: %q", l)
	}
	select {
	case <-s.Done():
		t.Fatal("session ended while a handler was still answering")
	default:
	}
	close(release)
	if l := next("answer of the slow request"); l != `{"jsonrpc":"2.0","id":1,"result":{"ok":true}}` {
		t.Fatalf("slow answer: %q", l)
	}
	waitClosed(t, s.Done(), "the session ending after its answers were drained")
	if err := s.Err(); err != nil {
		t.Fatalf("end of input is a clean end, got %v", err)
	}
	closeWithin(t, s)
	outW.Close()
}
