package main

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestGoSDKHostReportCardOverStdio grades the go-sdk client as the host
// of a stdio proxy, in both eras: a call its context deadline ends, one
// with progress that the deadline ends all the same, and one the user
// stops (its context cancelled). The SDK sends notifications/cancelled
// for each, with the context's error as the reason, and never cancels
// initialize. Every time the card states is checked against the records.
func TestGoSDKHostReportCardOverStdio(t *testing.T) {
	host := buildGoSDKHost(t)
	if host == "" {
		t.Skip("the Go SDK host peer does not build here (no module proxy?)")
	}
	bin := buildMcpoke(t)
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			records, card := filepath.Join(dir, "proxy.ndjson"), filepath.Join(dir, "card.json")
			h := startSDKHost(t, host, proxyEnv(t), "-stdio", "-protocol", era, bin, "proxy", "--no-attach",
				"--transcript", records, "--report", card, "--", bin, "demo-server")
			h.send(`call plain sleep {"seconds":30,"steps":1} timeout=1s`)
			h.expect(`^plain deadline exceeded `, 20*time.Second)
			// Progress every 100 ms; the SDK's deadline does not move.
			h.send(`call prog sleep {"seconds":30,"steps":300} timeout=1s progress`)
			h.expect(`^prog deadline exceeded `, 20*time.Second)
			h.send(`call stop sleep {"seconds":20,"steps":200} progress`)
			h.expect(`^stop progress 1$`, 20*time.Second)
			h.send(`cancel stop`)
			h.expect(`^stop cancelled `, 20*time.Second)
			h.send(`call echo echo {"text":"answered"}`)
			h.expect(`^echo answered: answered `, 20*time.Second)
			h.quit(20 * time.Second)

			wire := readWire(t, mustRead(t, records))
			rep := readCard(t, card)
			if rep.Host != "gosdk-host 1.8.0" || rep.Protocol != era || rep.Transport != "stdio" {
				t.Errorf("card header: %q %q %q", rep.Host, rep.Protocol, rep.Transport)
			}
			// The wire: a cancel per stopped call, each with the
			// context's error as its reason.
			reasons := map[string]string{}
			for _, c := range wire.cancels {
				reasons[c.id] = c.reason
			}
			plain, prog, stop := wire.callIDs[0], wire.callIDs[1], wire.callIDs[2]
			for id, want := range map[string]string{plain: "context deadline exceeded", prog: "context deadline exceeded", stop: "context canceled"} {
				if reasons[id] != want {
					t.Errorf("request %s: cancelled with reason %q, want %q (cancels: %+v)", id, reasons[id], want, wire.cancels)
				}
			}
			if len(wire.cancels) != 3 {
				t.Errorf("the host sent %d notifications/cancelled, want 3: %+v", len(wire.cancels), wire.cancels)
			}

			form := rep.line("Cancels in the form its era and transport call for")
			if form.Status != "pass" || len(form.Facts) != 3 {
				t.Fatalf("form line: %s %q, want pass with 3 cancels", form.Status, form.Facts)
			}
			for i, id := range []string{plain, prog, stop} {
				d := factDuration(t, form.Facts[i], `^request `+id+` \(tools/call\): notifications/cancelled (\S+) after sending it$`)
				wire.agrees(t, d, id, "sent to cancel")
			}
			init := rep.line("Never cancels initialize")
			if want := map[string]string{"2025-11-25": "pass", "2026-07-28": "skip"}[era]; init.Status != want {
				t.Errorf("initialize line: %s %q, want %s", init.Status, init.Facts, want)
			}
			if l := rep.line("Cancels only requests it sent that are still in progress"); l.Status != "pass" || l.Facts[0] != "3 cancel notifications, each for a request of its own still pending" {
				t.Errorf("in-progress line: %s %q", l.Status, l.Facts)
			}
			// When: the one call without progress gives the timeout; the
			// proxy's clock starts after the SDK's, so it may read a
			// little under the SDK's 1 s.
			timeout := rep.line("Effective timeout (request to cancel, no progress)")
			if timeout.Status != "info" || len(timeout.Facts) != 2 {
				t.Fatalf("timeout line: %s %q", timeout.Status, timeout.Facts)
			}
			median := factDuration(t, timeout.Facts[0], `^median (\S+) over 1 cancel \(`)
			if median < 800*time.Millisecond || median > 3*time.Second {
				t.Errorf("the effective timeout reads %v, want about the SDK's 1s", median)
			}
			d := factDuration(t, timeout.Facts[1], `^request `+plain+` \(tools/call\): cancelled (\S+) after it was sent \(reason "context deadline exceeded"\)$`)
			wire.agrees(t, d, plain, "sent to cancel")
			// Progress does not move the SDK's deadline: the call with
			// progress ended within the timeout, so that is the maximum.
			resets := rep.line("Progress resets the timeout")
			if resets.Status != "info" || len(resets.Facts) != 3 || !regexp.MustCompile(`^no: calls with progress were cancelled at the [\d.]+m?s timeout$`).MatchString(resets.Facts[0]) {
				t.Fatalf("resets line: %s %q", resets.Status, resets.Facts)
			}
			for i, id := range []string{prog, stop} {
				m := regexp.MustCompile(`^request ` + id + ` \(tools/call\): (\d+) progress notifications?, cancelled (\S+) after it was sent and (\S+) after its last progress(: .*)?$`).FindStringSubmatch(resets.Facts[i+1])
				if m == nil {
					t.Fatalf("resets line fact %q", resets.Facts[i+1])
				}
				if n := fmt.Sprint(len(wire.progress[id])); m[1] != n {
					t.Errorf("request %s: the card counts %s progress notifications, the records %s", id, m[1], n)
				}
				total, _ := time.ParseDuration(m[2])
				sinceLast, _ := time.ParseDuration(m[3])
				wire.agrees(t, total, id, "sent to cancel")
				wire.agrees(t, sinceLast, id, "last progress to cancel")
			}
			// The user's Stop, well before the timeout, is told from one.
			if !strings.HasSuffix(resets.Facts[2], ", a stop rather than a timeout") || strings.Contains(resets.Facts[1], "a stop") {
				t.Errorf("resets line: the stop (%s) and the timeout with progress (%s) are not told apart: %q", stop, prog, resets.Facts)
			}
			if l := rep.line("A maximum timeout despite progress"); l.Status != "pass" {
				t.Errorf("maximum line: %s %q", l.Status, l.Facts)
			}
			if l := rep.line("Asks for progress (a progressToken) on its calls"); l.Status != "info" || l.Facts[0] != "2 of 4 tools/call carried a progressToken" {
				t.Errorf("progress line: %s %q", l.Status, l.Facts)
			}
			if l := rep.line("Late answers after its cancel"); l.Status != "skip" {
				t.Errorf("late line: %s %q: the demo's sleep answers nothing after a cancel", l.Status, l.Facts)
			}
			if l := rep.line("Does not send a call again after cancelling it (duplicate execution)"); l.Status != "pass" || l.Facts[0] != "none of 3 cancelled calls was sent again" {
				t.Errorf("resend line: %s %q", l.Status, l.Facts)
			}
			if l := rep.line("Cancels what is pending before it leaves"); l.Status != "pass" {
				t.Errorf("on-close line: %s %q", l.Status, l.Facts)
			}
		})
	}
}

