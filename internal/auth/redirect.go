package auth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// callbackPath is where the authorization server sends the browser back.
const callbackPath = "/callback"

// redirect is what came back from the authorization server: through the
// loopback listener or pasted by the person.
type redirect struct {
	Code, State, Iss string
	// Pasted: the person pasted it (a bare code carries no state).
	Pasted bool
}

// loopback is the listener on 127.0.0.1 the browser is sent back to.
type loopback struct {
	ln   net.Listener
	srv  *http.Server
	got  chan redirect
	errs chan error
}

// listenLoopback listens on 127.0.0.1, on the port of preferred (a
// redirect URI used before) when it is free, else on a random one.
func listenLoopback(preferred string) (*loopback, error) {
	addr := "127.0.0.1:0"
	if u, err := url.Parse(preferred); err == nil && u.Hostname() == "127.0.0.1" && u.Port() != "" {
		addr = "127.0.0.1:" + u.Port()
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil && addr != "127.0.0.1:0" {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		return nil, fmt.Errorf("cannot listen on 127.0.0.1 for the login's redirect: %w", err)
	}
	l := &loopback{ln: ln, got: make(chan redirect, 1), errs: make(chan error, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc(callbackPath, l.serve)
	l.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go l.srv.Serve(ln)
	return l, nil
}

// URI is the redirect URI to register and send.
func (l *loopback) URI() string {
	return "http://" + l.ln.Addr().String() + callbackPath
}

func (l *loopback) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if e := q.Get("error"); e != "" {
		err := fmt.Errorf("the authorization server refused: %s %s", e, q.Get("error_description"))
		select {
		case l.errs <- err:
		default:
		}
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, "<p>mcpoke: login failed: %s</p>", html.EscapeString(err.Error()))
		return
	}
	if q.Get("code") == "" {
		http.Error(w, "mcpoke: no authorization code in this request", http.StatusBadRequest)
		return
	}
	select {
	case l.got <- redirect{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}:
	default:
	}
	fmt.Fprint(w, "<p>mcpoke: logged in. You can close this tab and go back to the terminal.</p>")
}

// Close stops the listener.
func (l *loopback) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.srv.Shutdown(ctx)
}

// wait returns the first redirect: from the browser, or pasted.
func (l *loopback) wait(ctx context.Context, pasted <-chan string) (redirect, error) {
	for {
		select {
		case r := <-l.got:
			return r, nil
		case err := <-l.errs:
			return redirect{}, err
		case s, ok := <-pasted:
			if !ok {
				return redirect{}, errors.New("login cancelled")
			}
			r, err := parsePasted(s)
			if err != nil {
				return redirect{}, err
			}
			return r, nil
		case <-ctx.Done():
			return redirect{}, fmt.Errorf("login not finished: %w", context.Cause(ctx))
		}
	}
}

// parsePasted reads what the person pasted: the address the browser
// ended at (whole, or its query), or the bare code.
func parsePasted(s string) (redirect, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return redirect{}, errors.New("nothing was pasted")
	}
	if !strings.Contains(s, "=") {
		return redirect{Code: s, Pasted: true}, nil
	}
	query := s
	if i := strings.IndexByte(s, '?'); i >= 0 {
		query = s[i+1:]
	}
	if i := strings.IndexByte(query, '#'); i >= 0 {
		query = query[:i]
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return redirect{}, fmt.Errorf("the pasted address has a query mcpoke cannot read: %w", err)
	}
	if e := q.Get("error"); e != "" {
		return redirect{}, fmt.Errorf("the authorization server refused: %s %s", e, q.Get("error_description"))
	}
	if q.Get("code") == "" {
		return redirect{}, errors.New("the pasted address holds no code= parameter; paste the whole address the browser ended at")
	}
	return redirect{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss"), Pasted: true}, nil
}
