package transport

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/mcpoke/mcpoke/internal/wire"
)

func TestStreamFramesNoiseAndEOF(t *testing.T) {
	in := strings.NewReader("{\"id\":1}\r\nhello log line\n" + strings.Repeat("x", 100) + "\n{\"id\":2}\n")
	var out bytes.Buffer
	s := NewStream(in, &out, 50)
	want := []wire.Kind{wire.KindFrame, wire.KindNoise, wire.KindOversize, wire.KindFrame}
	for i, k := range want {
		m, err := recv(t, s)
		if err != nil || m.Kind != k {
			t.Fatalf("message %d: %v %v, want %v", i, m.Kind, err, k)
		}
	}
	if _, err := recv(t, s); !errors.Is(err, io.EOF) {
		t.Fatalf("end of input: %v, want io.EOF", err)
	}
	if err := s.Send([]byte(`{"a":1}`)); err != nil || out.String() != "{\"a\":1}\n" {
		t.Fatalf("Send wrote %q, %v", out.String(), err)
	}
	s.Close()
	if err := s.Send([]byte(`{}`)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Send after Close: %v", err)
	}
}
