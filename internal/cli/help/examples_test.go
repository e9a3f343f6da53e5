package help

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/buffertest"
)

// TestDocExamples runs every example of the documentation — README.md and
// the help topics in internal/cli/help/*.md — and compares what mcpoke
// prints now with what the page shows, so that the docs cannot drift.
//
// An example is a fenced block whose info string starts with "console".
// Each line "$ COMMAND" (continued by a trailing backslash) is run by
// bash in a fresh directory, with mcpoke (built by TestMain) on PATH; the
// lines up to the next "$ " are its expected output, stdout and stderr
// together. Both sides are normalized first (durations, times, dates,
// ports, hex ids; see normalize). In the expected output a line "..."
// stands for any number of lines, and "..." inside a line for any text.
//
// The info string may go on with words:
//
//	peers           needs the npm reference server (skipped without it)
//	ts2             needs the TypeScript SDK v2 peer (skipped without it)
//	jq, curl        needs that program (skipped without it)
//	approx          figures that vary from run to run (a benchmark's):
//	                every number and histogram bar matches any other
//	server          the first command is a server, run in the background
//	                until the others are done; its expected output is
//	                everything it printed by then
//	not-run: WHY    shown, not run; WHY says why, and must be given
//
// In commands, 127.0.0.1:8080 is a free port picked for the block, where
// a demo server (mcpoke demo-server --http) listens unless the block
// starts a server of its own;
// "npx -y @modelcontextprotocol/server-everything" is the installed
// reference server, and "go run ./testdata/sneaky" a binary built once.
func TestDocExamples(t *testing.T) {
	if *updateDocs {
		t.Cleanup(func() { docUpdates.write(t) })
	}
	if testing.Short() {
		t.Skip("the documentation's examples take about a minute; -short skips them")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("the examples are shell command lines, and bash is not installed")
	}
	pages := docPages(t)
	var examples []docExample
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := parseDocExamples(p, string(b))
		if err != nil {
			t.Fatal(err)
		}
		examples = append(examples, ex...)
		checkMermaidCopies(t, p, string(b), ex)
	}
	if len(examples) < 20 {
		t.Fatalf("found %d examples in %d pages; the parser has lost them", len(examples), len(pages))
	}
	env := newDocEnv(t)
	// A few at a time: the examples time cancels, and the machine is shared.
	slots := make(chan struct{}, 3)
	for _, ex := range examples {
		t.Run(ex.name(), func(t *testing.T) {
			if ex.notRun != "" {
				t.Skipf("not run: %s", ex.notRun)
			}
			for _, need := range ex.needs {
				if reason := env.missing(need); reason != "" {
					if (need == "peers" || need == "ts2") && os.Getenv("MCPOKE_REQUIRE_PEERS") == "1" {
						t.Fatalf("MCPOKE_REQUIRE_PEERS=1, but this example %s", reason)
					}
					t.Skip(reason)
				}
			}
			t.Parallel()
			slots <- struct{}{}
			defer func() { <-slots }()
			env.run(t, ex)
		})
	}
}

