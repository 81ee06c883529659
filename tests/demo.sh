#!/bin/bash
# The life of one buffer, shown in a guest by "make demo": create it through
# configfs, look at it, write through a mapping and read it back, delete it.
set -u
cfs=/sys/kernel/config/udmabuf

step() {
	printf '\n\033[1m$ %s\033[0m\n' "$*"
	eval "$*"
}

step insmod "$UDMABUF_KO"
step mkdir $cfs/demo
step ls $cfs/demo
step 'echo 4M > $cfs/demo/size'
step 'echo 1 > $cfs/demo/enable'
step ls -l /dev/demo
step udmabufctl info demo
step udmabufctl list
step 'udmabuf-test mmap-fill /dev/demo 0 4096 42 && echo "pattern 42 written through mmap"'
step 'udmabuf-test read-verify /dev/demo 0 4096 42 && echo "read() returns the same bytes"'
step 'dd if=/dev/zero of=/dev/demo bs=1M count=5'
step 'echo 0 > $cfs/demo/enable'
step rmdir $cfs/demo
step 'ls /dev/demo || true'
step rmmod udmabuf-cfs
