package proxy

import (
	"fmt"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/transcript"
	"github.com/mcpoke/mcpoke/internal/wire"
)

// BenchmarkRecordRoundTrip is the proxy's per-frame path for one round
// trip of mcpoke bench's echo: the host's request and the server's
// answer, each one read of one line, handed to the records as the stdio
// relay hands them, and seen by the observers mcpoke proxy sets up (the
// request table, the card, attach's history through the transcript
// writer). allocs/op counts both the relay's and the recorder's.
func BenchmarkRecordRoundTrip(b *testing.B) {
	rec, table, fromHost, toHost := proxyRecords()
	reqs, answers := echoRoundTrips(1000)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		fromHost(reqs[i%len(reqs)])
		toHost(answers[i%len(answers)])
		i++
	}
	rec.Close()
	if n := len(table.Rows()); n == 0 {
		b.Fatal("the table saw no request")
	}
}

// proxyRecords starts a recorder with the observers mcpoke proxy sets up
// (the request table, the card, attach's history through the transcript
// writer), and returns the table and the two directions' ways in, which
// hand chunks to the records as RunStdio does.
func proxyRecords() (rec *Recorder, table *Table, fromHost, toHost func([]byte)) {
	rec = NewRecorder()
	table, card := NewTable(), NewCard("stdio")
	history := NewHistory(table)
	rec.ObserveParsed(table.ObserveParsed)
	rec.ObserveParsed(card.ObserveParsed)
	rec.ObserveParsed(history.NoteParsed)
	rec.Observe(transcript.New(history, time.Now()).Observe)
	h, s := rec.lines(wire.Out, false), rec.lines(wire.In, false)
	return rec, table, func(p []byte) { rec.chunk(h, time.Now(), p) }, func(p []byte) { rec.chunk(s, time.Now(), p) }
}

// echoRoundTrips makes n requests of bench's echo, as mcpoke sends them
// in 2026-07-28, and the demo's answers.
func echoRoundTrips(n int) (reqs, answers [][]byte) {
	reqs, answers = make([][]byte, n), make([][]byte, n)
	for i := range reqs {
		reqs[i] = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"_meta":{"progressToken":%[1]d,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpoke","version":"dev"}},"name":"echo","arguments":{"text":"hello"}}}`+"\n", i)
		answers[i] = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcpoke-demo","title":"mcpoke demo server","version":"dev"}},"content":[{"type":"text","text":"hello"}],"resultType":"complete"}}`+"\n", i)
	}
	return reqs, answers
}
