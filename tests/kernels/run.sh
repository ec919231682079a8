#!/usr/bin/env bash
# The kernel matrix: boots Debian's own kernels in qemu with this machine's root shared
# read-only over 9p, and runs, inside each, `slideops check` (every question must load)
# and integration tests (tests/kernels/guest.sh). Each kernel's .deb comes from apt; only
# its kernel, config and the few modules the guest needs are kept, under build/kernels/.
#
#   tests/kernels/run.sh            the short form (.ci/run): check, the verifier's budget
#                                   and a capture of each question on 6.1; check, budget
#                                   and cpu on 6.12; check and budget on the build of each
#                                   series before its newest (6.1~1, 6.12~1)
#   KERNEL_TEST=long tests/kernels/run.sh   before a release: the capture, stack and Python
#                                   integration tests too, on 6.1 and 6.12
#   KERNELS="6.12" tests/kernels/run.sh     one series only (6.1, 6.12; SERIES~N: the
#                                   build N before the newest apt knows)
#   KERNEL_TESTS="capture_cpu questions:wall" ...   these, after check, on every kernel
#   KERNEL_TEST_SECONDS=N ...               a test's bound in a guest (900 s; a hung one's)
#
# Needs root (apt-get download, and the guest runs the tests as root), qemu-system-x86
# and busybox-static, and a built build/slideops. KVM only where the CPU offers VMX/SVM
# itself (a nested /dev/kvm without them cannot run stock kernels): TCG otherwise.
# Ends with "N passed, N failed" over kernels; exit 0 only when every kernel passed.
set -uo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
cache=$top/build/kernels
mode=${KERNEL_TEST:-short}
# How long a guest may take in all (KERNEL_TEST_TIMEOUT overrides): a bound on a hung
# guest. The long form's guest took 15 min on 6.1 and on 6.12 under TCG (2 CPUs, a quiet
# host; docs/kernel.md has each test's time): an hour bounds it on a busy host.
guest_limit=${KERNEL_TEST_TIMEOUT:-$([ "$mode" = long ] && echo 3600 || echo 1800)}
# The long form on each series' newest build: the build before it differs in fixes, and
# the short form checks that its programs load.
series_list=${KERNELS:-$([ "$mode" = long ] && echo "6.1 6.12" || echo "6.1 6.12 6.1~1 6.12~1")}

# What runs in each guest after `slideops check`: "questions" is a short capture of each
# question against a known workload (tests/kernels/questions.sh; "questions:cpu" of one),
# any other name an integration test (tests/integration/NAME.sh).
tests_for() {
	if [ -n "${KERNEL_TESTS:-}" ]; then
		echo "check $KERNEL_TESTS"
		return
	fi
	case "$mode:$1" in
	short:6.1) echo "check verifier_budget questions" ;;
	short:*~*) echo "check verifier_budget" ;;
	short:*) echo "check verifier_budget questions:cpu" ;;
	# The long form: every question's own integration test (each asks more of its
	# answer than questions.sh's short capture, which it therefore leaves out).
	long:*) echo "check verifier_budget capture_cpu capture_wall capture_threads" \
		"capture_locks capture_memory stacks threads_stacks python kernel_fallbacks" ;;
	*) echo "kernel-test: KERNEL_TEST is short or long, not '$mode'" >&2; exit 2 ;;
	esac
}

die() { echo "kernel-test: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root: the guest loads BPF programs as this machine's root"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is missing: make deps"
# (The list read whole first: grep -q leaving early would kill busybox with SIGPIPE, and
# pipefail would call that missing.)
[ -x /bin/busybox ] && grep -qx insmod <<<"$(/bin/busybox --list)" ||
	die "busybox-static is missing: make deps"
[ -x "$top/build/slideops" ] || die "build/slideops is missing: make all"

# The newest linux-image-<series>*-amd64 package apt knows (signed images: the same
# kernel as the unsigned ones, and what Debian installs); SERIES~N: the build N before it.
newest_image() {
	local pattern back=0 series=$1
	if [[ $series == *~* ]]; then
		back=${series#*~}
		series=${series%%~*}
	fi
	set -- "$series"
	case "$1" in
	6.1) pattern='^linux-image-6\.1\.0-[0-9]+-amd64$' ;;
	*) pattern="^linux-image-${1//./\\.}\\.[0-9]+\\+deb[0-9]+-amd64\$" ;;
	esac
	apt-cache search --names-only "^linux-image-$1" 2>/dev/null | awk '{ print $1 }' |
		grep -E "$pattern" | sort -V | tail -$((back + 1)) | head -1
}

