# shellcheck shell=bash
# The VM_* globals set here are used by the scripts that source this file.
# shellcheck disable=SC2034
# Shared functions of the QEMU guest harness (tests/vm/run, tests/vm/deps).
#
# Everything downloaded (Debian kernel image/headers, arm64 userland) lives in a
# cache outside the checkout so that a warm run needs no network and the work
# tree stays clean; everything built from the checkout lives in build/<arch>/
# (gitignored) so that it can be inspected after a failing run.

# The harness's builds are its own business, not a parent make's jobs (make
# -j2 check bench): without this every sub-make warns that the
# jobserver is unavailable, and the warning shows up as a build warning.
unset MAKEFLAGS MFLAGS MAKELEVEL

# Repository root: this file is tests/vm/lib.sh.
VM_LIB_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd -- "$VM_LIB_DIR/../.." && pwd)

# Debian release whose kernel we boot; the host must be the same release so
# that its linux-kbuild-6.1 scripts and compilers match the headers.
VM_KBUILD_PKG=linux-kbuild-6.1

# Host packages the harness needs (tests/vm/deps installs them), with why.
VM_HOST_PACKAGES=(
	# the guests; amd64's userland is the host's
	qemu-system-x86 qemu-system-arm
	busybox-static bash bash-static jq bats bats-assert bats-support
	# native static binaries; kbuild; readelf (vm_copy_elf)
	gcc gcc-12 libc6-dev make binutils
	# arm64's module and binaries; 32-bit helpers for the compat ioctl tests
	# (tests/helpers/*.c marked build-compat32) of amd64 and arm64
	gcc-aarch64-linux-gnu gcc-12-aarch64-linux-gnu libc6-dev-arm64-cross
	gcc-i686-linux-gnu libc6-dev-i386-cross
	# armhf's module and binaries; armhf's own modpost (vm_kbuild_armhf)
	gcc-arm-linux-gnueabihf libc6-dev-armhf-cross qemu-user-static
	# the kbuild scripts Debian's headers link to (gcc-12: the headers' CC)
	"$VM_KBUILD_PKG"
	# debootstrap: the build roots of other releases' kernels (sid, bullseye)
	debootstrap
	# the initramfs; compressed modules; flock; --dt
	cpio gzip xz-utils zstd dpkg apt coreutils util-linux device-tree-compiler
	# the debug kernels (tests/vm/debug.sh; libelf-dev: objtool)
	flex bison bc libelf-dev libssl-dev
	# gnuplot: the charts of make bench (tests/bench/run)
	gnuplot-nox
	# pkgconf: the host test of libudmabuf's installed pkg-config file
	pkgconf
	# python3.11-minimal: compiles the byte code of the guest's python
	python3.11-minimal
	# pahole: bookworm's 6.12 headers run it on every module (BTF)
	pahole
	# kmod: modinfo and depmod -b for the guest modules (brd, vgem, vivid...)
	kmod
	# python3-numpy: the host tests of the Python binding (tests/python/check)
	python3-numpy
	# libsmartcols-dev: udmabufctl's tables and JSON (tools/udmabufctl)
	libsmartcols-dev
	# bash-completion: the CLI's completion tests also run with its
	# functions, as most users' shells have them
	bash-completion
)

# Guest userland packages of arm64, armhf and riscv64 (vm_fetch_userland;
# amd64 uses the host's binaries): jq and its libraries (vm_copy_elf fails
# on a NEEDED library not found); libsmartcols, which udmabufctl is
# cross-linked against (Debian ships no static one) and runs with.
VM_CROSS_USERLAND=(busybox-static bash-static libc6 jq libjq1 libonig5 libsmartcols1
	libsmartcols-dev)

# Dynamically linked programs copied into the guest with their libraries
# (busybox provides everything else; bash is bash-static, see tests/vm/run).
VM_GUEST_PROGS=(jq)

# Patterns that mark a broken kernel: extended regexes (mostly plain
# strings), case-sensitive, matched against every line the guest kernel
# printed.  "Call [Tt]race": x86 prints "Call Trace:", arm64 "Call trace:"
# (e.g. for a page allocation failure, which comes without a WARNING line).
VM_BAD_PATTERNS=(
	'BUG:' 'WARNING:' 'Oops' 'Call [Tt]race' 'kernel BUG' 'general protection fault'
	'possible circular locking' 'possible recursive locking' 'INFO: task'
	'lockdep' 'KASAN' 'UBSAN' 'kmemleak' 'DMA-API' 'Kernel panic'
	'unreferenced object'
)

# Lines that match a bad pattern but only say that a checker is on (the
# debug kernel's boot messages); extended regexes, matched like the above.
VM_BENIGN_PATTERNS=(
	'DMA-API: preallocated [0-9]+ debug entries'
	'DMA-API: debugging enabled by kernel config'
	'kmemleak: Kernel memory leak detector initialized'
	'kmemleak: Automatic memory scanning thread (started|ended)'
	'rcu:[[:space:]]+RCU lockdep checking is enabled'
)

vm_log() { printf '%s\n' "vm: $*" >&2; }
vm_warn() { printf '%s\n' "vm: warning: $*" >&2; }
vm_die() {
	printf '%s\n' "vm: error: $*" >&2
	exit 1
}

# Verbose output (--verbose / UDMABUF_VM_VERBOSE=1) shows build logs and the
# whole console; otherwise the harness is quiet on success.
vm_verbose() { [[ ${UDMABUF_VM_VERBOSE:-0} != 0 ]]; }

# Run a command with its output in a log file; on failure show the log's tail.
# Why: the harness must be quiet on success but a failed build must say why.
vm_run_logged() {
	local logfile=$1
	shift
	if vm_verbose; then
		"$@" 2>&1 | tee -a "$logfile"
		return "${PIPESTATUS[0]}"
	fi
	if ! "$@" >>"$logfile" 2>&1; then
		vm_warn "command failed: $*"
		tail -n 60 "$logfile" >&2
		vm_warn "full log: $logfile"
		return 1
	fi
}

# TAP of the host checks that source this file: vm_tap_ok STATUS TEXT
# [WHY] is a check, passed if STATUS is 0, WHY's lines shown if not;
# vm_tap_plan ends, failing if one failed.
VM_TAP_N=0
VM_TAP_FAILED=0
vm_tap_ok() {
	VM_TAP_N=$((VM_TAP_N + 1))
	(($1 == 0)) || { VM_TAP_FAILED=1; printf 'not '; }
	echo "ok $VM_TAP_N - $2"
	(($1 == 0)) || [[ -z ${3:-} ]] || printf '# %s\n' "${3//$'\n'/$'\n'# }"
}
vm_tap_plan() {
	echo "1..$VM_TAP_N"
	exit "$VM_TAP_FAILED"
}

vm_cache_root() {
	printf '%s\n' "${UDMABUF_CFS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/udmabuf-cfs}"
}

vm_is_root() { [[ $(id -u) == 0 ]]; }

# ---------------------------------------------------------------------------
# Builds shared between runs.  make check boots a dozen guests; those of one
# arch run the same test helpers and CLI, those of one kernel the same
# module.  Each build is kept in the cache under a hash of everything it is
# made of (sources, compiler, kernel headers, flags) and made once.

