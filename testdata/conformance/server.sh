#!/bin/sh
# Runs the server scenarios of the official MCP conformance suite against
# `mcpoke demo-server --http --conformance-tools` on a free loopback port.
# Scenarios for features the demo server lacks are listed, with reasons, in
# expected-failures.yaml; any other failure (or a warning), or a listed
# scenario that now passes, makes the run fail.
#
# Needs Node >= 22 ($NODE, default node) and
# @modelcontextprotocol/conformance@0.1.16 installed under $CONFORMANCE_DIR
# (default ~/.cache/mcpoke-conformance); .ci/run installs both. $MCPOKE
# names a built mcpoke; by default the script builds one.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
node=${NODE:-node}
dir=${CONFORMANCE_DIR:-$HOME/.cache/mcpoke-conformance}
cli=$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js
if [ ! -f "$cli" ]; then
	echo "conformance suite not installed in $dir; run: npm install --prefix $dir @modelcontextprotocol/conformance@0.1.16" >&2
	exit 2
fi

work=$(mktemp -d)
pid=""
cleanup() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

mcpoke=${MCPOKE:-}
if [ -z "$mcpoke" ]; then
	(cd "$root" && go build -o "$work/mcpoke" .)
	mcpoke=$work/mcpoke
fi

"$mcpoke" demo-server --http 127.0.0.1:0 --conformance-tools 2>"$work/stderr" &
pid=$!
url=""
for _ in $(seq 100); do
	url=$(sed -n 's/^mcpoke demo-server: Streamable HTTP at \(http:[^ ]*\)$/\1/p' "$work/stderr")
	[ -n "$url" ] && break
	sleep 0.1
done
if [ -z "$url" ]; then
	echo "the demo server did not say its URL within 10s; its stderr:" >&2
	cat "$work/stderr" >&2
	exit 1
fi

cd "$work"
status=0
"$node" "$cli" server --url "$url" --suite all \
	--expected-failures "$here/expected-failures.yaml" -o "$work/results" || status=$?
if [ "$status" -ne 0 ]; then
	echo "conformance: unexpected results against $url; the demo server's stderr:" >&2
	cat "$work/stderr" >&2
fi
exit "$status"
