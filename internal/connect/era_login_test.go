package connect

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// failingLogin is an authorizer whose every login fails, as a person who
// closes the browser makes it; it counts them.
type failingLogin struct{ logins atomic.Int64 }

func (a *failingLogin) Authorization(context.Context) string { return "" }

func (a *failingLogin) Challenged(context.Context, string, *http.Response) (bool, error) {
	a.logins.Add(1)
	return false, errors.New("the person closed the browser")
}

func (a *failingLogin) LoginFailures() int64 { return a.logins.Load() }

// With --protocol auto, a login that fails during server/discover is not
// run a second time by falling back to initialize: one browser prompt.
func TestAutoDoesNotLogInTwice(t *testing.T) {
	ForgetEras()
	var posts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	auth := &failingLogin{}
	c, err := Start(Spec{Name: "locked", URL: srv.URL, Transport: "http"}, Options{Protocol: ProtocolAuto, Auth: auth})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = c.Initialize(ctx)
	if err == nil || !strings.Contains(err.Error(), "the login failed during server/discover") {
		t.Fatalf("err %v", err)
	}
	if n := auth.logins.Load(); n != 1 {
		t.Errorf("%d logins, want 1", n)
	}
	if n := posts.Load(); n != 1 {
		t.Errorf("%d POSTs, want 1 (server/discover alone)", n)
	}
}