# vm_inputs_hash [-s STRING]... [PATH]...: a short hash of the STRINGs and
# of the names (relative to the checkout) and contents of the files under
# the PATHs.
vm_inputs_hash() {
	{
		while [[ ${1:-} == -s ]]; do
			printf 'string %s\n' "$2"
			shift 2
		done
		(($#)) && (cd "$REPO_ROOT" && find "${@#"$REPO_ROOT"/}" -type f -print0 |
			LC_ALL=C sort -z | xargs -0 sha256sum)
	} | sha256sum | cut -c1-16
}

# vm_cc_id [EXEC] CC: the compiler's name and version (EXEC: where it runs).
vm_cc_id() { "$@" --version 2>/dev/null | head -n 1; }

# vm_cached_build NAME KEY FUNC: FUNC DIR builds into the empty directory
# DIR; the result is kept as builds/NAME-KEY and shared by every later run
# whose inputs hash to KEY.  Sets VM_CACHED_DIR.  A failed build leaves
# nothing; concurrent runs wait for the first.  The 12 most recently used
# builds of each NAME are kept.
vm_cached_build() {
	local name=$1 key=$2 fn=$3 root dir lock rc=0 old n=0
	root=$(vm_cache_root)/builds
	dir=$root/$name-$key
	mkdir -p "$root"
	exec {lock}>"$dir.lock"
	flock "$lock"
	if [[ ! -e $dir/.built ]]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		"$fn" "$dir" || rc=$?
		if ((rc)); then
			rm -rf "$dir"
			exec {lock}>&-
			return "$rc"
		fi
	fi
	touch "$dir/.built"
	exec {lock}>&-
	VM_CACHED_DIR=$dir
	while IFS= read -r old; do
		n=$((n + 1))
		((n > 12)) || continue
		rm -rf "${old%/.built}" "${old%/.built}.lock"
	done < <(ls -t "$root/$name"-*/.built 2>/dev/null)
}

# Debian architecture name -> names used by the toolchain, kbuild and QEMU.
vm_arch_setup() {
	VM_ARCH=$1
	# VM_CC_EXEC: what runs VM_CC and the builds of the guest's programs
	# (empty: here, on the host).
	VM_CC_EXEC=()
	# The toolchain choices below (native gcc for amd64, the TRIPLET- cross
	# compiler for the others) and the apt setup assume a Debian amd64
	# host.  A row: VM_KARCH VM_KFLAVOUR (the kernel packages' flavour,
	# linux-image-ABI-FLAVOUR) VM_TRIPLET VM_CC32 (a compiler of 32-bit
	# programs for the compat ioctl tests; "-": none, where the guest is
	# 32-bit itself) VM_QEMU VM_CONSOLE.
	local host row
	host=$(dpkg --print-architecture 2>/dev/null || echo unknown)
	[[ $host == amd64 ]] || vm_die "the harness runs on a Debian amd64 host (this is $host)"
	case $VM_ARCH in
	amd64) row='x86 amd64 x86_64-linux-gnu i686-linux-gnu-gcc qemu-system-x86_64 ttyS0' ;;
	arm64) row='arm64 arm64 aarch64-linux-gnu arm-linux-gnueabihf-gcc qemu-system-aarch64 ttyAMA0' ;;
	armhf)
		# Debian's armmp flavour (ARMv7, multiplatform, no LPAE): what
		# Zynq-7000 and Cyclone V boards run.
		row='arm armmp arm-linux-gnueabihf - qemu-system-arm ttyAMA0'
		;;
	riscv64)
		# Debian's riscv64 kernels are trixie's and sid's (a release
		# architecture since Debian 13; bookworm has none): the kernel,
		# its module build and the guest's userland are sid's
		# (--suite sid).  QEMU is bookworm-backports' (vm_fetch_qemu).
		[[ -n ${UDMABUF_KERNEL_SUITE:-} ]] ||
			vm_die "riscv64: Debian has riscv64 kernels from trixie on, not in $(. /etc/os-release && echo "${VERSION_CODENAME:-this release}"): add --suite sid"
		row='riscv riscv64 riscv64-linux-gnu - qemu-system-riscv64 ttyS0'
		# Its programs are built in the sid build root, with sid's
		# C library (VM_BUILDROOT_RISCV64).
		VM_CC_EXEC=(vm_buildroot_exec)
		;;
	*) vm_die "unsupported arch '$VM_ARCH' (amd64, arm64, armhf or riscv64)" ;;
	esac
	read -r VM_KARCH VM_KFLAVOUR VM_TRIPLET VM_CC32 VM_QEMU VM_CONSOLE <<<"$row"
	[[ $VM_CC32 == - ]] && VM_CC32=
	VM_CROSS=$VM_TRIPLET-
	[[ $VM_ARCH == amd64 ]] && VM_CROSS=
	VM_CC=${VM_CROSS}gcc
	# Debian's PREEMPT_RT kernels: linux-image-rt-amd64, -rt-arm64.
	case ${UDMABUF_KERNEL_FLAVOUR:-} in
	'') ;;
	rt) [[ $VM_ARCH != armhf ]] || vm_die "Debian has no PREEMPT_RT kernel for armhf"
		VM_KFLAVOUR=rt-$VM_KFLAVOUR ;;
	*) vm_die "unknown kernel flavour '$UDMABUF_KERNEL_FLAVOUR' (rt)" ;;
	esac
	VM_BUILD=${UDMABUF_VM_BUILD_DIR:-$REPO_ROOT/build/$VM_ARCH}
}

# ---------------------------------------------------------------------------
# apt access
#
# The host's arch and release (amd64, bookworm) use the system's apt
# configuration and lists as they are; another arch or release
# (UDMABUF_KERNEL_SUITE: sid, bullseye) a private one in the cache (own
# lists and dpkg status, APT::Architecture), so that the host's dpkg and
# apt state is never modified.
vm_suite() { printf '%s\n' "${UDMABUF_KERNEL_SUITE:-}"; }

vm_apt_private() { [[ $VM_ARCH != amd64 || -n $(vm_suite) ]]; }

vm_apt_private_dir() {
	local s
	s=$(vm_suite)
	printf '%s\n' "$(vm_cache_root)/apt/${s:+$s-}$VM_ARCH"
}

vm_apt_opts() {
	VM_APT_OPTS=()
	if vm_is_root; then
		# apt drops privileges to _apt for downloads, which cannot write to a
		# cache below /root; downloading as root is what apt falls back to anyway
		# (with a warning), so say it up front and stay quiet.
		VM_APT_OPTS+=(-o APT::Sandbox::User=root)
	fi
	vm_apt_private || return 0
	local d
	d=$(vm_apt_private_dir)
	VM_APT_OPTS+=(
		-o "APT::Architecture=$VM_ARCH"
		-o "APT::Architectures=$VM_ARCH"
		-o "Dir::Etc::SourceList=$d/etc/sources.list"
		-o "Dir::Etc::SourceParts=$d/etc/sources.list.d"
		-o "Dir::Etc::Preferences=$d/etc/preferences"
		-o "Dir::Etc::PreferencesParts=$d/etc/preferences.d"
		-o "Dir::State=$d/state"
		-o "Dir::State::Lists=$d/state/lists"
		-o "Dir::State::status=$d/state/status"
		-o "Dir::Cache=$d/cache"
		-o "Debug::NoLocking=true"
	)
}

