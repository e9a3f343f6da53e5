package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestGoSDKHostFaults shows each of mcpoke proxy's faults on a real
// host, the go-sdk client over stdio, and pins that each touches only
// the frames it names: --delay, an answer held then released, held then
// dropped, --drop-progress and --answer-after-cancel.
func TestGoSDKHostFaults(t *testing.T) {
	host := buildGoSDKHost(t)
	if host == "" {
		t.Skip("the Go SDK host peer does not build here (no module proxy?)")
	}
	bin := buildMcpoke(t)
	// start runs the host on a stdio proxy of the demo with flags, and
	// returns it, its environment and the records' path.
	start := func(t *testing.T, flags ...string) (*sdkHost, []string, string, string) {
		env := proxyEnv(t)
		dir := t.TempDir()
		records, card := filepath.Join(dir, "proxy.ndjson"), filepath.Join(dir, "card.json")
		args := append([]string{"-stdio", "-protocol", "2025-11-25", bin, "proxy", "--transcript", records, "--report", card}, flags...)
		return startSDKHost(t, host, env, append(args, "--", bin, "demo-server")...), env, records, card
	}

	t.Run("delay", func(t *testing.T) {
		t.Parallel()
		h, _, records, _ := start(t, "--no-attach", "--delay", "1s")
		h.send(`call p sleep {"seconds":0.3,"steps":3} progress`)
		// Progress is not an answer: it reaches the host as it comes,
		// before the held answer.
		for i := 1; i <= 3; i++ {
			h.expect(`^p progress `+strconv.Itoa(i)+`$`, 20*time.Second)
		}
		took := hostTook(t, h.expect(`^p `, 20*time.Second), `^p answered: slept 0.3s in 3 steps `)
		if took < 1300*time.Millisecond {
			t.Errorf("the call was answered after %v; want its 0.3s and the 1s delay", took)
		}
		h.quit(20 * time.Second)
		text := mustRead(t, records)
		// Each of the server's three answers (initialize, tools/list,
		// tools/call) was held 1s, and nothing else was.
		holds := countRecords(text, `"relay":"mcpoke proxy holds the answer to request \d+ \(for --delay, at most 1s\)"`)
		passed := countRecords(text, `"relay":"mcpoke proxy passed on the held answer to request \d+"`)
		if holds != 3 || passed != 3 || countRecords(text, `"relay":"mcpoke proxy holds`) != 3 {
			t.Errorf("%d answers held and %d passed on, want 3 and 3:\n%s", holds, passed, text)
		}
		call := callID(t, text, 0)
		if d := recordGap(t, text, `"dir":"in","msg":\{"jsonrpc":"2.0","id":`+call+`,"result"`, `"relay":"mcpoke proxy passed on the held answer to request `+call+`"`); d < 990*time.Millisecond {
			t.Errorf("the answer to %s was passed on %v after it came; want the 1s delay", call, d)
		}
		if n := countRecords(text, `"dir":"in","msg":\{"jsonrpc":"2.0","method":"notifications/progress"`); n != 3 {
			t.Errorf("%d progress notifications in the records, want 3", n)
		}
	})

	t.Run("hold-release", func(t *testing.T) {
		t.Parallel()
		h, env, records, _ := start(t, "--name", "gosdk-hold")
		h.send(`call slow sleep {"seconds":3,"steps":3} progress`)
		text := waitRecords(t, records, `"method":"tools/call"`, 20*time.Second)
		id := callID(t, text, 0)
		if out := attach(t, bin, env, "gosdk-hold", "--hold", id); out != "will hold the answer to "+id+"\n" {
			t.Errorf("attach --hold said %q", out)
		}
		// The progress passes while the answer is held when it comes.
		for i := 1; i <= 3; i++ {
			h.expect(`^slow progress `+strconv.Itoa(i)+`$`, 20*time.Second)
		}
		waitRecords(t, records, `"relay":"mcpoke proxy holds the answer to request `+id+` \(until released, at most 5m0s\)"`, 20*time.Second)
		// Another call is not held.
		h.send(`call other echo {"text":"not held"}`)
		h.expect(`^other answered: not held `, 20*time.Second)
		h.quiet(`^slow `, 500*time.Millisecond)
		if out := attach(t, bin, env, "gosdk-hold", "--release", id); out != "passed on the held answer to "+id+"\n" {
			t.Errorf("attach --release said %q", out)
		}
		h.expect(`^slow answered: slept 3s in 3 steps `, 20*time.Second)
		h.quit(20 * time.Second)
		text = mustRead(t, records)
		if n := countRecords(text, `"relay":"mcpoke proxy holds`); n != 1 {
			t.Errorf("%d answers held, want the one:\n%s", n, text)
		}
		if n := countRecords(text, `"relay":"mcpoke proxy passed on the held answer to request `+id+`"`); n != 1 {
			t.Errorf("the release is recorded %d times, want once:\n%s", n, text)
		}
	})

	t.Run("hold-drop", func(t *testing.T) {
		t.Parallel()
		h, env, records, _ := start(t, "--name", "gosdk-drop")
		h.send(`call slow sleep {"seconds":3,"steps":1}`)
		text := waitRecords(t, records, `"method":"tools/call"`, 20*time.Second)
		id := callID(t, text, 0)
		attach(t, bin, env, "gosdk-drop", "--hold", id)
		waitRecords(t, records, `"relay":"mcpoke proxy holds the answer to request `+id+` `, 20*time.Second)
		if out := attach(t, bin, env, "gosdk-drop", "--drop", id); out != "dropped the held answer to "+id+"\n" {
			t.Errorf("attach --drop said %q", out)
		}
		// The host never gets it: the call waits until the user stops it,
		// and the SDK then cancels a request it believes in progress.
		h.quiet(`^slow `, time.Second)
		h.send(`cancel slow`)
		h.expect(`^slow cancelled `, 20*time.Second)
		h.send(`list after`)
		h.expect(`^after answered: 9 tools `, 20*time.Second)
		h.quit(20 * time.Second)
		text = mustRead(t, records)
		if n := countRecords(text, `"relay":"mcpoke proxy dropped the held answer to request `+id+`"`); n != 1 {
			t.Errorf("the drop is recorded %d times, want once:\n%s", n, text)
		}
		if n := countRecords(text, `"dir":"out","msg":\{"jsonrpc":"2.0","method":"notifications/cancelled","params":\{"reason":"context canceled","requestId":`+id+`\}`); n != 1 {
			t.Errorf("the host's cancel of %s is in the records %d times, want once:\n%s", id, n, text)
		}
	})

	t.Run("drop-progress", func(t *testing.T) {
		t.Parallel()
		h, _, records, _ := start(t, "--no-attach", "--drop-progress")
		h.send(`call p sleep {"seconds":0.5,"steps":5} progress`)
		// The SDK's progress handler never runs: the answer is the first
		// line the host prints of the call.
		h.expect(`^p `, 20*time.Second)
		h.send(`list l`)
		h.expect(`^l answered: 9 tools `, 20*time.Second)
		h.quit(20 * time.Second)
		out := h.transcript()
		if strings.Contains(out, "p progress") || !strings.Contains(out, "p answered: slept 0.5s in 5 steps") {
			t.Errorf("the host saw progress, or not the answer:\n%s", out)
		}
		text := mustRead(t, records)
		came := countRecords(text, `"dir":"in","msg":\{"jsonrpc":"2.0","method":"notifications/progress","params":\{"progressToken":"p"`)
		dropped := countRecords(text, `"relay":"mcpoke proxy dropped \(--drop-progress\) the server's notifications/progress with token \\"p\\""`)
		if came != 5 || dropped != 5 {
			t.Errorf("the records show %d progress notifications from the server and %d dropped, want 5 and 5:\n%s", came, dropped, text)
		}
		if n := countRecords(text, `"relay":"mcpoke proxy (dropped|holds|passed|cancelled|sent|answered|closed)`); n != 5 {
			t.Errorf("%d relay lines of the proxy's own doing, want only the 5 drops:\n%s", n, text)
		}
	})

	t.Run("answer-after-cancel", func(t *testing.T) {
		t.Parallel()
		h, _, records, card := start(t, "--no-attach", "--answer-after-cancel")
		h.send(`call late sleep {"seconds":0.2,"steps":1} timeout=1500ms`)
		h.expect(`^late deadline exceeded `, 20*time.Second)
		text := waitRecords(t, records, `"relay":"mcpoke proxy passed on the held answer to request `, 20*time.Second)
		id := callID(t, text, 0)
		// The answer came before the host gave up, was held until its
		// cancel, then went on, late. The SDK drops it without a word:
		// no line for it, and the session goes on (tools/list is not
		// held: the fault holds only tools/call answers).
		h.quiet(`^late `, 500*time.Millisecond)
		h.send(`list l`)
		h.expect(`^l answered: 9 tools `, 20*time.Second)
		h.quit(20 * time.Second)
		text = mustRead(t, records)
		// (The answer and the proxy's word that it holds it are recorded
		// one right after the other, in either order.)
		if recordIndex(text, `"relay":"mcpoke proxy holds the answer to request `+id+` \(until the host cancels it, at most 5m0s\)"`) < 0 {
			t.Fatalf("the records lack the hold of %s's answer:\n%s", id, text)
		}
		order := []string{
			`"dir":"in","msg":\{"jsonrpc":"2.0","id":` + id + `,"result"`,
			`"dir":"out","msg":\{"jsonrpc":"2.0","method":"notifications/cancelled","params":\{"reason":"context deadline exceeded","requestId":` + id + `\}`,
			`"relay":"mcpoke proxy passed on the held answer to request ` + id + `"`,
		}
		last := -1
		for _, re := range order {
			at := recordIndex(text, re)
			if at <= last {
				t.Fatalf("the records lack %q after line %d:\n%s", re, last, text)
			}
			last = at
		}
		if n := countRecords(text, `"relay":"mcpoke proxy holds`); n != 1 {
			t.Errorf("%d answers held, want only the call's:\n%s", n, text)
		}
		rep := readCard(t, card)
		l := rep.line("Late answers after its cancel")
		if l.Status != "info" || len(l.Facts) != 2 || !regexp.MustCompile(`^request `+id+` \(tools/call\): answered \d+m?s after the host's cancel; the proxy passed it on$`).MatchString(l.Facts[0]) {
			t.Errorf("late line: %s %q", l.Status, l.Facts)
		}
	})
}

