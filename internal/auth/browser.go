package auth

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/mcpoke/mcpoke/internal/termtext"
)

// OpenBrowser starts the command in $BROWSER (its first entry; %s stands
// for the URL, else the URL is appended) or the platform's opener. An
// error says no browser could be started, or that the command failed
// (see StartBrowser): the person opens the URL themselves.
func OpenBrowser(u string) error {
	var argv []string
	if b := os.Getenv("BROWSER"); strings.TrimSpace(b) != "" {
		first, _, _ := strings.Cut(b, string(os.PathListSeparator))
		argv = strings.Fields(first)
		subst := false
		for i, a := range argv {
			if strings.Contains(a, "%s") {
				argv[i] = strings.ReplaceAll(a, "%s", u)
				subst = true
			}
		}
		if !subst {
			argv = append(argv, u)
		}
	} else {
		switch runtime.GOOS {
		case "darwin":
			argv = []string{"open", u}
		case "windows":
			argv = []string{"rundll32", "url.dll,FileProtocolHandler", u}
		default:
			argv = []string{"xdg-open", u}
		}
	}
	if len(argv) == 0 {
		return errors.New("$BROWSER names no command")
	}
	return StartBrowser(argv)
}

// browserGrace is how long StartBrowser watches the browser command: an
// opener (xdg-open, open, a $BROWSER script) that fails does so at once;
// a browser that keeps running is taken to have opened the page.
const browserGrace = time.Second

// StartBrowser runs a browser command (argv, no shell) and watches it
// for browserGrace: one that exits non-zero then has failed, and says so;
// one that exits 0 or keeps running has opened the page.
func StartBrowser(argv []string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t := time.NewTimer(browserGrace)
	defer t.Stop()
	select {
	case err := <-exited:
		if err != nil {
			return fmt.Errorf("the browser command %s failed: %w", termtext.Quote(argv[0]), err)
		}
	case <-t.C:
	}
	return nil
}
