package ui

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

func TestWriteTranscriptAsNDJSON(t *testing.T) {
	d, _ := newTestModel(t, 120, 30)
	d.send(feedMsg{forGen: forGen{d.m.gen}, batch: &rows.Batch{Stderr: []session.StderrLine{{At: d.m.c.Now(), Line: "server says hi"}}}})
	d.key("W")
	d.waitScreen("write the transcript (NDJSON) to: ./mcpoke-")
	path := filepath.Join(t.TempDir(), "out.ndjson")
	d.key("ctrl+u")
	d.typeText(path)
	d.key("enter")
	d.waitScreen("wrote 6 items to " + path)

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var dirs []string
	for _, l := range lines {
		var item struct {
			T   *float64        `json:"t"`
			Dir string          `json:"dir"`
			Msg json.RawMessage `json:"msg"`
			Raw *string         `json:"raw"`
		}
		if err := json.Unmarshal([]byte(l), &item); err != nil || item.T == nil {
			t.Fatalf("not a transcript line: %q (%v)", l, err)
		}
		dirs = append(dirs, item.Dir)
	}
	// initialize, its answer, initialized, tools/list, its answer; then
	// the stderr line, all in time order as --transcript writes them.
	if got := strings.Join(dirs, " "); !strings.HasPrefix(got, "out in out") || !strings.Contains(got, "stderr") {
		t.Errorf("directions %q", got)
	}
	if !strings.Contains(lines[0], `"method":"initialize"`) {
		t.Errorf("first line %s", lines[0])
	}

	// Never over a file: the prompt stays, with why.
	d.key("W")
	d.key("ctrl+u")
	d.typeText(path)
	d.key("enter")
	d.waitScreen("exists; give another name")
	if !d.m.prompt.active {
		t.Error("the prompt closed on a refused path")
	}
}

func TestWireLogRetentionIsStatedWhenReached(t *testing.T) {
	d, _ := newTestModel(t, 120, 30)
	d.key("w")
	recs := make([]wire.Record, wireLogSize+123)
	for i := range recs {
		recs[i] = wire.Record{At: testEpoch.Add(time.Duration(i)), Dir: wire.In, Kind: wire.KindFrame, Data: []byte(`{"jsonrpc":"2.0","method":"x"}`)}
	}
	d.send(feedMsg{forGen: forGen{d.m.gen}, batch: &rows.Batch{Wire: recs}})
	d.waitScreen("keeps the last 10,000; 128 older not shown")
	if got, _ := d.m.wire.Records(); len(got) != wireLogSize {
		t.Errorf("keeps %d records, want %d", len(got), wireLogSize)
	}
}

// A huge frame costs the wire log wireLogKeep bytes, not its size; the
// expanded view and a saved transcript say it was cut, and how long it was.
func TestWireLogKeepsABoundedCopyOfHugeFrames(t *testing.T) {
	d, _ := newTestModel(t, 120, 30)
	d.key("w")
	huge := append(append([]byte(`{"jsonrpc":"2.0","id":99,"result":{"text":"`), bytes.Repeat([]byte("x"), 8<<20)...), `"}}`...)
	d.send(feedMsg{forGen: forGen{d.m.gen}, batch: &rows.Batch{Wire: []wire.Record{
		{At: testEpoch, Dir: wire.In, Kind: wire.KindFrame, Data: huge, Size: len(huge)}}}})
	recs, _ := d.m.wire.Records()
	last := recs[len(recs)-1]
	if len(last.Data) != wireLogKeep || cap(last.Data) > 2*wireLogKeep || last.Size != len(huge) {
		t.Fatalf("kept %d bytes (cap %d) of size %d, want %d of %d", len(last.Data), cap(last.Data), last.Size, wireLogKeep, len(huge))
	}
	d.m.wire.MoveBy(len(recs))
	d.m.wire.Toggle()
	if got := strings.Join(d.m.wire.expLines, "\n"); !strings.Contains(got, "first 64.0 KB of 8.0 MB kept") {
		t.Errorf("the expanded frame does not say it was cut:\n%.300s", got)
	}
	path := filepath.Join(t.TempDir(), "w.ndjson")
	if _, err := writeTranscriptFile(path, testEpoch, recs[len(recs)-1:], nil); err != nil {
		t.Fatal(err)
	}
	line, _ := os.ReadFile(path)
	var item struct {
		Raw  string `json:"raw"`
		Size int    `json:"size"`
	}
	if err := json.Unmarshal(line, &item); err != nil || item.Size != len(huge) || len(item.Raw) != wireLogKeep {
		t.Errorf("saved line: raw %d bytes, size %d, err %v", len(item.Raw), item.Size, err)
	}
}