// checkMermaidCopies: a ```mermaid block, which GitHub draws, shows a
// diagram that a console block of the same page prints, and must stay a
// copy of it.
func checkMermaidCopies(t *testing.T, page, md string, examples []docExample) {
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```mermaid" {
			continue
		}
		start := i + 1
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
		}
		diagram := strings.Join(lines[start:i], "\n")
		found := false
		for _, ex := range examples {
			for _, c := range ex.command {
				found = found || strings.Contains(strings.Join(c.output, "\n"), diagram)
			}
		}
		if !found {
			t.Errorf("%s:%d: this mermaid block is not what any console example of the page prints", page, start)
		}
	}
}

// docExample is one console block of a page.
type docExample struct {
	page    string
	line    int // of the opening fence
	needs   []string
	server  bool
	approx  bool
	notRun  string
	command []docCommand
}

// docCommand is one "$ " line of an example and the output it shows.
type docCommand struct {
	line   string
	raw    []string // the command's lines as the page has them
	output []string
}

func (ex docExample) name() string {
	return strings.ReplaceAll(filepath.Base(ex.page), ".md", "") + ":" + strconv.Itoa(ex.line)
}

// reaches says whether a command of ex names addr.
func (ex docExample) reaches(addr string) bool {
	for _, c := range ex.command {
		if strings.Contains(c.line, addr) {
			return true
		}
	}
	return false
}

// parseDocExamples finds the console blocks of a Markdown page.
func parseDocExamples(page, md string) ([]docExample, error) {
	var out []docExample
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		info, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), "```console")
		if !ok {
			continue
		}
		ex := docExample{page: page, line: i + 1}
		info = strings.TrimSpace(info)
		if why, ok := strings.CutPrefix(info, "not-run:"); ok {
			ex.notRun = strings.TrimSpace(why)
			if ex.notRun == "" {
				return nil, fmt.Errorf("%s:%d: not-run needs a reason", page, i+1)
			}
		} else {
			for _, w := range strings.Fields(info) {
				switch w {
				case "peers", "ts2", "jq", "curl":
					ex.needs = append(ex.needs, w)
				case "server":
					ex.server = true
				case "approx":
					ex.approx = true
				default:
					return nil, fmt.Errorf("%s:%d: unknown word %q after console", page, i+1, w)
				}
			}
		}
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			l := lines[i]
			if cmd, ok := strings.CutPrefix(l, "$ "); ok {
				raw := []string{l}
				for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
					i++
					raw = append(raw, lines[i])
					cmd = strings.TrimSuffix(cmd, "\\") + " " + strings.TrimSpace(lines[i])
				}
				ex.command = append(ex.command, docCommand{line: cmd, raw: raw})
				continue
			}
			if len(ex.command) == 0 {
				return nil, fmt.Errorf("%s:%d: a console block starts with a \"$ \" line", page, i+1)
			}
			c := &ex.command[len(ex.command)-1]
			c.output = append(c.output, l)
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s:%d: console block never closed", page, ex.line)
		}
		out = append(out, ex)
	}
	return out, nil
}

// docEnv is what the examples run with: peers, and the sneaky server.
type docEnv struct {
	everything, ts2 string
	sneaky          string
	sneakyErr       error
	once            sync.Once
	repo            string
}

func newDocEnv(t *testing.T) *docEnv {
	repo, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	return &docEnv{everything: referenceServer(), ts2: tsV2Peer(), repo: repo, sneaky: filepath.Join(t.TempDir(), "sneaky")}
}

// missing says why a need is not met here, or "".
func (e *docEnv) missing(need string) string {
	switch {
	case need == "peers" && e.everything == "":
		return "needs the npm reference server, not installed in " + peersDir() + " (.ci/run installs it)"
	case (need == "jq" || need == "curl") && !onPath(need):
		return "needs " + need + ", which is not installed"
	case need == "ts2" && e.ts2 == "":
		return "needs the TypeScript SDK v2 peer, not installed in " + peersDir() + " (.ci/run installs it)"
	}
	return ""
}

