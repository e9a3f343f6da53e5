package otlprecv

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
)

// FuzzExport: whatever body comes, in either encoding, the receiver
// answers 200 or a 4xx, never panics, and keeps at most MaxSpans.
func FuzzExport(f *testing.F) {
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"j"}]}]}]}`), true)
	f.Add(batch(3, 0x07), false)
	f.Add([]byte{0x0a, 0xff, 0xff, 0xff, 0x0f}, false)
	r := &Receiver{arrived: make(chan struct{})}
	f.Fuzz(func(t *testing.T, body []byte, isJSON bool) {
		ct := "application/x-protobuf"
		if isJSON {
			ct = "application/json"
		}
		req := httptest.NewRequest(http.MethodPost, "/v1/traces", bytes.NewReader(body))
		req.Header.Set("Content-Type", ct)
		w := httptest.NewRecorder()
		r.serveTraces(w, req)
		if w.Code != 200 && (w.Code < 400 || w.Code > 499) {
			t.Fatalf("status %d", w.Code)
		}
		if len(r.spans) > MaxSpans {
			t.Fatalf("%d spans kept", len(r.spans))
		}
	})
}
