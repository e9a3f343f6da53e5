#!/bin/sh
# startup.sh BIN [N]: median and min wall time of `BIN --version` and
# `BIN tools` (the demo server: two processes), over N runs each.
bin=${1:-./mcpoke}; n=${2:-20}
time_runs() {
	for _ in $(seq "$n"); do
		t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N)
		echo $(( (t1 - t0) / 1000 ))
	done | sort -n | awk '{a[NR]=$1} END {printf "median %.1f ms  min %.1f ms\n", a[int((NR+1)/2)]/1000, a[1]/1000}'
}
printf '%-10s ' --version; time_runs "$bin" --version
printf '%-10s ' tools; time_runs "$bin" tools
