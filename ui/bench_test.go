package ui

import (
	"context"
	"encoding/json"
	"io"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/demo"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// tableOf returns a model whose table holds n requests in every state,
// some with progress and badges, on a w×h screen.
func tableOf(n, w, h int) *Model {
	now := testEpoch.Add(time.Hour)
	m := New(Options{now: func() time.Time { return now }, static: true})
	m.resize(w, h)
	states := []session.State{session.Pending, session.Cancelling, session.Completed,
		session.Failed, session.TimedOut, session.Cancelled}
	var items []any
	for i := 1; i <= n; i++ {
		seq := uint64(i)
		ref := session.Ref{Seq: seq, ID: session.IntID(int64(i))}
		items = append(items, session.RequestStarted{Info: session.RequestInfo{Seq: seq, ID: ref.ID,
			Method: "tools/call", Tool: "sleep", Params: json.RawMessage(`{"name":"sleep"}`),
			State: session.Pending, Started: testEpoch.Add(time.Duration(i) * time.Millisecond)}})
		if i%3 == 0 {
			total := 10.0
			items = append(items, &rows.ProgressRun{Ref: ref, Count: 4,
				Latest: session.Progress{Progress: 4, Total: &total}})
		}
		to := states[i%len(states)]
		if to != session.Pending {
			items = append(items, session.StateChanged{Ref: ref, From: session.Pending, To: to,
				At: testEpoch.Add(time.Duration(i) * time.Millisecond), Reason: "r"})
		}
		if to == session.Cancelled && i%4 == 0 {
			items = append(items, session.LateArrived{Ref: ref, Late: session.LateFrame{Kind: session.LateResponse,
				AfterCancel: 1200 * time.Millisecond, Data: []byte(`{}`)}})
		}
	}
	m.applyBatch(&rows.Batch{Items: items})
	m.table.MoveBy(n) // the newest, as after following the tail
	return m
}

func BenchmarkView10kRequests(b *testing.B) {
	for _, size := range [][2]int{{120, 35}, {250, 80}} {
		b.Run(sizeName(size), func(b *testing.B) {
			m := tableOf(10_000, size[0], size[1])
			if m.store.Len() != 10_000 {
				b.Fatalf("%d rows", m.store.Len())
			}
			b.ReportAllocs()
			for b.Loop() {
				_ = m.View()
			}
		})
	}
}

func sizeName(s [2]int) string { return itoa(s[0]) + "x" + itoa(s[1]) }

// TestView10kRequestsRendersOnlyVisibleRows guards the benchmark's point
// without timing anything: the cost must not grow with the table.
func TestView10kRequestsRendersOnlyVisibleRows(t *testing.T) {
	small, big := tableOf(100, 120, 35), tableOf(10_000, 120, 35)
	allocs := func(m *Model) float64 { return testing.AllocsPerRun(20, func() { _ = m.View() }) }
	if a, b := allocs(small), allocs(big); b > a*1.5+50 {
		t.Errorf("View allocates %.0f times with 10,000 rows and %.0f with 100: it renders rows off screen", b, a)
	}
}

// keyProbe wraps the model to time key presses from Send to Update.
type keyProbe struct {
	m        *Model
	sentAt   atomic.Int64 // UnixNano of the key in flight
	lat      chan time.Duration
	progress atomic.Int64
}

// Init implements tea.Model.
func (p *keyProbe) Init() tea.Cmd { return p.m.Init() }

// Update implements tea.Model.
func (p *keyProbe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case probeMsg:
		msg.f()
		return p, nil
	case toolCallMsg:
		return p, p.m.callTool(msg.name, []byte(msg.args))
	}
	if k, ok := msg.(tea.KeyPressMsg); ok && k.Code == 'j' {
		if at := p.sentAt.Swap(0); at != 0 {
			p.lat <- time.Since(time.Unix(0, at))
		}
	}
	_, cmd := p.m.Update(msg)
	if r := p.m.store.Get(3); r != nil {
		p.progress.Store(int64(r.ProgressOrNone().Count))
	}
	return p, cmd
}

