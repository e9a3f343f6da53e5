package proxy

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/mcpoke/mcpoke/transport"
)

// upstreamMark starts the fragment of an installed HTTP entry's url that
// keeps the server's own address, for uninstall. HTTP clients never send
// a fragment, so the host's requests reach the proxy as they were.
const upstreamMark = "mcpoke-proxy-upstream="

// Install rewrites server's entry so that the host reaches it through
// mcpoke proxy: a stdio entry as InstallStdio does; an HTTP entry (a
// "url") gets the proxy's address at listen (host:port, loopback), with
// the server's path and query, and Start says how to start that proxy.
func Install(config []byte, server, mcpoke, listen string) (ConfigEdit, error) {
	e, err := findEntry(config, server)
	if err != nil {
		return ConfigEdit{}, err
	}
	um, isURL := find(e.members, "url")
	if _, hasCommand := find(e.members, "command"); hasCommand || !isURL {
		return InstallStdio(config, server, mcpoke)
	}
	var raw string
	if err := json.Unmarshal(config[um.start:um.end], &raw); err != nil {
		return ConfigEdit{}, fmt.Errorf("server %q: its url is not a string", server)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ConfigEdit{}, fmt.Errorf("server %q: its url %q is not an http(s) URL", server, transport.RedactURL(raw))
	}
	if up := upstreamOf(u); up != "" {
		return ConfigEdit{Old: config, New: config, Unchanged: fmt.Sprintf("server %q already goes through mcpoke proxy (at %s)", server, u.Host),
			Start: startCommand(mcpoke, server, up, u.Host)}, nil
	}
	if listen == "" {
		return ConfigEdit{}, fmt.Errorf("server %q is reached over HTTP: give the proxy's address with --listen 127.0.0.1:PORT", server)
	}
	if !IsLoopback(listen) {
		return ConfigEdit{}, fmt.Errorf("--listen %s is not a loopback address", listen)
	}
	if _, _, err := net.SplitHostPort(listen); err != nil {
		return ConfigEdit{}, fmt.Errorf("--listen %s: want host:port, such as 127.0.0.1:8931", listen)
	}
	proxied := *u
	proxied.Scheme, proxied.Host, proxied.User = "http", listen, nil
	proxied.Fragment = upstreamMark + raw
	text := marshalLine(proxied.String())
	return ConfigEdit{Old: config, New: splice(config, um.start, um.end, text), Start: startCommand(mcpoke, server, raw, listen)}, nil
}

// uninstallHTTP restores an HTTP entry that Install pointed at a proxy;
// ok is false for an entry that is no HTTP entry.
func uninstallHTTP(config []byte, server string, e entry) (edit ConfigEdit, ok bool, err error) {
	um, isURL := find(e.members, "url")
	if _, hasCommand := find(e.members, "command"); hasCommand || !isURL {
		return ConfigEdit{}, false, nil
	}
	var raw string
	if err := json.Unmarshal(config[um.start:um.end], &raw); err != nil {
		return ConfigEdit{}, true, fmt.Errorf("server %q: its url is not a string", server)
	}
	u, err := url.Parse(raw)
	up := ""
	if err == nil {
		up = upstreamOf(u)
	}
	if up == "" {
		return ConfigEdit{Old: config, New: config, Unchanged: fmt.Sprintf("server %q does not go through mcpoke proxy", server)}, true, nil
	}
	return ConfigEdit{Old: config, New: splice(config, um.start, um.end, marshalLine(up))}, true, nil
}

// upstreamOf is the server's own URL kept in an installed entry's url.
func upstreamOf(u *url.URL) string {
	up, ok := strings.CutPrefix(u.Fragment, upstreamMark)
	if !ok {
		return ""
	}
	return up
}

// startCommand is the command line that starts the proxy an installed
// HTTP entry points at.
func startCommand(mcpoke, server, upstream, listen string) string {
	return shellQuote(mcpoke) + " proxy --name " + shellQuote(server) + " --url " + shellQuote(upstream) + " --listen " + shellQuote(listen)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func splice(b []byte, start, end int, text []byte) []byte {
	out := append([]byte(nil), b[:start]...)
	out = append(out, text...)
	return append(out, b[end:]...)
}
