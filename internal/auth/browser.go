package auth

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// OpenBrowser starts the command in $BROWSER (its first entry; %s stands
// for the URL, else the URL is appended) or the platform's opener, and
// does not wait for it. An error says no browser could be started: the
// person opens the URL themselves.
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
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
