# shellcheck shell=bash
# shellcheck disable=SC2034 # the VM_* it sets are read by tests/vm/run
# The debug kernels of 'make check-debug', built from 'tinyconfig' plus the
# fragments vm_debug_setup names (KASAN, lockdep, kmemleak, DMA-API
# debugging, fault injection, UBSAN, debug objects), with udmabuf-cfs
# built in-tree as drivers/misc/udmabuf-cfs through its Kconfig.  Sourced
# by tests/vm/run and tests/vm/debug-kernel after lib.sh.
#
# Two Debian sources, so that the checkers see two generations of mm and
# the DMA API: amd64's kernel is sid's (the newest Debian kernel, whichever
# linux-source-X.Y sid's linux-source depends on; built with the dmem
# cgroup controller, which Debian's own builds leave out), arm64's is
# cross-built from trixie's 6.12 (bookworm's linux-source-6.12), as is the
# Zynq-7000 kernel (tests/vm/zynq.sh).
#
# Cache layout, below $(vm_cache_root)/debug:
#   src-VERSION/     an unpacked source (shared by the kernels built from
#                    it), the driver synced into it
#   build-KEY/       O= build directory (vm_kernel_build_key), a warm run
#                    recompiling only what the driver's changes touch
#   build-KEY/root/  modules_install output (lib/modules/RELEASE/...)

# The source package and its Debian suite ("": the host's apt, bookworm),
# unless vm_debug_setup picks another for the arch.
VM_DEBUG_SRC_PKG=linux-source-6.12
VM_DEBUG_SRC_SUITE=
# Bump when the recipe below changes in a way the key would not see.
VM_DEBUG_RECIPE=1

# Fills VM_DEBUG_FRAGMENTS (in the order they are merged; each says what
# it is for), VM_DEBUG_KARCH (ARCH=) and VM_DEBUG_IMAGE (the boot image).
# One kernel per arch: each is a long cold build, and a cold make check
# must stay within its budget (tests/README.md).
vm_debug_setup() {
	VM_DEBUG_FRAGMENTS=("$VM_LIB_DIR/debug.config")
	case $VM_ARCH in
	amd64)
		VM_DEBUG_KARCH=x86_64 VM_DEBUG_IMAGE=arch/x86/boot/bzImage
		VM_DEBUG_SRC_SUITE=sid
		VM_DEBUG_SRC_PKG=$(vm_debug_apt vm_debug_series linux-source)
		[[ -n $VM_DEBUG_SRC_PKG ]] || vm_die "cannot tell which linux-source-X.Y sid's linux-source is"
		;;
	arm64)
		VM_DEBUG_KARCH=arm64 VM_DEBUG_IMAGE=arch/arm64/boot/Image
		# debug.config is amd64's own (its text is that kernel's cache
		# key); arm64 adds and turns off what differs.
		VM_DEBUG_FRAGMENTS+=("$VM_LIB_DIR/debug-arm64.config"
			"$VM_LIB_DIR/debug-zerocopy.config"
			"$VM_LIB_DIR/debug-kobject-release.config")
		;;
	*) vm_die "no debug kernel for $VM_ARCH (amd64 or arm64)" ;;
	esac
}

vm_debug_root() { printf '%s\n' "$(vm_cache_root)/debug"; }

# vm_debug_newest_source: the newest complete unpacked source of
# VM_DEBUG_SRC_PKG's series (linux-source-6.12: 6.12.*), its version.
vm_debug_newest_source() {
	find "$(vm_debug_root)" -maxdepth 2 -name .complete \
		-path "*/src-${VM_DEBUG_SRC_PKG#linux-source-}.*" -printf '%h\n' 2>/dev/null |
		sed 's|.*/src-||' | sort -V | tail -n 1
}

# vm_debug_lock: the lock of VM_DEBUG_SRC_PKG's source tree, held while it
# is unpacked or a kernel is built from it (the driver is synced into it).
vm_debug_lock() { printf '%s\n' "$(vm_debug_root)-${VM_DEBUG_SRC_PKG#linux-source-}.lock"; }

