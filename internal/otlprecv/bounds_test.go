package otlprecv

import (
	"bytes"
	"strings"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// TestReceiverBoundsTheTextKept: spans under the count cap can still be
// big (a name of megabytes, 64 attributes of a kilobyte and more, an id
// of megabytes); each text is clipped and the text kept in all is
// bounded, past which spans are turned away as past MaxSpans.
func TestReceiverBoundsTheTextKept(t *testing.T) {
	r, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.maxKeptBytes = 1 << 20
	huge := strings.Repeat("é", 1<<20) // 2 MiB, two bytes a character
	big := strings.Repeat("x", 3000)
	var attrs []*commonpb.KeyValue
	for i := range 70 {
		attrs = append(attrs, &commonpb.KeyValue{Key: string(rune('A'+i)) + big, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: big}}})
	}
	span := func(i int) *tracepb.Span {
		return &tracepb.Span{TraceId: bytes.Repeat([]byte{7}, 16), SpanId: []byte{0, 0, 0, 0, 0, 0, 0, byte(i + 1)}, ParentSpanId: bytes.Repeat([]byte{9}, 1<<20),
			Name: huge, StartTimeUnixNano: 1, EndTimeUnixNano: 2, Attributes: attrs}
	}
	post1 := func(i int) *coltracepb.ExportTraceServiceResponse {
		b, _ := proto.Marshal(&coltracepb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{ScopeSpans: []*tracepb.ScopeSpans{{Spans: []*tracepb.Span{span(i)}}}}}})
		resp, body := post(t, r, "application/x-protobuf", b)
		if resp.StatusCode != 200 {
			t.Fatalf("span %d: %s", i, resp.Status)
		}
		var out coltracepb.ExportTraceServiceResponse
		if err := proto.Unmarshal(body, &out); err != nil {
			t.Fatal(err)
		}
		return &out
	}
	if got := post1(0).GetPartialSuccess().GetRejectedSpans(); got != 0 {
		t.Fatalf("the first span was turned away (%d)", got)
	}
	sp := r.Trace(strings.Repeat("07", 16))[0]
	if len(sp.Name) > maxText+len("…") || !strings.HasPrefix(sp.Name, "é") || !strings.HasSuffix(sp.Name, "é…") {
		t.Errorf("the name kept is %d bytes (%q...), want at most %d, clipped between characters", len(sp.Name), sp.Name[:8], maxText)
	}
	if len(sp.ParentSpanID) != 2*maxIDBytes || len(sp.Attributes) != maxAttributesPerSpan {
		t.Errorf("parent id of %d hex digits, %d attributes; want %d and %d", len(sp.ParentSpanID), len(sp.Attributes), 2*maxIDBytes, maxAttributesPerSpan)
	}
	for k, v := range sp.Attributes {
		if len(k) > maxText+len("…") || len(v) > maxText+len("…") {
			t.Fatalf("an attribute of %d+%d bytes was kept", len(k), len(v))
		}
	}
	// About 130 KiB a span: a 1 MiB budget keeps 7, and turns the rest
	// away, saying so.
	rejected := int64(0)
	for i := 1; i < 20; i++ {
		rejected += post1(i).GetPartialSuccess().GetRejectedSpans()
	}
	if r.keptBytes > r.maxKeptBytes || rejected == 0 || r.Dropped() != int(rejected) {
		t.Errorf("%d bytes kept of %d, %d spans rejected, %d dropped", r.keptBytes, r.maxKeptBytes, rejected, r.Dropped())
	}
	t.Logf("%d spans kept in %d bytes, %d rejected", len(r.Trace(strings.Repeat("07", 16))), r.keptBytes, rejected)
}
