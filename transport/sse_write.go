package transport

import (
	"bytes"
	"strconv"
)

// appendSSEEvent appends one Server-Sent Event to b. Empty fields are left
// out; retryMillis > 0 adds a retry field. A frame with line breaks (JSON
// whitespace) becomes several data lines, which the reader joins again.
func appendSSEEvent(b []byte, id, event string, data []byte, retryMillis int) []byte {
	if id != "" {
		b = append(append(append(b, "id: "...), id...), '\n')
	}
	if event != "" {
		b = append(append(append(b, "event: "...), event...), '\n')
	}
	if retryMillis > 0 {
		b = append(strconv.AppendInt(append(b, "retry: "...), int64(retryMillis), 10), '\n')
	}
	for {
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			break
		}
		b = append(append(append(b, "data: "...), data[:i]...), '\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	b = append(append(append(b, "data: "...), data...), '\n')
	return append(b, '\n')
}
