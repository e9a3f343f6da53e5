package demo

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
)

const modernMeta = `"_meta":{"progressToken":1,"io.modelcontextprotocol/protocolVersion":"` + session.Era2026Version +
	`","io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`

// sameAnswerCases are tools/call params, and whether the fast path
// answers them (the rest it leaves to callTool). Each reads as the name
// says; encoding/json's ways (keys matched without case, a repeated
// object merged) are the ones that must go to callTool.
var sameAnswerCases = []struct {
	name, params string
	now          bool
}{
	{"legacy echo", `{"name":"echo","arguments":{"text":"hello"}}`, true},
	{"legacy echo, progress token", `{"name":"echo","arguments":{"text":"hello"},"_meta":{"progressToken":"p"}}`, true},
	{"echo, escapes and HTML", `{"name":"echo","arguments":{"text":"<a & b> \u00fc\u2028 \"q\" \\ \t"}}`, true},
	{"echo, name twice, the first not a string", `{"name":5,"name":"echo","arguments":{"text":"x"}}`, false},
	{"fail, name twice", `{"name":true,"name":"fail"}`, false},
	{"echo, name twice, both strings", `{"name":"fail","name":"echo","arguments":{"text":"x"}}`, false},
	{"echo, HTML only", `{"name":"echo","arguments":{"text":"<b> & </b>"}}`, true},
	{"echo, non-ASCII", `{"name":"echo","arguments":{"text":"ünï ☃"}}`, true},
	{"echo, bytes that are not UTF-8", "{\"name\":\"echo\",\"arguments\":{\"text\":\"a\xff\xfeb\"}}", true},
	{"echo, whitespace", " { \"name\" : \"echo\" ,\n \"arguments\" : { \"text\" : \"x\" } } ", true},
	{"echo, escaped name", `{"name":"ech\u006f","arguments":{"text":"x"}}`, true},
	{"echo, text missing", `{"name":"echo","arguments":{}}`, false},
	{"echo, no arguments", `{"name":"echo"}`, false},
	{"echo, null arguments", `{"name":"echo","arguments":null}`, false},
	{"echo, text a number", `{"name":"echo","arguments":{"text":5}}`, false},
	{"echo, text null", `{"name":"echo","arguments":{"text":null}}`, false},
	{"echo, another property", `{"name":"echo","arguments":{"text":"a","x":1}}`, false},
	{"echo, arguments an array", `{"name":"echo","arguments":[1]}`, false},
	{"echo, arguments a string", `{"name":"echo","arguments":"text"}`, false},
	{"echo, arguments a number", `{"name":"echo","arguments":5}`, false},
	{"echo, text twice", `{"name":"echo","arguments":{"text":"a","text":"b"}}`, false},
	{"echo, escaped key", `{"name":"echo","arguments":{"te\u0078t":"a"}}`, false},
	{"echo, arguments twice", `{"name":"echo","arguments":{"text":"a"},"arguments":{"text":"b"}}`, false},
	{"echo, Arguments", `{"name":"echo","Arguments":{"text":"a"},"arguments":{"text":"b"}}`, false},
	{"echo, NAME", `{"name":"echo","NAME":"fail","arguments":{"text":"x"}}`, false},
	{"echo as a task", `{"name":"echo","arguments":{"text":"x"},"task":{}}`, false},
	{"echo as a TASK", `{"name":"echo","arguments":{"text":"x"},"TASK":{}}`, false},
	{"echo as a tas\u212a (Kelvin)", "{\"name\":\"echo\",\"arguments\":{\"text\":\"x\"},\"tas\u212a\":{}}", false},
	{"echo, task null", `{"name":"echo","arguments":{"text":"x"},"task":null}`, false},
	{"echo, another param", `{"name":"echo","arguments":{"text":"x"},"other":[{"a":"}"}]}`, true},
	{"echo, _meta null", `{"name":"echo","arguments":{"text":"x"},"_meta":null}`, true},
	{"echo, _meta a number", `{"name":"echo","arguments":{"text":"x"},"_meta":5}`, false},
	{"echo, working report", `{"name":"echo","arguments":{"text":"x"},"_meta":{"` + WorkingMeta + `":true}}`, false},
	{"fail, no arguments", `{"name":"fail"}`, true},
	{"fail, null arguments", `{"name":"fail","arguments":null}`, true},
	{"fail, tool-error", `{"name":"fail","arguments":{"mode":"tool-error"}}`, true},
	{"fail, rpc-error", `{"name":"fail","arguments":{"mode":"rpc-error"}}`, true},
	{"fail, rpc-error escaped", `{"name":"fail","arguments":{"mode":"rpc\u002derror"}}`, false},
	{"fail, another mode", `{"name":"fail","arguments":{"mode":"nope"}}`, false},
	{"fail, mode a bool", `{"name":"fail","arguments":{"mode":true}}`, false},
	{"fail, MODE", `{"name":"fail","arguments":{"MODE":"rpc-error"}}`, false},
	{"unknown tool", `{"name":"nope","arguments":{}}`, false},
	{"a tool answered by a handler", `{"name":"sleep","arguments":{"seconds":0}}`, false},
	{"no name", `{"arguments":{"text":"x"}}`, false},
	{"params an array", `[1,2]`, false},
	{"modern echo", `{"name":"echo","arguments":{"text":"hello"},` + modernMeta + `}`, true},
	{"modern echo, meta first", `{` + modernMeta + `,"name":"echo","arguments":{"text":"hello"}}`, true},
	{"modern echo, log level", `{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"` + session.Era2026Version + `","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}`, true},
	{"modern echo, no clientCapabilities", `{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"` + session.Era2026Version + `","io.modelcontextprotocol/logLevel":"info"}}`, false},
	{"modern echo, clientCapabilities twice", `{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"` + session.Era2026Version + `","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientCapabilities":null}}`, false},
	{"modern echo, log level a number", `{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"` + session.Era2026Version + `","io.modelcontextprotocol/logLevel":3}}`, false},
	{"modern echo, clientInfo a string", `{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"` + session.Era2026Version + `","io.modelcontextprotocol/clientInfo":"nobody"}}`, false},
	{"modern echo, version not spoken", `{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2027-01-01"}}`, false},
	{"modern echo, version a legacy one", `{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}`, false},
	{"modern echo, version null", `{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":null}}`, false},
	{"modern echo, version twice", `{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2027-01-01","io.modelcontextprotocol/protocolVersion":"` + session.Era2026Version + `"}}`, false},
	{"modern echo, _meta twice", `{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"` + session.Era2026Version + `"},"_meta":{}}`, false},
	{"modern echo, version key in capitals", `{"name":"echo","arguments":{"text":"x"},"_meta":{"IO.modelcontextprotocol/protocolVersion":"2027-01-01"}}`, false},
	{"modern echo, _META", `{"name":"echo","arguments":{"text":"x"},"_META":{"io.modelcontextprotocol/protocolVersion":"2027-01-01"}}`, false},
	{"modern echo, working report", `{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"` + session.Era2026Version + `","` + WorkingMeta + `":1}}`, false},
	{"modern echo, text missing", `{"name":"echo","arguments":{},` + modernMeta + `}`, false},
	{"modern echo as a task", `{"name":"echo","arguments":{"text":"x"},"task":{},` + modernMeta + `}`, false},
	{"modern fail, rpc-error", `{"name":"fail","arguments":{"mode":"rpc-error"},` + modernMeta + `}`, true},
	{"modern fail, tool-error", `{"name":"fail",` + modernMeta + `}`, true},
	{"modern unknown tool", `{"name":"nope",` + modernMeta + `}`, false},
}

