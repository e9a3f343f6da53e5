package help

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// repoRoot is the module's root, where README.md and testdata are.
const repoRoot = "../../.."

// TestMain builds mcpoke once and puts it first on PATH, for the
// examples and screens of the docs, which run it as a person would. It
// is built from this package, not run from the root package's test
// binary, so that the docs' tests run beside the root package's scripts
// and within their own timeout.
func TestMain(m *testing.M) {
	os.Exit(runWithMcpoke(m))
}

func runWithMcpoke(m *testing.M) int {
	flag.Parse()
	if testing.Short() {
		return m.Run() // the docs' tests skip, and need no mcpoke
	}
	dir, err := os.MkdirTemp("", "mcpoke-docs")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "mcpoke"), ".")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building mcpoke for the docs' examples: %v\n%s", err, out)
		return 1
	}
	os.Setenv("PATH", dir+string(filepath.ListSeparator)+os.Getenv("PATH"))
	return m.Run()
}

// docPages are the pages whose examples are tested: the README and
// every topic, named as from the repository's root.
func docPages(t *testing.T) []string {
	topics, err := filepath.Glob("*.md")
	if err != nil || len(topics) == 0 {
		t.Fatalf("no topics here: %v", err)
	}
	pages := []string{filepath.Join(repoRoot, "README.md")}
	return append(pages, topics...)
}

// peersDir is where .ci/run installs the reference servers.
func peersDir() string {
	if d := os.Getenv("MCPOKE_PEERS_DIR"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "mcpoke-peers")
}

// referenceServer returns server-everything's entry point, or "".
func referenceServer() string {
	p := filepath.Join(peersDir(), "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// tsV2Peer returns testdata/peers/ts/v2_server.mjs when the TypeScript
// SDK v2 it runs on is installed and node is on PATH, else "".
func tsV2Peer() string {
	if _, err := os.Stat(filepath.Join(peersDir(), "node_modules", "@modelcontextprotocol", "server", "dist", "index.mjs")); err != nil {
		return ""
	}
	if _, err := exec.LookPath("node"); err != nil {
		return ""
	}
	p, err := filepath.Abs(filepath.Join(repoRoot, "testdata", "peers", "ts", "v2_server.mjs"))
	if err != nil {
		return ""
	}
	return p
}
