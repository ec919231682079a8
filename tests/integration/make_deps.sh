#!/usr/bin/env bash
# `make deps` and `make bench-deps` on a machine where nothing is installed, without
# installing anything: dpkg-query and dpkg that know no package, an apt-get that only
# records its arguments and who ran it, and a sudo that marks what it runs, first on a
# PATH that holds nothing else but the basic tools make needs. Each target must exit 0
# with ONE apt-get install call naming every package building and testing (or
# benchmarking) need, as root or through sudo. The packages are this test's own list,
# not the Makefile's: dropping one from the Makefile fails here. Every library the
# Makefile links must have its -dev package in the list.
# Needs no build and installs nothing: .ci/run runs it before anything else.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d /tmp/slideops-make-deps.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# What Debian's Node 18 (unpacked beside the nodejs installed, for node18.sh) needs
# installed: libnode.so.108's libraries and the scripts it loads from /usr/share/nodejs.
NODE18_PACKAGES="libuv1 libc-ares2 libicu72 libbrotli1 libnghttp2-14 libssl3 node-acorn
	node-cjs-module-lexer node-undici"
# What a fresh machine must get from `make deps`: tools (libfuse3-dev: for the FUSE file
# system capture_engine.sh builds), then the -dev package of each library linked
# (LIBRARY_PACKAGES, checked against the Makefile's -l flags below).
TOOL_PACKAGES="make gcc clang llvm lld bpftool protobuf-c-compiler libclang-rt-14-dev
	binutils elfutils procps file python3 jq curl openssl sqlite3 golang-go libc6-dbg
	chromium nodejs npm postgresql-15 qemu-system-x86 busybox-static systemd
	libfuse3-dev $NODE18_PACKAGES"
declare -A LIBRARY_PACKAGES=(
	[bpf]=libbpf-dev [elf]=libelf-dev [dw]=libdw-dev [z]=zlib1g-dev [lz4]=liblz4-dev
	[sqlite3]=libsqlite3-dev [jansson]=libjansson-dev [protobuf-c]=libprotobuf-c-dev
	[iberty]=libiberty-dev [microhttpd]=libmicrohttpd-dev [cmocka]=libcmocka-dev
	[pq]=libpq-dev [curl]=libcurl4-openssl-dev [gnutls]=libgnutls28-dev
	[icui18n]=libicu-dev [icuuc]=libicu-dev [pthread]=gcc [m]=gcc
)
# What `make bench-deps` adds: the peers bench/ runs side by side, and its tools.
BENCH_PACKAGES="linux-perf bpftrace hyperfine time libbpf-tools wrk bc"

libraries=$(grep -oE -- '(^|[[:space:]])-l[a-z0-9_+-]+' "$top/Makefile" | sed 's/^[[:space:]]*-l//' | sort -u)
[ -n "$libraries" ] || fail "found no -l flag in the Makefile"
needed_deps=$TOOL_PACKAGES
for lib in $libraries; do
	pkg=${LIBRARY_PACKAGES[$lib]:-}
	[ -n "$pkg" ] || fail "the Makefile links -l$lib: add its -dev package to this test and to the Makefile"
	needed_deps="$needed_deps $pkg"
done

bin=$WORK/bin
mkdir -p "$bin"
for t in sh bash make sed uname find grep id env cat sort tr dirname; do
	ln -s "$(command -v "$t")" "$bin/$t"
done
cat > "$bin/dpkg-query" <<'SH'
#!/bin/sh
for a; do case $a in -*) ;; *) echo "dpkg-query: no packages found matching $a" >&2;; esac; done
exit 1
SH
cat > "$bin/dpkg" <<'SH'
#!/bin/sh
echo "dpkg: package is not installed" >&2
exit 1
SH
cat > "$bin/apt-get" <<'SH'
#!/bin/sh
echo "uid=$(id -u) via=${STUB_SUDO:-none} $*" >> "$APT_LOG"
SH
cat > "$bin/sudo" <<'SH'
#!/bin/sh
STUB_SUDO=sudo exec "$@"
SH
chmod 755 "$WORK" "$bin" "$bin"/*

# run_target TARGET USER: make TARGET as USER with the stubs; its apt-get calls in
# $WORK/apt.log, its output in $WORK/out.
run_target() {
	local target=$1 user=$2 rc=0
	: > "$WORK/apt.log"
	chmod 666 "$WORK/apt.log"
	local cmd="env -i PATH=$bin HOME=$WORK APT_LOG=$WORK/apt.log make -s --no-print-directory -C '$top' $target"
	if [ "$user" = root ]; then
		sh -c "$cmd" > "$WORK/out" 2>&1 || rc=$?
	else
		su "$user" -s /bin/sh -c "$cmd" > "$WORK/out" 2>&1 || rc=$?
	fi
	[ $rc = 0 ] || fail "make $target as $user on a machine with nothing installed exited $rc: $(cat "$WORK/out")"
}

# check_installs TARGET USER PACKAGES: one install call named every one of PACKAGES, and
# every apt-get call ran as root (as root, or through sudo).
check_installs() {
	local target=$1 user=$2 needed=$3 installs line missing="" p
	installs=$(grep -c ' install ' "$WORK/apt.log" || true)
	[ "$installs" = 1 ] ||
		fail "make $target as $user made $installs apt-get install calls, not one: $(cat "$WORK/apt.log")"
	line=$(grep ' install ' "$WORK/apt.log")
	for p in $needed; do
		case " $line " in *" $p "*) ;; *) missing="$missing $p";; esac
	done
	[ -z "$missing" ] || fail "make $target as $user does not install:$missing (its call: $line)"
	while read -r call; do
		case $call in uid=0\ *|*via=sudo*) ;;
			*) fail "make $target as $user ran apt-get neither as root nor through sudo: $call";;
		esac
	done < "$WORK/apt.log"
	grep -q "^installing: .*libbpf-dev" "$WORK/out" ||
		fail "make $target as $user did not say what it installs: $(cat "$WORK/out")"
}

run_target deps root
check_installs deps root "$needed_deps"
run_target bench-deps root
check_installs bench-deps root "$needed_deps $BENCH_PACKAGES"

# Through sudo: as a user who may read the tree (a clone under /root is not readable).
if id nobody >/dev/null 2>&1 && su nobody -s /bin/sh -c "test -r '$top/Makefile'" 2>/dev/null; then
	run_target deps nobody
	check_installs deps nobody "$needed_deps"
	grep -q via=sudo "$WORK/apt.log" || fail "make deps as a user did not go through sudo"
	run_target bench-deps nobody
	check_installs bench-deps nobody "$needed_deps $BENCH_PACKAGES"
else
	echo "not tried through sudo: user nobody cannot read $top"
fi
echo pass
