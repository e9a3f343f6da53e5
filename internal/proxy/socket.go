package proxy

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// SocketDir is where proxies listen for mcpoke attach: mcpoke/ in the
// user's runtime dir ($XDG_RUNTIME_DIR), or mcpoke-UID/ in the temporary
// dir without one. It must be the user's own, mode 0700.
func SocketDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "mcpoke")
	}
	return filepath.Join(os.TempDir(), "mcpoke-"+strconv.Itoa(os.Getuid()))
}

// socketDirs are where mcpoke attach looks for proxies: SocketDir, and
// with a runtime dir also the temporary one, where a proxy listens that
// a host started with a bare environment (the TypeScript SDK's default
// passes no XDG_RUNTIME_DIR, and neither do hosts built on it).
func socketDirs() []string {
	dirs := []string{SocketDir()}
	if tmp := filepath.Join(os.TempDir(), "mcpoke-"+strconv.Itoa(os.Getuid())); tmp != dirs[0] {
		dirs = append(dirs, tmp)
	}
	return dirs
}

// ensureSocketDir makes SocketDir, or checks that the one there is a
// directory (not a link) of this user's that nobody else can enter.
func ensureSocketDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("attach socket dir: %w", err)
	}
	return checkSocketDir(dir)
}

// checkSocketDir says whether dir is a directory (not a link) of this
// user's that nobody else can enter.
func checkSocketDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("attach socket dir: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("attach socket dir %s is not a directory; remove it", dir)
	case ok && int(st.Uid) != os.Getuid():
		return fmt.Errorf("attach socket dir %s belongs to uid %d, not to you; remove it", dir, st.Uid)
	case fi.Mode().Perm() != 0o700:
		return fmt.Errorf("attach socket dir %s has mode %v, want 0700: chmod 700 it", dir, fi.Mode().Perm())
	}
	return nil
}

// socketName is NAME.PID.sock; names are cleaned to safe characters.
func socketName(name string, pid int) string {
	return cleanName(name) + "." + strconv.Itoa(pid) + ".sock"
}

// cleanName keeps letters, digits, '-' and '_' of name ("proxy" if none).
func cleanName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "proxy"
	}
	return b.String()
}

// listen makes the socket, 0600, in SocketDir.
func listen(name string) (*net.UnixListener, string, error) {
	dir := SocketDir()
	if err := ensureSocketDir(dir); err != nil {
		return nil, "", err
	}
	path := filepath.Join(dir, socketName(name, os.Getpid()))
	os.Remove(path) // a socket left by a dead process with our pid
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, "", fmt.Errorf("attach socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, "", fmt.Errorf("attach socket: %w", err)
	}
	return l, path, nil
}

// peerUID is the uid of the process at the other end of c.
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return -1, err
	}
	if credErr != nil {
		return -1, credErr
	}
	return int(cred.Uid), nil
}

// Running is a proxy that mcpoke attach can reach.
type Running struct {
	Name string
	Pid  int
	Path string
}

// ListRunning returns the proxies listening in SocketDir (and the
// temporary dir's, see socketDirs), by name and pid. Sockets whose proxy
// is gone (killed before it could remove them) are removed.
func ListRunning() ([]Running, error) {
	var out []Running
	for i, dir := range socketDirs() {
		if i > 0 && checkSocketDir(dir) != nil {
			continue // absent, or not a dir of ours alone: not to be trusted
		}
		found, err := listRunning(dir)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Name < out[j].Name || out[i].Name == out[j].Name && out[i].Pid < out[j].Pid
	})
	return out, nil
}

// listRunning lists the proxies listening in dir.
func listRunning(dir string) ([]Running, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Running
	for _, e := range entries {
		base, ok := strings.CutSuffix(e.Name(), ".sock")
		i := strings.LastIndexByte(base, '.')
		if !ok || i < 0 {
			continue
		}
		pid, err := strconv.Atoi(base[i+1:])
		if err != nil {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			os.Remove(path)
			continue
		}
		out = append(out, Running{Name: base[:i], Pid: pid, Path: path})
	}
	return out, nil
}
