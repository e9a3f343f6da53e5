package connect

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseConfig: no input makes the config parser panic, every server it
// lists can be asked for, and plain JSON passes the comment stripper
// unchanged.
func FuzzParseConfig(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "config", "*.json"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"mcpServers":{"a":{"command":"x","args":["1"],"env":{"K":"V"}}}}`))
	f.Add([]byte(`{"servers":{"a":{"type":"stdio","command":"x"},}} // end`))
	f.Add([]byte(`{"mcp":{"servers":{"a":{"url":"http://h"}}}}`))
	f.Add([]byte(`/* unterminated`))
	f.Add([]byte(`"\`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if json.Valid(data) {
			if got := stripJSONC(data); !bytes.Equal(got, data) {
				t.Fatalf("stripJSONC changed valid JSON %q into %q", data, got)
			}
		}
		s, err := ParseConfig(data)
		if err != nil {
			return
		}
		names := s.Names()
		if len(names) == 0 {
			t.Fatal("ParseConfig succeeded with no servers")
		}
		for _, n := range names {
			spec, err := s.Get(n)
			if err == nil && spec.Command == "" && spec.URL == "" {
				t.Fatalf("server %q has no command, no URL and no error", n)
			}
		}
		_, _ = s.Get("no such server \x00")
	})
}