// View implements tea.Model.
func (p *keyProbe) View() tea.View { return p.m.View() }

// BenchmarkFloodKeyLatency runs the real program, with its renderer, on
// the demo server while its flood tool sends 250,000 progress
// notifications as fast as it can, and presses a key every 10ms. It
// reports the key-to-Update latency (p50, p99, max), the notification
// rate the UI absorbed, and the heap at the end.
func BenchmarkFloodKeyLatency(b *testing.B) {
	const count = 250_000
	for b.Loop() {
		a, srvEnd := transporttest.Pipe()
		srv := demo.NewSession(srvEnd, io.Discard)
		conn := connect.Attach(connect.Spec{}, a, connect.Options{})
		client := conn.Session
		m := New(Options{Connect: func(context.Context) (*connect.Conn, error) { return conn, nil }})
		p := &keyProbe{m: m, lat: make(chan time.Duration, 100_000)}
		prog := tea.NewProgram(p, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(120, 35),
			tea.WithColorProfile(colorprofile.TrueColor), tea.WithoutSignals())
		done := make(chan struct{})
		go func() { prog.Run(); close(done) }()
		for deadline := time.Now().Add(waitLimit); !waitTools(b, m, prog); {
			if time.Now().After(deadline) {
				b.Fatalf("the tools were not listed within %s", waitLimit)
			}
		}

		start := time.Now()
		prog.Send(toolCall("flood", `{"count":250000}`))
		var lats []time.Duration
		var heapMid uint64
		for p.progress.Load() < count && time.Since(start) < time.Minute {
			p.sentAt.Store(time.Now().UnixNano())
			prog.Send(tea.KeyPressMsg{Code: 'j', Text: "j"})
			time.Sleep(10 * time.Millisecond)
			for len(p.lat) > 0 {
				lats = append(lats, <-p.lat)
			}
			if heapMid == 0 && p.progress.Load() > count/2 {
				heapMid = heapInUse()
			}
		}
		elapsed := time.Since(start)
		heapEnd := heapInUse()
		prog.Quit()
		recvWithin(b, done, "the program to end after Quit")
		client.Close()
		srv.Close()

		if got := p.progress.Load(); got != count {
			b.Fatalf("the UI saw %d of %d progress notifications", got, count)
		}
		slices.Sort(lats)
		pct := func(q float64) float64 {
			if len(lats) == 0 {
				return 0
			}
			return float64(lats[int(q*float64(len(lats)-1))].Microseconds()) / 1000
		}
		b.ReportMetric(pct(0.5), "key-p50-ms")
		b.ReportMetric(pct(0.99), "key-p99-ms")
		b.ReportMetric(pct(1), "key-max-ms")
		b.ReportMetric(float64(count)/elapsed.Seconds(), "notifications/s")
		b.ReportMetric(float64(heapMid)/(1<<20), "heap-mid-MB")
		b.ReportMetric(float64(heapEnd)/(1<<20), "heap-end-MB")
	}
}

// waitTools waits a little for the tools list, reporting whether it came.
func waitTools(b *testing.B, m *Model, prog *tea.Program) bool {
	time.Sleep(20 * time.Millisecond)
	ok := make(chan bool, 1)
	prog.Send(probeMsg{func() { ok <- len(m.tools.Tools()) > 0 }})
	listed, _ := recvWithin(b, ok, "the program to run a probe message")
	return listed
}

// probeMsg runs f on the program's goroutine, to read the model safely.
type probeMsg struct{ f func() }

// toolCall is a message that calls a tool as the editor would.
type toolCallMsg struct {
	name string
	args string
}

func toolCall(name, args string) tea.Msg { return toolCallMsg{name, args} }

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}
