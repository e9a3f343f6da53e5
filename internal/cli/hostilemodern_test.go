package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mcpoke/mcpoke/internal/connect"
)

// modernHostileEnvPrefix marks runModernHostileServer's modes in
// hostileServerEnv: "modern:VARIANT".
const modernHostileEnvPrefix = "modern:"

// bad is what the modern hostile server puts in every string: a screen
// clear, a title change, a C1 CSI, a bidi override, a zero-width space
// and the tag-character injection.
func bad(s string) string { return s + "\x1b[2J\x1b]0;pwned\x07\u009b\u202e\u200b" + injection }

// runModernHostileServer is a stdio server of protocol 2026-07-28 with
// hostile text in every string it sends, and per variant:
//
//	text       everything answers, tools/call and prompts/get ask
//	           elicitation once (input_required), then complete
//	loop       tools/call answers input_required for ever
//	hugestate  tools/call's requestState is 10 MB; the retry is answered
//	           with whether it came back exactly
//	hugeloop   tools/call answers input_required with a 10 MB
//	           requestState for ever (to measure memory by hand)
//	doubling   tools/call answers input_required for ever, each round's
//	           requestState twice the one echoed (64 KB in round 1, 32 MB
//	           in round 10)
//	error      every request but discover fails with hostile message/data
//	types      every field of every result but discover's has the wrong
//	           JSON type
//	discovertypes  server/discover's fields have the wrong JSON types
//	legacy     answers 2026 requests with 2025 shapes (no resultType,
//	           serverInfo at the top of discover)
//	dupes      answers each tools/call twice and an unknown id once
//	nodiscover never answers server/discover
//	modernshapes  a 2025-11-25 server (it refuses server/discover) that
//	           answers tools/call with a 2026 input_required result
//	tasks2025  a 2025-11-25 server (it refuses server/discover) whose
//	           tasks have hostile ids, statuses and status messages
//	badheader  tools/list holds a tool whose x-mcp-header marks an object
//	           (badHeaderTools)
func runModernHostileServer(variant string) int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 64<<20)
	w := bufio.NewWriter(os.Stdout)
	send := func(v any) {
		b, _ := json.Marshal(v)
		w.Write(b)
		w.WriteString("\n")
		w.Flush()
	}
	complete := func(m map[string]any) map[string]any {
		if variant != "legacy" {
			m["resultType"] = "complete"
		}
		return m
	}
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				RequestState *string `json:"requestState"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &msg) != nil || msg.ID == nil {
			continue
		}
		answer := func(result any) { send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result}) }
		if variant == "error" && msg.Method != "server/discover" {
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{
				"code": -32021, "message": bad("no"), "data": map[string]any{
					"requiredCapabilities": map[string]any{bad("elicitation"): map[string]any{}}, "why": bad("because")}}})
			continue
		}
		log := func() {
			send(map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{
				"level": "error", "logger": bad("db"), "data": map[string]any{bad("k"): bad("v")}}})
		}
		ask := map[string]any{"resultType": "input_required", "requestState": bad("state"),
			"inputRequests": map[string]any{bad("key"): map[string]any{"method": "elicitation/create", "params": map[string]any{
				"mode": "form", "message": bad("Your name?"),
				"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{
					"n": map[string]any{"type": "string", "title": bad("Name"), "description": bad("d"), "default": bad("x")}}}}}}}
		info := map[string]any{"name": bad("srv"), "title": bad("Title"), "version": bad("1")}
		if variant == "tasks2025" {
			answerTasks2025(msg.Method, msg.ID, answer, send)
			continue
		}
		if variant == "modernshapes" {
			switch msg.Method {
			case "server/discover":
				send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "no"}})
			case "initialize":
				answer(map[string]any{"protocolVersion": "2025-11-25", "serverInfo": map[string]any{"name": "old", "version": "1"},
					"capabilities": map[string]any{"tools": map[string]any{}}})
			case "tools/call":
				answer(ask)
			default:
				answer(map[string]any{"resultType": "complete", "tools": []any{}})
			}
			continue
		}
		switch msg.Method {
		case "server/discover":
			switch variant {
			case "nodiscover":
				continue
			case "discovertypes":
				answer(map[string]any{"resultType": 7, "supportedVersions": []any{"2026-07-28"}, "capabilities": []any{1},
					"instructions": map[string]any{}, "_meta": map[string]any{"io.modelcontextprotocol/serverInfo": "x"}})
				continue
			case "legacy":
				answer(map[string]any{"supportedVersions": []any{"2026-07-28"}, "protocolVersion": "2025-11-25", "serverInfo": info,
					"capabilities": map[string]any{"tools": map[string]any{}}})
				continue
			}
			answer(map[string]any{"resultType": "complete", "supportedVersions": []any{"2026-07-28"},
				"capabilities": map[string]any{"tools": map[string]any{}, "resources": map[string]any{}, "prompts": map[string]any{},
					"logging": map[string]any{}, "completions": map[string]any{}},
				"instructions": bad("Be nice."), "_meta": map[string]any{"io.modelcontextprotocol/serverInfo": info}})
		case "tools/list":
			if variant == "types" {
				answer(map[string]any{"resultType": "complete", "tools": []any{map[string]any{"name": 5, "description": []any{}, "inputSchema": "s"}, 3, "x"}})
				continue
			}
			if variant == "badheader" {
				answer(map[string]any{"resultType": "complete", "tools": badHeaderTools})
				continue
			}
			answer(complete(map[string]any{"tools": []any{map[string]any{"name": bad("t"), "title": bad("T"), "description": bad("desc"),
				"inputSchema": map[string]any{"type": "object"}}, map[string]any{"name": "t", "inputSchema": map[string]any{"type": "object"}}}}))
		case "tools/call":
			switch {
			case variant == "types":
				answer(map[string]any{"resultType": "complete", "content": map[string]any{"type": 1}, "isError": "yes"})
			case variant == "dupes":
				r := complete(map[string]any{"content": []any{map[string]any{"type": "text", "text": bad("one")}}})
				answer(r)
				answer(r)
				send(map[string]any{"jsonrpc": "2.0", "id": 4242, "result": r})
			case variant == "loop":
				answer(ask)
			case variant == "hugeloop" || variant == "hugestate" && msg.Params.RequestState == nil:
				ask["requestState"] = strings.Repeat("s", 10<<20)
				answer(ask)
			case variant == "doubling":
				state := strings.Repeat("d", 64<<10)
				if msg.Params.RequestState != nil {
					state = *msg.Params.RequestState + *msg.Params.RequestState
				}
				ask["requestState"] = state
				answer(ask)
			case variant == "hugestate":
				echoed := len(*msg.Params.RequestState) == 10<<20 && strings.Trim(*msg.Params.RequestState, "s") == ""
				answer(complete(map[string]any{"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("state echoed: %v", echoed)}}}))
			case msg.Params.RequestState == nil:
				answer(ask)
			default:
				log()
				answer(complete(map[string]any{"content": []any{map[string]any{"type": "text", "text": bad("result")}},
					"structuredContent": map[string]any{bad("k"): bad("v")}}))
			}
		case "resources/list":
			answer(complete(map[string]any{"resources": []any{map[string]any{"uri": bad("x://r"), "name": bad("r"), "title": bad("R"),
				"description": bad("rd"), "mimeType": bad("text/plain")}}}))
		case "resources/templates/list":
			answer(complete(map[string]any{"resourceTemplates": []any{map[string]any{"uriTemplate": bad("x://{id}"), "name": bad("tpl"), "description": bad("td")}}}))
		case "resources/read":
			answer(complete(map[string]any{"contents": []any{map[string]any{"uri": bad("x://r"), "mimeType": bad("text/plain"), "text": bad("body")}}}))
		case "prompts/list":
			answer(complete(map[string]any{"prompts": []any{map[string]any{"name": bad("p"), "title": bad("P"), "description": bad("pd"),
				"arguments": []any{map[string]any{"name": bad("a"), "description": bad("ad")}}}}}))
		case "prompts/get":
			if msg.Params.RequestState == nil {
				answer(ask)
				continue
			}
			answer(complete(map[string]any{"description": bad("pd"), "messages": []any{map[string]any{"role": bad("user"),
				"content": map[string]any{"type": "text", "text": bad("hi")}}}}))
		case "subscriptions/listen":
			note := func(method string, params map[string]any) {
				params["_meta"] = map[string]any{"io.modelcontextprotocol/subscriptionId": msg.ID}
				send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
			}
			note("notifications/subscriptions/acknowledged", map[string]any{"notifications": map[string]any{"toolsListChanged": true,
				"resourceSubscriptions": []any{bad("x://r")}, bad("extra"): bad("y")}})
			note("notifications/resources/updated", map[string]any{"uri": bad("x://r"), "title": bad("t")})
			note("notifications/message", map[string]any{"level": bad("lvl"), "logger": bad("db"), "data": bad("listen log")})
			note("notifications/"+bad("unknown"), map[string]any{"x": bad("y")})
			note("notifications/tools/list_changed", map[string]any{})
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32603, "message": bad("gone"), "data": bad("d")}})
		case "completion/complete":
			answer(complete(map[string]any{"completion": map[string]any{"values": []any{bad("v1")}, "total": 1}}))
		default:
			answer(complete(map[string]any{}))
		}
	}
	return 0
}

// modernHostileSpec runs the test binary as runModernHostileServer.
func modernHostileSpec(t testing.TB, variant string) connect.Spec {
	spec := hostileSpec(t)
	spec.Name = "modern-" + variant
	spec.Env = []string{hostileServerEnv + "=" + modernHostileEnvPrefix + variant}
	return spec
}

// answerTasks2025 is the tasks2025 variant: initialize, tools/list with a
// tool that requires a task, tools/call creating one, tasks/get (working,
// then completed), tasks/result and tasks/list, all with bad text.
func answerTasks2025(method string, id json.RawMessage, answer func(any), send func(any)) {
	task := func(status string) map[string]any {
		return map[string]any{"taskId": bad("task-1"), "status": status, "statusMessage": bad("step"),
			"createdAt": bad("2026-01-01T00:00:00Z"), "ttl": 60000, "pollInterval": 10}
	}
	switch method {
	case "server/discover":
		send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32601, "message": bad("Method not found")}})
	case "initialize":
		answer(map[string]any{"protocolVersion": "2025-11-25", "serverInfo": map[string]any{"name": bad("tasks"), "version": "1"},
			"capabilities": map[string]any{"tools": map[string]any{}, "tasks": map[string]any{"list": map[string]any{}, "cancel": map[string]any{},
				"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}}})
	case "tools/list":
		answer(map[string]any{"tools": []any{map[string]any{"name": "t", "description": bad("slow"), "inputSchema": map[string]any{"type": "object"},
			"execution": map[string]any{"taskSupport": "required"}}}})
	case "tools/call":
		answer(map[string]any{"task": task("working")})
		send(map[string]any{"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": task(bad("weird"))})
	case "tasks/get":
		answer(task("completed"))
	case "tasks/result":
		answer(map[string]any{"content": []any{map[string]any{"type": "text", "text": bad("done")}},
			"_meta": map[string]any{"io.modelcontextprotocol/related-task": map[string]any{"taskId": bad("task-1")}}})
	case "tasks/list":
		answer(map[string]any{"tasks": []any{task("working"), task(bad("odd"))}})
	default:
		answer(map[string]any{})
	}
}
