#!/bin/sh
# bench-floor.sh BIN [RUNS] [ARGS...]: RUNS runs of `BIN bench --floor` on
# the demo server; one line each: p50, the floor's p50, their ratio, and
# calls/s.
bin=$1; runs=${2:-3}; shift 2
for _ in $(seq "$runs"); do
	"$bin" bench --floor --cancel-probes 0 --json "$@" | python3 -c 'import json,sys
d=json.load(sys.stdin); f=d["floor"]
print("p50 %.4f ms  floor p50 %.4f ms  = %.2fx  %6.0f calls/s (floor %6.0f/s)" % (d["p50Ms"], f["p50Ms"], d["p50VsFloor"], d["callsPerSec"], f["callsPerSec"]))'
done