# Modules the guest loads for 9p, in order, where the kernel has them as modules
# (built-in ones have no file). fscache is part of netfs from 6.6 on.
MODULES="virtio_pci_modern_dev virtio_pci_legacy_dev virtio_ring virtio virtio_pci netfs \
fscache 9pnet 9pnet_virtio 9p"

# build/kernels/<series>/: vmlinuz, config, release, modules/*.ko, initramfs.cpio.
prepare_kernel() {
	local series=$1 dir=$cache/$1 pkg deb release tmp m f
	pkg=$(newest_image "$series")
	[ -n "$pkg" ] || { apt-get update -qq >/dev/null 2>&1; pkg=$(newest_image "$series"); }
	[ -n "$pkg" ] || die "apt knows no linux-image package for $series"
	release=${pkg#linux-image-}
	if [ -f "$dir/initramfs.cpio" ] && [ "$(cat "$dir/release" 2>/dev/null)" = "$release" ]; then
		[ "$top/tests/kernels/init" -nt "$dir/initramfs.cpio" ] ||
			[ "$top/tests/kernels/run.sh" -nt "$dir/initramfs.cpio" ] || return 0
		make_initramfs "$dir" && return 0
	fi
	rm -rf "$dir" && mkdir -p "$dir" || return 1
	tmp=$(mktemp -d "$cache/.download.XXXXXX")
	(cd "$tmp" && apt-get download -q "$pkg" >/dev/null 2>&1) ||
		die "apt-get download $pkg failed"
	deb=$(ls "$tmp"/*.deb)
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards \
		"./boot/vmlinuz-*" "./boot/config-*" \
		$(for m in $MODULES; do echo "*/$m.ko" "*/$m.ko.xz" "*/$m.ko.zst"; done) \
		2>/dev/null
	cp "$tmp/boot/vmlinuz-$release" "$dir/vmlinuz" && cp "$tmp/boot/config-$release" "$dir/config" ||
		die "$pkg has no boot/vmlinuz-$release"
	mkdir -p "$dir/root/bin" "$dir/root/modules"
	for m in $MODULES; do
		f=$(find "$tmp/lib" -name "$m.ko*" | head -1)
		[ -n "$f" ] || continue
		case "$f" in
		*.xz) xz -dc "$f" > "$dir/root/modules/$m.ko" ;;
		*.zst) zstd -qdc "$f" > "$dir/root/modules/$m.ko" ;;
		*) cp "$f" "$dir/root/modules/$m.ko" ;;
		esac
	done
	rm -rf "$tmp"
	cp "$dir/config" "$dir/root/config"
	make_initramfs "$dir" || die "cannot make the initramfs for $series"
	echo "$release" > "$dir/release"
}

# DIR/initramfs.cpio from DIR/root (modules, config) with busybox and tests/kernels/init.
make_initramfs() {
	cp /bin/busybox "$1/root/bin/busybox" && cp "$top/tests/kernels/init" "$1/root/init" &&
		chmod 755 "$1/root/init" && echo "$MODULES" > "$1/root/modules.order" &&
		(cd "$1/root" && find . | /bin/busybox cpio -o -H newc > "$1/initramfs.cpio" 2>/dev/null)
}

