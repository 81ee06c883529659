# SPDX-License-Identifier: GPL-2.0-only
#
# udmabuf-cfs: build, install and test.
#
#   make                      module for the running kernel, libudmabuf and
#                             udmabufctl
#   make KERNEL_SRC_DIR=/path ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
#   sudo make install         module (extra/), udmabufctl, libudmabuf, headers,
#                             udev rule (PREFIX=/usr/local, DESTDIR=)
#   make install-tools        the same without the module
#   make deb                  Debian packages into build/deb/, lintian-checked
#   sudo make check-deb       install them here, DKMS build for a Debian kernel,
#                             the installed files tested in a guest
#   make check                everything: check-host, check-stock, check-debug
#   make check-stock          guest tests on Debian's amd64 and arm64 kernels
#   make check-debug          guest tests on the amd64 and arm64 debug kernels (KASAN, lockdep,
#                             kmemleak, fault injection...), module in-tree
#   make bench                benchmarks in the guests (tests/bench)
#   make demo                 boot a guest and walk through a buffer's life
#   make vm-shell [VM_ARCH=arm64]   interactive guest with everything loaded
#   make lint                 W=1 + sparse + checkpatch (driver and user space) + shellcheck
#
# KDIR is accepted as another name for KERNEL_SRC_DIR.

KERNEL_SRC_DIR ?= /lib/modules/$(shell uname -r)/build
KDIR ?= $(KERNEL_SRC_DIR)
ARCH ?=
CROSS_COMPILE ?=
VM_ARCH ?= amd64
PREFIX ?= /usr/local
DESTDIR ?=

# Only pass ARCH and CROSS_COMPILE on when set: an empty ARCH= would
# override kbuild's own default.
KBUILD_VARS := $(if $(ARCH),ARCH=$(ARCH)) \
	       $(if $(CROSS_COMPILE),CROSS_COMPILE=$(CROSS_COMPILE))
KBUILD := $(MAKE) -C $(KDIR) M=$(CURDIR)/driver $(KBUILD_VARS)

all: module tools

# Without the kernel's headers kbuild would only say "No such file or
# directory": say which package has them.
module:
	@test -e $(KDIR)/Makefile || { \
		echo "udmabuf-cfs: no kernel headers in $(KDIR): install them (Debian, Ubuntu: linux-headers-$$(uname -r); Fedora: kernel-devel; Arch: linux-headers) or give KDIR=/path/to/kernel" >&2; \
		exit 1; }
	$(KBUILD) modules

# The library beside the tools that use it, as util-linux has them.
TOOL_DIRS := lib/libudmabuf tools/udmabufctl
tools:
	$(MAKE) -C lib/libudmabuf CC=$(CROSS_COMPILE)gcc
	$(MAKE) -C tools/udmabufctl CC=$(CROSS_COMPILE)gcc

install: install-module install-tools

install-module: module
	$(KBUILD) INSTALL_MOD_DIR=extra $(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) \
		modules_install
	if [ -z "$(DESTDIR)" ]; then depmod -a; fi

# udmabufctl, libudmabuf (shared library, udmabuf.h, udmabuf.pc, man pages;
# ldconfig when DESTDIR is empty), the UAPI header and the udev rule.
install-tools: tools
	for d in $(TOOL_DIRS); do \
		$(MAKE) -C $$d PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) install || exit; \
	done
	install -D -m 0644 include/uapi/linux/udmabuf-cfs.h \
		$(DESTDIR)$(PREFIX)/include/linux/udmabuf-cfs.h
	install -D -m 0644 udev/60-udmabuf-cfs.rules \
		$(DESTDIR)/etc/udev/rules.d/60-udmabuf-cfs.rules
	if [ -z "$(DESTDIR)" ]; then \
		getent group udmabuf >/dev/null || groupadd --system udmabuf; \
	fi

