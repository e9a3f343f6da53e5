package cli

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"charm.land/fang/v2"

	"github.com/mcpoke/mcpoke/transport"
)

// The transport says only what happened when an SSE server sends no
// endpoint event; the CLI adds which flag to try.
func TestNoSSEEndpointShowsTheTransportHint(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, ": no endpoint here\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	_, err := transport.DialSSE(transport.HTTPOptions{URL: srv.URL, ConnectTimeout: 200 * time.Millisecond})
	if err == nil {
		t.Fatal("DialSSE succeeded without an endpoint event")
	}
	var printed bytes.Buffer
	printError(&printed, fang.Styles{}, withCode(ExitUsage, err))
	got := printed.String()
	if !strings.Contains(got, "no endpoint event") || !strings.Contains(got, "Try --transport http") {
		t.Errorf("printed %q; want the transport's error and the hint to try --transport http", got)
	}
}