# Create the private apt tree for a foreign architecture (idempotent).
vm_apt_private_init() {
	vm_apt_private || return 0
	local d f
	d=$(vm_apt_private_dir)
	[[ -f $d/.initialised ]] && return 0
	mkdir -p "$d/etc/sources.list.d" "$d/etc/preferences.d" \
		"$d/state/lists/partial" "$d/cache/archives/partial"
	: >"$d/state/status"
	: >"$d/etc/preferences"
	: >"$d/etc/sources.list"
	if [[ -n $(vm_suite) ]]; then
		vm_suite_sources >"$d/etc/sources.list.d/debian.sources" ||
			vm_die "no Debian mirror in the host's apt sources for $(vm_suite)"
		touch "$d/.initialised"
		return 0
	fi
	# Same mirrors as the host (Debian's own deb822 .sources or .list files).
	[[ -f /etc/apt/sources.list ]] && cp /etc/apt/sources.list "$d/etc/sources.list"
	for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[[ -f $f ]] && cp "$f" "$d/etc/sources.list.d/"
	done
	touch "$d/.initialised"
}

# vm_suite_mirror: the URI of the host's Debian archive (the one that serves
# the host's own release, not its security archive), from its deb822 or
# one-line sources.
vm_suite_mirror() {
	local f code
	code=$(. /etc/os-release && printf '%s\n' "${VERSION_CODENAME:-}")
	[[ -n $code ]] || return 1
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -f $f ]] || continue
		awk -v code="$code" '
			tolower($1) == "uris:" {u = $2}
			tolower($1) == "suites:" && u != "" {
				for (i = 2; i <= NF; i++) if ($i == code) {print u; exit}
			}
			/^[[:space:]]*$/ {u = ""}' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[[ -f $f ]] || continue
		awk -v code="$code" '$1 == "deb" {
			for (i = 2; i < NF; i++) if ($i ~ /^[a-z]+:\/\// && $(i + 1) == code) {print $i; exit}
		}' "$f"
	done
}

# vm_suite_sources: deb822 sources of the suite's main component, from the
# host's mirror and keyring.
vm_suite_sources() {
	local uri
	uri=$(vm_suite_mirror | head -n 1)
	[[ -n $uri ]] || return 1
	printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n' \
		"$uri" "$(vm_suite)" /usr/share/keyrings/debian-archive-keyring.gpg
}

# The private lists follow the host's (updated after ours: ours too), so
# that every arch boots the same kernel ABI; otherwise no network.
vm_apt_private_follow_host() {
	vm_apt_private || return 0
	local stamp newest
	stamp=$(vm_apt_private_dir)/state/lists/.updated
	[[ -f $stamp ]] || return 0 # never updated: vm_apt_known will say so
	if [[ -n $(vm_suite) ]]; then
		# Another release moves on its own (sid's kernel every few
		# weeks): its lists are a day old at most, so that the lanes
		# meet a new kernel when users do.  Offline, the old lists stay.
		[[ -z $(find "$stamp" -mmin +1440) ]] && return 0
		vm_log "apt-get update ($(vm_suite), $VM_ARCH): the lists are a day old"
		if vm_apt_get_update; then
			touch "$stamp"
		else
			vm_warn "apt-get update of $(vm_suite) failed; using the lists of $(date -r "$stamp" +%F)"
		fi
		return 0
	fi
	newest=$(find /var/lib/apt/lists -maxdepth 1 -name '*InRelease' -newer "$stamp" -print -quit 2>/dev/null)
	[[ -z $newest ]] || vm_apt_update
}

# apt-get download in the current directory; on failure (stale lists: the
# mirror no longer has that version) update the lists and try once more.
vm_apt_download() {
	local log=$1
	shift
	vm_run_logged "$log" vm_apt_get download "$@" && return 0
	vm_apt_update
	vm_run_logged "$log" vm_apt_get download "$@"
}

# vm_apt_host_download LOG PKG...: download the host architecture's PKG
# (kbuild's programs run here whatever the guest's arch), from the suite's
# archive, in the current directory.
vm_apt_host_download() {
	(
		VM_ARCH=amd64
		vm_apt_opts
		vm_apt_private_init
		vm_apt_known "$2" || vm_apt_update
		vm_apt_download "$@"
	)
}

vm_apt_get() { apt-get -q "${VM_APT_OPTS[@]}" "$@"; }
vm_apt_cache() { apt-cache "${VM_APT_OPTS[@]}" "$@"; }

# vm_apt_get_update: apt-get update, tried again after 30 and 60 s if it
# fails: a mirror in the middle of a sync serves an index of another size
# than its Release file says ("Mirror sync in progress?") for a while.
# One at a time (a subshell holds the lock): the private lists have no
# lock of apt's, and a lane and a debug kernel's build may update the same.
vm_apt_get_update() (
	local wait log lock
	log=$(vm_cache_root)/apt-update.log
	mkdir -p "$(vm_cache_root)"
	exec {lock}>"$(vm_cache_root)/apt-update.lock"
	flock "$lock"
	for wait in 30 60 ''; do
		vm_run_logged "$log" vm_apt_get update && return 0
		[[ -n $wait ]] || return 1
		vm_warn "apt-get update failed (a mirror syncing?): trying again in $wait s"
		sleep "$wait"
	done
)

# apt-get update for the arch's configuration: the private one always may be
# updated; the system one only as root.
vm_apt_update() {
	if ! vm_apt_private && ! vm_is_root; then
		vm_die "the host's apt lists lack what is needed; run 'sudo apt-get update' (or set UDMABUF_KERNEL_ABI)"
	fi
	vm_apt_private_init
	vm_log "apt-get update ($VM_ARCH)"
	if ! vm_apt_get_update; then
		# apt keeps what it could fetch, and the lists it had of the
		# rest; a package they do not have fails its download, by name.
		vm_apt_have_lists ||
			vm_die "apt-get update failed and there are no lists of packages"
		vm_warn "apt-get update failed: using the lists apt has"
		return 0
	fi
	if vm_apt_private; then
		touch "$(vm_apt_private_dir)/state/lists/.updated"
	fi
}

# vm_apt_have_lists: the arch's apt configuration has some list of packages.
vm_apt_have_lists() {
	local d=/var/lib/apt/lists
	vm_apt_private && d=$(vm_apt_private_dir)/state/lists
	compgen -G "$d/*_Packages*" >/dev/null
}

# True if the package is known to apt (with a candidate version).
vm_apt_known() {
	local cand
	cand=$(vm_apt_cache policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2}')
	[[ -n $cand && $cand != "(none)" ]]
}

# Default kernel ABI: what Debian's meta package currently depends on;
# UDMABUF_KERNEL_SERIES (e.g. 6.12) picks bookworm's linux-image-6.12-ARCH.
vm_resolve_abi() {
	if [[ -n ${UDMABUF_KERNEL_ABI:-} ]]; then
		VM_ABI=$UDMABUF_KERNEL_ABI
		return 0
	fi
	local meta=linux-image-${UDMABUF_KERNEL_SERIES:+$UDMABUF_KERNEL_SERIES-}$VM_KFLAVOUR
	vm_apt_private_init
	vm_apt_private_follow_host
	if ! vm_apt_known "$meta"; then
		vm_apt_update
		vm_apt_known "$meta" || vm_die "apt does not know $meta"
	fi
	VM_ABI=$(vm_apt_cache depends "$meta" 2>/dev/null |
		sed -n "s/^ *Depends: linux-image-\(.*\)-$VM_KFLAVOUR\$/\1/p" | head -n 1)
	[[ -n $VM_ABI ]] || vm_die "cannot find the kernel ABI of $meta"
}

