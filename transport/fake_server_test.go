//go:build unix

package transport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Environment of the write mode.
const (
	fakeStdoutEnv = "MCPOKE_FAKE_STDOUT" // "<big:N>" stands for N bytes of 'x'
	fakeStderrEnv = "MCPOKE_FAKE_STDERR"
	fakeCodeEnv   = "MCPOKE_FAKE_CODE"
)

func init() {
	fakeModes["echo"] = fakeEcho
	fakeModes["write"] = fakeWrite
	fakeModes["interleave"] = fakeInterleave
	fakeModes["flood"] = fakeFlood
	fakeModes["env"] = fakeEnv
	fakeModes["selfkill"] = fakeSelfKill
	fakeModes["stubborn"] = fakeStubborn
	fakeModes["hang"] = fakeHang
	fakeModes["slowexit"] = fakeSlowExit
	fakeModes["grandchild"] = func() { fakeGrandchild(false, false) }
	fakeModes["orphan"] = func() { fakeGrandchild(true, false) }
	fakeModes["escape"] = func() { fakeGrandchild(true, true) }
	fakeModes["parent"] = fakeParent
}

// fakeEcho writes every stdin line back on stdout and exits at EOF.
func fakeEcho() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := in.ReadBytes('\n')
		out.Write(line)
		if in.Buffered() == 0 {
			out.Flush()
		}
		if err != nil {
			out.Flush()
			return
		}
	}
}

var bigRE = regexp.MustCompile(`<big:(\d+)>`)

// fakeWrite writes the given stderr, then stdout, and exits with the code.
func fakeWrite() {
	big := func(v string) string {
		return bigRE.ReplaceAllStringFunc(v, func(s string) string {
			n, _ := strconv.Atoi(bigRE.FindStringSubmatch(s)[1])
			return strings.Repeat("x", n)
		})
	}
	os.Stderr.WriteString(big(os.Getenv(fakeStderrEnv)))
	os.Stdout.WriteString(big(os.Getenv(fakeStdoutEnv)))
	code, _ := strconv.Atoi(os.Getenv(fakeCodeEnv))
	os.Exit(code)
}

// fakeInterleave alternates stderr and stdout lines, waiting for an ack
// line on stdin after each, so their order on arrival is known.
func fakeInterleave() {
	in := bufio.NewReader(os.Stdin)
	for i := range 3 {
		fmt.Fprintf(os.Stderr, "err %d\n", i)
		in.ReadBytes('\n')
		fmt.Fprintf(os.Stdout, "{\"i\":%d}\n", i)
		in.ReadBytes('\n')
	}
}

const (
	floodFrames   = 10000
	fakeFramesEnv = "MCPOKE_FAKE_FRAMES"
)

// fakeFlood writes floodFrames frames of about 100 bytes, far more than
// the pipes and Recv's buffer hold; or, given $MCPOKE_FAKE_FRAMES such as
// "70,500", batches of frames with a pause between them.
func fakeFlood() {
	batches := []string{strconv.Itoa(floodFrames)}
	if v := os.Getenv(fakeFramesEnv); v != "" {
		batches = strings.Split(v, ",")
	}
	out := bufio.NewWriter(os.Stdout)
	pad := strings.Repeat("p", 80)
	i := 0
	for b, batch := range batches {
		if b > 0 {
			time.Sleep(200 * time.Millisecond)
		}
		n, _ := strconv.Atoi(batch)
		for range n {
			fmt.Fprintf(out, "{\"i\":%d,\"pad\":%q}\n", i, pad)
			i++
		}
		out.Flush()
	}
}

func fakeEnv() {
	wd, _ := os.Getwd()
	fmt.Printf("{\"x\":%q,\"dir\":%q}\n", os.Getenv("MCPOKE_X"), wd)
}

func fakeSelfKill() {
	os.Stderr.WriteString("dying\n")
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	time.Sleep(time.Minute)
}

// fakeStubborn ignores stdin EOF and SIGTERM: only SIGKILL stops it.
func fakeStubborn() {
	signal.Ignore(syscall.SIGTERM)
	os.Stdout.WriteString("{\"ready\":true}\n")
	fakeHang()
}

// fakeSlowExit takes a moment to leave after stdin EOF, as a server that
// flushes its state does, then exits with status 0.
func fakeSlowExit() {
	io.Copy(io.Discard, os.Stdin)
	time.Sleep(100 * time.Millisecond)
	os.Exit(0)
}

func fakeHang() {
	if os.Getenv("MCPOKE_FAKE_IGNORE_TERM") != "" {
		signal.Ignore(syscall.SIGTERM)
	}
	for {
		time.Sleep(time.Hour)
	}
}

// fakeGrandchild spawns a SIGTERM-ignoring grandchild and reports its pid.
// With exitOnEOF the server itself leaves at stdin EOF, with the grandchild
// still holding its stderr; with escape the grandchild leaves the process
// group and holds stdout.
func fakeGrandchild(exitOnEOF, escape bool) {
	signal.Ignore(syscall.SIGTERM)
	gc := exec.Command(os.Args[0])
	gc.Env = append(os.Environ(), fakeServerEnv+"=hang", "MCPOKE_FAKE_IGNORE_TERM=1")
	gc.Stderr = os.Stderr
	if escape {
		gc.Stdout = os.Stdout
		gc.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	if err := gc.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("{\"pid\":%d}\n", gc.Process.Pid)
	if !exitOnEOF {
		fakeHang()
	}
	bufio.NewReader(os.Stdin).ReadBytes('\n')
	os.Exit(5)
}

// fakeParent plays mcpoke: it starts a server that has a child, installs
// the signal handler main is told to install, prints both pids and waits.
func fakeParent() {
	s, err := StartStdio(StdioOptions{
		Command:    os.Args[0],
		Env:        []string{fakeServerEnv + "=grandchild"},
		CloseGrace: 100 * time.Millisecond,
	})
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	m, err := s.Recv()
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	var v struct{ Pid int }
	json.Unmarshal(m.Data, &v)
	fmt.Println(s.Pid(), v.Pid)
	<-sig
	CloseAll()
	os.Exit(0)
}
