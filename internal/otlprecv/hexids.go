package otlprecv

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
)

// hexIDsToBase64 rewrites the ids of OTLP/JSON, which the OTLP spec
// writes in hex (traceId, spanId, parentSpanId), to the base64 that
// protojson reads for bytes fields.
func hexIDsToBase64(body []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, err
	}
	rewriteIDs(v, 0)
	return json.Marshal(v)
}

func rewriteIDs(v any, depth int) {
	if depth > 64 {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && (k == "traceId" || k == "spanId" || k == "parentSpanId") {
				if b, err := hex.DecodeString(s); err == nil {
					x[k] = base64.StdEncoding.EncodeToString(b)
				}
				continue
			}
			rewriteIDs(e, depth+1)
		}
	case []any:
		for _, e := range x {
			rewriteIDs(e, depth+1)
		}
	}
}
