package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// ErrNoSSEEndpoint is wrapped in the error of a dial whose event stream
// sent no endpoint event in time: an HTTP+SSE (2024-11-05) server sends
// it first, so the server is likely of another kind (Streamable HTTP).
var ErrNoSSEEndpoint = errors.New("it does not seem to be an HTTP+SSE (2024-11-05) server, which sends that event first")

// HTTPSSE is the HTTP+SSE transport of protocol 2024-11-05: one GET
// stream carries everything the server sends; its first event, endpoint,
// says where to POST our frames, each answered by 202.
type HTTPSSE struct {
	opts     HTTPOptions
	q        *inbox
	endpoint string

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	closed bool
}

// DialSSE opens the SSE stream at opts.URL and waits up to
// opts.ConnectTimeout for the endpoint event.
func DialSSE(opts HTTPOptions) (*HTTPSSE, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	return dialSSE(opts, newInbox())
}

func dialSSE(opts HTTPOptions, q *inbox) (*HTTPSSE, error) {
	ctx, cancel := context.WithCancel(context.Background())
	l := &HTTPSSE{opts: opts, q: q, ctx: ctx, cancel: cancel}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, opts.URL, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	for k, vs := range opts.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	authorize(opts.Auth, req)
	req.Header.Set("Accept", "text/event-stream")
	// The connect timeout covers the headers and the endpoint event.
	timer := time.AfterFunc(opts.ConnectTimeout, cancel)
	fail := func(err error) (*HTTPSSE, error) {
		timer.Stop()
		cancel()
		opts.Client.CloseIdleConnections()
		return nil, err
	}
	resp, err := opts.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("no answer within %s", opts.ConnectTimeout)
		}
		return fail(fmt.Errorf("GET %s (legacy SSE): %w", RedactURL(opts.URL), netError(err)))
	}
	ctype, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	q.tryFact(fmt.Sprintf("GET SSE stream → %s %s", resp.Status, ctype))
	if resp.StatusCode/100 != 2 || ctype != "text/event-stream" {
		resp.Body.Close()
		return fail(fmt.Errorf("GET %s (legacy SSE) got %s %q; expected an event stream", RedactURL(opts.URL), resp.Status, resp.Header.Get("Content-Type")))
	}
	sr := newSSEReader(resp.Body, opts.MaxFrameSize)
	for {
		ev, err := sr.next()
		if f := sseFact(ev); f != "" {
			q.tryFact("SSE stream: " + f)
		}
		if err != nil {
			resp.Body.Close()
			if ctx.Err() != nil {
				return fail(fmt.Errorf("the server at %s sent no endpoint event within %s: %w",
					RedactURL(opts.URL), opts.ConnectTimeout, ErrNoSSEEndpoint))
			}
			return fail(fmt.Errorf("the SSE stream at %s ended before its endpoint event: %v", RedactURL(opts.URL), err))
		}
		if !ev.Dispatch || ev.Type != "endpoint" {
			continue // a server should send endpoint first; be lenient
		}
		ep, err := resolveEndpoint(opts.URL, string(ev.Data))
		if err != nil {
			resp.Body.Close()
			return fail(err)
		}
		l.endpoint = ep
		q.tryFact("SSE endpoint " + RedactURL(ep))
		break
	}
	timer.Stop()
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		defer resp.Body.Close()
		l.read(sr)
	}()
	return l, nil
}

// MaxEndpointLen bounds the endpoint event's URI, which every frame is
// POSTed to: its query carries the legacy transport's session id, bound
// as Mcp-Session-Id is.
const MaxEndpointLen = 4 * MaxSessionIDLen

