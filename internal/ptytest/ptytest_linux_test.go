package ptytest

import "testing"

// What is written on the terminal's side reaches its master.
func TestOpenGivesAConnectedPair(t *testing.T) {
	master, slave := Open(t, "nothing to test")
	defer master.Close()
	defer slave.Close()
	if _, err := slave.WriteString("x"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	n, err := master.Read(buf)
	if err != nil || n == 0 || buf[0] != 'x' {
		t.Fatalf("master read %q, %v; want what the slave wrote", buf[:n], err)
	}
}