# ---------------------------------------------------------------------------
# Build roots
#
# A kernel of another Debian release is built against with that release's
# compiler and kbuild host programs (sid's headers name flags bookworm's gcc
# rejects, its kbuild programs need a newer glibc; bullseye's 5.10 wants gcc
# 10): in a chroot of that release (debootstrap --variant=minbase, made once,
# brought up to date weekly) with the cache bind-mounted at its own path, in
# a mount namespace of the build's own, so that every path means the same
# inside and out and nothing stays mounted.  dwarves: pahole (BTF).
VM_BUILDROOT_PACKAGES=(gcc libc6-dev make libelf-dev bc bison flex kmod dwarves
	gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf)
# Bump when the recipe changes: the root is made again.
VM_BUILDROOT_RECIPE=1
# riscv64's cross compiler, C library and pkg-config, added to the root by
# vm_buildroot_add (in the recipe, a change of either list would make the
# root again for every lane and checkout sharing the cache).  Its module
# and programs are built there (VM_CC_EXEC): sid's libsmartcols needs a
# newer glibc than bookworm's cross C library.
VM_BUILDROOT_RISCV64=(gcc-riscv64-linux-gnu libc6-dev-riscv64-cross pkgconf)

vm_buildroot_dir() { printf '%s\n' "$(vm_cache_root)/buildroot/$(vm_suite)"; }

# vm_buildroot: make (or bring up to date) the suite's build root.  Needs
# root (debootstrap, chroot).
vm_buildroot() {
	local root lock stamp uri
	root=$(vm_buildroot_dir)
	mkdir -p "${root%/*}"
	# The lanes of every arch share it: one makes it, the others wait.
	exec {lock}>"$root.lock"
	flock "$lock"
	stamp="$VM_BUILDROOT_RECIPE ${VM_BUILDROOT_PACKAGES[*]}"
	if [[ -f $root.complete && $(<"$root.complete") == "$stamp" ]]; then
		# A week old: the release's compiler may have moved on with its
		# kernel.  Without network the root stays as it is.
		if [[ -n $(find "$root.complete" -mtime +6) ]]; then
			vm_log "bringing the $(vm_suite) build root up to date"
			if vm_buildroot_apt update && vm_buildroot_apt dist-upgrade; then
				touch "$root.complete"
			else
				vm_warn "updating the $(vm_suite) build root failed ($root.log); building with it as it is"
			fi
		fi
		exec {lock}>&-
		return 0
	fi
	vm_is_root || vm_die "the $(vm_suite) kernel is built in a $(vm_suite) chroot: run as root (debootstrap, chroot)"
	command -v debootstrap >/dev/null || vm_die "debootstrap is not installed (run tests/vm/deps)"
	uri=$(vm_suite_mirror | head -n 1)
	[[ -n $uri ]] || vm_die "no Debian mirror in the host's apt sources"
	vm_log "making a Debian $(vm_suite) build root (debootstrap, once; $root.log)"
	rm -rf "$root" "$root.complete"
	mkdir -p "$root"
	: >"$root.log"
	vm_run_logged "$root.log" debootstrap --variant=minbase \
		--include="$(IFS=,; printf '%s' "${VM_BUILDROOT_PACKAGES[*]}")" \
		"$(vm_suite)" "$root" "$uri" || {
		rm -rf "$root"
		vm_die "debootstrap of $(vm_suite) failed ($root.log)"
	}
	rm -rf "$root/var/cache/apt/archives"/*.deb
	printf '%s\n' "$stamp" >"$root.complete"
	exec {lock}>&-
}

# vm_buildroot_add PKG...: the suite's build root (vm_buildroot) with the
# PKGs installed too, for what a host check runs in it (tests/python/check:
# sid's python3-numpy).  Not part of the root's recipe: adding them neither
# makes the root again nor goes into a fresh one's debootstrap, and the
# weekly dist-upgrade keeps them up to date.  Needs root.
vm_buildroot_add() {
	local root lock p missing=()
	vm_buildroot
	root=$(vm_buildroot_dir)
	exec {lock}>"$root.lock"
	flock "$lock"
	for p in "$@"; do
		dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${db:Status-Status}\n' \
			"$p" 2>/dev/null | grep -qx installed || missing+=("$p")
	done
	if ((${#missing[@]})); then
		vm_log "installing ${missing[*]} into the $(vm_suite) build root ($root.log)"
		# The root's lists may be too old for the archive: update after a
		# failure and try again.
		vm_buildroot_apt --no-install-recommends install "${missing[@]}" ||
			{ vm_buildroot_apt update &&
				vm_buildroot_apt --no-install-recommends install "${missing[@]}"; } ||
			vm_die "installing ${missing[*]} into the $(vm_suite) build root failed ($root.log)"
		rm -f "$root/var/cache/apt/archives"/*.deb
	fi
	exec {lock}>&-
}

# vm_buildroot_apt ARGS...: apt-get -y ARGS in the suite's build root, its
# output in the root's log.
vm_buildroot_apt() {
	vm_buildroot_exec env DEBIAN_FRONTEND=noninteractive apt-get -q -y "$@" \
		>>"$(vm_buildroot_dir).log" 2>&1
}

# vm_buildroot_exec CMD...: run CMD in the suite's build root, with /proc
# (objtool reads it) and the cache mounted, and the checkout read-only (the
# riscv64 programs' builds read their sources in place), as root.
vm_buildroot_exec() {
	local root cache
	root=$(vm_buildroot_dir)
	cache=$(vm_cache_root)
	cache=$(cd "$cache" && pwd -P)
	unshare --mount --propagation private -- /bin/bash -c '
		set -e
		root=$1 cache=$2 src=$3
		shift 3
		mount -t proc proc "$root/proc"
		mkdir -p "$root$cache" "$root$src"
		mount --bind "$cache" "$root$cache"
		mount --bind "$src" "$root$src"
		mount -o remount,bind,ro "$root$src"
		exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 "$@"' vm-buildroot "$root" "$cache" "$(cd "$REPO_ROOT" && pwd -P)" "$@"
}

# ---------------------------------------------------------------------------
# Kernel image and headers

# Fills VM_KROOT (unpacked image+headers), VM_KDIR (kbuild dir), VM_VMLINUZ,
# VM_MODDIR (the image's /lib/modules/<release>).
vm_fetch_kernel() {
	local rel=$VM_ABI-$VM_KFLAVOUR
	local base common
	base=$(vm_cache_root)/$VM_ARCH/$VM_ABI${UDMABUF_KERNEL_FLAVOUR:+-$UDMABUF_KERNEL_FLAVOUR}
	VM_KROOT=$base/root
	VM_KDIR=$VM_KROOT/usr/src/linux-headers-$rel
	VM_VMLINUZ=$VM_KROOT/boot/vmlinuz-$rel
	VM_MODDIR=$VM_KROOT/lib/modules/$rel
	VM_KCONFIG=$VM_KROOT/boot/config-$rel
	if [[ ! -f $base/.complete ]]; then
		local pkgs=("linux-image-$rel" "linux-headers-$rel")
		vm_apt_private_init
		vm_apt_known "linux-headers-$rel" || vm_apt_update
		# The flavour's common headers (-common, -common-rt), as the headers
		# depend on them.
		common=$(vm_apt_cache depends "linux-headers-$rel" 2>/dev/null |
			sed -n 's/^ *Depends: \(linux-headers-.*-common[a-z-]*\)$/\1/p' | head -n 1)
		pkgs+=("${common:-linux-headers-$VM_ABI-common}")
		# Since 7.x (sid) linux-image is a package of dependencies: the image
		# is in linux-binary, the modules in linux-modules, and so on.
		mapfile -t -O "${#pkgs[@]}" pkgs < <(vm_apt_cache depends "linux-image-$rel" 2>/dev/null |
			awk -v rel="-$rel" '$1 == "Depends:" && $2 ~ /^linux-/ && $2 != "linux-image" rel &&
				substr($2, length($2) - length(rel) + 1) == rel {print $2}')
		vm_apt_unpack "$base" "$VM_KROOT" "kernel $rel" "${pkgs[@]}"
		# Packages of a merged-/usr release put the modules in /usr/lib only.
		[[ -e $VM_KROOT/lib || ! -d $VM_KROOT/usr/lib ]] || ln -s usr/lib "$VM_KROOT/lib"
		# The headers' version: what apt-get download took.
		vm_apt_cache policy "linux-headers-$rel" 2>/dev/null |
			awk '/Candidate:/ {print $2}' >"$base/version"
		# vm_fix_headers downloads into debs/; only the tree is kept.
		mkdir -p "$base/debs"
		vm_fix_headers "$base"
		rm -rf "$base/debs"
		touch "$base/.complete"
	fi
	# Since 7.x (sid) they are in the modules' directory, not in /boot.
	if [[ ! -e $VM_VMLINUZ && -e $VM_MODDIR/vmlinuz ]]; then
		VM_VMLINUZ=$VM_MODDIR/vmlinuz
		VM_KCONFIG=$VM_MODDIR/config
	fi
}

# Debian's headers are meant to live in /usr/src: the arch Makefile includes
# the -common one by absolute path, and scripts/ and tools/ are relative
# symlinks to /usr/lib/linux-kbuild-VERSION (host binaries, also for arm64,
# which is what a cross build needs).  Point both at the unpacked tree and
# the host's kbuild; a kernel series other than the host's (bookworm's 6.12)
# gets its own kbuild package, the host's architecture, unpacked beside it.
vm_fix_headers() {
	local base=$1 common kb
	# The common headers, as the flavour's Makefile includes them.
	common=$(sed -n 's|^include /usr/src/\(linux-headers-[^/]*\)/Makefile$|\1|p' "$VM_KDIR/Makefile" 2>/dev/null)
	[[ -n $common ]] || vm_die "unexpected header layout in $VM_KROOT"
	# Every path of /usr/src it names (newer ones also KBUILD_OUTPUT).
	sed -i -E "s#(^|[ =])/usr/src/#\1$VM_KROOT/usr/src/#g" "$VM_KDIR/Makefile"
	common=$VM_KROOT/usr/src/$common
	[[ -d $VM_KDIR && -d $common ]] || vm_die "unexpected header layout in $VM_KROOT"
	mkdir -p "$VM_KROOT/usr/lib"
	kb=$(readlink "$common/scripts")
	kb=${kb#../../lib/}
	kb=${kb%/scripts}
	if [[ -z $kb || $kb == "$VM_KBUILD_PKG" ]]; then
		if [[ $VM_ARCH == armhf ]]; then
			vm_kbuild_armhf "$base"
			return 0
		fi
		ln -sfn "/usr/lib/$VM_KBUILD_PKG" "$VM_KROOT/usr/lib/$VM_KBUILD_PKG"
		return 0
	fi
	(cd "$base/debs" && vm_apt_host_download "$base/download.log" "$kb") ||
		vm_die "downloading $kb (the headers' kbuild) failed"
	dpkg-deb -x "$base/debs/${kb}_"*.deb "$VM_KROOT"
	[[ -d $VM_KROOT/usr/lib/$kb/scripts ]] || vm_die "$kb has no scripts/"
}

# The host's modpost knows amd64's sizes of the device-table structures,
# also for 32-bit objects, and refuses an ARM module ("sizeof(struct
# of_device_id)=200 is not a modulo ...").  armhf's own (linux-kbuild of the
# headers' version for armhf) runs under qemu-user: the armhf tree's kbuild
# is links to the host's files but scripts/mod/, which runs that one.  The
# rest (fixdep, genksyms, recordmcount) works on ARM objects as it is.
vm_kbuild_armhf() {
	local base=$1 kb=$VM_KROOT/usr/lib/$VM_KBUILD_PKG host=/usr/lib/$VM_KBUILD_PKG
	local f unpacked=$base/kbuild-armhf version
	version=$(<"$base/version")
	(cd "$base/debs" && vm_apt_download "$base/download.log" "$VM_KBUILD_PKG=$version") ||
		vm_die "downloading $VM_KBUILD_PKG $version for armhf failed"
	rm -rf "$unpacked" "$kb"
	dpkg-deb -x "$base/debs/${VM_KBUILD_PKG}_"*.deb "$unpacked"
	[[ -f $unpacked$host/scripts/mod/modpost.real-lsb-32 ]] ||
		vm_die "$VM_KBUILD_PKG for armhf has no scripts/mod/modpost.real-lsb-32"
	mkdir -p "$kb/scripts/mod"
	for f in "$host"/*; do
		[[ $f == */scripts ]] || ln -s "$f" "$kb/"
	done
	for f in "$host"/scripts/*; do
		[[ $f == */mod ]] || ln -s "$f" "$kb/scripts/"
	done
	cp "$unpacked$host/scripts/mod/modpost.real-lsb-32" "$kb/scripts/mod/"
	cat >"$kb/scripts/mod/modpost" <<-EOF
		#!/bin/sh
		# armhf's modpost under qemu-user (tests/vm/lib.sh, vm_kbuild_armhf).
		exec qemu-arm-static -L /usr/arm-linux-gnueabihf "$kb/scripts/mod/modpost.real-lsb-32" "\$@"
	EOF
	chmod 755 "$kb/scripts/mod/modpost"
	# The host's kbuild all the same, for vm_check_kbuild.
	touch "$kb/.host-kbuild"
	rm -rf "$unpacked"
}

