#!/usr/bin/env bash
# `make fresh-check`: the README's `make run` on a fresh Debian 12, as a new user meets it.
# A minimal Debian 12 root (debootstrap --variant=minbase, with only make and git added;
# made once and kept in build/fresh/) gets a clean clone of this repository's HEAD, and
# `make run` runs there in a chroot with /proc, /sys (BPF's file system, cgroup2, tracefs
# and debugfs with it) and /dev bound in: it installs every package itself (make deps),
# builds, takes its 10 s capture, which must print its answer, then serves; the server
# must answer with its token, and is then stopped as Ctrl-C stops it. Downloaded .deb
# files are kept in build/fresh/apt-archives so that a second run does not fetch them
# again (apt-get still installs them all). Needs root; the Makefile target elevates.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
fresh=$top/build/fresh
base=$fresh/bookworm-minbase.tar
root=$fresh/root
archives=$fresh/apt-archives
log=$fresh/make-run.log
started=$(date +%s)

say() { echo "fresh-check: $*"; }
fail() { echo "fresh-check: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "run as root (make fresh-check becomes root itself)"

# The apt mirror this machine uses: the only one it may reach.
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
	grep -v security | head -1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $0 !~ /security/ { print $2; exit }' \
	/etc/apt/sources.list 2>/dev/null)
mirror=${mirror:-http://deb.debian.org/debian}

mounted_under() { awk -v r="$1" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/mounts; }
unmount_all() {
	local m
	for m in $(mounted_under "$root" | sort -r); do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
	done
}
server=""
cleanup() {
	if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
		kill -KILL -- "-$server" 2>/dev/null || true
	fi
	unmount_all
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$fresh" "$archives"
if [ ! -s "$base" ]; then
	say "making a minimal Debian 12 root from $mirror (once; kept in $base)"
	rm -rf --one-file-system "$fresh/base"
	debootstrap --variant=minbase --include=make,git bookworm "$fresh/base" "$mirror" \
		> "$fresh/debootstrap.log" 2>&1 ||
		fail "debootstrap failed: $(tail -5 "$fresh/debootstrap.log")"
	tar -C "$fresh/base" -cf "$base.tmp" . && mv "$base.tmp" "$base"
	rm -rf --one-file-system "$fresh/base"
fi

# A root as debootstrap left it, never one a previous run changed.
unmount_all
[ -z "$(mounted_under "$root")" ] || fail "cannot unmount what a previous run left under $root"
rm -rf --one-file-system "$root"
mkdir -p "$root"
tar -C "$root" -xf "$base"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
git clone -q "$top" "$root/root/slideops"
say "a clean clone of $(git -C "$root/root/slideops" rev-parse --short HEAD) in a fresh root"

mount -t proc proc "$root/proc"
for d in sys dev; do
	mount --rbind "/$d" "$root/$d"
	mount --make-rslave "$root/$d"
done
mount --bind "$archives" "$root/var/cache/apt/archives"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])' 2>/dev/null || echo $((20000 + RANDOM % 20000)))
say "make run LISTEN=127.0.0.1:$port (installs its packages, builds, captures, serves; log: $log)"
# Its own session, so that it and everything it starts are stopped together. The log is
# made first: the loop below may read it before the background shell has opened it.
: > "$log"
setsid chroot "$root" /usr/bin/env -i \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
	make -C /root/slideops run LISTEN=127.0.0.1:$port > "$log" 2>&1 &
server=$!
run_started=$(date +%s)

url=""
while kill -0 "$server" 2>/dev/null; do
	url=$(sed -n 's/^SlideOps is at \(http[^ ]*token=[^ ]*\)$/\1/p' "$log" | head -1)
	[ -n "$url" ] && break
	sleep 2
done
[ -n "$url" ] || fail "make run ended before serving: $(tail -30 "$log")"
served=$(date +%s)

grep -q "^installing: .*libbpf-dev" "$log" ||
	fail "make run did not install the packages: $(head -5 "$log")"
grep -q "^Over 10 seconds, " "$log" || fail "the 10 s capture printed no answer: $(tail -30 "$log")"
token=${url##*token=}
profiles=$(curl -fsS --max-time 20 -H "Authorization: Bearer $token" \
	"http://127.0.0.1:$port/api/profiles") || fail "the server did not answer with its token"
case $profiles in *'"question": "cpu"'*|*'"question":"cpu"'*) ;;
	*) fail "the server's profiles do not list the capture: $profiles";; esac
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 20 "http://127.0.0.1:$port/api/profiles")
[ "$code" = 401 ] || fail "without its token the server answered $code, not 401"
# The URL sets the token's cookie and sends the browser on to the page.
page=$(curl -fsSL --max-time 20 -c "$fresh/cookies" -b "$fresh/cookies" "$url") ||
	fail "the URL make run printed does not open: $url"
case $page in *"<html"*|*"<!doctype"*|*"<!DOCTYPE"*) ;; *) fail "the URL make run printed gives no page";; esac

# Stopped as Ctrl-C stops it.
kill -INT -- "-$server" 2>/dev/null || true
for _ in $(seq 50); do kill -0 "$server" 2>/dev/null || break; sleep 0.2; done
kill -0 "$server" 2>/dev/null && fail "make run did not stop on Ctrl-C"
grep -q "SlideOps stopped." "$log" || fail "the server did not say it stopped: $(tail -5 "$log")"
server=""
say "pass in $(( $(date +%s) - started )) s (make run served $(( served - run_started )) s after it began; log: $log)"