// resolveEndpoint resolves the endpoint event's URI against the SSE URL
// and refuses another origin: frames must not go to a third party. A URI
// is visible ASCII (RFC 3986): raw controls, bidi or tag characters would
// be sent back with every frame and written into records.
func resolveEndpoint(base, ref string) (string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	ref = strings.TrimSpace(ref)
	if len(ref) > MaxEndpointLen {
		return "", fmt.Errorf("the endpoint event's URI is %d bytes, over mcpoke's bound of %d: refusing the session", len(ref), MaxEndpointLen)
	}
	for i := 0; i < len(ref); i++ {
		if c := ref[i]; c < 0x21 || c > 0x7e {
			return "", fmt.Errorf("the endpoint event's URI holds byte 0x%02x at offset %d; a URI is visible ASCII (0x21-0x7E): refusing the session", c, i)
		}
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("the endpoint event %q is not a URI: %v", ref, err)
	}
	u := b.ResolveReference(r)
	if u.Scheme != b.Scheme || u.Host != b.Host {
		return "", fmt.Errorf("the endpoint event points to another origin (%s://%s, not %s://%s); refused", u.Scheme, u.Host, b.Scheme, b.Host)
	}
	return u.String(), nil
}

// read delivers the stream's message events until it ends, which ends the
// connection.
func (l *HTTPSSE) read(sr *sseReader) {
	for {
		ev, err := sr.next()
		if f := sseFact(ev); f != "" {
			l.q.fact("SSE stream: " + f)
		}
		if err != nil {
			if l.ctx.Err() == nil {
				why := "ended"
				if err != io.EOF {
					why = "broke: " + err.Error()
				}
				l.q.fail(fmt.Errorf("the server's SSE stream %s; reconnect", why))
			}
			return
		}
		switch {
		case !ev.Dispatch:
		case ev.Oversize:
			l.q.push(Message{Kind: wire.KindOversize, Data: ev.Data[:min(len(ev.Data), oversizePreview)], Size: ev.Size})
		case ev.Type != "" && ev.Type != "message":
			l.q.push(Message{Kind: wire.KindNoise, Data: ev.Data})
		default:
			kind, why := classify(ev.Data)
			l.q.push(Message{Kind: kind, Data: ev.Data, Why: why, Valid: kind == wire.KindFrame})
		}
	}
}

// Kind names the transport: "sse".
func (l *HTTPSSE) Kind() string { return "sse" }

// Recv implements Conn.
func (l *HTTPSSE) Recv() (Message, error) { return l.q.recv() }

// Send implements Conn: it POSTs frame to the endpoint and waits for the
// 202 (the answer comes on the stream). A refused request fails at once.
func (l *HTTPSSE) Send(frame []byte) error {
	l.mu.Lock()
	closed := l.closed
	l.mu.Unlock()
	if closed {
		return ErrClosed
	}
	ctx, cancel := context.WithTimeout(l.ctx, l.opts.StreamHeaderTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.endpoint, bytes.NewReader(frame))
	if err != nil {
		return err
	}
	for k, vs := range l.opts.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	authorize(l.opts.Auth, req)
	req.Header.Set("Content-Type", "application/json")
	resp, err := l.opts.Client.Do(req)
	if err != nil {
		if errors.Is(err, context.Canceled) && l.ctx.Err() != nil {
			return ErrClosed
		}
		return fmt.Errorf("POST to the SSE endpoint: %w", netError(err))
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
	resp.Body.Close()
	envs := peekEnvelopes(frame)
	label := "message"
	if len(envs) == 1 {
		label = envs[0].Method
		if hasID(envs[0].ID) {
			label += " id " + idKey(envs[0].ID)
		}
	}
	l.q.fact(fmt.Sprintf("POST %s → %s", label, resp.Status))
	if resp.StatusCode/100 != 2 {
		why := fmt.Sprintf("the server answered the POST of %s with HTTP %s", label, resp.Status)
		if b := bytes.TrimSpace(body); len(b) > 0 {
			why += ": " + string(b)
		}
		if len(envs) == 1 && envs[0].isRequest() {
			l.q.requestError(append([]byte(nil), envs[0].ID...), why)
			return nil
		}
		l.q.fact(why)
	}
	return nil
}

// CloseRequestStream implements RequestStreamCloser: requests have no
// stream of their own here.
func (l *HTTPSSE) CloseRequestStream([]byte) (bool, error) { return false, nil }

// Close implements Conn.
func (l *HTTPSSE) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.mu.Unlock()
	l.cancel()
	l.q.close()
	l.wg.Wait()
	l.opts.Client.CloseIdleConnections()
	return nil
}