// hostTook is the time at the end of a host's line "... (after D)" that
// must match re.
func hostTook(t *testing.T, line, re string) time.Duration {
	t.Helper()
	if !regexp.MustCompile(re).MatchString(line) {
		t.Fatalf("the host printed %q, want %q", line, re)
	}
	m := regexp.MustCompile(`\(after (\S+)\)$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("no time on the host's line %q", line)
	}
	d, err := time.ParseDuration(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// callID is the id of the host's n-th tools/call in the records.
func callID(t *testing.T, records string, n int) string {
	t.Helper()
	m := regexp.MustCompile(`"dir":"out","msg":\{"jsonrpc":"2.0","id":(\d+),"method":"tools/call"`).FindAllStringSubmatch(records, -1)
	if len(m) <= n {
		t.Fatalf("the records hold %d tools/call, want a %d-th:\n%s", len(m), n+1, records)
	}
	return m[n][1]
}

// recordIndex is the line number of the first record that matches re,
// or -1.
func recordIndex(records, re string) int {
	rx := regexp.MustCompile(re)
	for i, l := range strings.Split(records, "\n") {
		if rx.MatchString(l) {
			return i
		}
	}
	return -1
}

// recordGap is the time from the first record matching from to the
// first matching to.
func recordGap(t *testing.T, records, from, to string) time.Duration {
	t.Helper()
	at := func(re string) float64 {
		i := recordIndex(records, re)
		if i < 0 {
			t.Fatalf("no record matches %q:\n%s", re, records)
		}
		m := regexp.MustCompile(`^\{"t":([\d.]+),`).FindStringSubmatch(strings.Split(records, "\n")[i])
		f, _ := strconv.ParseFloat(m[1], 64)
		return f
	}
	return time.Duration((at(to) - at(from)) * float64(time.Millisecond))
}