# Warn if the host kbuild scripts are not the headers' version (modpost and
# fixdep are host programs from that package; a mismatch usually works, but
# when it does not the message should say why).
vm_check_kbuild() {
	# A kernel that came with its own kbuild (vm_fix_headers).
	[[ -L $VM_KROOT/usr/lib/$VM_KBUILD_PKG ||
		-f $VM_KROOT/usr/lib/$VM_KBUILD_PKG/.host-kbuild ]] || return 0
	[[ -d /usr/lib/$VM_KBUILD_PKG/scripts ]] ||
		vm_die "$VM_KBUILD_PKG is not installed (run tests/vm/deps)"
	if [[ $VM_ARCH == armhf ]] && ! command -v qemu-arm-static >/dev/null; then
		vm_die "qemu-arm-static is not installed (run tests/vm/deps): the armhf build runs armhf's modpost with it"
	fi
	local have want
	have=$(dpkg-query -W -f='${Version}' "$VM_KBUILD_PKG" 2>/dev/null || true)
	want=$(cat "$VM_KROOT/../version" 2>/dev/null || true)
	if [[ -n $want && -n $have && $have != "$want" ]]; then
		vm_warn "host $VM_KBUILD_PKG is $have, the headers are $want (tests/vm/deps upgrades it)"
	fi
}

# ---------------------------------------------------------------------------
# arm64, armhf and riscv64 guest userland (amd64 uses the host's)

