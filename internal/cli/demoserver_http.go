package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/mcpoke/mcpoke/internal/demo"
	"github.com/mcpoke/mcpoke/internal/demoauth"
	"github.com/mcpoke/mcpoke/transport"
)

// demoShutdownGrace bounds the wait for open HTTP responses at shutdown;
// it stays under signalGrace, after which mcpoke exits anyway.
const demoShutdownGrace = 2 * time.Second

// demoListener is one transport of the demo server being served.
type demoListener struct {
	name    string // for messages: "Streamable HTTP", "HTTP+SSE"
	path    string // the URL path a client starts at
	ln      net.Listener
	handler interface {
		http.Handler
		io.Closer
	}
	srv *http.Server
}

// serveDemoHTTP serves the demo server on the HTTP transports f asks for
// until ctx ends, then ends every session and waits for its tools.
func serveDemoHTTP(ctx context.Context, stderr io.Writer, f demoServerFlags) error {
	serve := func(id string, conn transport.Conn) io.Closer {
		return demo.ServeConn(id, conn, stderr, demo.Options{ConformanceTools: f.conformance})
	}
	var ls []*demoListener
	defer func() {
		for _, l := range ls {
			_ = l.ln.Close()
		}
	}()
	if f.http != "" {
		h := demo.HTTPHandler(stderr, demo.Options{ConformanceTools: f.conformance}, f.allowRemote)
		mux := http.NewServeMux()
		l, err := listenDemo(f.http, f.allowRemote, "--http")
		if err != nil {
			return err
		}
		if f.oauth {
			as := demoauth.New("http://"+l.Addr().String(), "/mcp")
			as.Register(mux)
			mux.Handle("/mcp", as.Protect(h))
			fmt.Fprintf(stderr, "mcpoke demo-server: OAuth required on /mcp; a toy authorization server at http://%s approves every login\n", l.Addr())
		} else {
			mux.Handle("/mcp", h)
		}
		ls = append(ls, &demoListener{name: "Streamable HTTP", path: "/mcp", ln: l, handler: h, srv: &http.Server{Handler: mux}})
	}
	if f.sse != "" {
		h := transport.NewSSEServer(transport.SSEServerConfig{Serve: serve, AllowRemote: f.allowRemote})
		mux := http.NewServeMux()
		mux.Handle("/sse", h)
		mux.Handle("/messages", h)
		l, err := listenDemo(f.sse, f.allowRemote, "--sse")
		if err != nil {
			return err
		}
		ls = append(ls, &demoListener{name: "HTTP+SSE", path: "/sse", ln: l, handler: h, srv: &http.Server{Handler: mux}})
	}

	failed := make(chan error, len(ls))
	for _, l := range ls {
		l.srv.ReadHeaderTimeout = 10 * time.Second
		fmt.Fprintf(stderr, "mcpoke demo-server: %s at http://%s%s\n", l.name, l.ln.Addr(), l.path)
		go func() {
			if err := l.srv.Serve(l.ln); !errors.Is(err, http.ErrServerClosed) {
				failed <- fmt.Errorf("serving %s on %s: %w", l.name, l.ln.Addr(), err)
			}
		}()
	}
	var err error
	select {
	case <-ctx.Done():
	case err = <-failed:
	}
	// Sessions first: their open streams end, so Shutdown need not wait
	// for them.
	for _, l := range ls {
		_ = l.handler.Close()
	}
	sctx, cancel := context.WithTimeout(context.Background(), demoShutdownGrace)
	defer cancel()
	for _, l := range ls {
		_ = l.srv.Shutdown(sctx)
	}
	return err
}

// listenDemo listens on addr, which must be a loopback address unless
// remote is allowed: the demo server has no authentication.
func listenDemo(addr string, allowRemote bool, flag string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, usageError("%s %q: want host:port, such as 127.0.0.1:8080 (port 0 picks a free one)", flag, addr)
	}
	if !allowRemote && !transport.IsLoopbackHost(host) {
		return nil, usageError("%s %q: not a loopback address; the demo server has no authentication, so pass --allow-remote to let other machines reach it", flag, addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (is another server on that port? port 0 picks a free one)", flag, err)
	}
	return ln, nil
}
