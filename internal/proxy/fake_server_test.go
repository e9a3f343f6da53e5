//go:build unix

package proxy

import (
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Environment of the fake servers.
const (
	fakeStdoutFile = "MCPOKE_PROXY_FAKE_STDOUT" // a file whose bytes go to stdout
	fakeStderrFile = "MCPOKE_PROXY_FAKE_STDERR" // a file whose bytes go to stderr
	fakeCode       = "MCPOKE_PROXY_FAKE_CODE"   // the exit status
	fakePidFile    = "MCPOKE_PROXY_FAKE_PIDS"   // where stubborn writes its child's pid
)

func init() {
	fakeModes["echo"] = fakeEcho
	fakeModes["spew"] = fakeSpew
	fakeModes["stubborn"] = fakeStubborn
	fakeModes["selfkill"] = func() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }
	fakeModes["sleep"] = func() { time.Sleep(time.Minute) }
	fakeModes["deaf"] = fakeDeaf
	fakeModes["lastwords"] = func() {
		io.Copy(io.Discard, os.Stdin)
		os.Stdout.Write(lastWords)
	}
}

// lastWords is what the lastwords server writes once its stdin ended.
var lastWords = []byte(strings.Repeat(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"bye"}}`+"\n", 20_000))

// fakeEcho copies stdin to stdout byte for byte and exits at its end.
func fakeEcho() {
	io.Copy(os.Stdout, os.Stdin)
	exitWithCode()
}

// fakeSpew writes the given files to stdout and stderr, then exits
// without reading stdin.
func fakeSpew() {
	if name := os.Getenv(fakeStderrFile); name != "" {
		b, _ := os.ReadFile(name)
		os.Stderr.Write(b)
	}
	if name := os.Getenv(fakeStdoutFile); name != "" {
		b, _ := os.ReadFile(name)
		os.Stdout.Write(b)
	}
	exitWithCode()
}

// fakeDeaf closes its stdin at once and lives until its stdout's reader
// goes: a server that stops reading the host.
func fakeDeaf() {
	os.Stdin.Close()
	os.Stdout.WriteString("{\"deaf\":true}\n")
	time.Sleep(time.Minute)
}

// fakeStubborn starts a child that sleeps, writes its pid, then ignores
// stdin's end and SIGTERM: only SIGKILL of its family ends it.
func fakeStubborn() {
	signal.Ignore(syscall.SIGTERM)
	child := exec.Command(os.Args[0])
	child.Env = append(os.Environ(), fakeServerEnv+"=sleep")
	if err := child.Start(); err != nil {
		os.Exit(9)
	}
	os.WriteFile(os.Getenv(fakePidFile), []byte(strconv.Itoa(child.Process.Pid)), 0o600)
	os.Stdout.WriteString("{\"ready\":true}\n")
	io.Copy(io.Discard, os.Stdin)
	time.Sleep(time.Minute)
}

func exitWithCode() {
	code, _ := strconv.Atoi(os.Getenv(fakeCode))
	os.Exit(code)
}
