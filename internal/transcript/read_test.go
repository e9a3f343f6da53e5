package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// The readings by encoding/json that the hand readers replace: they must
// agree on every valid frame.
func messagesByEncodingJSON(frame []byte) []wireMsg {
	trimmed := bytes.TrimSpace(frame)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []wireMsg
		if json.Unmarshal(trimmed, &batch) != nil || len(batch) == 0 {
			return nil
		}
		return batch
	}
	var m wireMsg
	if json.Unmarshal(trimmed, &m) != nil {
		return nil
	}
	return []wireMsg{m}
}

func rawMessagesByEncodingJSON(frame []byte) []json.RawMessage {
	trimmed := bytes.TrimSpace(frame)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(trimmed, &batch) != nil || len(batch) == 0 {
			return nil
		}
		return batch
	}
	return []json.RawMessage{trimmed}
}

// readsAgree says how the hand readings of a valid frame differ from
// encoding/json's, or "".
func readsAgree(frame []byte) string {
	got, want := messages(frame), messagesByEncodingJSON(frame)
	if (got == nil) != (want == nil) || len(got) != len(want) {
		return fmt.Sprintf("messages: %d (nil %v), want %d (nil %v)", len(got), got == nil, len(want), want == nil)
	}
	for i := range got {
		g, w := got[i], want[i]
		if string(g.ID) != string(w.ID) || (g.ID == nil) != (w.ID == nil) || g.Method != w.Method ||
			string(g.Params) != string(w.Params) || (g.Result == nil) != (w.Result == nil) || string(g.Result) != string(w.Result) ||
			(g.Error == nil) != (w.Error == nil) || string(g.Error) != string(w.Error) {
			return fmt.Sprintf("message %d: %+v, want %+v", i, g, w)
		}
		var gp, wp idParams
		gok := readIDParams(g.Params, &gp)
		wok := json.Unmarshal(g.Params, &wp) == nil
		if gok != wok || gok && (string(gp.RequestID) != string(wp.RequestID) || (gp.RequestID == nil) != (wp.RequestID == nil) ||
			string(gp.Meta.ProgressToken) != string(wp.Meta.ProgressToken) || (gp.Meta.ProgressToken == nil) != (wp.Meta.ProgressToken == nil)) {
			return fmt.Sprintf("message %d's id params: %v %+v, want %v %+v", i, gok, gp, wok, wp)
		}
		var gq, wq progressParams
		gok = readProgressParams(g.Params, &gq)
		wok = json.Unmarshal(g.Params, &wq) == nil
		if gok != wok || gok && (string(gq.Token) != string(wq.Token) || (gq.Token == nil) != (wq.Token == nil) || string(gq.Progress) != string(wq.Progress)) {
			return fmt.Sprintf("message %d's progress params: %v %+v, want %v %+v", i, gok, gq, wok, wq)
		}
	}
	gr, wr := rawMessages(frame, nil), rawMessagesByEncodingJSON(frame)
	if len(gr) != len(wr) {
		return fmt.Sprintf("raw messages: %d, want %d", len(gr), len(wr))
	}
	for i := range gr {
		if string(gr[i]) != string(wr[i]) {
			return fmt.Sprintf("raw message %d: %s, want %s", i, gr[i], wr[i])
		}
	}
	return ""
}

var readSeeds = []string{
	`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"_meta":{"progressToken":8,"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"echo","arguments":{"text":"hello"}}}`,
	`{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"hello"}]}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a b","reason":"stop"}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1.5,"total":3}}`,
	` [ {"id":1,"method":"a"} , {"id":"x","error":{"code":1}} ] `, `[]`, `[null]`, `[1]`, `{}`, `null`, `"x"`, `7`,
	`{"ID":1,"Method":"m","PARAMS":{"RequestId":2,"_META":{"ProgressToken":3}}}`,
	`{"\u0069d":1,"method":"m","params":{"progre\u0073sToken":3,"progreſs":1}}`,
	`{"id":1,"method":"a","method":null}`, `{"id":1,"method":5}`, `{"id":null,"method":"m","params":null}`,
	`{"id":1,"method":"m","params":{"_meta":5}}`, `{"id":1,"method":"m","params":{"_meta":null,"requestId":null}}`,
	`{"id":1,"method":"m","params":[1]}`, "{\"id\":1,\"method\":\"m\xff\"}", `{"id":1,"result":null,"error":null}`,
}

func TestHandReadersAgreeWithEncodingJSON(t *testing.T) {
	for _, s := range readSeeds {
		if !json.Valid([]byte(s)) {
			t.Fatalf("seed is not valid JSON: %s", s)
		}
		if why := readsAgree([]byte(s)); why != "" {
			t.Errorf("%s: %s", s, why)
		}
	}
}

func FuzzHandReadersAgreeWithEncodingJSON(f *testing.F) {
	for _, s := range readSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		if !json.Valid(frame) {
			return
		}
		if why := readsAgree(frame); why != "" {
			t.Fatalf("%q: %s", frame, why)
		}
	})
}