// wireLog is what a proxy's records say of the host's calls: times in
// ms from the records' start.
type wireLog struct {
	callIDs  []string // the host's tools/call ids, in order
	sent     map[string]float64
	cancels  []wireCancel
	progress map[string][]float64 // by request id, through its token
}

type wireCancel struct {
	id, reason string
	at         float64
}

// readWire reads a stdio proxy's records.
func readWire(t *testing.T, text string) *wireLog {
	t.Helper()
	w := &wireLog{sent: map[string]float64{}, progress: map[string][]float64{}}
	byToken := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		var l struct {
			T   float64 `json:"t"`
			Dir string  `json:"dir"`
			Msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Meta struct {
						Token json.RawMessage `json:"progressToken"`
					} `json:"_meta"`
					Token     json.RawMessage `json:"progressToken"`
					RequestID json.RawMessage `json:"requestId"`
					Reason    string          `json:"reason"`
				} `json:"params"`
			} `json:"msg"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("records: %v: %s", err, line)
		}
		m := l.Msg
		switch {
		case l.Dir == "out" && m.Method == "tools/call":
			id := string(m.ID)
			w.callIDs = append(w.callIDs, id)
			w.sent[id] = l.T
			if len(m.Params.Meta.Token) > 0 {
				byToken[string(m.Params.Meta.Token)] = id
			}
		case l.Dir == "out" && m.Method == "notifications/cancelled":
			w.cancels = append(w.cancels, wireCancel{string(m.Params.RequestID), m.Params.Reason, l.T})
		case l.Dir == "in" && m.Method == "notifications/progress":
			if id, ok := byToken[string(m.Params.Token)]; ok {
				w.progress[id] = append(w.progress[id], l.T)
			}
		}
	}
	if len(w.callIDs) < 3 {
		t.Fatalf("the records hold %d tools/call, want 3 or more:\n%s", len(w.callIDs), text)
	}
	return w
}

// agrees checks a duration the card states for request id against the
// records: from its sending (or its last progress before the cancel) to
// its cancel, to the card's rounding.
func (w *wireLog) agrees(t *testing.T, card time.Duration, id, what string) {
	t.Helper()
	var cancel float64 = -1
	for _, c := range w.cancels {
		if c.id == id {
			cancel = c.at
			break
		}
	}
	if cancel < 0 {
		t.Errorf("the card states a cancel of request %s that the records lack", id)
		return
	}
	from := w.sent[id]
	if what == "last progress to cancel" {
		for _, p := range w.progress[id] {
			if p <= cancel {
				from = p
			}
		}
	}
	wire := time.Duration((cancel - from) * float64(time.Millisecond))
	if math.Abs(float64(card-wire)) > float64(2*time.Millisecond) {
		t.Errorf("request %s: the card says %v from %s, the records %v", id, card, what, wire)
	}
}

// factDuration is the duration a card fact states in re's first group.
func factDuration(t *testing.T, fact, re string) time.Duration {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(fact)
	if m == nil {
		t.Fatalf("card fact %q does not match %q", fact, re)
	}
	d, err := time.ParseDuration(m[1])
	if err != nil {
		t.Fatalf("card fact %q: %v", fact, err)
	}
	return d
}