# Debian packages (debian/): udmabuf-cfs-dkms, udmabufctl, libudmabuf1,
# libudmabuf-dev, python3-udmabuf, built from the committed tree (git archive HEAD) in a
# copy, so the checkout stays clean; then lintian, which must find no
# error and no warning (overrides carry their reason in debian/).
DEB_OUT := $(CURDIR)/build/deb
deb:
	@v=$$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf); \
	m=$$(sed -n 's/^#define UDMABUF_CFS_VERSION[[:space:]]*"\(.*\)"/\1/p' driver/internal.h); \
	d=$$(dpkg-parsechangelog -S Version); \
	if [ "$$v" != "$$m" ] || [ "$${d%%-*}" != "$$v" ]; then \
		echo "make deb: versions differ: dkms.conf $$v, driver $$m, debian/changelog $$d" >&2; \
		exit 1; \
	fi
	rm -rf $(DEB_OUT)
	mkdir -p $(DEB_OUT)/src/udmabuf-cfs
	if git rev-parse --git-dir >/dev/null 2>&1; then \
		git status --porcelain -- debian dkms.conf driver include lib tools udev | \
			grep -q . && echo "make deb: uncommitted changes are not packaged (git archive HEAD)"; \
		git archive HEAD | tar -x -C $(DEB_OUT)/src/udmabuf-cfs; \
	else \
		tar -c --exclude=./build --exclude=./.git . | tar -x -C $(DEB_OUT)/src/udmabuf-cfs; \
	fi
	# Debian's own interpreters and tools, not a virtualenv's or pyenv's
	# python3 that happens to come first in PATH (pybuild runs python3.11).
	cd $(DEB_OUT)/src/udmabuf-cfs && \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin dpkg-buildpackage -us -uc -b
	mv $(DEB_OUT)/src/*.deb $(DEB_OUT)/src/*.changes $(DEB_OUT)/src/*.buildinfo $(DEB_OUT)/
	rm -rf $(DEB_OUT)/src
	PATH=/usr/sbin:/usr/bin:/sbin:/bin lintian --fail-on error,warning --display-info --show-overrides $(DEB_OUT)/*.changes
	@# The guides a user needs come with the packages.
	@for f in udmabuf-cfs-dkms:admin-guide.rst udmabuf-cfs-dkms:cache-coherency.rst \
		libudmabuf-dev:libudmabuf.rst libudmabuf-dev:examples/udmabuf-example.c \
		libudmabuf-dev:examples/pcie-dma.c python3-udmabuf:examples/pcie-dma.py \
		libudmabuf-dev:examples/soc-dma.c libudmabuf-dev:examples/soc-dma.dtsi \
		python3-udmabuf:examples/soc-dma.py; do \
		dpkg-deb -c $(DEB_OUT)/$${f%%:*}_*.deb | grep "/usr/share/doc/$${f%%:*}/$${f#*:}" >/dev/null || \
			{ echo "make deb: $${f%%:*} lacks /usr/share/doc/$${f%%:*}/$${f#*:}" >&2; exit 1; }; \
	done
	@ls -l $(DEB_OUT)

# Installs build/deb/*.deb on this machine (root, apt), a Debian kernel's
# headers, shows DKMS building the module and tests the installed files in
# a guest of that kernel; not part of make check.
check-deb:
	tests/deb/check

# Static checks of the driver against the kernel in KDIR, checkpatch over
# the kernel and the user-space C, and shellcheck (warnings and errors) over
# the shell scripts and bats files.
SHELL_SCRIPTS := .ci/run tests/demo.sh tests/vm/run tests/vm/check-all \
	tests/vm/lib.sh tests/vm/deps tests/vm/selftest tests/vm/debug.sh \
	tests/vm/debug-kernel tests/vm/init tests/vm/checkpatch tests/vm/bats-preprocess \
	tests/deb/check \
	tests/bench/run tests/bench/guest.sh tests/catalogue/check tests/uapi/check \
	tests/build/check \
	tests/vm/check-cache tests/python/check
BATS_FILES := $(wildcard tests/bats/*.bats tests/bats-dt/*.bats tests/deb/*.bats \
	tests/vm/selftest.d/*.bats) $(wildcard tests/bats/helpers/*.bash)
# The Zynq-7000 lane's kernel recipe, guest tests and test-only module.
SHELL_SCRIPTS += tests/vm/zynq.sh tests/dt/check-socfpga
BATS_FILES += $(wildcard tests/bats-zynq/*.bats tests/bats-zynq/*.bash)
TEST_KMOD_SOURCES := $(wildcard tests/kmod/*.c)
# The user-space C: library, udmabufctl, test helpers, benchmark, UAPI check.
USER_C_SOURCES := $(wildcard lib/libudmabuf/*.[ch] lib/libudmabuf/*/*.[ch] \
	tools/udmabufctl/*.[ch] tools/udmabufctl/tests/*.[ch] \
	tests/helpers/*.[ch] tests/bench/*.c tests/uapi/*.c)
lint:
	@command -v sparse >/dev/null || \
		{ echo "make lint: needs sparse (apt-get install sparse)" >&2; exit 1; }
	$(KBUILD) W=1 C=2 modules
	tests/vm/checkpatch $(filter-out %.mod.c,$(wildcard driver/*.c)) \
		driver/*.h include/uapi/linux/*.h
	tests/vm/checkpatch $(TEST_KMOD_SOURCES)
	tests/vm/checkpatch $(USER_C_SOURCES)
	@command -v shellcheck >/dev/null || \
		{ echo "make lint: needs shellcheck (apt-get install shellcheck)" >&2; exit 1; }
	shellcheck -x -S warning $(SHELL_SCRIPTS)
	shellcheck -S warning -s bash $(BATS_FILES)

# Seconds of concurrent stress on the debug kernel (the stock lanes run 10).
STRESS_SECONDS ?= 30

# Everything the README promises; installs missing Debian packages as root.
# The host tests, then every lane of tests/vm/lanes (stock and debug
# kernels); a failing lane does not stop the others.
# (tests/vm/check-all --all: one queue of jobs on two slots; the debug
# kernels are built first, beside the first guest.  The Python binding's
# NumPy 2 run, which makes the sid build root on a new machine, is a job of
# that queue, not a wait before it.)
check: deps
	$(MAKE) check-host PYTHON_CHECK=1
	UDMABUF_DEBUG_STRESS_SECONDS=$(STRESS_SECONDS) tests/vm/check-all --all

# The suite on Debian's own kernels, each lane in its own guest
# (tests/vm/check-all), plus the harness's negative control.
check-stock: deps
	tests/vm/check-all

deps:
	tests/vm/deps

check-host: deps
	$(MAKE) -C lib/libudmabuf check
	$(MAKE) -C tools/udmabufctl check
	tests/uapi/check
	tests/catalogue/check
	tests/build/check
	tests/dt/check-socfpga
	tests/python/check $(PYTHON_CHECK)
	tests/vm/check-cache

check-amd64:
	tests/vm/run --arch amd64

# The reliability lane: Debian's linux-source-6.12 built with every checker
# (tests/vm/debug.config, cached), udmabuf-cfs built in-tree, the whole suite
# (each debug lane in as few boots as keep each under 15 minutes) plus a
# longer stress run and the harness's negative
# control with a real leak.
check-debug: deps
	UDMABUF_DEBUG_STRESS_SECONDS=$(STRESS_SECONDS) tests/vm/check-all --debug

bench: deps
	tests/bench/run

check-arm64:
	tests/vm/run --arch arm64

demo: deps
	tests/vm/run --arch $(VM_ARCH) --script tests/demo.sh

vm-shell: deps
	tests/vm/run --arch $(VM_ARCH) --shell

clean:
	-$(KBUILD) clean
	for d in $(TOOL_DIRS); do $(MAKE) -C $$d clean; done
	rm -rf build

.PHONY: all module tools install install-module install-tools deb check-deb \
	lint check deps check-host check-stock check-amd64 check-arm64 \
	check-debug bench demo vm-shell clean
