package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain makes the test binary double as mcpoke: the scripts run it as
// a real process, and it spawns itself as the demo server, as the
// released binary does.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"mcpoke": main})
}

// TestScripts runs the end-to-end scripts in testdata/script: every
// command and flag, exit codes, JSON shapes, transcripts and bad input.
// Scripts marked [peers] run against the npm reference server, found in
// $MCPOKE_PEERS_DIR (default ~/.cache/mcpoke-peers); they are skipped
// when it is not installed, unless MCPOKE_REQUIRE_PEERS=1.
func TestScripts(t *testing.T) {
	everything := referenceServer()
	gosdk := buildGoSDKPeer(t)
	ts2, ts2client, inspector := tsV2Peer(), tsV2Client(), inspectorCLI()
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("EVERYTHING", everything)
			env.Setenv("GOSDK", gosdk)
			env.Setenv("FILESYSTEM", peerEntry("server-filesystem"))
			env.Setenv("MEMORY", peerEntry("server-memory"))
			env.Setenv("TS2", ts2)
			env.Setenv("MCPOKE_PEERS_DIR", peersDir()) // for the peers' own imports
			env.Setenv("INSPECTOR", inspector)
			env.Values[scriptEnvKey{}] = append(env.Vars[:len(env.Vars):len(env.Vars)], "PWD="+env.Cd)
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "gosdk" {
				return gosdk != "", nil
			}
			if cond == "fsmemory" {
				// server-filesystem and server-memory, which .ci/run installs
				// beside the reference server.
				ok := peerEntry("server-filesystem") != "" && peerEntry("server-memory") != ""
				if !ok && os.Getenv("MCPOKE_REQUIRE_PEERS") == "1" {
					t.Errorf("MCPOKE_REQUIRE_PEERS=1 but server-filesystem or server-memory is not installed in %s", peersDir())
				}
				return ok, nil
			}
			if cond == "ts2" || cond == "ts2client" || cond == "inspector" {
				path := map[string]string{"ts2": ts2, "ts2client": ts2client, "inspector": inspector}[cond]
				if path == "" && os.Getenv("MCPOKE_REQUIRE_PEERS") == "1" {
					t.Errorf("MCPOKE_REQUIRE_PEERS=1 but the %s peer is not installed (.ci/run installs it)", cond)
				}
				return path != "", nil
			}
			if cond != "peers" {
				return false, nil
			}
			if everything == "" && os.Getenv("MCPOKE_REQUIRE_PEERS") == "1" {
				t.Errorf("MCPOKE_REQUIRE_PEERS=1 but the reference server is not installed in %s", peersDir())
			}
			if everything == "" {
				skipNote.Do(func() {
					t.Logf("skipping the [peers] interop scripts: the npm reference server is not installed in %s (.ci/run installs it)", peersDir())
				})
			}
			return everything != "", nil
		},
		Cmds: scriptCommands,
	})
}

// skipNote says once that the interop scripts skip.
var skipNote sync.Once

// peersDir is where .ci/run installs the reference servers.
func peersDir() string {
	if d := os.Getenv("MCPOKE_PEERS_DIR"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "mcpoke-peers")
}

// referenceServer returns the path of server-everything's entry point,
// or "" when it is not installed.
func referenceServer() string {
	p := filepath.Join(peersDir(), "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// peerEntry returns the path of an npm peer's entry point
// (@modelcontextprotocol/NAME), or "" when it is not installed.
func peerEntry(name string) string {
	p := filepath.Join(peersDir(), "node_modules", "@modelcontextprotocol", name, "dist", "index.js")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// tsV2Peer returns the path of testdata/peers/ts/v2_server.mjs when the
// TypeScript SDK v2 it runs on is installed in peersDir, else "".
func tsV2Peer() string {
	if _, err := os.Stat(filepath.Join(peersDir(), "node_modules", "@modelcontextprotocol", "server", "dist", "index.mjs")); err != nil {
		return ""
	}
	if _, err := exec.LookPath("node"); err != nil {
		return ""
	}
	p, err := filepath.Abs(filepath.Join("testdata", "peers", "ts", "v2_server.mjs"))
	if err != nil {
		return ""
	}
	return p
}

// tsV2Client returns the entry point of the TypeScript SDK v2's client
// (@modelcontextprotocol/client 2.4.0, installed by .ci/run into
// peersDir), a host for the proxy scripts, or "" when it or node is
// missing.
func tsV2Client() string {
	p := filepath.Join(peersDir(), "node_modules", "@modelcontextprotocol", "client", "dist", "index.mjs")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	if _, err := exec.LookPath("node"); err != nil {
		return ""
	}
	return p
}

// inspectorCLI returns the MCP Inspector's binary (2.12, installed by
// .ci/run into $MCPOKE_INSPECTOR_DIR, default ~/.cache/mcpoke-inspector),
// or "".
func inspectorCLI() string {
	dir := os.Getenv("MCPOKE_INSPECTOR_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "mcpoke-inspector")
	}
	p := filepath.Join(dir, "node_modules", ".bin", "mcp-inspector")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// buildGoSDKPeer builds testdata/peers/gosdk, a server on the official Go
// SDK (its own module, so the SDK is no dependency of mcpoke), and returns
// the binary's path, or "" when it cannot be built here.
func buildGoSDKPeer(t *testing.T) string { return buildGoSDK(t, ".", "peer") }

// buildGoSDK builds the package pkg of testdata/peers/gosdk (the server,
// the client or the host), or returns "" when it does not build here (no
// module proxy).
func buildGoSDK(t *testing.T, pkg, what string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "gosdk-"+what)
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = filepath.Join("testdata", "peers", "gosdk")
	if out, err := cmd.CombinedOutput(); err != nil {
		if os.Getenv("MCPOKE_REQUIRE_PEERS") == "1" {
			t.Errorf("MCPOKE_REQUIRE_PEERS=1 but the Go SDK %s does not build: %v\n%s", what, err, out)
		}
		return ""
	}
	return bin
}
