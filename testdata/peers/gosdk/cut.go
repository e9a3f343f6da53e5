package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync/atomic"
)

// cutFirstCall drops the connection of the first tools/call POST just
// after the SDK's priming event, as a flaky network would: the SDK sees
// its client go and keeps the answer in its event store, and a client
// that resumes with Last-Event-ID gets it on a GET.
func cutFirstCall(h http.Handler) http.Handler {
	var cut atomic.Bool
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || cut.Load() {
			h.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !bytes.Contains(body, []byte(`"tools/call"`)) || !cut.CompareAndSwap(false, true) {
			h.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		h.ServeHTTP(&cutWriter{ResponseWriter: w, cut: cancel}, r.WithContext(ctx))
		// The SDK has let go of the request; drop the connection mid-stream.
		panic(http.ErrAbortHandler)
	})
}

// cutWriter ends the request (as if the client went) once the priming
// event is written.
type cutWriter struct {
	http.ResponseWriter
	cut context.CancelFunc
}

func (c *cutWriter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	if bytes.Contains(p, []byte("event: prime")) {
		c.Flush()
		c.cut()
	}
	return n, err
}

func (c *cutWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (c *cutWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }
