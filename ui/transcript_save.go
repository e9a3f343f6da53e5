package ui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/transcript"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
)

// transcriptWrittenMsg: W's transcript was written to path (n items), or
// could not be (err).
type transcriptWrittenMsg struct {
	path string
	n    int
	err  error
}

// defaultTranscriptPath is where W offers to write: the current
// directory, named by the time, so two saves never collide.
func defaultTranscriptPath(now time.Time) string {
	return "./mcpoke-" + now.Format("20060102-150405") + ".ndjson"
}

// openTranscriptPrompt asks where to write the session's transcript.
func (m *Model) openTranscriptPrompt() tea.Cmd {
	if m.wire.start.IsZero() {
		m.setStatus("nothing to write yet: no traffic", true)
		return nil
	}
	return m.prompt.Open(promptTranscript, "write the transcript (NDJSON) to:", defaultTranscriptPath(m.c.Now()))
}

// writeTranscript snapshots what the UI keeps and writes it off Update.
func (m *Model) writeTranscript(path string) tea.Cmd {
	recs, _ := m.wire.Records()
	recs = append([]wire.Record(nil), recs...)
	stderr := m.stderr.Raw()
	start := m.wire.start
	return func() tea.Msg {
		n, err := writeTranscriptFile(path, start, recs, stderr)
		return transcriptWrittenMsg{path: path, n: n, err: err}
	}
}

// writeTranscriptFile writes records and stderr lines, merged in time
// order, as --transcript does. It never overwrites a file.
func writeTranscriptFile(path string, start time.Time, recs []wire.Record, stderr []session.StderrLine) (int, error) {
	for _, l := range stderr {
		recs = append(recs, wire.Record{At: l.At, Dir: wire.In, Kind: wire.KindStderr, Data: []byte(l.Line), Size: len(l.Line)})
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].At.Before(recs[j].At) })
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return 0, errors.New("the file exists; give another name")
		}
		return 0, err
	}
	tw := transcript.New(f, start)
	for _, r := range recs {
		tw.Observe(r)
	}
	err = tw.Err()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return len(recs), err
}

// transcriptWritten says where the transcript went, and what it lacks.
func (m *Model) transcriptWritten(msg transcriptWrittenMsg) tea.Cmd {
	if msg.err != nil {
		// Back to the prompt on the same path, with why.
		cmd := m.prompt.Open(promptTranscript, "write the transcript (NDJSON) to:", msg.path)
		return tea.Batch(cmd, m.prompt.Refuse(msg.err.Error()))
	}
	where := msg.path
	if abs, err := filepath.Abs(msg.path); err == nil {
		where = abs
	}
	s := "wrote " + english.Thousands(msg.n) + " items to " + where
	_, dropped := m.wire.Records()
	if lost := dropped + m.stderr.dropped; lost > 0 {
		s += fmt.Sprintf(" (the wire log keeps the last %s frames: %s older not in it)", english.Thousands(wireLogSize), english.Thousands(lost))
	}
	m.setStatus(s, false)
	return nil
}
