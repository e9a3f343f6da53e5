package transport

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// IsLoopbackHost reports whether host (a name or an address, without a
// port) is this machine: localhost, 127.0.0.0/8 or ::1.
func IsLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkOrigin guards against DNS rebinding: a browser page of another site
// that reaches this server through a name resolving to 127.0.0.1 sends its
// own Origin and Host. An Origin that is present must be a loopback one;
// unless remoteOK, so must the Host the request was addressed to.
func checkOrigin(r *http.Request, remoteOK bool) (ok bool, why string) {
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || u.Host == "" || !IsLoopbackHost(u.Hostname()) {
			return false, "Origin " + origin + " is not a loopback origin; this server only answers pages of this machine (DNS rebinding protection)"
		}
	}
	if !remoteOK {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if !IsLoopbackHost(host) {
			return false, "Host " + r.Host + " is not a loopback name; this server listens on loopback only (DNS rebinding protection)"
		}
	}
	return true, ""
}
