#!/bin/sh
# bench-http.sh MCPOKE GOSDK_BENCH [N]: echo over Streamable HTTP against
# `MCPOKE demo-server --http`, by mcpoke bench --url, the TypeScript SDK's
# client (testdata/bench/sdk_echo_bench.mjs) and the Go SDK's
# (testdata/peers/gosdk/bench), one after the other on the same server.
# Prints one line per client: p50, p99 (ms) and calls/s.
set -e
bin=$1; gosdk=$2; n=${3:-2000}
node=${NODE:-node}
here=$(cd "$(dirname "$0")/.." && pwd)
log=$(mktemp)
"$bin" demo-server --http 127.0.0.1:0 2>"$log" &
pid=$!
trap 'kill $pid 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 100); do url=$(grep -o 'http://[^ ]*/mcp' "$log" | head -1); [ -n "$url" ] && break; sleep 0.05; done
fig() { python3 -c 'import json,sys; d=json.load(sys.stdin); print("%-8s p50 %.4f ms  p99 %.4f ms  %6.0f calls/s" % (sys.argv[1], d["p50Ms"], d["p99Ms"], d["callsPerSec"]))' "$1"; }
"$bin" bench --json --cancel-probes 0 --transport http --url "$url" --args '{"text":"hi"}' -n "$n" | fig mcpoke
"$node" "$here/testdata/bench/sdk_echo_bench.mjs" --url "$url" --args '{"text":"hi"}' -n "$n" | fig ts-sdk
"$gosdk" -url "$url" -args '{"text":"hi"}' -header Mcp-Param-Text=hi -n "$n" | fig go-sdk
