package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/proxy"
	"github.com/mcpoke/mcpoke/transport"
)

// runHTTPProxy serves the reverse proxy on f.listen until a signal.
func runHTTPProxy(cmd *cobra.Command, f proxyFlags, upstream string) error {
	u, err := url.Parse(upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageError("proxy --url %q: want an http(s) URL such as http://127.0.0.1:3001/mcp", transport.RedactURL(upstream))
	}
	if f.listen == "" {
		return usageError("proxy --url needs --listen ADDR, e.g. --listen 127.0.0.1:8931")
	}
	if !f.allowRemote && !proxy.IsLoopback(f.listen) {
		return usageError("proxy --listen %s is not a loopback address: anyone who reaches it would use your credentials; add --allow-remote if you mean it", f.listen)
	}
	l, err := net.Listen("tcp", f.listen)
	if err != nil {
		return usageError("proxy --listen: %v", err)
	}
	name := f.name
	if name == "" {
		name = "http-" + u.Hostname()
	}
	rec, controls, end, err := startProxyRecords(cmd, f, name, transport.RedactURL(upstream), "http")
	if err != nil {
		l.Close()
		return err
	}
	defer end()
	srv := &http.Server{Handler: proxy.NewHTTPHandler(proxy.HTTPOptions{Upstream: u, Recorder: rec, Controls: controls, Kill: f.killOptions(), Faults: f.faults}), ReadHeaderTimeout: 30 * time.Second}
	local := url.URL{Scheme: "http", Host: l.Addr().String(), Path: u.Path}
	fmt.Fprintf(cmd.ErrOrStderr(), "mcpoke proxy: point the host at %s (relayed to %s)\n", local.String(), transport.RedactURL(upstream))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case err := <-done:
		return withCode(ExitFailed, fmt.Errorf("proxy: %w", err))
	case <-cmd.Context().Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return withCode(ExitFailed, fmt.Errorf("proxy: %w", err))
	}
	srv.Close() // streams still open end here
	return nil
}
