package diagram

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
)

// message is what the diagram needs of one JSON-RPC message.
type message struct {
	// id is the id as compact JSON text, so 3 and "3" stay apart; "" when
	// there is none.
	id     string
	method string
	params json.RawMessage
	result json.RawMessage
	err    json.RawMessage
}

func (m message) isRequest() bool  { return m.method != "" && m.id != "" }
func (m message) isResponse() bool { return m.method == "" && m.id != "" && m.err == nil }
func (m message) isError() bool    { return m.method == "" && m.id != "" && m.err != nil }

// messages decodes a frame: one message, or a batch's. Anything that is
// not a JSON-RPC message is left out.
func messages(frame json.RawMessage) []message {
	trimmed := bytes.TrimSpace(frame)
	var raws []json.RawMessage
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if json.Unmarshal(trimmed, &raws) != nil {
			return nil
		}
	} else {
		raws = []json.RawMessage{trimmed}
	}
	var out []message
	for _, raw := range raws {
		var w struct {
			ID     json.RawMessage `json:"id"`
			Method json.RawMessage `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(raw, &w) != nil {
			continue
		}
		m := message{id: compactID(w.ID), params: w.Params, result: nonNull(w.Result), err: nonNull(w.Error)}
		_ = json.Unmarshal(w.Method, &m.method)
		out = append(out, m)
	}
	return out
}

// compactID is an id's JSON text without insignificant space: a string
// or number, else "".
func compactID(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ""
		}
		b, _ := json.Marshal(s)
		return string(b)
	case c == '-' || c >= '0' && c <= '9':
		if !json.Valid(raw) {
			return ""
		}
		return string(raw)
	}
	return ""
}

func nonNull(raw json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(raw); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil
	}
	return raw
}

// requestParams are the params fields the diagram shows or follows.
type requestParams struct {
	Name      string          `json:"name"`
	RequestID json.RawMessage `json:"requestId"`
	Reason    string          `json:"reason"`
	TaskID    string          `json:"taskId"`
	Token     json.RawMessage `json:"progressToken"`
	Progress  json.RawMessage `json:"progress"`
	Total     json.RawMessage `json:"total"`
	Message   string          `json:"message"`
	Task      json.RawMessage `json:"task"`
	Status    string          `json:"status"`
	StatusMsg string          `json:"statusMessage"`
	// A retry under 2026-07-28's multi round-trip requests.
	RequestState   *string         `json:"requestState"`
	InputResponses json.RawMessage `json:"inputResponses"`
	Meta           struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
}

func paramsOf(m message) requestParams {
	var p requestParams
	_ = json.Unmarshal(m.params, &p)
	return p
}

// rpcError is an error response's error, as far as it is well formed.
type rpcError struct {
	code    string // the code's JSON text, "" when it has none
	message string
}

func errorOf(m message) rpcError {
	var e struct {
		Code    json.RawMessage `json:"code"`
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(m.err, &e) != nil {
		return rpcError{message: "malformed error"}
	}
	var out rpcError
	if n, err := strconv.ParseInt(string(bytes.TrimSpace(e.Code)), 10, 64); err == nil {
		out.code = strconv.FormatInt(n, 10)
	}
	if json.Unmarshal(e.Message, &out.message) != nil {
		out.message = "malformed error"
	}
	return out
}

// resultSummary is what a result says in a word: isError, a task, or
// nothing special.
type resultSummary struct {
	isError bool
	taskID  string
	status  string // a task's status
	action  string // an elicitation's answer: accept, decline, cancel
	// inputRequired is a 2026-07-28 InputRequiredResult: the server asks
	// for input (inputs, "method key" each) and a retry, which echoes
	// requestState.
	inputRequired bool
	inputs        []string
	requestState  *string
}

func summarize(result json.RawMessage) resultSummary {
	var r struct {
		IsError bool `json:"isError"`
		Task    struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
		} `json:"task"`
		TaskID        string  `json:"taskId"`
		Status        string  `json:"status"`
		Action        string  `json:"action"`
		ResultType    string  `json:"resultType"`
		RequestState  *string `json:"requestState"`
		InputRequests map[string]struct {
			Method string `json:"method"`
		} `json:"inputRequests"`
	}
	_ = json.Unmarshal(result, &r)
	s := resultSummary{isError: r.IsError, taskID: r.Task.TaskID, status: r.Task.Status, action: r.Action,
		inputRequired: r.ResultType == "input_required", requestState: r.RequestState}
	for key, req := range r.InputRequests {
		s.inputs = append(s.inputs, req.Method+" "+key)
	}
	sort.Strings(s.inputs)
	if s.status == "" {
		s.status = r.Status
	}
	return s
}

// number is a JSON number as short text ("1", "0.5"), or "" when raw is
// not a finite number.
func number(raw json.RawMessage) string {
	var f float64
	if json.Unmarshal(raw, &f) != nil {
		return ""
	}
	return strconv.FormatFloat(f, 'g', 6, 64)
}
