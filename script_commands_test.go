package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptCommands are the test scripts' own commands:
//
//	status N PROG ARGS...        run PROG; its exit status must be N
//	json SRC PATH OP [VALUE]     check a value in the JSON of SRC (a file, or stdout)
//	ndjson FILE valid            every line of a transcript is well formed
//	ndjson FILE count FILTER... OP N
//	ndjson FILE before FILTER FILTER
//	waitfor FILE REGEXP          wait up to 30s until FILE matches
//	gone FILE                    the pid in FILE's "pid=N" is no longer running
//	interrupt N FILE REGEXP PROG ARGS...
//	                             run PROG, send it SIGINT once FILE matches; its exit status must be N
//	freeport VAR                 set VAR to a free TCP port on 127.0.0.1
//	waitport PORT                wait up to 30s until 127.0.0.1:PORT accepts connections
var scriptCommands = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"status":    cmdStatus,
	"json":      cmdJSON,
	"ndjson":    cmdNDJSON,
	"waitfor":   cmdWaitFor,
	"gone":      cmdGone,
	"interrupt": cmdInterrupt,
	"freeport":  cmdFreePort,
	"waitport":  cmdWaitPort,
}

// cmdFreePort picks a port the kernel says is free on loopback, for a
// peer server that takes its port from the environment.
func cmdFreePort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: freeport VAR")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ts.Setenv(args[0], strconv.Itoa(port))
}

// cmdWaitPort waits for a background server to listen on loopback; the
// scripts only ever connect to 127.0.0.1, whatever the server binds.
func cmdWaitPort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitport PORT")
	}
	deadline := time.Now().Add(waitForTimeout)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+args[0], time.Second)
		if err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Fatalf("nothing listens on 127.0.0.1:%s after %v", args[0], waitForTimeout)
}

// scriptEnvKey holds, in the scripts' Values, the environment Setup made
// for them: cmdInterrupt runs its program with it, as exec would.
type scriptEnvKey struct{}

// waitForTimeout bounds waitfor and interrupt's wait for FILE: generous,
// as only a bug makes it long.
const waitForTimeout = 30 * time.Second

func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status N PROG ARGS...")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("%s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// cmdJSON checks one value. PATH is dot-separated keys and array
// indexes ("late.0.kind"); OPs: == (a string compares as text, anything
// else as compact JSON), type, len, >, <, matches (a regexp against the
// string, or against any element of an array of strings), exists, null.
func cmdJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 {
		ts.Fatalf("usage: json SRC PATH OP [VALUE]")
	}
	var doc any
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &doc); err != nil {
		ts.Fatalf("%s is not one JSON value: %v", args[0], err)
	}
	v, found := lookup(doc, args[1])
	ok, desc := checkValue(ts, v, found, args[2], args[3:])
	if ok == neg {
		ts.Fatalf("json %s: %s is %s", strings.Join(args[1:], " "), args[1], desc)
	}
}

