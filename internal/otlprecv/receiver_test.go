package otlprecv

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

func post(t *testing.T, r *Receiver, ct string, body []byte) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Post(r.Endpoint()+"/v1/traces", ct, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp, b.Bytes()
}

func batch(n int, traceID byte) []byte {
	var spans []*tracepb.Span
	for i := range n {
		spans = append(spans, &tracepb.Span{TraceId: bytes.Repeat([]byte{traceID}, 16), SpanId: []byte{1, 2, 3, 4, 5, 6, 7, byte(i + 1)},
			Name: "s\x1b[31m", StartTimeUnixNano: 1, EndTimeUnixNano: 2})
	}
	b, _ := proto.Marshal(&coltracepb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{ScopeSpans: []*tracepb.ScopeSpans{{Spans: spans}}}}})
	return b
}

// TestReceiverAnswersAsOTLPSays: protobuf and JSON are taken and
// answered in kind; other encodings get 415, what does not decode 400,
// an oversize body 413, and GET 405.
func TestReceiverAnswersAsOTLPSays(t *testing.T) {
	r, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if resp, _ := post(t, r, "application/x-protobuf", batch(2, 0xab)); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-protobuf" {
		t.Fatalf("protobuf: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if got := r.Trace(strings.Repeat("ab", 16)); len(got) != 2 || got[0].Name != "s\x1b[31m" {
		t.Fatalf("kept %+v, want the 2 spans as sent (escaping is the display's job)", got)
	}
	js := `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"j","startTimeUnixNano":"1","endTimeUnixNano":"2"}]}]}]}`
	if resp, body := post(t, r, "application/json", []byte(js)); resp.StatusCode != 200 || !bytes.HasPrefix(body, []byte("{")) {
		t.Fatalf("json: %d %s", resp.StatusCode, body)
	}
	if got := r.Trace("0102030405060708090a0b0c0d0e0f10"); len(got) != 1 || got[0].Service != "svc" {
		t.Fatalf("json span: %+v", got)
	}
	for _, tc := range []struct {
		ct   string
		body []byte
		code int
	}{
		{"text/plain", []byte("x"), 415},
		{"application/x-protobuf", []byte{0xff, 0xff, 0xff}, 400},
		{"application/json", []byte("{not json"), 400},
		{"application/x-protobuf", make([]byte, MaxBody+10), 413},
	} {
		if resp, _ := post(t, r, tc.ct, tc.body); resp.StatusCode != tc.code {
			t.Errorf("%s body of %d bytes: status %d, want %d", tc.ct, len(tc.body), resp.StatusCode, tc.code)
		}
	}
	resp, err := http.Get(r.Endpoint() + "/v1/traces")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Errorf("GET: %d, want 405", resp.StatusCode)
	}
}

// TestReceiverCapsSpansKept: past MaxSpans the spans are turned away and
// counted, and the exporter is told (partial success).
func TestReceiverCapsSpansKept(t *testing.T) {
	r, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for range MaxSpans / 200 {
		post(t, r, "application/x-protobuf", batch(200, 0x01))
	}
	_, body := post(t, r, "application/x-protobuf", batch(5, 0x02))
	var resp coltracepb.ExportTraceServiceResponse
	if err := proto.Unmarshal(body, &resp); err != nil || resp.GetPartialSuccess().GetRejectedSpans() != 5 {
		t.Fatalf("response %v (%v), want 5 rejected", &resp, err)
	}
	if r.Dropped() != 5 || len(r.Trace(strings.Repeat("02", 16))) != 0 {
		t.Fatalf("dropped %d, want 5", r.Dropped())
	}
}

// TestWaitTraceEndsOnItsDeadline: no span for the trace, the wait ends
// with the context.
func TestWaitTraceEndsOnItsDeadline(t *testing.T) {
	r, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if got := r.WaitTrace(ctx, "00", 10*time.Millisecond); got != nil || time.Since(start) > 2*time.Second {
		t.Fatalf("got %v after %v", got, time.Since(start))
	}
}

// TestListenDefaultsToLoopback: ":0" listens on 127.0.0.1 only.
func TestListenDefaultsToLoopback(t *testing.T) {
	r, err := Listen(":0")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !strings.HasPrefix(r.Endpoint(), "http://127.0.0.1:") {
		t.Fatalf("endpoint %s, want loopback", r.Endpoint())
	}
}