# vm_debug_apt CMD...: CMD with the apt options of VM_DEBUG_SRC_SUITE's
# lists (a subshell: the caller's stay as they are).
vm_debug_apt() {
	(
		UDMABUF_KERNEL_SUITE=$VM_DEBUG_SRC_SUITE
		vm_apt_opts
		vm_apt_private_init
		"$@"
	)
}

# vm_debug_series META: the linux-source-X.Y package that META depends on.
vm_debug_series() {
	vm_apt_known "$1" || vm_apt_update
	vm_apt_cache depends "$1" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-source-[0-9.]*\)$/\1/p' | head -n 1
}

# vm_debug_candidate: apt's candidate version of VM_DEBUG_SRC_PKG.
vm_debug_candidate() {
	vm_apt_known "$VM_DEBUG_SRC_PKG" || vm_apt_update
	vm_apt_cache policy "$VM_DEBUG_SRC_PKG" 2>/dev/null | awk '/Candidate:/ {print $2}'
}

# Fills VM_DEBUG_VERSION and VM_DEBUG_SRC (unpacked, hooked-up source tree).
vm_debug_fetch_source() {
	local root ver base tarball
	root=$(vm_debug_root)
	mkdir -p "$root"
	# The newest version already unpacked, else apt's candidate.
	ver=$(vm_debug_newest_source)
	if [[ -z $ver ]]; then
		ver=$(vm_debug_apt vm_debug_candidate)
		[[ -n $ver && $ver != "(none)" ]] ||
			vm_die "apt does not know $VM_DEBUG_SRC_PKG (${VM_DEBUG_SRC_SUITE:-bookworm})"
	fi
	VM_DEBUG_VERSION=$ver
	base=$root/src-$ver
	VM_DEBUG_SRC=$base/linux
	if [[ ! -f $base/.complete ]]; then
		vm_log "downloading and unpacking $VM_DEBUG_SRC_PKG $ver (once)"
		rm -rf "$base"
		mkdir -p "$base/deb"
		(cd "$base/deb" && vm_debug_apt vm_apt_download "$base/download.log" "$VM_DEBUG_SRC_PKG=$ver") ||
			vm_die "downloading $VM_DEBUG_SRC_PKG=$ver failed"
		tarball=./usr/src/$VM_DEBUG_SRC_PKG.tar.xz
		dpkg-deb --fsys-tarfile "$base"/deb/*.deb | tar -x -C "$base/deb" "$tarball" ||
			vm_die "no $tarball in the $VM_DEBUG_SRC_PKG package"
		mkdir -p "$VM_DEBUG_SRC"
		tar -xJf "$base/deb/$tarball" -C "$VM_DEBUG_SRC" --strip-components=1 ||
			vm_die "unpacking $tarball failed"
		rm -rf "$base/deb"
		touch "$base/.complete"
	fi
	vm_debug_hook_tree
}

# Make drivers/misc/udmabuf-cfs part of the tree, the way a maintainer would
# merge it: its Kconfig sourced from drivers/misc/Kconfig, its directory in
# drivers/misc/Makefile, the UAPI header in include/uapi/linux.  Idempotent.
vm_debug_hook_tree() {
	local misc=$VM_DEBUG_SRC/drivers/misc
	grep -q 'udmabuf-cfs/Kconfig' "$misc/Kconfig" ||
		sed -i '/^endmenu/i source "drivers/misc/udmabuf-cfs/Kconfig"' "$misc/Kconfig"
	grep -q 'udmabuf-cfs/Kconfig' "$misc/Kconfig" ||
		vm_die "could not hook udmabuf-cfs into $misc/Kconfig"
	grep -q 'udmabuf-cfs/' "$misc/Makefile" ||
		printf 'obj-$(CONFIG_UDMABUF_CFS)\t+= udmabuf-cfs/\n' >>"$misc/Makefile"
}

# cp SRC DST unless DST has the same bytes, so that make sees no change.
vm_debug_sync_file() {
	cmp -s "$1" "$2" 2>/dev/null && return 0
	mkdir -p "$(dirname "$2")"
	cp "$1" "$2"
}

# Copy the checkout's driver (and its Kconfig and UAPI header) into the tree.
vm_debug_sync_driver() {
	local dir=$VM_DEBUG_SRC/drivers/misc/udmabuf-cfs drv=$REPO_ROOT/driver f name
	mkdir -p "$dir"
	for f in "$drv"/*.[ch] "$drv"/Kbuild; do
		[[ -f $f ]] && vm_debug_sync_file "$f" "$dir/$(basename "$f")"
	done
	vm_debug_sync_file "$REPO_ROOT/Kconfig" "$dir/Kconfig"
	vm_debug_sync_file "$REPO_ROOT/include/uapi/linux/udmabuf-cfs.h" \
		"$VM_DEBUG_SRC/include/uapi/linux/udmabuf-cfs.h"
	# Files deleted from the checkout go from the tree too.
	for f in "$dir"/*.[ch]; do
		[[ -f $f ]] || continue
		name=$(basename "$f")
		[[ -f $drv/$name ]] || rm -f "$f"
	done
}

# vm_kernel_configure OBJ LOG KMAKE...: OBJ/.config from tinyconfig and
# VM_DEBUG_FRAGMENTS, every line of theirs checked.
vm_kernel_configure() {
	local obj=$1 log=$2
	shift 2
	vm_run_logged "$log" "$@" tinyconfig || vm_die "make tinyconfig failed ($log)"
	# merge_config.sh leaves temporary files in its working directory.
	vm_run_logged "$log" env -C "$obj" KCONFIG_CONFIG="$obj/.config" \
		"$VM_DEBUG_SRC/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		"$obj/.config" "${VM_DEBUG_FRAGMENTS[@]}" || vm_die "merging ${VM_DEBUG_FRAGMENTS[*]} failed"
	vm_run_logged "$log" "$@" olddefconfig || vm_die "make olddefconfig failed ($log)"
	vm_debug_verify_config "$obj/.config" || vm_die "fix ${VM_DEBUG_FRAGMENTS[*]}"
}

# Every CONFIG_ line of the fragments must hold in the final .config.
vm_debug_verify_config() {
	local config=$1 line opt want missing=() order=()
	local -A last=()
	# The last fragment to set an option wins, as in merge_config.sh.
	while IFS= read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Z0-9_]+)=(.*)$ ||
			$line =~ ^#\ (CONFIG_[A-Z0-9_]+)\ is\ not\ set$ ]]; then
			opt=${BASH_REMATCH[1]}
			[[ -n ${last[$opt]+set} ]] || order+=("$opt")
			last[$opt]=$line
		fi
	done < <(cat "${VM_DEBUG_FRAGMENTS[@]}")
	for opt in "${order[@]}"; do
		line=${last[$opt]}
		if [[ $line == CONFIG_* ]]; then
			grep -qxF "$line" "$config" || missing+=("$line")
		else
			want="# $opt is not set"
			grep -qxF "$want" "$config" || ! grep -q "^$opt=" "$config" ||
				missing+=("$want")
		fi
	done
	if ((${#missing[@]})); then
		vm_warn "the debug kernel config lacks (unmet dependencies?):"
		printf '    %s\n' "${missing[@]}" >&2
		return 1
	fi
}

# vm_kernel_build_key RECIPE: the 12 hex digits that name a kernel build of
# the unpacked source (its version), RECIPE (how it is configured and
# built), the config fragments in VM_DEBUG_FRAGMENTS and the compiler: a
# change of any of them is a new build directory.
vm_kernel_build_key() {
	{
		echo "$VM_DEBUG_VERSION recipe $1"
		cat "${VM_DEBUG_FRAGMENTS[@]}"
		"${VM_CROSS}gcc" --version | head -n 1
	} | sha256sum | cut -c1-12
}

# vm_kernel_make OBJ LOG WHAT TARGET...: make TARGETs with kmake (the
# caller's), then modules_install into OBJ/root.
vm_kernel_make() {
	local obj=$1 log=$2 what=$3
	shift 3
	vm_run_logged "$log" "${kmake[@]}" "$@" || vm_die "the $what build failed ($log)"
	rm -rf "$obj/root"
	vm_run_logged "$log" "${kmake[@]}" INSTALL_MOD_PATH="$obj/root" modules_install ||
		vm_die "modules_install of the $what failed ($log)"
}

# vm_kernel_built OBJ IMAGE: VM_KREL, VM_VMLINUZ, VM_MODDIR, VM_KCONFIG of
# the kernel built in OBJ; build directories of ROOT (OBJ's parent) but
# OBJ's, a week unused, go.
vm_kernel_built() {
	local obj=$1
	VM_KREL=$(cat "$obj/include/config/kernel.release")
	VM_VMLINUZ=$obj/$2
	VM_MODDIR=$obj/root/lib/modules/$VM_KREL
	VM_KCONFIG=$obj/.config
	touch "$obj"
	find "${obj%/*}" -maxdepth 1 -name 'build-*' ! -name "${obj##*/}" ! -name '*.lock' -mtime +7 \
		-exec rm -rf {} + 2>/dev/null || true
}