func lookup(v any, path string) (any, bool) {
	if path == "." {
		return v, true
	}
	for _, key := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[key]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func checkValue(ts *testscript.TestScript, v any, found bool, op string, vals []string) (bool, string) {
	text, _ := json.Marshal(v)
	desc := string(text)
	if len(desc) > 300 {
		desc = desc[:300] + "…"
	}
	if !found {
		return op == "absent", "absent"
	}
	need := func(n int) {
		if len(vals) != n {
			ts.Fatalf("json: %s needs %d value(s)", op, n)
		}
	}
	switch op {
	case "exists":
		return true, desc
	case "absent":
		return false, desc
	case "null":
		return v == nil, desc
	case "==":
		need(1)
		if s, ok := v.(string); ok {
			return s == vals[0], desc
		}
		return string(text) == vals[0], desc
	case "type":
		need(1)
		return jsonType(v) == vals[0], jsonType(v)
	case "len":
		need(1)
		n, err := strconv.Atoi(vals[0])
		ts.Check(err)
		// The value itself goes with a wrong length: which element is
		// missing or extra is what a failure needs.
		switch x := v.(type) {
		case []any:
			return len(x) == n, fmt.Sprintf("of length %d: %.4000s", len(x), text)
		case map[string]any:
			return len(x) == n, fmt.Sprintf("of length %d: %.4000s", len(x), text)
		}
		return false, desc
	case ">", "<":
		need(1)
		f, ok := v.(float64)
		want, err := strconv.ParseFloat(vals[0], 64)
		ts.Check(err)
		return ok && (op == ">" && f > want || op == "<" && f < want), desc
	case "matches":
		need(1)
		re, err := regexp.Compile(vals[0])
		ts.Check(err)
		switch x := v.(type) {
		case string:
			return re.MatchString(x), desc
		case []any:
			for _, e := range x {
				if s, ok := e.(string); ok && re.MatchString(s) {
					return true, desc
				}
			}
		}
		return false, desc
	}
	ts.Fatalf("json: unknown op %q", op)
	return false, ""
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// transcriptLine is one line of a transcript, with the fields filters use.
type transcriptLine struct {
	T    *float64        `json:"t"`
	Dir  string          `json:"dir"`
	Msg  json.RawMessage `json:"msg"`
	Raw  *string         `json:"raw"`
	HTTP *string         `json:"http"`
	// Relay is mcpoke proxy's word about the relay itself.
	Relay *string `json:"relay"`
	Note  string  `json:"note"`
	// Violations name the rules an inbound frame broke.
	Violations []string `json:"violations"`
}

// fields flattens a line for filters: dir, note, violations (joined by
// commas), method, id, requestId, token and raw, ids as JSON text so that
// 3 and "3" differ.
func (l transcriptLine) fields() map[string]string {
	f := map[string]string{"dir": l.Dir, "note": l.Note, "violations": strings.Join(l.Violations, ",")}
	if l.Raw != nil {
		f["raw"] = *l.Raw
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
			Token     json.RawMessage `json:"progressToken"`
		} `json:"params"`
	}
	if json.Unmarshal(l.Msg, &m) == nil {
		f["method"], f["id"] = m.Method, string(m.ID)
		f["requestId"], f["token"] = string(m.Params.RequestID), string(m.Params.Token)
		if m.Result != nil {
			f["kind"] = "result"
		}
	}
	return f
}

// matches reports whether l passes every key=value filter.
func (l transcriptLine) matches(filters []string) bool {
	f := l.fields()
	for _, kv := range filters {
		k, v, _ := strings.Cut(kv, "=")
		if f[k] != v {
			return false
		}
	}
	return true
}

func readTranscript(ts *testscript.TestScript, file string) []transcriptLine {
	var lines []transcriptLine
	sc := bufio.NewScanner(strings.NewReader(ts.ReadFile(file)))
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		var l transcriptLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			ts.Fatalf("%s:%d is not JSON: %v", file, n, err)
		}
		if (l.Dir == "http" && l.HTTP != nil || l.Dir == "relay" && l.Relay != nil) && l.T != nil && l.Msg == nil && l.Raw == nil {
			lines = append(lines, l)
			continue
		}
		if l.T == nil || (l.Msg == nil) == (l.Raw == nil) {
			ts.Fatalf("%s:%d needs t and exactly one of msg and raw (or dir http and http, or dir relay and relay): %s", file, n, sc.Text())
		}
		switch l.Dir {
		case "out", "in", "stderr":
		default:
			ts.Fatalf("%s:%d: dir %q", file, n, l.Dir)
		}
		switch l.Note {
		case "", "late", "stray", "duplicate", "noise", "forced", "request-error":
		default:
			ts.Fatalf("%s:%d: note %q", file, n, l.Note)
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		ts.Fatalf("%s is empty", file)
	}
	return lines
}

