package connect

import (
	"slices"
	"testing"
)

// A config entry's "roots" are mcpoke's own: directories, relative ones
// from the workspace, or file:// URIs, with variables expanded.
func TestConfigRoots(t *testing.T) {
	vars := Vars{LookupEnv: func(k string) (string, bool) { return map[string]string{"DATA": "/srv/data"}[k], k == "DATA" },
		Home: "/home/u", Workspace: "/work/proj"}
	s, err := ParseConfigVars([]byte(`{"mcpServers": {"fs": {"command": "fs-server",
		"roots": ["src", "${env:DATA}", "${userHome}/notes", "file:///mnt/share"]}}}`), vars)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := s.Get("fs")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/work/proj/src", "/srv/data", "/home/u/notes", "file:///mnt/share"}
	if !slices.Equal(spec.Roots, want) {
		t.Fatalf("roots %q, want %q", spec.Roots, want)
	}
}
