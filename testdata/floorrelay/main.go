// Command floorrelay is the least a stdio relay can do: start the server
// and copy bytes both ways, one read and one write at a time, recording
// nothing. BenchmarkProxyVersusDirect runs bench through it beside
// mcpoke proxy, as the floor of what a relay process in the path costs
// (two more pipe hops and wakeups per round trip).
package main

import (
	"os"
	"os/exec"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		panic(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		panic(err)
	}
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	go func() {
		copyChunks(in, os.Stdin)
		in.Close()
	}()
	copyChunks(os.Stdout, out)
	cmd.Wait()
}

// copyChunks passes each read on with one write, as mcpoke proxy does
// (not io.Copy, which may splice between pipes in the kernel).
func copyChunks(dst interface{ Write([]byte) (int, error) }, src interface{ Read([]byte) (int, error) }) {
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
