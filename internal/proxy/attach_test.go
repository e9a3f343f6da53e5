//go:build linux

package proxy

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// feedLine records one frame in the table and history as the proxy's
// recorder does, with a transcript line of its own making.
func feedLine(table *Table, h *History, dir wire.Direction, frame string) {
	r := wire.Record{At: time.Now(), Dir: dir, Kind: wire.KindFrame, Data: []byte(frame)}
	table.Observe(r)
	h.Note(r)
	h.Write([]byte(`{"dir":"` + dir.String() + `","msg":` + frame + "}\n"))
}

func TestHistoryKeepsTheLastLinesAndEveryOpenRequest(t *testing.T) {
	table := NewTable()
	h := NewHistory(table)
	feedLine(table, h, wire.Out, `{"jsonrpc":"2.0","id":"old-open","method":"tools/call"}`)
	feedLine(table, h, wire.Out, `{"jsonrpc":"2.0","id":"old-done","method":"tools/call"}`)
	feedLine(table, h, wire.In, `{"jsonrpc":"2.0","id":"old-done","result":{}}`)
	for i := range 3 * historyLines {
		feedLine(table, h, wire.In, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"n":`+strconv.Itoa(i)+`}}`)
	}
	past, _, stop := h.Follow()
	stop()
	if len(past) != historyLines+1 {
		t.Fatalf("%d lines of history, want the last %d and the open request's", len(past), historyLines)
	}
	if !strings.Contains(string(past[0]), `"old-open"`) {
		t.Errorf("first line %s, want the request still open", past[0])
	}
	if !strings.Contains(string(past[1]), `"n":20000}`) || !strings.Contains(string(past[len(past)-1]), `"n":29999}`) {
		t.Errorf("history runs from %s to %s, want the last 10000 progress lines", past[1], past[len(past)-1])
	}
	for _, l := range past {
		if strings.Contains(string(l), "old-done") {
			t.Errorf("an ended request's line outlived the history: %s", l)
		}
	}
}

func TestAttachServesHistoryThenLiveAndSurvivesClients(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("TMPDIR", t.TempDir()) // ListRunning looks there too: no other proxy of this user's
	table := NewTable()
	h := NewHistory(table)
	feedLine(table, h, wire.Out, `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`)
	s, err := ServeAttach("my proxy/../x", h)
	if err != nil {
		t.Fatal(err)
	}
	dirInfo, _ := os.Stat(SocketDir())
	sockInfo, _ := os.Stat(s.Path())
	if dirInfo.Mode().Perm() != 0o700 || sockInfo.Mode().Perm() != 0o600 {
		t.Errorf("socket dir %v and socket %v, want 0700 and 0600", dirInfo.Mode().Perm(), sockInfo.Mode().Perm())
	}
	if filepath.Dir(s.Path()) != SocketDir() || !strings.HasPrefix(filepath.Base(s.Path()), "my_proxy____x.") {
		t.Errorf("socket at %s, want a cleaned name in %s", s.Path(), SocketDir())
	}
	running, err := ListRunning()
	if err != nil || len(running) != 1 || running[0].Pid != os.Getpid() || running[0].Name != "my_proxy____x" {
		t.Errorf("ListRunning = %+v, %v; want this proxy", running, err)
	}

	// A client that leaves at once disturbs nothing.
	quitter, err := net.Dial("unix", s.Path())
	if err != nil {
		t.Fatal(err)
	}
	quitter.Close()

	c, err := net.Dial("unix", s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	readLine := func(want string) {
		t.Helper()
		line, err := br.ReadString('\n')
		if err != nil || !strings.Contains(line, want) {
			t.Fatalf("attached client read %q, %v; want a line with %s", line, err, want)
		}
	}
	readLine(`"id":1`) // the history
	feedLine(table, h, wire.In, `{"jsonrpc":"2.0","id":1,"result":{"live":true}}`)
	readLine(`"live":true`) // then live
	s.Close()
	if line, err := br.ReadString('\n'); err == nil {
		t.Errorf("after the proxy closed, the client read %q, want the end", line)
	}
	if _, err := os.Stat(s.Path()); !os.IsNotExist(err) {
		t.Errorf("the socket outlived the proxy: %v", err)
	}
}

func TestAClientThatStopsReadingNeverHoldsTheHistory(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	table := NewTable()
	h := NewHistory(table)
	s, err := ServeAttach("stuck", h)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := net.Dial("unix", s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close() // never read
	done := make(chan struct{})
	go func() {
		defer close(done)
		// More lines than the client's queue and the socket's buffers hold.
		line := []byte(`{"dir":"in","msg":{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("x", 200) + `"}}}` + "\n")
		for range clientQueue + 50_000 {
			h.Write(line)
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("writing the history waited for a client that does not read")
	}
}

func TestSocketDirOfSomeoneElseIsRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mcpoke")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ensureSocketDir(dir); err == nil || !strings.Contains(err.Error(), "want 0700") {
		t.Errorf("a 0755 socket dir: %v, want it refused", err)
	}
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(t.TempDir(), link)
	if err := ensureSocketDir(link); err == nil {
		t.Errorf("a symlink as the socket dir was accepted")
	}
}

func TestPeerUIDIsOurs(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	l, path, err := listen("uid")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		if c, err := net.Dial("unix", path); err == nil {
			time.Sleep(100 * time.Millisecond)
			c.Close()
		}
	}()
	c, err := l.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if uid, err := peerUID(c); err != nil || uid != os.Getuid() {
		t.Errorf("peerUID = %d, %v; want %d", uid, err, os.Getuid())
	}
}

// A host that starts its servers with a bare environment (no
// XDG_RUNTIME_DIR: the TypeScript SDK's default) has its proxy listen in
// the temporary dir; mcpoke attach, run where XDG_RUNTIME_DIR is set,
// finds it there too, and only in a dir of the user's alone.
func TestListRunningFindsAProxyStartedWithoutTheRuntimeDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("XDG_RUNTIME_DIR", "") // the host's bare environment
	l, _, err := listen("bare-host")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // the user's terminal
	running, err := ListRunning()
	if err != nil || len(running) != 1 || running[0].Name != "bare-host" || running[0].Pid != os.Getpid() {
		t.Fatalf("ListRunning = %+v, %v; want the proxy in the temporary dir", running, err)
	}
	// A temporary dir that others may enter is not trusted.
	os.Chmod(filepath.Join(tmp, "mcpoke-"+strconv.Itoa(os.Getuid())), 0o755)
	if running, err := ListRunning(); err != nil || len(running) != 0 {
		t.Errorf("ListRunning = %+v, %v; want nothing from a 0755 dir", running, err)
	}
}
