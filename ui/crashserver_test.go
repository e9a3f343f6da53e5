package ui

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// crashServerEnv makes the test binary act as a stdio MCP server that
// crashes mid-call, for the server-crash flow.
const crashServerEnv = "MCPOKE_UI_TEST_CRASH_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(crashServerEnv) != "" {
		os.Exit(runCrashServer())
	}
	os.Exit(m.Run())
}

// runCrashServer answers initialize and tools/list, then on tools/call
// writes a panic to stderr and exits with status 3, like a server that
// dies in the middle of a request.
func runCrashServer() int {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &msg) != nil || msg.ID == nil {
			continue
		}
		var result string
		switch msg.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-11-25","serverInfo":{"name":"crashy","version":"0.1"},"capabilities":{"tools":{}}}`
		case "tools/list":
			result = `{"tools":[{"name":"crash","description":"Dies mid-call.","inputSchema":{"type":"object"}}]}`
		case "tools/call":
			fmt.Fprintln(os.Stderr, "working on it")
			fmt.Fprintln(os.Stderr, "panic: boom")
			return 3
		default:
			result = `{}`
		}
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", msg.ID, result)
	}
	return 0
}
