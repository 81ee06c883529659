# shellcheck shell=bash
# shellcheck disable=SC2034 # the VM_* it sets are read by tests/vm/run
# The Zynq-7000 kernel of the armhf-zynq7000 lane (--machine
# xilinx-zynq-a9): the debug kernels' source tree (tests/vm/debug.sh),
# cross-built for 32-bit ARM from 'tinyconfig' plus tests/vm/zynq7000.config,
# with udmabuf-cfs built out of tree against it as against Debian's headers,
# and the ZC702's device tree of that source.  Sourced by tests/vm/run after
# lib.sh and debug.sh.
#
# Cache layout, below $(vm_cache_root)/zynq7000:
#   build-KEY/        O= build directory (vm_kernel_build_key) and the
#                     kbuild directory of the module and tests/kmod; a warm
#                     run finds build-KEY/.built and runs no make at all
#   build-KEY/root/   modules_install output (lib/modules/RELEASE/...)
#   build-KEY/zynq-zc702.dts  the board's tree, preprocessed (its labels
#                     kept, so that a --dt fragment can refer to &amba)

# Bump when the recipe below changes in a way the key would not see.
VM_ZYNQ_RECIPE=1
VM_ZYNQ_DTS_NAME=zynq-zc702

vm_zynq_root() { printf '%s\n' "$(vm_cache_root)/zynq7000"; }

# Fills VM_DEBUG_VERSION and VM_DEBUG_SRC: the unpacked source.  The debug
# kernels' build (vm_debug_build) holds the debug lock for its whole long
# build and unpacks the source first: when it has the lock,
# wait for the source to be there, not for that build to end.  Otherwise
# unpack it here, under that lock, as that build would (and put the driver
# into the tree it hooks it into, or its Kconfig would name a missing file).
vm_zynq_fetch_source() {
	local root lock ver
	root=$(vm_debug_root)
	mkdir -p "$root"
	ver=$(vm_debug_newest_source)
	if [[ -z $ver || ! -f $root/src-$ver/.complete ]]; then
		exec {lock}>"$(vm_debug_lock)"
		while ! flock -n "$lock"; do
			ver=$(vm_debug_newest_source)
			[[ -n $ver && -f $root/src-$ver/.complete ]] && break
			sleep 5
		done
		# Still not there: the lock is ours.
		if [[ -z $ver || ! -f $root/src-$ver/.complete ]]; then
			vm_debug_fetch_source
			vm_debug_sync_driver
			ver=$VM_DEBUG_VERSION
		fi
		exec {lock}>&-
	fi
	VM_DEBUG_VERSION=$ver
	VM_DEBUG_SRC=$root/src-$ver/linux
	# Hooked but the driver not yet synced (that build is between the
	# two steps): kconfig would miss the file the hook sources.
	local i=0
	while grep -q 'udmabuf-cfs/Kconfig' "$VM_DEBUG_SRC/drivers/misc/Kconfig" &&
		[[ ! -f $VM_DEBUG_SRC/drivers/misc/udmabuf-cfs/Kconfig ]] && ((i++ < 60)); do
		sleep 1
	done
}

# Build (once per key) the Zynq-7000 kernel, its modules and the ZC702
# tree.  Fills VM_VMLINUZ, VM_KDIR, VM_MODDIR, VM_KCONFIG, VM_ZYNQ_RELEASE
# and VM_ZYNQ_DTS.
vm_zynq_build() {
	local root key obj log lock t0
	local -a kmake
	# What vm_kernel_configure merges and checks.
	local -a VM_DEBUG_FRAGMENTS=("$VM_LIB_DIR/zynq7000.config")
	root=$(vm_zynq_root)
	mkdir -p "$root"
	vm_zynq_fetch_source
	key=$(vm_kernel_build_key "$VM_ZYNQ_RECIPE")
	obj=$root/build-$key
	exec {lock}>"$obj.lock"
	flock "$lock"
	if [[ ! -f $obj/.built ]]; then
		t0=$SECONDS
		rm -rf "$obj"
		mkdir -p "$obj"
		log=$obj/build.log
		vm_log "building the Zynq-7000 kernel ($VM_DEBUG_SRC_PKG $VM_DEBUG_VERSION, cold: minutes; log: $log)"
		kmake=(make -C "$VM_DEBUG_SRC" O="$obj" ARCH=arm CROSS_COMPILE="$VM_CROSS" -j"$(nproc)")
		vm_kernel_configure "$obj" "$log" "${kmake[@]}"
		vm_kernel_make "$obj" "$log" "Zynq-7000 kernel" zImage modules "xilinx/$VM_ZYNQ_DTS_NAME.dtb"
		# The board's tree as dtc reads it: the C preprocessor's output
		# of the source (as kbuild makes the .dtb from), so that the
		# fragment tests/vm/run appends can use its labels.
		vm_run_logged "$log" gcc -E -nostdinc -undef -D__DTS__ -x assembler-with-cpp \
			-I "$VM_DEBUG_SRC/scripts/dtc/include-prefixes" \
			-o "$obj/$VM_ZYNQ_DTS_NAME.dts" \
			"$VM_DEBUG_SRC/arch/arm/boot/dts/xilinx/$VM_ZYNQ_DTS_NAME.dts" ||
			vm_die "preprocessing $VM_ZYNQ_DTS_NAME.dts failed ($log)"
		echo "built in $((SECONDS - t0)) s" >>"$log"
		touch "$obj/.built"
	fi
	vm_kernel_built "$obj" arch/arm/boot/zImage
	VM_ZYNQ_RELEASE=$VM_KREL
	VM_KDIR=$obj
	VM_ZYNQ_DTS=$obj/$VM_ZYNQ_DTS_NAME.dts
	exec {lock}>&-
}

# vm_zynq_build_kmods DIR: the test-only kernel modules of tests/kmod,
# built out of tree against the Zynq-7000 kernel into DIR/kmod (for
# vm_cached_build; kbuild is tests/vm/run's command line).
vm_zynq_build_kmods() {
	local dir=$1
	cp -a "$REPO_ROOT/tests/kmod" "$dir/kmod"
	# shellcheck disable=SC2154 # kbuild: tests/vm/run's, as for the module
	vm_run_logged "$dir/build.log" "${kbuild[@]}" M="$dir/kmod" || return 1
	compgen -G "$dir/kmod/*.ko" >/dev/null || {
		vm_warn "the build of tests/kmod produced no module"
		return 1
	}
}