func cmdNDJSON(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: ndjson FILE valid | count FILTER... OP N | before FILTER FILTER")
	}
	lines := readTranscript(ts, args[0])
	switch args[1] {
	case "valid":
		// Each direction is in wire order, so its times never go back.
		last := map[string]float64{}
		for i, l := range lines {
			if *l.T < last[l.Dir] {
				ts.Fatalf("line %d: t %v goes back from %v", i+1, *l.T, last[l.Dir])
			}
			last[l.Dir] = *l.T
		}
	case "count":
		if len(args) < 4 {
			ts.Fatalf("usage: ndjson FILE count FILTER... OP N")
		}
		op, want := args[len(args)-2], args[len(args)-1]
		n, err := strconv.Atoi(want)
		ts.Check(err)
		got := 0
		for _, l := range lines {
			if l.matches(args[2 : len(args)-2]) {
				got++
			}
		}
		ok := op == "==" && got == n || op == ">=" && got >= n
		if !ok {
			ts.Fatalf("%d lines match %v, want %s %d", got, args[2:len(args)-2], op, n)
		}
	case "before":
		if len(args) != 4 {
			ts.Fatalf("usage: ndjson FILE before A B (filters joined by commas)")
		}
		first := func(filter string) int {
			for i, l := range lines {
				if l.matches(strings.Split(filter, ",")) {
					return i
				}
			}
			ts.Fatalf("no line matches %s", filter)
			return -1
		}
		if a, b := first(args[2]), first(args[3]); a >= b {
			ts.Fatalf("first %s (line %d) is not before first %s (line %d)", args[2], a+1, args[3], b+1)
		}
	default:
		ts.Fatalf("ndjson: unknown check %q", args[1])
	}
}

func cmdWaitFor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitfor FILE REGEXP")
	}
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	if !waitMatch(ts, args[0], re, nil) {
		ts.Fatalf("%s did not match %q within %v", args[0], args[1], waitForTimeout)
	}
}

// waitMatch polls FILE until it matches re (true), waitForTimeout passes
// or stop is closed (false).
func waitMatch(ts *testscript.TestScript, file string, re *regexp.Regexp, stop <-chan struct{}) bool {
	deadline := time.Now().Add(waitForTimeout)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(ts.MkAbs(file)); err == nil && re.Match(data) {
			return true
		}
		select {
		case <-stop:
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
	return false
}

// interruptExitTimeout bounds how long PROG may take to exit after the
// SIGINT: mcpoke's own grace is 3s, so only a hang reaches it.
const interruptExitTimeout = time.Minute

// cmdInterrupt is a user's Ctrl-C at a known point: it runs PROG, sends
// it SIGINT once FILE matches REGEXP (PROG is still running then, or the
// command fails), and checks PROG's exit status. Its stdout and stderr
// are PROG's, for the commands after it.
func cmdInterrupt(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 4 {
		ts.Fatalf("usage: interrupt N FILE REGEXP PROG ARGS...")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	re, err := regexp.Compile(args[2])
	ts.Check(err)
	path, err := exec.LookPath(args[3])
	ts.Check(err)
	cmd := exec.Command(path, args[4:]...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env, _ = ts.Value(scriptEnvKey{}).([]string)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	ts.Check(cmd.Start())
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	finish := func() {
		fmt.Fprint(ts.Stdout(), stdout.String())
		fmt.Fprint(ts.Stderr(), stderr.String())
	}
	if !waitMatch(ts, args[1], re, exited) {
		cmd.Process.Kill()
		<-exited
		finish()
		ts.Fatalf("%s did not match %q before %s exited or within %v: %v\n%s", args[1], args[2], args[3], waitForTimeout, waitErr, stderr.String())
	}
	ts.Check(cmd.Process.Signal(os.Interrupt))
	select {
	case <-exited:
	case <-time.After(interruptExitTimeout):
		cmd.Process.Kill()
		<-exited
		finish()
		ts.Fatalf("%s did not exit within %v of SIGINT", args[3], interruptExitTimeout)
	}
	finish()
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(waitErr, &ee):
		got = ee.ExitCode()
	case waitErr != nil:
		ts.Fatalf("%s: %v", args[3], waitErr)
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

var pidRE = regexp.MustCompile(`pid=(\d+)`)

func cmdGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gone FILE")
	}
	m := pidRE.FindStringSubmatch(ts.ReadFile(args[0]))
	if m == nil {
		ts.Fatalf("no pid=N in %s", args[0])
	}
	pid, _ := strconv.Atoi(m[1])
	// Signal 0 probes for the process without touching it.
	if err := syscall.Kill(pid, 0); err == nil {
		ts.Fatalf("server process %d is still running", pid)
	}
}
