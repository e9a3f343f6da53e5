package transport

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// fakeServerEnv makes the test binary act as a server (or as an
// mcpoke-like parent) instead of running tests, so process tests need no
// external tools.
const fakeServerEnv = "MCPOKE_FAKE_SERVER"

// fakeModes is filled by platform test files.
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
