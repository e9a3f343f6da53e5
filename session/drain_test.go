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
	lines := bufio.NewScanner(outR)
	if !lines.Scan() || !strings.Contains(lines.Text(), `"id":2`) {
		t.Fatalf("ping answer: %q", lines.Text())
	}
	select {
	case <-s.Done():
		t.Fatal("session ended while a handler was still answering")
	default:
	}
	close(release)
	if !lines.Scan() || lines.Text() != `{"jsonrpc":"2.0","id":1,"result":{"ok":true}}` {
		t.Fatalf("slow answer: %q", lines.Text())
	}
	<-s.Done()
	if err := s.Err(); err != nil {
		t.Fatalf("end of input is a clean end, got %v", err)
	}
	s.Close()
	outW.Close()
}
