#!/bin/sh
# A stand-in for the person at the browser in the conformance suite's auth
# scenarios: the suite's authorization server approves at once, so
# following its redirects to mcpoke's loopback listener completes the
# login. curl when there is one, else Node's fetch (run-client sets NODE22).
if command -v curl >/dev/null 2>&1; then
	exec curl -fsSL -o /dev/null "$1"
fi
exec "${NODE22:-node}" -e 'fetch(process.argv[1]).then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$1"
