package ui

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mcpoke/mcpoke/internal/termtext"
)

// frameHead is what the wire log reads of a JSON-RPC frame to put the
// fields that matter first. Every string is server text: sanitized when
// rendered.
type frameHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name          string          `json:"name"`
		RequestID     json.RawMessage `json:"requestId"`
		Reason        string          `json:"reason"`
		ProgressToken json.RawMessage `json:"progressToken"`
		Progress      json.RawMessage `json:"progress"`
		Total         json.RawMessage `json:"total"`
		Message       string          `json:"message"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	} `json:"error"`
}

// maxSummarized bounds the frames the wire log decodes for a summary; a
// bigger one shows its raw start, as before.
const maxSummarized = 64 << 10

// readFrameHead decodes data's head; ok is false for anything that is
// not one JSON object (a batch, noise).
func readFrameHead(data []byte) (frameHead, bool) {
	var h frameHead
	t := bytes.TrimSpace(data)
	if len(t) == 0 || t[0] != '{' || len(t) > maxSummarized || json.Unmarshal(t, &h) != nil {
		return frameHead{}, false
	}
	return h, true
}

// frameMethod is the method a frame names, or "".
func frameMethod(data []byte) string {
	if !bytes.Contains(data, []byte(`"method"`)) {
		return ""
	}
	h, _ := readFrameHead(data)
	return h.Method
}

// summary is one line saying what a frame is: its method or outcome and
// the fields a reader looks for, such as the requestId and reason of a
// cancellation. "" when the frame cannot be read that way.
func (h frameHead) summary() string {
	id := func(raw json.RawMessage) string { return "#" + termtext.Line(string(bytes.TrimSpace(raw))) }
	p := h.Params
	switch {
	case h.Method == "notifications/cancelled":
		s := "cancelled requestId=" + termtext.Line(string(bytes.TrimSpace(p.RequestID)))
		if p.Reason != "" {
			s += " reason=" + termtext.Quote(p.Reason)
		}
		return s
	case h.Method == "notifications/progress":
		s := "progress token=" + termtext.Line(string(bytes.TrimSpace(p.ProgressToken))) + " " +
			termtext.Line(string(bytes.TrimSpace(p.Progress)))
		if len(p.Total) > 0 {
			s += "/" + termtext.Line(string(bytes.TrimSpace(p.Total)))
		}
		if p.Message != "" {
			s += " " + termtext.Quote(p.Message)
		}
		return s
	case h.Method != "":
		s := termtext.Line(h.Method)
		if p.Name != "" {
			s += " " + termtext.Line(p.Name)
		}
		if len(h.ID) > 0 {
			s += " " + id(h.ID)
		}
		return s
	case h.Error != nil:
		return "error " + id(h.ID) + " " + termtext.Line(string(bytes.TrimSpace(h.Error.Code))) + " " +
			termtext.Quote(h.Error.Message)
	case len(h.Result) > 0:
		s := "result " + id(h.ID)
		if bytes.Contains(h.Result, []byte(`"isError":true`)) {
			s += " isError"
		}
		return s
	}
	return ""
}

// summaryWords is a summary with its first word and its fields split,
// so the view can colour the method apart from the values.
func summaryWords(s string) (string, string) {
	head, rest, _ := strings.Cut(s, " ")
	return head, rest
}
