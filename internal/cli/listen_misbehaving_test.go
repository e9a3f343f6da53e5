package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// runListenServer is a stdio server of protocol 2026-07-28 (it answers
// server/discover) whose subscriptions/listen misbehaves, or ends in a
// way only a listen may, by mode:
//
//	listen-cancel   acknowledges, notifies twice (an update of a URI with
//	                escapes and a bidi override in it), cancels request 99
//	                (which mcpoke never sent), then cancels the listen itself
//	listen-unknown  acknowledges, notifies on subscription 77 (none of
//	                mcpoke's), then on the listen
//	listen-noack    notifies before any acknowledgement, then ends the
//	                listen with its response
//	listen-refused  answers subscriptions/listen with an error
func runListenServer(mode string) int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	write := func(s string) { out.WriteString(s + "\n"); out.Flush() }
	note := func(method, sub, rest string) {
		write(`{"jsonrpc":"2.0","method":"` + method + `","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":` + sub + `}` + rest + `}}`)
	}
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &msg) != nil || msg.ID == nil {
			continue
		}
		id := string(msg.ID)
		switch msg.Method {
		case "server/discover":
			write(`{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],` +
				`"capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true}},` +
				`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"` + mode + `","version":"0"}}}}`)
		case "subscriptions/listen":
			const ack = "notifications/subscriptions/acknowledged"
			acked := `,"notifications":{"toolsListChanged":true}`
			switch mode {
			case "listen-cancel":
				note(ack, id, acked)
				note("notifications/tools/list_changed", id, "")
				note("notifications/resources/updated", id, `,"uri":"x://a\u001b[2Jb\u202ec"`)
				write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99,"reason":"no such"}}`)
				write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"shutting down"}}`)
			case "listen-unknown":
				note(ack, id, acked)
				note("notifications/tools/list_changed", "77", "")
				note("notifications/tools/list_changed", id, "")
			case "listen-refused":
				write(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32601,"message":"Method not found"}}`)
			case "listen-noack":
				note("notifications/tools/list_changed", id, "")
				write(`{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":` + id + `}}}`)
			}
		default:
			write(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32601,"message":"no"}}`)
		}
	}
	return 0
}

// listenEvents runs listen --json against runListenServer in mode and
// returns its events by kind, and the exit status.
func listenEvents(t *testing.T, mode string, f listenFlags) (map[string][]map[string]any, int) {
	t.Helper()
	f.json, f.protocol = true, "auto"
	var out, errOut bytes.Buffer
	err := runListen(testContext(t), &out, &errOut, testGlobals(), misbehavingSpec(t, mode), &f)
	events := map[string][]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e map[string]any
		if jerr := json.Unmarshal([]byte(line), &e); jerr != nil {
			t.Fatalf("listen --json against %s: line %q: %v (%v)\n%s", mode, line, jerr, err, errOut.String())
		}
		kind, _ := e["event"].(string)
		events[kind] = append(events[kind], e)
	}
	return events, exitStatus(err)
}

// A server may send notifications/cancelled for a subscriptions/listen:
// it ends the subscription, and listen says the server did. For any other
// request it is a violation, shown and ignored.
func TestListenEndedByServerCancel(t *testing.T) {
	ev, code := listenEvents(t, "listen-cancel", listenFlags{})
	if code != ExitOK {
		t.Errorf("exit %d, want 0: the server may end a listen", code)
	}
	if len(ev["acknowledged"]) != 1 || len(ev["notification"]) != 2 {
		t.Errorf("events %v", ev)
	}
	if v := ev["violation"]; len(v) != 1 || v[0]["kind"] != "server_cancel" || !strings.Contains(v[0]["detail"].(string), "request 99") {
		t.Errorf("violations %v", v)
	}
	end := ev["end"][0]
	if end["endedBy"] != "server" || !strings.Contains(end["reason"].(string), "notifications/cancelled): shutting down") || end["cancel"] != nil {
		t.Errorf("end %v", end)
	}
}

// What a server sends is escaped in the text: a URI cannot clear the
// screen or turn the line around.
func TestListenEscapesServerText(t *testing.T) {
	var out, errOut bytes.Buffer
	err := runListen(testContext(t), &out, &errOut, testGlobals(), misbehavingSpec(t, "listen-cancel"), &listenFlags{protocol: "auto"})
	if err != nil {
		t.Fatalf("listen: %v\n%s", err, errOut.String())
	}
	assertTerminalSafe(t, "listen", out.Bytes())
	if !strings.Contains(out.String(), `notifications/resources/updated x://a\x1b[2Jb\u202ec`) {
		t.Errorf("the URI is not shown escaped:\n%s", out.String())
	}
	out.Reset()
	if err := runListen(testContext(t), &out, &errOut, testGlobals(), misbehavingSpec(t, "listen-cancel"), &listenFlags{protocol: "auto", json: true}); err != nil {
		t.Fatal(err)
	}
	assertTerminalSafe(t, "listen --json", out.Bytes())
}

