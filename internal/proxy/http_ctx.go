package proxy

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

type postKey struct{}

// withPost carries a host's POST to the response it gets.
func withPost(ctx context.Context, p *hostPost) context.Context {
	return context.WithValue(ctx, postKey{}, p)
}

// postOf is the host's POST a request carries, or nil.
func postOf(r *http.Request) *hostPost {
	p, _ := r.Context().Value(postKey{}).(*hostPost)
	return p
}

// maxSessions bounds the session ids a proxy labels: past it, it starts
// afresh (labels go on counting, so none is given twice).
const maxSessions = 100_000

// sessionLabelPrefix starts every host session's label: s1, s2, ...
const sessionLabelPrefix = "s"

// IsSessionLabel says whether label is one the proxy gives a host
// session (s1, s2, ...), as the card, attach and transcripts name it.
func IsSessionLabel(label string) bool {
	n, ok := strings.CutPrefix(label, sessionLabelPrefix)
	return ok && n != "" && n[0] != '0' && strings.Trim(n, "0123456789") == ""
}

// sessionLabels names the host's HTTP sessions s1, s2, ... in the order
// their Mcp-Session-Id is first seen: shorter than the ids, and never a
// credential in the records.
type sessionLabels struct {
	mu  sync.Mutex
	ids map[string]string
	n   int
}

// of is the label of session id, "" for none.
func (s *sessionLabels) of(id string) string {
	if id == "" {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.ids[id]; ok {
		return l
	}
	if s.ids == nil || len(s.ids) >= maxSessions {
		s.ids = map[string]string{}
	}
	s.n++
	l := sessionLabelPrefix + strconv.Itoa(s.n)
	s.ids[id] = l
	return l
}

func splitHostPort(addr string) (string, string, error) { return net.SplitHostPort(addr) }
