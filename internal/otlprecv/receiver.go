// Package otlprecv is an OTLP/HTTP trace receiver inside mcpoke: a
// server, or a gateway in front of it, exports its spans here, and those
// that share a request's trace id are shown under that request.
//
// Its input is untrusted: bodies are capped, spans kept are capped, and
// what a span carries is stored as sent, to be escaped by whoever shows it.
package otlprecv

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Limits of the receiver.
const (
	// MaxBody is the largest export request taken, after decompression.
	MaxBody = 4 << 20
	// MaxSpans is how many spans are kept; later ones are counted and dropped.
	MaxSpans = 10000
	// MaxKeptBytes bounds the text of the spans kept (names, statuses,
	// events, attributes, each clipped at maxText): 10,000 spans of a
	// few KiB each, without letting a sender fill memory with big ones.
	MaxKeptBytes = 32 << 20
)

// Receiver is a running OTLP/HTTP receiver.
type Receiver struct {
	ln  net.Listener
	srv *http.Server

	mu           sync.Mutex
	spans        []Span
	keptBytes    int
	maxKeptBytes int // MaxKeptBytes; smaller in tests
	dropped      int
	arrived      chan struct{} // closed and replaced at each batch kept
}

// Listen starts a receiver on addr. A host left out (":4318") means
// 127.0.0.1: spans reveal what a server does, so loopback by default.
func Listen(addr string) (*Receiver, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--otlp-receive %q: want HOST:PORT, such as 127.0.0.1:4318: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("--otlp-receive: %w", err)
	}
	r := &Receiver{ln: ln, arrived: make(chan struct{}), maxKeptBytes: MaxKeptBytes}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/traces", r.serveTraces)
	r.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

// Endpoint is the base URL to give an exporter (OTEL_EXPORTER_OTLP_ENDPOINT).
func (r *Receiver) Endpoint() string { return "http://" + r.ln.Addr().String() }

// Close stops the receiver.
func (r *Receiver) Close() error { return r.srv.Close() }

// serveTraces answers as the OTLP/HTTP spec says: 200 with an
// ExportTraceServiceResponse in the request's encoding; 400 with a
// google.rpc.Status for what does not decode, 413 past MaxBody, 415 for
// an encoding other than protobuf or JSON, 405 for other methods.
func (r *Receiver) serveTraces(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "OTLP/HTTP takes POST", http.StatusMethodNotAllowed)
		return
	}
	ct := req.Header.Get("Content-Type")
	isJSON := ct == "application/json" || bytes.HasPrefix([]byte(ct), []byte("application/json;"))
	if !isJSON && ct != "application/x-protobuf" {
		http.Error(w, "Content-Type must be application/x-protobuf or application/json", http.StatusUnsupportedMediaType)
		return
	}
	body, err := readBody(w, req)
	if err != nil {
		code := http.StatusBadRequest
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) || errors.Is(err, errTooBig) {
			code = http.StatusRequestEntityTooLarge
		}
		writeStatus(w, isJSON, code, err.Error())
		return
	}
	var msg coltracepb.ExportTraceServiceRequest
	if isJSON {
		if body, err = hexIDsToBase64(body); err == nil {
			err = protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(body, &msg)
		}
	} else {
		err = proto.Unmarshal(body, &msg)
	}
	if err != nil {
		writeStatus(w, isJSON, http.StatusBadRequest, "the body is not an ExportTraceServiceRequest: "+err.Error())
		return
	}
	rejected := r.keep(&msg)
	resp := &coltracepb.ExportTraceServiceResponse{}
	if rejected > 0 {
		resp.PartialSuccess = &coltracepb.ExportTracePartialSuccess{RejectedSpans: int64(rejected),
			ErrorMessage: fmt.Sprintf("mcpoke keeps at most %d spans and %d MiB of their text", MaxSpans, r.maxKeptBytes>>20)}
	}
	writeMessage(w, isJSON, http.StatusOK, resp)
}

var errTooBig = fmt.Errorf("the request is over %d bytes once decompressed", MaxBody)

func readBody(w http.ResponseWriter, req *http.Request) ([]byte, error) {
	var in io.Reader = http.MaxBytesReader(w, req.Body, MaxBody)
	switch req.Header.Get("Content-Encoding") {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(in)
		if err != nil {
			return nil, fmt.Errorf("gzip body: %w", err)
		}
		in = zr
	default:
		return nil, fmt.Errorf("Content-Encoding %q is not supported: use gzip or none", req.Header.Get("Content-Encoding"))
	}
	b, err := io.ReadAll(io.LimitReader(in, MaxBody+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxBody {
		return nil, errTooBig
	}
	return b, nil
}

func writeStatus(w http.ResponseWriter, isJSON bool, code int, msg string) {
	writeMessage(w, isJSON, code, &status.Status{Code: 3, Message: msg}) // 3: INVALID_ARGUMENT
}

func writeMessage(w http.ResponseWriter, isJSON bool, code int, m proto.Message) {
	var b []byte
	if isJSON {
		w.Header().Set("Content-Type", "application/json")
		b, _ = protojson.Marshal(m)
	} else {
		w.Header().Set("Content-Type", "application/x-protobuf")
		b, _ = proto.Marshal(m)
	}
	w.WriteHeader(code)
	_, _ = w.Write(b)
}
