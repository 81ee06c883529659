#!/bin/bash
# The guest side of "make bench" (tests/bench/run boots the guest with
# tests/vm/run --script and this file): load the module and run
# udmabuf-bench.  Its "@bench," and "@info," lines on the console are the
# results; tests/bench/run collects them from the console log.
#
# UDMABUF_TEST_BENCH_ARGS (from the host) adds options or picks tests,
# e.g. "--reps 3 sync".
set -euo pipefail

insmod "$UDMABUF_KO"

args=()
# Without CMA the largest buffer is the page allocator's (4 MiB): the 5 and
# 10 MiB check_buf rows say "not measured", so measure 4 MiB as well.
cma=$(awk '$1 == "CmaTotal:" {print $2}' /proc/meminfo)
if [[ -z $cma || $cma == 0 ]]; then
	args+=(--sizes "1,4,5,10")
fi
# shellcheck disable=SC2206 # word splitting of the options is intended
args+=(${UDMABUF_TEST_BENCH_ARGS:-})

start=$SECONDS
udmabuf-bench "${args[@]}"
echo "@info,arch,$UDMABUF_ARCH"
echo "@info,cma_total_kb,${cma:-0}"
echo "@info,bench_seconds,$((SECONDS - start))"
rmmod udmabuf-cfs
