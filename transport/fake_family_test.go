//go:build unix

package transport

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Environment of the family modes.
const (
	// fakeMarksEnv names a directory where a process that got SIGTERM
	// leaves a file named after its role.
	fakeMarksEnv = "MCPOKE_FAKE_MARKS"
	// fakeRoleEnv is the role of a termchild: its marker's name.
	fakeRoleEnv = "MCPOKE_FAKE_ROLE"
	// fakeBareEnv makes the detached grandchild drop its environment,
	// and with it the server's tag.
	fakeBareEnv = "MCPOKE_FAKE_BARE"
	// fakeTermDelayEnv is how long a termchild takes, after SIGTERM,
	// before it leaves its marker: a server's child slow to shut down.
	fakeTermDelayEnv = "MCPOKE_FAKE_TERM_DELAY"
)

func init() {
	fakeModes["termfamily"] = fakeTermFamily
	fakeModes["termgroup"] = fakeTermGroup
	fakeModes["termkid"] = fakeTermKid
	fakeModes["leftover"] = fakeLeftover
	fakeModes["termchild"] = fakeTermChild
	fakeModes["doublefork"] = fakeDoubleFork
	fakeModes["closeout"] = fakeCloseOut
}

// startTermChild starts a termchild in role and returns its pid once it
// is ready for SIGTERM.
func startTermChild(role string, detach, bare bool) int {
	c := exec.Command(os.Args[0])
	c.Env = append(os.Environ(), fakeServerEnv+"=termchild", fakeRoleEnv+"="+role)
	if bare {
		c.Env = []string{fakeServerEnv + "=termchild", fakeRoleEnv + "=" + role,
			fakeMarksEnv + "=" + os.Getenv(fakeMarksEnv), quickRaceExit}
	}
	if detach {
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	out, err := c.StdoutPipe()
	if err == nil {
		err = c.Start()
	}
	if err == nil {
		_, err = bufio.NewReader(out).ReadString('\n')
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "termchild:", err)
		os.Exit(1)
	}
	return c.Process.Pid
}

// fakeTermFamily is a server with a child in its group and a grandchild
// that left through a double fork with setsid. It reports both pids, then
// ignores stdin EOF; at SIGTERM it waits for both to have marked their own
// SIGTERM and exits.
func fakeTermFamily() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	child := startTermChild("child", false, false)

	mid := exec.Command(os.Args[0])
	mid.Env = append(os.Environ(), fakeServerEnv+"=doublefork")
	line, err := mid.Output()
	var detached int
	if err == nil {
		_, err = fmt.Sscan(string(line), &detached)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "doublefork:", err)
		os.Exit(1)
	}
	fmt.Printf("{\"pids\":[%d,%d]}\n", child, detached)
	<-sig
	waitMarks("child", "detached")
	os.Exit(0)
}

// fakeTermGroup is a server with one child in its process group. It
// reports the child's pid, then ignores stdin EOF; at SIGTERM it waits for
// the child to have marked its own SIGTERM and exits.
func fakeTermGroup() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	fmt.Printf("{\"pid\":%d}\n", startTermChild("child", false, false))
	<-sig
	waitMarks("child")
	os.Exit(0)
}

// fakeTermKid is a server whose child left its session and dropped the
// server's tag: only its parent, the live server, ties it to the family.
// At SIGTERM the server waits for the child's marker and exits.
func fakeTermKid() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	fmt.Printf("{\"pid\":%d}\n", startTermChild("detached", true, true))
	<-sig
	waitMarks("detached")
	os.Exit(0)
}

// fakeLeftover is a server that leaves at stdin EOF, with status 0, and
// leaves behind a child in its group that is slow to go at SIGTERM.
func fakeLeftover() {
	fmt.Printf("{\"pid\":%d}\n", startTermChild("child", false, false))
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// waitMarks waits until each role has left its marker, or 10 seconds:
// the test's SIGKILL ends a wait that is in vain.
func waitMarks(roles ...string) {
	marks := os.Getenv(fakeMarksEnv)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		missing := 0
		for _, role := range roles {
			if _, err := os.Stat(filepath.Join(marks, role)); err != nil {
				missing++
			}
		}
		if missing == 0 {
			return
		}
	}
}

// fakeDoubleFork starts a detached termchild, prints its pid and exits,
// so the termchild's parent is gone.
func fakeDoubleFork() {
	fmt.Println(startTermChild("detached", true, os.Getenv(fakeBareEnv) != ""))
}

// fakeTermChild says it is ready, then at SIGTERM leaves its marker and
// exits.
func fakeTermChild() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	fmt.Println("ready")
	<-sig
	if d, err := time.ParseDuration(os.Getenv(fakeTermDelayEnv)); err == nil {
		time.Sleep(d)
	}
	os.WriteFile(filepath.Join(os.Getenv(fakeMarksEnv), os.Getenv(fakeRoleEnv)), []byte(strconv.Itoa(os.Getpid())), 0o644)
	os.Exit(0)
}

// fakeCloseOut writes one frame, closes its stdout and lives on, deaf to
// stdin EOF.
func fakeCloseOut() {
	os.Stdout.WriteString("{\"last\":true}\n")
	os.Stdout.Close()
	fakeHang()
}
