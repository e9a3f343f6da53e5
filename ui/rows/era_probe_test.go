package rows

import (
	"testing"

	"github.com/mcpoke/mcpoke/session"
)

// Once the handshake fell back to a legacy era, a server/discover of
// ours that failed or timed out is the era probe: marked, and out of the
// header's counts. Nothing else is: not a discover that completed, not
// the server's own, not another method's failure.
func TestEraProbes(t *testing.T) {
	tests := []struct {
		name     string
		method   string
		incoming bool
		to       session.State
		want     bool
	}{
		{"our discover failed", "server/discover", false, session.Failed, true},
		{"our discover timed out", "server/discover", false, session.TimedOut, true},
		{"our discover completed", "server/discover", false, session.Completed, false},
		{"the server's discover failed", "server/discover", true, session.Failed, false},
		{"a tool call failed", "tools/call", false, session.Failed, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, fellBackFirst := range []bool{true, false} {
				s := NewStore()
				s.EraFallback = fellBackFirst
				ref := session.Ref{Seq: 1, ID: session.IntID(1), Incoming: tt.incoming}
				s.Apply(session.RequestStarted{Info: session.RequestInfo{Seq: 1, ID: ref.ID, Incoming: tt.incoming, Method: tt.method, State: session.Pending}})
				s.Apply(session.StateChanged{Ref: ref, From: session.Pending, To: tt.to, At: at(10)})
				if !fellBackFirst {
					if s.Get(1).EraProbe {
						t.Fatal("marked an era probe before the handshake fell back")
					}
					s.EraFallback = true
					s.MarkEraProbes()
				}
				s.MarkEraProbes() // twice: a probe leaves the counts once
				r := s.Get(1)
				want := map[bool]int{false: 1}[tt.want]
				if r.EraProbe != tt.want || s.Counts[tt.to] != want {
					t.Errorf("fell back first %v: era probe %v, counted %d; want %v, %d", fellBackFirst, r.EraProbe, s.Counts[tt.to], tt.want, want)
				}
			}
		})
	}
}
