package transport

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
)

// JSON-RPC error codes the HTTP server answers with itself.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeServerError    = -32000
)

// httpError answers with status and, as the spec allows, a JSON-RPC error
// with no id that says what happened and what to do.
func httpError(w http.ResponseWriter, status int, msg string) {
	httpRPCError(w, status, codeServerError, msg)
}

func httpRPCError(w http.ResponseWriter, status, code int, msg string) {
	body, _ := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// readBody reads a request body of at most limit bytes.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	return io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
