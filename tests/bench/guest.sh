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

start=$SECONDS
# shellcheck disable=SC2086 # word splitting of the options is intended
udmabuf-bench ${UDMABUF_TEST_BENCH_ARGS:-}
echo "@info,arch,$UDMABUF_ARCH"
echo "@info,cma_total_kb,$(awk '$1 == "CmaTotal:" {kb = $2} END {print kb + 0}' /proc/meminfo)"
echo "@info,bench_seconds,$((SECONDS - start))"
rmmod udmabuf-cfs