accel() {
	if [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then
		echo "-accel kvm -cpu host"
	else
		echo "-accel tcg -cpu max"
	fi
}

# The guest's console, as it comes: from its first line of its own (the boot before is
# in the log), without the kernel's messages and the status line.
show_guest() {
	local line on=
	while IFS= read -r line; do
		line=${line%$'\r'}
		[[ $line == *"kernel-test: "* ]] && line="kernel-test: ${line#*kernel-test: }" on=1
		[ -n "$on" ] || continue
		[[ $line == "kernel-test-status "* || $line =~ ^\[\ *[0-9.]+\] ]] && continue
		printf '    %s\n' "$line"
	done
}

# run_kernel SERIES [TESTS]: boots it, runs the tests (TESTS, or the form's), shows the
# guest's output. 0: all passed; 3: the guest's kernel panicked (its oops shown); 1:
# anything else.
run_kernel() {
	local series=$1 dir=$cache/$1 log tests rc oops
	prepare_kernel "$series" || return 1
	log=$cache/$series.log
	tests=${2:-$(tests_for "$series")}
	echo "== $series: $(cat "$dir/release") ($(accel | awk '{ print $2 }'); tests: $tests)"
	# The guest's status comes back in its console output: qemu exits 0 on poweroff.
	# The guest reads KT_* from its command line (init's environment).
	timeout "$guest_limit" qemu-system-x86_64 $(accel) -smp 2 -m 3072 \
		-nographic -no-reboot -monitor none -serial stdio \
		-kernel "$dir/vmlinuz" -initrd "$dir/initramfs.cpio" \
		-append "console=ttyS0 quiet loglevel=3 panic=-1 KT_REPO=$top \
KT_SLIDEOPS=$slideops KT_WORKLOADS=$workloads KT_TESTS=${tests// /,} \
KT_TEST_SECONDS=${KERNEL_TEST_SECONDS:-900}" \
		-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
		-nic none < /dev/null 2>&1 | tee "$log" | show_guest
	rc=${PIPESTATUS[0]}
	if [ "$rc" = 124 ]; then
		echo "FAIL $series: the guest did not finish within $guest_limit s (log: $log)"
		return 1
	fi
	rc=$(tr -d '\r' < "$log" | sed -n 's/^kernel-test-status \([0-9]*\)$/\1/p' | tail -1)
	if [ "$rc" = 0 ]; then
		echo "ok   $series"
		return 0
	fi
	echo "FAIL $series (guest status ${rc:-none}; log: $log)"
	if [ -z "$rc" ] && grep -q "Kernel panic" "$log"; then
		# The oops from its first line (the console's last lines are only its end).
		oops=$(tr -d '\r' < "$log" |
			sed -n '/\] \(BUG:\|Oops\|general protection\|invalid opcode\|kernel BUG\)/,$p')
		[ -n "$oops" ] || oops=$(tail -30 "$log")
		head -60 <<<"$oops" | sed 's/^/    /'
		return 3
	fi
	[ -n "$rc" ] || tail -30 "$log" | sed 's/^/    /'
	return 1
}

# run_kernel_once_more SERIES: run_kernel, and when the guest's kernel panicked (its
# status never came), one more boot. Under TCG, qemu has been seen to run a vCPU through
# code the other one was patching (6.12.117, RIP inside a jmp's operand, after check
# passed; 6.12.118 in mm_trace_rss_stat as capture_memory attached, "Oops: int3"); a
# panic our programs caused would come back on the second boot. The second boot runs
# check and the tests the first did not finish, from the one the panic stopped (the
# long form's first half is a quarter of an hour under TCG); one the first boot failed
# stays failed. The first boot's log is kept beside the second's, and both outcomes are
# printed.
run_kernel_once_more() {
	local rc t finished rest failed_before
	run_kernel "$1"
	rc=$?
	[ $rc = 3 ] || return $rc
	mv "$cache/$1.log" "$cache/$1.panic.log"
	finished=" $(tr -d '\r' < "$cache/$1.panic.log" |
		sed -n 's/^\(ok\|FAIL\) *\([^ ]*\) (.*$/\2/p' |
		tr '\n' ' ')"
	failed_before=$(tr -d '\r' < "$cache/$1.panic.log" | grep -c '^FAIL ')
	rest=check
	for t in $(tests_for "$1"); do
		[ "$t" = check ] || [[ $finished == *" $t "* ]] || rest="$rest $t"
	done
	echo "     $1: the guest's kernel panicked (its log: $cache/$1.panic.log); booting it once more for $rest"
	run_kernel "$1" "$rest"
	[ $? = 0 ] && [ "$failed_before" = 0 ]
}

mkdir -p "$cache"
# The binary under test, as it is now: a build while the guests run must not change it
# under them (they read it from this machine's disk).
slideops=$cache/slideops.$$
cp "$top/build/slideops" "$slideops" || die "cannot copy build/slideops"
trap 'rm -f "$slideops"' EXIT
# The known workloads of tests/kernels/questions.sh, built here (a compiler under TCG
# takes half a minute a file).
workloads=$cache/workloads
gcc -O1 -fno-omit-frame-pointer -pthread -Wall -Wextra -Werror -o "$workloads" \
	"$top/tests/kernels/workloads.c" || die "cannot build tests/kernels/workloads.c"
passed=0 failed=0
for series in $series_list; do
	if run_kernel_once_more "$series"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "kernels: $passed passed, $failed failed"
[ "$failed" = 0 ]