# Build (or bring up to date) the debug kernel and the in-tree module.
# Fills VM_VMLINUZ, VM_MODDIR, VM_KCONFIG, VM_DEBUG_RELEASE, VM_DEBUG_KO.
vm_debug_build() {
	local root key obj log kmake inputs
	vm_debug_setup
	root=$(vm_debug_root)
	mkdir -p "${root%/*}"
	exec {debug_lock}>"$(vm_debug_lock)"
	flock "$debug_lock"
	vm_debug_fetch_source
	key=$(vm_kernel_build_key "$VM_DEBUG_RECIPE")
	obj=$root/build-$key
	log=$obj/build.log
	mkdir -p "$obj"
	: >"$log"
	kmake=(make -C "$VM_DEBUG_SRC" O="$obj" ARCH="$VM_DEBUG_KARCH" -j"$(nproc)")
	[[ -n $VM_CROSS ]] && kmake+=(CROSS_COMPILE="$VM_CROSS")
	vm_debug_sync_driver
	if [[ ! -f $obj/.config-done ]]; then
		vm_log "configuring the $VM_ARCH debug kernel ($VM_DEBUG_SRC_PKG $VM_DEBUG_VERSION, build-$key)"
		vm_kernel_configure "$obj" "$log" "${kmake[@]}"
		touch "$obj/.config-done"
	fi
	# The driver's files as synced into the tree: when the last build and
	# install were of these, there is nothing to do (make check starts a
	# debug guest several times, and even a no-op make of the kernel is
	# slow).
	inputs=$(cat "$VM_DEBUG_SRC/drivers/misc/udmabuf-cfs"/* \
		"$VM_DEBUG_SRC/include/uapi/linux/udmabuf-cfs.h" | sha256sum)
	if [[ ! -f $obj/.built || ! -d $obj/root || $(cat "$obj/.inputs" 2>/dev/null) != "$inputs" ]]; then
		rm -f "$obj/.inputs"
		if [[ ! -f $obj/.built ]]; then
			vm_log "building the $VM_ARCH debug kernel (cold: many minutes; log: $log)"
		fi
		# Incremental: after the first build only the driver's objects change.
		vm_kernel_make "$obj" "$log" "$VM_ARCH debug kernel" "${VM_DEBUG_IMAGE##*/}" modules
		touch "$obj/.built"
		printf '%s\n' "$inputs" >"$obj/.inputs"
	fi
	vm_kernel_built "$obj" "$VM_DEBUG_IMAGE"
	VM_DEBUG_RELEASE=$VM_KREL
	VM_DEBUG_KO=$(find "$VM_MODDIR/kernel" -name udmabuf-cfs.ko -print -quit)
	[[ -n $VM_DEBUG_KO ]] || vm_die "the debug kernel build has no udmabuf-cfs.ko"
	flock -u "$debug_lock"
}
