#!/bin/sh
# Debian 12's own Node 18 (packages nodejs and libnode108: V8 10.2, its v8dbg_ constants
# in the shared libnode.so.108, not in the node executable) unpacked into DIR, beside the
# node installed (which may be another: nodesource's Node 20, pinned), for
# tests/integration/node18.sh and test_v8's Node 18 cases. Run by `make deps` as whoever
# runs make: apt-get download and dpkg-deb -x need no root. Its other runtime needs
# (libuv1, libicu72, ...; node-acorn, node-cjs-module-lexer and node-undici, whose files
# libnode.so.108 loads at start from /usr/share/nodejs) are `make deps`'s apt-get install.
# Run it as DIR/usr/bin/node with LD_LIBRARY_PATH=DIR/usr/lib/x86_64-linux-gnu.
# Idempotent (nothing done when DIR holds it); never fails `make deps`: offline, or on a
# system whose apt knows no Node 18, it says why and the tests that need it skip.
# Usage: fetch-node18.sh DIR
dir=${1:?usage: fetch-node18.sh DIR}
say() { echo "node18: $*"; }

if [ -x "$dir/usr/bin/node" ] && [ -f "$dir/usr/lib/x86_64-linux-gnu/libnode.so.108" ]; then
	exit 0
fi
for t in apt-cache apt-get dpkg-deb mktemp awk; do
	command -v "$t" >/dev/null 2>&1 ||
		{ say "not fetched: no $t here (the Node 18 tests skip)"; exit 0; }
done
# Debian's own version of libnode108 (the newest of 18.x apt lists: security's first),
# and the nodejs of the same version: named, as a pin may prefer another nodejs.
version=$(apt-cache madison libnode108 2>/dev/null |
	awk -F'|' '{ gsub(/ /, "", $2); if ($2 ~ /^18\./) { print $2; exit } }')
if [ -z "$version" ]; then
	say "not fetched: apt knows no libnode108 of Node 18 (not Debian 12, or no apt-get update yet; the Node 18 tests skip)"
	exit 0
fi
parent=$(dirname "$dir")
mkdir -p "$parent" || { say "not fetched: cannot make $parent"; exit 0; }
tmp=$(mktemp -d "$parent/.node18.XXXXXX") || { say "not fetched: no room in $parent"; exit 0; }
if ! (cd "$tmp" && apt-get download -q "nodejs=$version" "libnode108=$version") \
	> "$tmp/log" 2>&1; then
	say "not fetched (offline?): apt-get download nodejs=$version libnode108=$version: $(grep -E '^(E|W):' "$tmp/log" | head -2 | tr '\n' ' ')(the Node 18 tests skip)"
	rm -rf "$tmp"
	exit 0
fi
for deb in "$tmp"/*.deb; do
	dpkg-deb -x "$deb" "$tmp/root" ||
		{ say "not fetched: $deb does not unpack"; rm -rf "$tmp"; exit 0; }
done
rm -rf "$dir"
mv "$tmp/root" "$dir" && rm -rf "$tmp" || { say "not fetched: cannot move it to $dir"; rm -rf "$tmp"; exit 0; }
say "Debian's Node.js $version unpacked in $dir"