# vm_apt_unpack BASE ROOT WHAT PACKAGE...: download PACKAGEs (of the
# arch and suite VM_APT_OPTS name) into BASE/debs, after an apt update if
# apt does not know one, and unpack them into ROOT, BASE made afresh.
vm_apt_unpack() {
	local base=$1 root=$2 what=$3 p deb
	shift 3
	vm_apt_private_init
	for p in "$@"; do
		if ! vm_apt_known "$p"; then
			vm_apt_update
			vm_apt_known "$p" || vm_die "apt does not know $p for $VM_ARCH"
		fi
	done
	vm_log "downloading $VM_ARCH $what ($*)"
	rm -rf "$base"
	mkdir -p "$base/debs" "$root"
	(cd "$base/debs" && vm_apt_download "$base/download.log" "$@") ||
		vm_die "downloading the $VM_ARCH $what failed"
	for deb in "$base"/debs/*.deb; do
		dpkg-deb -x "$deb" "$root"
	done
	rm -rf "$base/debs"
}

# Fills VM_USERROOT: a tree with bash, busybox and their libraries for the arch.
vm_fetch_userland() {
	if [[ $VM_ARCH == amd64 ]]; then
		VM_USERROOT=/
		return 0
	fi
	# The guest's userland is the host's release's, whatever kernel it
	# boots (--suite): shadow the suite and its apt options.  An arch the
	# host's release does not have (riscv64) takes the kernel's suite's.
	local suite=
	[[ $VM_ARCH == riscv64 ]] && suite=$(vm_suite)
	local UDMABUF_KERNEL_SUITE=$suite
	local -a VM_APT_OPTS
	vm_apt_opts
	local base
	base=$(vm_cache_root)/$VM_ARCH/userland
	VM_USERROOT=$base/root
	# The stamp holds the package list, so that a changed list refetches.
	# A userland of the kernel's suite (riscv64's sid, which moves) is
	# fetched again after each upgrade of the build root that builds its
	# programs: they may need the newer C library they were linked with.
	if [[ -f $base/.complete && $(<"$base/.complete") == "${VM_CROSS_USERLAND[*]}" ]] &&
		[[ -z $suite || ! $(vm_buildroot_dir).complete -nt $base/.complete ]]; then
		return 0
	fi
	local p
	vm_apt_unpack "$base" "$VM_USERROOT" "guest userland" "${VM_CROSS_USERLAND[@]}"
	# Packages of a merged-/usr release put everything below /usr: the
	# links the system would have (libc.so names /lib/ld-linux-*.so.1).
	for p in bin lib sbin; do
		[[ -e $VM_USERROOT/$p || ! -d $VM_USERROOT/usr/$p ]] || ln -s "usr/$p" "$VM_USERROOT/$p"
	done
	printf '%s\n' "${VM_CROSS_USERLAND[*]}" >"$base/.complete"
}

# ---------------------------------------------------------------------------
# QEMU for riscv64
#
# Linux does non-coherent DMA on RISC-V with the Zicbom cache-block
# operations, only where the device tree says the CPU has them.  bookworm's
# QEMU 7.2 models no Zicbom (the kernel then warns at probe of a
# dma-noncoherent node and skips every cache operation); bookworm-backports'
# has it and writes it into the tree.  Its packages (built against the
# host's libraries, with opensbi) are unpacked into the cache, not
# installed: the other lanes keep the host's QEMU.
VM_QEMU_RISCV64_PACKAGES=(qemu-system-riscv qemu-system-data opensbi)

# vm_fetch_qemu: on riscv64, fills VM_QEMU (the unpacked
# qemu-system-riscv64) and VM_QEMU_FIRMWARE (its options for the
# firmware); elsewhere leaves the host's.
vm_fetch_qemu() {
	VM_QEMU_FIRMWARE=()
	[[ $VM_ARCH == riscv64 ]] || return 0
	local base root missing codename
	base=$(vm_cache_root)/$VM_ARCH/qemu
	root=$base/root
	if [[ ! -f $base/.complete || $(<"$base/.complete") != "${VM_QEMU_RISCV64_PACKAGES[*]}" ]]; then
		codename=$(. /etc/os-release && printf '%s\n' "${VERSION_CODENAME:-}")
		[[ -n $codename ]] || vm_die "cannot tell the host's Debian release"
		(
			# The host's arch, from its release's backports.
			UDMABUF_KERNEL_SUITE=$codename-backports
			VM_ARCH=amd64
			vm_apt_opts
			vm_apt_unpack "$base" "$root" "QEMU for riscv64 from $UDMABUF_KERNEL_SUITE" \
				"${VM_QEMU_RISCV64_PACKAGES[@]}"
		) || vm_die "downloading QEMU for riscv64 failed"
		printf '%s\n' "${VM_QEMU_RISCV64_PACKAGES[*]}" >"$base/.complete"
	fi
	VM_QEMU=$root/usr/bin/qemu-system-riscv64
	[[ -x $VM_QEMU ]] || vm_die "no $VM_QEMU (remove $base and run again)"
	missing=$(ldd "$VM_QEMU" 2>/dev/null | awk '/not found/ {print $1}' | tr '\n' ' ')
	[[ -z $missing ]] ||
		vm_die "$VM_QEMU needs libraries the host lacks: $missing(tests/vm/deps installs qemu-system-x86, which needs the same)"
	# Its firmware and data, not the host's QEMU's (opensbi 1.1).
	VM_QEMU_FIRMWARE=(-L "$root/usr/share/qemu"
		-bios "$root/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin")
}

# ---------------------------------------------------------------------------
# Initramfs helpers

# Map a path of a (possibly split-usr) sysroot to the merged-/usr initramfs.
vm_merged_path() {
	case $1 in
	/bin/* | /sbin/* | /lib/* | /lib64/*) printf '/usr%s\n' "$1" ;;
	*) printf '%s\n' "$1" ;;
	esac
}

# vm_find_in SYSROOT NAME DIR...: the path (in the sysroot) of the first
# DIR/NAME that the sysroot has, or fail.
vm_find_in() {
	local sysroot=$1 name=$2 d
	for d in "${@:3}"; do
		[[ -e $sysroot$d/$name ]] && { printf '%s\n' "$d/$name"; return 0; }
	done
	return 1
}

# A program of the sysroot (Debian packages put them in /bin or /usr/bin).
vm_find_prog() { vm_find_in "$1" "$2" /usr/bin /bin /usr/sbin /sbin; }

# A shared library of the sysroot, by soname.
vm_find_lib() {
	vm_find_in "$1" "$2" "/lib/$VM_TRIPLET" "/usr/lib/$VM_TRIPLET" /lib /usr/lib /lib64 /usr/lib64
}

# vm_elf_interp FILE, vm_elf_needed FILE: the ELF file's interpreter, its
# NEEDED libraries (readelf, not ldd: the file may be of another arch).
vm_elf_interp() {
	readelf -lW "$1" 2>/dev/null | sed -n 's/.*\[Requesting program interpreter: \(.*\)\]/\1/p'
}
vm_elf_needed() { readelf -dW "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

# Copy an ELF executable or library (path relative to sysroot) into the
# initramfs together with its interpreter and, recursively, every NEEDED
# library.
vm_copy_elf() {
	local sysroot=$1 path=$2 dest=$3
	local target
	target=$dest$(vm_merged_path "$path")
	[[ -e $target ]] && return 0
	mkdir -p "$(dirname "$target")"
	cp -L "$sysroot$path" "$target"
	vm_copy_needed "$sysroot" "$sysroot$path" "$dest"
}

# Copy the interpreter and, recursively, every NEEDED library of the ELF
# file FILE (a host path: in the sysroot or not, e.g. a program built here)
# from the sysroot into the initramfs.
vm_copy_needed() {
	local sysroot=$1 file=$2 dest=$3
	local interp lib libpath
	interp=$(vm_elf_interp "$file")
	[[ -z $interp ]] || vm_copy_elf "$sysroot" "$interp" "$dest"
	while read -r lib; do
		libpath=$(vm_find_lib "$sysroot" "$lib") ||
			vm_die "$file needs $lib, not found in $sysroot"
		vm_copy_elf "$sysroot" "$libpath" "$dest"
	done < <(vm_elf_needed "$file")
}

# Emit a newc cpio archive with /dev/console.  The kernel opens /dev/console
# for init before anything can mount devtmpfs; creating the node with mknod
# would need root, so write the archive entry directly.
vm_cpio_devnodes() {
	local ino=900000
	local name mode rmaj rmin namesize pad
	while read -r name mode rmaj rmin; do
		namesize=$((${#name} + 1))
		printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X' \
			"$ino" "$((8#$mode))" 0 0 1 0 0 0 0 "$rmaj" "$rmin" "$namesize" 0
		printf '%s\0' "$name"
		pad=$(((4 - (110 + namesize) % 4) % 4))
		head -c "$pad" /dev/zero
		ino=$((ino + 1))
	done <<-'EOF'
		dev 040755 0 0
		dev/console 020600 5 1
		TRAILER!!! 0 0 0
	EOF
}

# Decompress a module if Debian ships it compressed (6.1 ships plain .ko, but
# later kernels use .ko.xz), else copy it.
vm_copy_module() {
	local src=$1 dst=$2
	case $src in
	*.ko.xz) xz -dc "$src" >"$dst" ;;
	*.ko.zst) zstd -q -dc "$src" >"$dst" ;;
	*.ko.gz) gzip -dc "$src" >"$dst" ;;
	*) cp "$src" "$dst" ;;
	esac
}

# Locate a kernel module of the image by name (configfs -> path of configfs.ko*).
vm_find_kmod() {
	local name=$1 f
	f=$(find "$VM_MODDIR/kernel" \( -name "$name.ko" -o -name "$name.ko.*" \) -print -quit)
	[[ -n $f ]] || return 1
	printf '%s\n' "$f"
}

# Modules of the image that tests load on demand with modprobe (vfio-pci
# and vfio_iommu_type1: vfio.bats drives the edu through VFIO).
VM_ONDEMAND_KMODS="brd dm-delay vgem vivid vfio-pci vfio_iommu_type1"

# Copy module NAME and, first, every module it depends on into DIR
# (flat, decompressed), once each.  False if NAME is not in the image
# (built in, or not built): then there is nothing to load.
vm_copy_kmod_deps() {
	local name=$1 dir=$2 src dep deps
	[[ -f $dir/$name.ko ]] && return 0
	src=$(vm_find_kmod "$name") || return 1
	deps=$(modinfo -F depends "$src") || return 1
	mkdir -p "$dir"
	for dep in ${deps//,/ }; do
		vm_copy_kmod_deps "$dep" "$dir" || return 1
	done
	vm_copy_module "$src" "$dir/$name.ko"
}

# True if a kernel config option is =y or =m in the guest kernel.
vm_kconfig_enabled() {
	grep -Eq "^$1=(y|m)$" "$VM_KCONFIG"
}

# ---------------------------------------------------------------------------
# Python for the guest (tests/bats/python.bats): Debian's python3 and
# python3-numpy of the guest's architecture, from the archive's packages
# (what a bookworm user runs, not the host's files), with libc6, so that
# every glibc piece of the guest is from one package.
VM_PYTHON_USERLAND=(python3.11-minimal libpython3.11-minimal libpython3.11-stdlib
	python3-numpy libblas3 liblapack3 libgfortran5 libgcc-s1 libffi8 zlib1g
	libexpat1 libc6)
VM_PYTHON_VERSION=3.11
# Bump when the recipe below changes: the cached tree is rebuilt.
VM_PYTHON_RECIPE=1

# The suites (--suite) whose guests carry that release's own python3 and
# NumPy: sid (NumPy 2).  Only releases newer than the host's: the python
# tree's glibc replaces the guest's, and the programs built here run on a
# newer glibc, not an older one.  Its packages: sid's default python3's,
# and what sid's numpy needs (libstdc++6, no libquadmath0).
VM_PYTHON_SUITES=(sid)
VM_PYTHON_SUITE_USERLAND=(python3-numpy libblas3 liblapack3 libgfortran5
	libgcc-s1 libstdc++6 libffi8 zlib1g libexpat1 libc6)

# vm_python_suite: the suite whose python the guest gets, or nothing (the
# host release's).
vm_python_suite() {
	[[ -z $(vm_suite) || " ${VM_PYTHON_SUITES[*]} " != *" $(vm_suite) "* ]] || vm_suite
}

# True if the ELF file's NEEDED libraries are all in the sysroot.
vm_elf_deps_present() {
	local sysroot=$1 path=$2 lib
	while read -r lib; do
		vm_find_lib "$sysroot" "$lib" >/dev/null || return 1
	done < <(vm_elf_needed "$sysroot$path")
}

# vm_python_host ARGS...: run the guest tree's python (VM_PYROOT) on the
# host, to compile its byte code: the host's python$VM_PYTHON_VERSION for
# the host release's tree; for a suite's tree of the host's arch, the
# tree's own interpreter through the tree's own loader and libraries (it
# needs their newer glibc).  Status 127 when there is none (another arch's
# suite tree): the guest then compiles it itself.
vm_python_host() {
	if [[ -z $(vm_python_suite) ]]; then
		[[ -x /usr/bin/python$VM_PYTHON_VERSION ]] || return 127
		"/usr/bin/python$VM_PYTHON_VERSION" "$@"
		return
	fi
	[[ $VM_ARCH == amd64 ]] || return 127
	local exe=$VM_PYROOT/usr/bin/python$VM_PYTHON_VERSION interp
	interp=$VM_PYROOT$(vm_merged_path "$(vm_elf_interp "$exe")")
	[[ -x $exe && -e $interp ]] || return 127
	# Without -j: compileall's workers would start the interpreter without
	# the loader, on the host's glibc.
	PYTHONHOME=$VM_PYROOT/usr "$interp" --library-path "$VM_PYROOT/usr/lib/$VM_TRIPLET" \
		"$exe" -S "$@"
}

# vm_python_compile DIR...: byte code for the guest's python (unchecked-hash:
# used without looking at the sources' times, which cpio and copies need not
# keep).  Status 127 when there is no interpreter to compile it here.
vm_python_compile() {
	local -a jobs=()
	[[ -z $(vm_python_suite) ]] && jobs=(-j0)
	vm_python_host -m compileall -q "${jobs[@]}" --invalidation-mode unchecked-hash "$@"
}

# vm_python_numpy: NumPy's version in the tree, as its package's metadata
# (numpy-VERSION.egg-info or .dist-info) gives it.
vm_python_numpy() {
	local d
	d=$(compgen -G "$VM_PYROOT/usr/lib/python3/dist-packages/numpy-*-info") || return 1
	d=${d%%$'\n'*}
	d=${d##*/numpy-}
	printf '%s\n' "${d%.*-info}"
}

