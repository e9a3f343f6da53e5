package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// stormPeerResult is what the SDKs' storm programs print (the keys they
// share).
type stormPeerResult struct {
	Client    string  `json:"client"`
	Calls     int     `json:"calls"`
	Completed int     `json:"completed"`
	Cancelled int     `json:"cancelled"`
	Failed    int     `json:"failed"`
	Ratio     float64 `json:"ratio"`
}

// TestSDKStormsAgainstDemoServer runs the cancel storm of the peer table
// from the TypeScript SDK's client (AbortSignal, testdata/peers/ts/
// storm.mjs) and the Go SDK's (context cancel, testdata/peers/gosdk/storm)
// against the demo over stdio, small: every call ends completed or
// cancelled, half of them cancelled 10 to 40 ms into a 100 ms sleep.
func TestSDKStormsAgainstDemoServer(t *testing.T) {
	bin := buildMcpoke(t)
	t.Run("ts-sdk", func(t *testing.T) {
		sdk := filepath.Join(peersDir(), "node_modules", "@modelcontextprotocol", "sdk")
		if _, err := os.Stat(sdk); err != nil {
			if os.Getenv("MCPOKE_REQUIRE_PEERS") == "1" {
				t.Fatalf("MCPOKE_REQUIRE_PEERS=1 but the TypeScript SDK is not installed in %s", peersDir())
			}
			t.Skipf("the TypeScript SDK is not installed in %s (.ci/run installs it)", peersDir())
		}
		if _, err := exec.LookPath("node"); err != nil {
			t.Skip("node is not installed")
		}
		cmd := exec.Command("node", filepath.Join("testdata", "peers", "ts", "storm.mjs"), "--n", "40", "--c", "8", "--rate", "0.5",
			"--from", "10", "--to", "40", "--tool", "sleep", "--args", `{"seconds":0.1,"steps":2}`, "--", bin, "demo-server")
		cmd.Env = append(os.Environ(), "MCPOKE_PEERS_DIR="+peersDir())
		checkStormPeer(t, cmd, "ts-sdk")
	})
	t.Run("go-sdk", func(t *testing.T) {
		storm := filepath.Join(t.TempDir(), "gosdk-storm")
		build := exec.Command("go", "build", "-o", storm, "./storm")
		build.Dir = filepath.Join("testdata", "peers", "gosdk")
		if out, err := build.CombinedOutput(); err != nil {
			if os.Getenv("MCPOKE_REQUIRE_PEERS") == "1" {
				t.Fatalf("MCPOKE_REQUIRE_PEERS=1 but the Go SDK storm does not build: %v\n%s", err, out)
			}
			t.Skipf("the Go SDK storm does not build here (its modules are fetched from the proxy): %v", err)
		}
		cmd := exec.Command(storm, "-n", "40", "-c", "8", "-rate", "0.5", "-from", "10ms", "-to", "40ms", "-tool", "sleep",
			"-args", `{"seconds":0.1,"steps":2}`, "--", bin, "demo-server")
		checkStormPeer(t, cmd, "go-sdk")
	})
}

func checkStormPeer(t *testing.T, cmd *exec.Cmd, client string) {
	t.Helper()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s storm: %v\n%s", client, err, out)
	}
	var r stormPeerResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%s storm printed no JSON: %v\n%s", client, err, out)
	}
	if r.Client != client || r.Calls != 40 || r.Failed != 0 || r.Completed+r.Cancelled != 40 || r.Cancelled < 10 || r.Ratio <= 0 {
		t.Errorf("%s storm: %+v, want 40 calls, each completed or cancelled (about 20 cancelled), none failed", client, r)
	}
}
