package proxy

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// fakeServerEnv makes the test binary act as a server instead of running
// tests, so that the relay is tested against servers that misbehave
// without external tools.
const fakeServerEnv = "MCPOKE_PROXY_FAKE_SERVER"

var fakeModes = map[string]func(){}

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeServerEnv); mode != "" {
		run, ok := fakeModes[mode]
		if !ok {
			fmt.Fprintf(os.Stderr, "unknown fake server mode %q\n", mode)
			os.Exit(2)
		}
		run()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