# Fills VM_PYROOT: a tree with python3 and numpy for the arch, pruned of
# what the tests never load (documentation, test suites, extension modules
# whose libraries are not there), with byte code compiled here (under
# emulation, compiling numpy's modules at every start would cost seconds).
# The host release's (<cache>/ARCH/python), or a suite's (python-SUITE,
# whose packages' versions are in the stamp: the tree follows the suite as
# its kernel does).  Also sets VM_PYTHON_VERSION, VM_PYTHON_RELEASE
# (bookworm, sid) and VM_PYTHON_NUMPY (vm_python_numpy).
vm_fetch_python() {
	local base pkgs p deb f stamp suite
	suite=$(vm_python_suite)
	# The host's release's python, as for the userland, but for a suite
	# of VM_PYTHON_SUITES.
	local UDMABUF_KERNEL_SUITE=$suite
	local -a VM_APT_OPTS
	vm_apt_opts
	base=$(vm_cache_root)/$VM_ARCH/python${suite:+-$suite}
	VM_PYROOT=$base/root
	if [[ -n $suite ]]; then
		vm_apt_private_init
		vm_apt_known python3-minimal || vm_apt_update
		VM_PYTHON_VERSION=$(vm_apt_cache depends python3-minimal 2>/dev/null |
			sed -n 's/^ *PreDepends: python\(3\.[0-9]*\)-minimal$/\1/p' | head -n 1)
		[[ -n $VM_PYTHON_VERSION ]] || vm_die "cannot find $suite's python3 version (python3-minimal)"
		pkgs=("python$VM_PYTHON_VERSION-minimal" "libpython$VM_PYTHON_VERSION-minimal"
			"libpython$VM_PYTHON_VERSION-stdlib" "${VM_PYTHON_SUITE_USERLAND[@]}")
		stamp="$VM_PYTHON_RECIPE $(vm_apt_cache policy "${pkgs[@]}" 2>/dev/null |
			awk '/^[^ ]/ {p = $1} /Candidate:/ {printf "%s%s ", p, $2}')"
		VM_PYTHON_RELEASE=$suite
	else
		pkgs=("${VM_PYTHON_USERLAND[@]}")
		[[ $VM_ARCH == amd64 ]] && pkgs+=(libquadmath0)
		stamp="$VM_PYTHON_RECIPE ${pkgs[*]}"
		VM_PYTHON_RELEASE=$(. /etc/os-release && printf '%s\n' "${VERSION_CODENAME:-}")
	fi
	if [[ -f $base/.complete && $(<"$base/.complete") == "$stamp" ]]; then
		VM_PYTHON_NUMPY=$(vm_python_numpy) || vm_die "no NumPy metadata in $VM_PYROOT"
		return 0
	fi
	vm_apt_unpack "$base" "$VM_PYROOT" "guest python${suite:+ of $suite}" "${pkgs[@]}"
	(
		cd "$VM_PYROOT" || exit 1
		local lib=usr/lib/$VM_TRIPLET py=usr/lib/python$VM_PYTHON_VERSION
		ln -sfn blas/libblas.so.3 "$lib/libblas.so.3"
		ln -sfn lapack/liblapack.so.3 "$lib/liblapack.so.3"
		ln -sfn "python$VM_PYTHON_VERSION" usr/bin/python3
		rm -rf usr/share etc "$lib/gconv" usr/lib/valgrind
		rm -rf "$py"/{test,idlelib,tkinter,turtledemo,ensurepip,lib2to3,pydoc_data}
		find usr/lib/python3/dist-packages/numpy \( -name tests -o -name '*.pyi' \
			-o -name f2py -o -name distutils \) -prune -exec rm -rf {} +
		# sid's numpy also has the extension modules of the next python
		# (cpython-315 beside cpython-314): half of its size.
		find usr/lib/python3/dist-packages -name '*.cpython-3*.so' \
			-not -name "*.cpython-${VM_PYTHON_VERSION/./}-*" -delete
		while IFS= read -r f; do
			vm_elf_deps_present "$VM_PYROOT" "/$f" || rm -f "$f"
		done < <(find "$py/lib-dynload" usr/lib/python3/dist-packages -name '*.so')
	) || vm_die "preparing the $VM_ARCH python tree failed"
	# What the tests need must not have been pruned for want of a library.
	vm_elf_deps_present "$VM_PYROOT" "/usr/bin/python$VM_PYTHON_VERSION" ||
		vm_die "the $VM_ARCH python tree lacks a library of python$VM_PYTHON_VERSION"
	[[ -n $(find "$VM_PYROOT/usr/lib/python3/dist-packages/numpy" -name '_multiarray_umath*.so') ]] ||
		vm_die "the $VM_ARCH python tree lacks numpy's _multiarray_umath (a library missing?)"
	VM_PYTHON_NUMPY=$(vm_python_numpy) || vm_die "no NumPy metadata in $VM_PYROOT"
	local st=0
	vm_python_compile "$VM_PYROOT/usr/lib/python$VM_PYTHON_VERSION" \
		"$VM_PYROOT/usr/lib/python3/dist-packages" >"$base/compileall.log" 2>&1 || st=$?
	case $st in
	0) ;;
	127) vm_warn "no python$VM_PYTHON_VERSION to run here for the $VM_ARCH tree: the guest compiles its byte code itself (slower)" ;;
	*) vm_warn "compiling the guest's python byte code failed: $base/compileall.log" ;;
	esac
	printf '%s\n' "$stamp" >"$base/.complete"
}