// A notification tagged with a subscription mcpoke never opened is a
// violation, not one of the listen's notifications.
func TestListenUnknownSubscription(t *testing.T) {
	ev, code := listenEvents(t, "listen-unknown", listenFlags{count: 1})
	if code != ExitOK {
		t.Errorf("exit %d", code)
	}
	if v := ev["violation"]; len(v) != 1 || v[0]["kind"] != "subscription_unknown" || !strings.Contains(v[0]["detail"].(string), "subscription 77") {
		t.Errorf("violations %v", v)
	}
	if n := ev["notification"]; len(n) != 1 {
		t.Errorf("notifications %v", n)
	}
	if end := ev["end"][0]; end["endedBy"] != "mcpoke" || end["cancel"] != "notification" || end["notifications"] != 1.0 {
		t.Errorf("end %v", end)
	}
}

// A listen never acknowledged failed, however it ended; a notification
// before the acknowledgement is flagged.
func TestListenWithoutAck(t *testing.T) {
	ev, code := listenEvents(t, "listen-noack", listenFlags{})
	if code != ExitFailed {
		t.Errorf("exit %d, want 1", code)
	}
	if v := ev["violation"]; len(v) != 1 || v[0]["kind"] != "subscription_before_ack" {
		t.Errorf("violations %v", v)
	}
	end := ev["end"][0]
	if end["endedBy"] != "server" || end["acknowledged"] != false || end["failed"] != true ||
		!strings.Contains(end["reason"].(string), "graceful close") {
		t.Errorf("end %v", end)
	}
}

// A listen the server refuses fails (exit 1) with the server's error.
func TestListenRefused(t *testing.T) {
	ev, code := listenEvents(t, "listen-refused", listenFlags{})
	if code != ExitFailed {
		t.Errorf("exit %d, want 1", code)
	}
	end := ev["end"][0]
	if end["endedBy"] != "server" || end["failed"] != true || !strings.Contains(end["reason"].(string), "subscriptions/listen failed: Method not found") {
		t.Errorf("end %v", end)
	}
}

// Before 2026-07-28 a resource is followed with resources/subscribe, which
// a server that did not declare resources.subscribe is not sent (exit 2).
func TestListenLegacyUndeclaredSubscribe(t *testing.T) {
	var out, errOut bytes.Buffer
	err := runListen(testContext(t), &out, &errOut, testGlobals(), misbehavingSpec(t, "silent"), &listenFlags{uris: []string{"x://1"}})
	if code := exitStatus(err); code != ExitUsage || err == nil || !strings.Contains(err.Error(), "resources") {
		t.Fatalf("exit %d: %v\n%s", code, err, out.String())
	}
	if !strings.Contains(errOut.String(), "does not declare resources.subscribe") {
		t.Errorf("no warning: %q", errOut.String())
	}
}