func onPath(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

// command turns a documented command line into the one to run.
func (e *docEnv) command(t *testing.T, line, addr string) string {
	if strings.Contains(line, "go run ./testdata/sneaky") {
		e.once.Do(func() {
			build := exec.Command("go", "build", "-o", e.sneaky, "./testdata/sneaky")
			build.Dir = e.repo
			out, err := build.CombinedOutput()
			if err != nil {
				e.sneakyErr = fmt.Errorf("building testdata/sneaky: %v\n%s", err, out)
			}
		})
		if e.sneakyErr != nil {
			t.Fatal(e.sneakyErr)
		}
		line = strings.ReplaceAll(line, "go run ./testdata/sneaky", e.sneaky)
	}
	line = strings.ReplaceAll(line, "npx -y @modelcontextprotocol/server-everything", "node "+e.everything+" stdio")
	line = strings.ReplaceAll(line, "node testdata/peers/ts/v2_server.mjs", "node "+e.ts2)
	_, port, _ := net.SplitHostPort(addr)
	line = strings.ReplaceAll(line, "--http 8080", "--http "+port) // the TypeScript peer takes a port
	return strings.ReplaceAll(line, "127.0.0.1:8080", addr)
}

// run runs an example's commands in order and compares their output.
func (e *docEnv) run(t *testing.T, ex docExample) {
	dir := t.TempDir()
	addr := freeLoopback(t)
	env := append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "NO_COLOR=1",
		"MCPOKE_PEERS_DIR="+peersDir()) // the peers' own imports
	cmds := ex.command
	var server *exec.Cmd
	var serverOut *buffertest.Buffer
	if ex.server {
		serverOut = &buffertest.Buffer{}
		server = exec.Command("bash", "-c", "exec "+e.command(t, cmds[0].line, addr))
		server.Dir, server.Env, server.Stdout, server.Stderr = dir, env, serverOut, serverOut
		if err := server.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = server.Process.Kill(); _ = server.Wait() }()
		waitListening(t, addr)
		cmds = cmds[1:]
	} else if ex.reaches("127.0.0.1:8080") {
		demo := exec.Command("mcpoke", "demo-server", "--http", addr)
		demo.Dir, demo.Env = dir, env
		if err := demo.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = demo.Process.Kill(); _ = demo.Wait() }()
		waitListening(t, addr)
	}
	for _, c := range cmds {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		cmd := exec.CommandContext(ctx, "bash", "-c", e.command(t, c.line, addr))
		cmd.Dir, cmd.Env = dir, env
		out, _ := cmd.CombinedOutput() // the exit status is not the page's business
		timedOut := ctx.Err() != nil
		cancel()
		if timedOut {
			t.Errorf("%s:%d: $ %s\ngave no result within 90s", ex.page, ex.line, c.line)
			continue
		}
		compareDocOutput(t, ex, c, string(out))
	}
	if server != nil {
		// What the server logged comes on its own time: give it a moment
		// to print what the commands made it log.
		want := ex.command[0]
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) && !docOutputMatches(want.output, serverOut.String(), ex.approx) {
			time.Sleep(50 * time.Millisecond)
		}
		compareDocOutput(t, ex, want, serverOut.String())
	}
}

// compareDocOutput fails t when out is not what c shows.
func compareDocOutput(t *testing.T, ex docExample, c docCommand, out string) {
	t.Helper()
	if docOutputMatches(c.output, out, ex.approx) {
		return
	}
	if *updateDocs {
		docUpdates.add(ex, c, out)
		return
	}
	t.Errorf("%s:%d: $ %s\nthe page shows:\n%s\nmcpoke prints now (normalized):\n%s",
		ex.page, ex.line, c.line, strings.Join(normalizeLines(c.output, ex.approx), "\n"), strings.Join(normalizeLines(splitOutput(out), ex.approx), "\n"))
}

// docOutputMatches says whether out matches the expected lines.
func docOutputMatches(want []string, out string, approx bool) bool {
	return matchLines(normalizeLines(trimBlank(want), approx), normalizeLines(splitOutput(out), approx))
}

func splitOutput(out string) []string {
	return trimBlank(strings.Split(strings.TrimRight(out, "\n"), "\n"))
}