// The fast path answers with the bytes callTool answers with, through
// eraAware, for every request: answered at once or left to them.
func TestImmediateAnswersAsTheHandler(t *testing.T) {
	fast := newServer(nil)
	for _, tc := range sameAnswerCases {
		t.Run(tc.name, func(t *testing.T) {
			if !json.Valid([]byte(tc.params)) {
				t.Fatalf("params are not JSON: %s", tc.params)
			}
			name := ""
			_ = json.Unmarshal(session.Member([]byte(tc.params), "name"), &name)
			if _, _, now := fast.answerNow(name, []byte(tc.params)); now != tc.now {
				t.Errorf("answered at once: %v, want %v", now, tc.now)
			}
			frame := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":` + tc.params + `}`
			got, want := answer(t, newServer(nil), frame), answer(t, handlersOnly(), frame)
			if got != want {
				t.Errorf("%s\n got %s\nwant %s", frame, got, want)
			}
			if strings.Contains(want, `"code":-32603`) {
				t.Errorf("the handler failed: %s", want)
			}
		})
	}
}

// handlersOnly is a demo server whose tools all answer through callTool.
func handlersOnly() *server {
	srv := newServer(nil)
	tools := make([]*tool, len(srv.tools))
	for i, t := range srv.tools {
		c := *t
		c.immediate = nil
		tools[i] = &c
	}
	srv.tools = tools
	return srv
}

// answer sends frame to srv and returns the response frame.
func answer(t *testing.T, srv *server, frame string) string {
	t.Helper()
	a, b := transporttest.Pipe()
	s := srv.serve(b)
	defer func() { a.Close(); s.Close() }()
	if err := a.Send([]byte(frame)); err != nil {
		t.Fatal(err)
	}
	for {
		m, err := a.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if m.Kind == wire.KindFrame && session.Member(m.Data, "method") == nil {
			return string(m.Data)
		}
	}
}

// FuzzAnswerNow looks for params the fast path answers otherwise than
// callTool through eraAware.
func FuzzAnswerNow(f *testing.F) {
	for _, tc := range sameAnswerCases {
		f.Add(tc.params)
	}
	srv := newServer(nil)
	ref := handlersOnly()
	handler := ref.bothEras(map[string]session.Handler{"tools/call": ref.callTool})["tools/call"]
	f.Fuzz(func(t *testing.T, params string) {
		if !json.Valid([]byte(params)) {
			return // the session hands on valid JSON only
		}
		var name string
		_ = json.Unmarshal(session.Member([]byte(params), "name"), &name)
		res, err, now := srv.answerNow(name, []byte(params))
		if !now {
			return
		}
		wantRes, wantErr := handler(context.Background(), &session.Incoming{Method: "tools/call", Params: json.RawMessage(params)})
		// The bytes the session would send: a RawMessage as it is (a
		// Marshal of it would compact it and escape <, > and &).
		got, want := onWire(res)+errText(err), onWire(wantRes)+errText(wantErr)
		if got != want {
			t.Fatalf("%s\n got %s\nwant %s", params, got, want)
		}
	})
}

// onWire is a result as session.marshalParams puts it on the wire.
func onWire(v any) string {
	if raw, ok := v.(json.RawMessage); ok {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	b, _ := json.Marshal(err)
	return " error " + err.Error() + " " + string(b)
}
