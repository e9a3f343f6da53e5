package cli

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/otelspan"
	"github.com/mcpoke/mcpoke/internal/proxy"
)

// traceFlags are --trace and --otlp-endpoint, on every command that
// opens a server.
type traceFlags struct {
	trace        bool
	otlpEndpoint string
	// otlpReceive is the TUI's --otlp-receive (call, read and prompt have
	// their own, in callFlags).
	otlpReceive string
}

func addTraceFlags(fl *pflag.FlagSet, t *traceFlags) {
	fl.BoolVar(&t.trace, "trace", false, "put a fresh W3C traceparent in the _meta of every request (any protocol); "+
		"with OTEL_EXPORTER_OTLP_ENDPOINT set, also export mcpoke's spans there")
	fl.StringVar(&t.otlpEndpoint, "otlp-endpoint", "", "export a client span per request over OTLP/HTTP to URL (such as http://127.0.0.1:4318; "+
		"implies --trace; the other OTEL_EXPORTER_OTLP_* settings apply); at exit mcpoke waits at most 2s for the last spans to go")
}

// exporting says whether spans are exported: --otlp-endpoint, or --trace
// with the standard environment naming a collector.
func (t traceFlags) exporting() bool {
	return t.otlpEndpoint != "" || t.trace && (os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "")
}

// startExport makes the exporter and watches conn's session; the closer
// it returns goes in Options.CloseAfter: it ends the spans and sends them,
// waiting at most otelspan.DefaultFlush.
func startExport(t traceFlags) (*spanExport, error) {
	exp, err := otelspan.New(otelspan.Options{Endpoint: t.otlpEndpoint})
	if err != nil {
		return nil, err
	}
	return &spanExport{exp: exp}, nil
}

// spanExport is an exporter and the watchers of its sessions.
type spanExport struct {
	exp     *otelspan.Exporter
	mu      sync.Mutex
	watched []<-chan struct{}
}

func (e *spanExport) watch(c *connect.Conn) {
	transportName := "pipe"
	if c.Transport() != "stdio" {
		transportName = "tcp"
	}
	done := e.exp.Watch(c.Session, otelspan.SessionInfo{Transport: transportName})
	e.mu.Lock()
	e.watched = append(e.watched, done)
	e.mu.Unlock()
}

// Close implements io.Closer: once the sessions closed and their spans
// ended (waiting at most the flush time for that), the spans are sent.
func (e *spanExport) Close() error {
	e.mu.Lock()
	watched := e.watched
	e.mu.Unlock()
	deadline := time.After(otelspan.DefaultFlush)
	for _, w := range watched {
		select {
		case <-w:
		case <-deadline:
		}
	}
	return e.exp.Close()
}

// exportHostSpans exports the requests the host sends through a proxy as
// client spans (proxy.Spans), as mcpoke exports its own; the closer ends
// those still open and sends them, waiting at most otelspan.DefaultFlush.
func exportHostSpans(cmd *cobra.Command, rec *proxy.Recorder, t traceFlags, over string) (func(), error) {
	exp, err := otelspan.New(otelspan.Options{Endpoint: t.otlpEndpoint, ServiceName: "mcpoke-proxy"})
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	transportName := "pipe"
	if over != "stdio" {
		transportName = "tcp"
	}
	spans := proxy.NewSpans(exp.Tracer(), transportName)
	rec.Observe(spans.Observe)
	return func() {
		spans.Close()
		if err := exp.Close(); err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "mcpoke proxy: %v\n", err)
		}
	}, nil
}
