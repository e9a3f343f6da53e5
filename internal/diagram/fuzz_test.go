package diagram

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzTranscript feeds hostile transcripts to the reader, the builder and
// both renderers: nothing may panic, every diagram must pass the Mermaid
// checker, and the text must fit its width with nothing a terminal acts
// on. Run it longer with
//
//	go test ./internal/diagram/ -run '^$' -fuzz FuzzTranscript -fuzztime 60s -fuzzminimizetime 5s
//
// Seeds are the golden transcripts cut to their first lines: the fuzzer
// minimizes each new input it finds, which takes up to a minute for a
// 30 KB one, and the short ones reach the same code.
func FuzzTranscript(f *testing.F) {
	for _, c := range goldenCases {
		data, err := os.ReadFile(filepath.Join("testdata", c.transcript()+".ndjson"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(firstLines(data, 24), "")
	}
	f.Add([]byte(`{"t":1,"dir":"out","msg":{"jsonrpc":"2.0","id":3,"method":"m","params":{"_meta":{"progressToken":3}}}}`+"\n"+
		`{"t":2,"dir":"in","msg":[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":3,"progress":1e308}},{"id":3,"error":{"code":1.5,"message":7}}]}`), "3")
	f.Add([]byte("{\"t\":1e999,\"dir\":\"out\",\"msg\":null}\n\n\r\n{\"t\":-1,\"dir\":\"in\"}"), `"x"`)
	f.Fuzz(func(t *testing.T, data []byte, request string) {
		tr, err := Read(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("Read of bytes in memory failed: %v", err)
		}
		l, err := Build(tr, Options{Request: request, MaxRun: 3})
		if err != nil {
			if !errors.Is(err, ErrNoRequest) {
				t.Fatalf("Build: %v", err)
			}
			return
		}
		m := Mermaid(l)
		if _, err := checkMermaid(m); err != nil {
			t.Fatalf("invalid Mermaid: %v\n%s", err, m)
		}
		for _, w := range []int{60, 40, 39, 20, 1} {
			out := Text(l, w)
			checkTextFits(t, out, max(w, minWidth))
			if strings.Count(out, "\n") > 20*len(data)+50 {
				t.Fatalf("text of %d lines for %d bytes", strings.Count(out, "\n"), len(data))
			}
		}
	})
}

// firstLines is data up to its nth line.
func firstLines(data []byte, n int) []byte {
	at := 0
	for range n {
		i := bytes.IndexByte(data[at:], '\n')
		if i < 0 {
			return data
		}
		at += i + 1
	}
	return data[:at]
}