# ---------------------------------------------------------------------------
# Lanes (tests/vm/lanes)

# vm_lanes: the lane names, in the table's order.
vm_lanes() {
	sed -n 's/^\([a-z0-9][a-z0-9.-]*\)[[:space:]]*|.*/\1/p' "$VM_LIB_DIR/lanes"
}

# vm_lane_read NAME: fill VM_LANE_OPTIONS (tests/vm/run options),
# VM_LANE_FILES (test files, relative to the checkout), VM_LANE_AFTER
# (words) and VM_LANE_WEIGHT (default 1) from the table.  Fails for an
# unknown name.
vm_lane_read() {
	local name=$1 row opts files after weight w f
	local -A drop=()
	row=$(awk -F'|' -v n="$name" '
		/^[[:space:]]*#/ {next}
		{k = $1; gsub(/[[:space:]]/, "", k)}
		k == n {print; found = 1; exit}
		END {exit !found}' "$VM_LIB_DIR/lanes") || {
		vm_warn "no lane '$name' in tests/vm/lanes (lanes: $(vm_lanes | tr '\n' ' '))"
		return 1
	}
	IFS='|' read -r _ opts files after weight <<<"$row"
	weight=${weight//[[:space:]]/}
	VM_LANE_WEIGHT=${weight:-1}
	[[ $VM_LANE_WEIGHT =~ ^[1-9][0-9]*$ ]] || {
		vm_warn "lane $name: weight '$weight' is not a number"
		return 1
	}
	VM_LANE_OPTIONS=()
	for w in $opts; do
		# Paths in the table are the checkout's.
		[[ $w == tests/* || $w == examples/* ]] && w=$REPO_ROOT/$w
		VM_LANE_OPTIONS+=("$w")
	done
	VM_LANE_FILES=()
	for w in $files; do
		[[ $w == -* ]] && drop[tests/bats/${w#-}.bats]=1
	done
	for w in $files; do
		case $w in
		all)
			for f in "$REPO_ROOT"/tests/bats/*.bats; do
				f=${f#"$REPO_ROOT"/}
				[[ -n ${drop[$f]:-} ]] || VM_LANE_FILES+=("$f")
			done
			;;
		-*) ;;
		*/*) VM_LANE_FILES+=("$w") ;;
		*) VM_LANE_FILES+=("tests/bats/$w.bats") ;;
		esac
	done
	VM_LANE_AFTER=()
	for w in $after; do
		[[ $w == - ]] || VM_LANE_AFTER+=("$w")
	done
}
