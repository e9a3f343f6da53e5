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
	upstream  func(*http.Request) *http.Request // the POST to the upstream
	transport http.RoundTripper
	event     func(string)

	mu       sync.Mutex
	inflight map[string]*httpInflight
}

// httpInflight is one of the host's requests whose answer has not come.
type httpInflight struct {
	id     string
	header http.Header
	path   string
	cancel context.CancelFunc
	host   context.Context // the host's own request: done when it gives up
	reason string

	mu     sync.Mutex
	killed bool
}

func newHTTPKiller(opts KillOptions, transport http.RoundTripper, event func(string)) *httpKiller {
	if transport == nil {
		transport = http.DefaultTransport
	}
	return &httpKiller{opts: opts, transport: transport, event: event, inflight: map[string]*httpInflight{}}
}

// track notes a POST holding request id; done forgets it.
func (k *httpKiller) track(id string, r *http.Request, cancel context.CancelFunc) (*httpInflight, func()) {
	f := &httpInflight{id: id, header: r.Header.Clone(), path: r.URL.RequestURI(), cancel: cancel, host: r.Context()}
	k.mu.Lock()
	if _, dup := k.inflight[id]; dup {
		k.mu.Unlock()
		return f, func() {}
	}
	k.inflight[id] = f
	k.mu.Unlock()
	return f, func() {
		k.mu.Lock()
		if k.inflight[id] == f {
			delete(k.inflight, id)
		}
		k.mu.Unlock()
	}
}

// Kill cancels the host's request id upstream.
func (k *httpKiller) Kill(id, reason string) error {
	k.mu.Lock()
	f := k.inflight[id]
	k.mu.Unlock()
	if f == nil {
		return fmt.Errorf("request %s is not in flight through this proxy", id)
	}
	f.mu.Lock()
	if f.killed {
		f.mu.Unlock()
		return fmt.Errorf("request %s was killed already", id)
	}
	f.killed, f.reason = true, reason
	f.mu.Unlock()
	k.event(EventProxyCancelled + id)
	if v := f.header.Get("Mcp-Protocol-Version"); v < "2026-07-28" {
		frame := cancelFrame(id, reason)
		k.event(EventProxySentServer + string(bytes.TrimSpace(frame)))
		if err := k.post(f, frame); err != nil {
			k.event(ProxyWords + "could not POST the cancel upstream: " + err.Error())
		}
	} else {
		k.event(ProxyWords + "closed the upstream's response stream of request " + id)
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

// Hold, Release and Drop are stdio's: over HTTP they are not offered.
func (k *httpKiller) Hold(string) error    { return errNoHTTPHold }
func (k *httpKiller) Release(string) error { return errNoHTTPHold }
func (k *httpKiller) Drop(string) error    { return errNoHTTPHold }

var errNoHTTPHold = fmt.Errorf("holding an answer is for the stdio proxy only")

// killedAnswer is what the host's response gets in place of the
// upstream's, for a killed request: the error (as an SSE event when sse),
// or nothing when silent.
func (k *httpKiller) killedAnswer(f *httpInflight, sse bool) []byte {
	if k.opts.Silent {
		return nil
	}
	ans := killAnswer(f.id, f.reason)
	k.event(EventProxyAnswered + string(bytes.TrimSpace(ans)))
	if sse {
		return append(append([]byte("event: message\ndata: "), bytes.TrimSpace(ans)...), "\n\n"...)
	}
	return ans
}

func (f *httpInflight) isKilled() bool {
	if f == nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.killed
}

type inflightKey struct{}

func withInflight(ctx context.Context, f *httpInflight) context.Context {
	return context.WithValue(ctx, inflightKey{}, f)
}

func inflightOf(r *http.Request) *httpInflight {
	f, _ := r.Context().Value(inflightKey{}).(*httpInflight)
	return f
}

// Pending lists the host's requests in flight, not killed, oldest id
// order aside.
func (k *httpKiller) Pending() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var ids []string
	for id, f := range k.inflight {
		if !f.isKilled() {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}