// trimBlank drops blank lines at both ends.
func trimBlank(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// matchLines matches got against want, where a want line "..." matches
// any number of lines and "..." in a line any text.
func matchLines(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for k := 0; k <= len(got); k++ {
			if matchLines(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && matchLine(want[0], got[0]) && matchLines(want[1:], got[1:])
}

func matchLine(want, got string) bool {
	if !strings.Contains(want, "...") {
		return want == got
	}
	parts := strings.Split(want, "...")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(got)
}

// normalizers replace what changes from run to run.
var normalizers = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`time=\S+`), "time=T"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?Z?`), "DATE"},
	{regexp.MustCompile(`127\.0\.0\.1:\d+`), "127.0.0.1:PORT"},
	{regexp.MustCompile(`%3A\d+`), "%3APORT"},
	{regexp.MustCompile(`\b[0-9a-f]{32}\b`), "HEX"},
	{regexp.MustCompile(`\b[0-9a-f]{8}\b`), "HEX"},
	// check's request ids are random integers below 2^53 (unpredictable,
	// so that a server cannot forge answers to them).
	{regexp.MustCompile(`\b\d{10,16}\b`), "ID"},
	{regexp.MustCompile(`\d+(\.\d+)?([hm]\d+(\.\d+)?)*(ns|µs|us|ms|s|m|h)\b`), "DUR"},
	// The demo numbers a tool's calls since it started, and the examples
	// share one demo: check's "sleep call 2 (request …)" counts the
	// examples that ran before.
	{regexp.MustCompile(`\bcall \d+ \(request`), "call N (request"},
	// Columns and drawn lines are as wide as the figures in them.
	{regexp.MustCompile(`  +`), " "},
	{regexp.MustCompile(`─{2,}`), "─"},
	{regexp.MustCompile(`╌{2,}`), "╌"},
}

// approximations make an approx block's figures match any others.
var approximations = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\d+(\.\d+)?`), "N"},
	{regexp.MustCompile(`[█▏]+`), "BAR"},
}

func normalizeLines(lines []string, approx bool) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		for _, n := range normalizers {
			l = n.re.ReplaceAllString(l, n.with)
		}
		if approx {
			for _, n := range approximations {
				l = n.re.ReplaceAllString(l, n.with)
			}
		}
		out[i] = strings.TrimRight(l, " \t")
	}
	return out
}

// freeLoopback returns a loopback address with a port free right now.
func freeLoopback(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// waitListening waits until a background server accepts connections.
func waitListening(t *testing.T, addr string) {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the example's server did not listen on %s within 20s", addr)
}

// updateDocs rewrites the output of each example that no longer matches
// with what mcpoke prints now: go test ./internal/cli/help/ -run TestDocExamples -update-docs.
// Read the diff: the "..." a page used to elide lines or varying figures
// are lost in the examples it rewrites, and may be wanted back.
var updateDocs = flag.Bool("update-docs", false, "rewrite the documentation's example outputs that drifted")

// docUpdates are the outputs -update-docs writes back.
var docUpdates = &pendingDocUpdates{outputs: map[string]string{}}

type pendingDocUpdates struct {
	mu      sync.Mutex
	outputs map[string]string // by page, block line and command line
}

func docUpdateKey(page string, line int, cmd string) string {
	return page + "\x00" + strconv.Itoa(line) + "\x00" + cmd
}

func (u *pendingDocUpdates) add(ex docExample, c docCommand, out string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.outputs[docUpdateKey(ex.page, ex.line, c.line)] = strings.Join(splitOutput(out), "\n")
}

// write rewrites the pages with the outputs collected.
func (u *pendingDocUpdates) write(t *testing.T) {
	u.mu.Lock()
	defer u.mu.Unlock()
	pages := map[string]bool{}
	for k := range u.outputs {
		pages[strings.Split(k, "\x00")[0]] = true
	}
	for page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		md := string(b)
		examples, err := parseDocExamples(page, md)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(md, "\n")
		// From the last block up, so that earlier line numbers hold.
		for i := len(examples) - 1; i >= 0; i-- {
			ex := examples[i]
			end := ex.line
			for strings.TrimSpace(lines[end]) != "```" {
				end++
			}
			var block []string
			changed := false
			for _, c := range ex.command {
				block = append(block, c.raw...)
				if out, ok := u.outputs[docUpdateKey(page, ex.line, c.line)]; ok {
					block = append(block, strings.Split(out, "\n")...)
					changed = true
				} else {
					block = append(block, c.output...)
				}
			}
			if changed {
				lines = append(lines[:ex.line:ex.line], append(block, lines[end:]...)...)
			}
		}
		if err := os.WriteFile(page, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the drifted examples of %s", page)
	}
}
