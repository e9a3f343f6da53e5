package proxy

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"
)

// httpKiller is the kill switch of the HTTP proxy. It keeps the host's
// requests in flight (POSTs holding one request) and cancels one as the
// era calls for: in 2026-07-28 (MCP-Protocol-Version) by closing the
// upstream's response stream; before, by POSTing notifications/cancelled
// upstream with the host's own headers (session, version, credentials),
// then closing the stream. The host gets the proxy's error in the
// response it waits on (an SSE event, or a JSON body), or, silent,
// nothing until it gives up.
type httpKiller struct {
	opts      KillOptions
	faults    Faults
	upstream  func(*http.Request) *http.Request // the POST to the upstream
	transport http.RoundTripper
	// event records a relay event of the session named.
	event func(session, text string)

	mu       sync.Mutex
	inflight map[RequestRef]*httpInflight
	toHold   map[RequestRef]bool // answers to hold when they come
	held     map[RequestRef]*httpHeld
}

// httpInflight is one of the host's requests whose answer has not come.
type httpInflight struct {
	ref    RequestRef
	id     string
	method string
	header http.Header
	path   string
	cancel context.CancelFunc
	host   context.Context // the host's own request: done when it gives up
	done   <-chan struct{} // closed by cancel: the kill, or the request's end
	reason string

	mu     sync.Mutex
	killed bool
}

func newHTTPKiller(opts KillOptions, faults Faults, transport http.RoundTripper, event func(session, text string)) *httpKiller {
	if transport == nil {
		transport = http.DefaultTransport
	}
	return &httpKiller{opts: opts, faults: faults, transport: transport, event: event,
		inflight: map[RequestRef]*httpInflight{}, toHold: map[RequestRef]bool{}, held: map[RequestRef]*httpHeld{}}
}

// track notes a POST holding request ref; done forgets it.
func (k *httpKiller) track(ref RequestRef, method string, r *http.Request, ctx context.Context, cancel context.CancelFunc) (*httpInflight, func()) {
	f := &httpInflight{ref: ref, id: ref.ID, method: method, header: r.Header.Clone(), path: r.URL.RequestURI(),
		cancel: cancel, host: r.Context(), done: ctx.Done()}
	k.mu.Lock()
	if _, dup := k.inflight[ref]; dup {
		k.mu.Unlock()
		return f, func() {}
	}
	k.inflight[ref] = f
	k.mu.Unlock()
	return f, func() {
		k.mu.Lock()
		if k.inflight[ref] == f {
			delete(k.inflight, ref)
			delete(k.toHold, ref)
		}
		k.mu.Unlock()
	}
}

// Kill cancels the host's request ref upstream.
func (k *httpKiller) Kill(ref RequestRef, reason string) error {
	k.mu.Lock()
	f := k.inflight[ref]
	k.mu.Unlock()
	if f == nil {
		return fmt.Errorf("request %s is not in flight through this proxy", ref)
	}
	f.mu.Lock()
	if f.killed {
		f.mu.Unlock()
		return fmt.Errorf("request %s was killed already", ref)
	}
	f.killed, f.reason = true, reason
	f.mu.Unlock()
	id, sess := ref.ID, ref.Session
	k.event(sess, EventProxyCancelled+id)
	if v := f.header.Get("Mcp-Protocol-Version"); v < "2026-07-28" {
		frame := cancelFrame(id, reason)
		k.event(sess, EventProxySentServer+string(bytes.TrimSpace(frame)))
		if err := k.post(f, frame); err != nil {
			k.event(sess, ProxyWords+"could not POST the cancel upstream: "+err.Error())
		}
	} else {
		k.event(sess, ProxyWords+"closed the upstream's response stream of request "+id)
	}
	f.cancel() // closes the upstream's stream: the 2026-07-28 cancel
	return nil
}

// post sends frame upstream as the host would, with its headers.
func (k *httpKiller) post(f *httpInflight, frame []byte) error {
	req, err := http.NewRequest(http.MethodPost, f.path, bytes.NewReader(frame))
	if err != nil {
		return err
	}
	req.Header = f.header.Clone()
	req.Header.Del("Content-Length")
	req = k.upstream(req)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := k.transport.RoundTrip(req.WithContext(ctx))
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("the upstream answered %s", resp.Status)
	}
	return nil
}

// killedAnswer is what the host's response gets in place of the
// upstream's, for a killed request: the error (as an SSE event when sse),
// or nothing when silent.
func (k *httpKiller) killedAnswer(f *httpInflight, sse bool) []byte {
	if k.opts.Silent {
		return nil
	}
	ans := killAnswer(f.id, f.reason)
	k.event(f.ref.Session, EventProxyAnswered+string(bytes.TrimSpace(ans)))
	if sse {
		return append(append([]byte("event: message\ndata: "), bytes.TrimSpace(ans)...), "\n\n"...)
	}
	return ans
}

// silentUntilTheHostGivesUp answers a request killed silently with
// nothing until the host closes its response stream, and records that
// close: what a host does without an answer is what --on-kill silent is
// for, and in 2026-07-28 that close is its cancel (over stdio its
// notifications/cancelled is recorded as any frame is).
func (k *httpKiller) silentUntilTheHostGivesUp(f *httpInflight) {
	<-f.host.Done()
	k.event(f.ref.Session, EventStreamClosed+f.id)
}

func (f *httpInflight) isKilled() bool {
	if f == nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.killed
}

// Pending lists the host's requests in flight, not killed, by session
// and id.
func (k *httpKiller) Pending() []RequestRef {
	k.mu.Lock()
	defer k.mu.Unlock()
	var refs []RequestRef
	for ref, f := range k.inflight {
		if !f.isKilled() && f.method != "initialize" {
			refs = append(refs, ref)
		}
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].String() < refs[j].String() })
	return refs
}
