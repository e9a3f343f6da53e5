package connect

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/buffertest"
	"github.com/mcpoke/mcpoke/internal/demo"
	"github.com/mcpoke/mcpoke/session"
)

// The test binary doubles as the demo server, so these tests spawn a real
// process through the stdio transport without building mcpoke.
const demoEnv = "MCPOKE_CONNECT_TEST_DEMO"

func TestMain(m *testing.M) {
	if os.Getenv(demoEnv) == "1" {
		if err := demo.Serve(os.Stdin, os.Stdout, os.Stderr); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func testDemoSpec(t *testing.T) Spec {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Spec{Name: "demo", Command: exe, Env: []string{demoEnv + "=1"}}
}

func TestStartInitializeCallWithTranscriptAndLog(t *testing.T) {
	var tr, log buffertest.Buffer
	c, err := Start(testDemoSpec(t), Options{Transcript: &tr, Log: &log, Session: session.Config{SettleWindow: -1}, Protocol: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sub := c.Session.Subscribe() // before Initialize: the handshake is seen
	defer sub.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	peer, err := c.Initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if peer.ServerInfo.Name != demo.ServerName || peer.ProtocolVersion != "2025-06-18" {
		t.Fatalf("peer %+v", peer)
	}
	select {
	case e := <-sub.C:
		if s, ok := e.(session.RequestStarted); !ok || s.Info.Method != "initialize" {
			t.Fatalf("first event %#v; want initialize's start", e)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s; want initialize's start")
	}
	res, err := c.Session.Do(ctx, "tools/call", json.RawMessage(`{"name":"echo","arguments":{"text":"hi"}}`), session.CallOptions{})
	if err != nil || !strings.Contains(string(res), `"hi"`) {
		t.Fatalf("%s %v", res, err)
	}
	if c.pid() <= 0 {
		t.Errorf("pid %d", c.pid())
	}
	c.Close()

	var dirs []string
	sc := bufio.NewScanner(strings.NewReader(tr.String()))
	for sc.Scan() {
		var l struct {
			Dir string
			Msg struct{ Method string }
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("transcript line %q: %v", sc.Text(), err)
		}
		dirs = append(dirs, l.Dir+":"+l.Msg.Method)
	}
	want := "out:initialize in: out:notifications/initialized out:tools/call in:"
	if got := strings.Join(dirs, " "); got != want {
		t.Errorf("transcript %s, want %s", got, want)
	}
	if !strings.Contains(log.String(), "server=demo") {
		t.Errorf("log %q", log.String())
	}
}

func TestStartCommandNotFound(t *testing.T) {
	_, err := Start(Spec{Name: "nope", Command: "mcpoke-no-such-command"}, Options{})
	var se *StartError
	if !errors.As(err, &se) || se.Stage != "start" || !strings.Contains(err.Error(), `cannot start server "nope" (mcpoke-no-such-command)`) ||
		!strings.Contains(err.Error(), "not found") {
		t.Fatalf("got %v", err)
	}
}

func TestServerExitsDuringInitializeShowsStderr(t *testing.T) {
	c, err := Start(Spec{Name: "broken", Command: "sh", Args: []string{"-c", "echo 'Error: cannot find module x' >&2; echo 'at line 3' >&2; exit 3"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = c.Initialize(ctx)
	var se *StartError
	if !errors.As(err, &se) || se.Stage != "initialize" {
		t.Fatalf("got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{`server "broken"`, "exited with status 3", "its stderr ends with:\n    Error: cannot find module x\n    at line 3"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
}

func TestServerThatNeverAnswersInitialize(t *testing.T) {
	c, err := Start(Spec{Name: "silent", Command: "sh", Args: []string{"-c", "echo waiting >&2; cat >/dev/null"}},
		Options{InitTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Initialize gives up after InitTimeout; only a bug makes it wait
	// longer, so the bound is a generous hang guard, not a speed check.
	errc := make(chan error, 1)
	go func() {
		_, err := c.Initialize(context.Background())
		errc <- err
	}()
	select {
	case err = <-errc:
	case <-time.After(20 * time.Second):
		t.Fatal("Initialize did not give up when its context ended (hang guard)")
	}
	// sh is no npx or uvx: no hint about downloading (init_timeout.txtar
	// has the npx one).
	if err == nil || !strings.Contains(err.Error(), "no answer to initialize within 300ms") ||
		strings.Contains(err.Error(), "npx or uvx") || !strings.Contains(err.Error(), "allow longer with --init-timeout") {
		t.Fatalf("got %v", err)
	}
	select {
	case <-c.Session.Done():
	default:
		t.Error("connection left open after a failed initialize")
	}
}

func TestURLSpecDialsHTTP(t *testing.T) {
	c, err := Start(Spec{Name: "r", URL: "http://127.0.0.1:1/mcp", Transport: "http"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Transport() != "http" {
		t.Fatalf("transport %q", c.Transport())
	}
	if _, err := Start(Spec{Name: "r", URL: "http://x/mcp", Headers: []string{"Bearer secret"}}, Options{}); err == nil || strings.Contains(err.Error(), "secret") {
		t.Fatalf("bad header: %v", err)
	}
}
