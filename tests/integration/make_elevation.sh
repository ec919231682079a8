#!/usr/bin/env bash
# `make run` and `make test` become root the way the README says: as they are when make
# runs as root, through sudo otherwise, and without either they say so plainly (on this
# machine, as on containers and minimal images, sudo is not installed).
source "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/../.." && pwd)
make -s -C "$top" --no-print-directory as-root >"$WORK/out" 2>&1 || fail "as root: $(cat "$WORK/out")"
grep -q "sudo make" "$top/README.md" && fail "the README still says 'sudo make'"
# The README's first two commands, as its first code block has them.
cmds=$(awk '/^```/ { if (f) exit; f = 1; next } f && /^make / { print $1, $2 }' "$top/README.md" |
	paste -sd, -)
[ "$cmds" = "make run,make test" ] || fail "the README's first two commands are not 'make run' and 'make test': $cmds"

id nobody >/dev/null 2>&1 || skip "no user nobody to try as a non-root user"
# A PATH with no sudo in it, whatever this machine has.
mkdir -p "$WORK/bin" && ln -s "$(command -v make)" "$WORK/bin/make"
for t in id sh env dirname; do ln -s "$(command -v $t)" "$WORK/bin/$t"; done
chmod 755 "$WORK" "$WORK/bin"
set +e
su nobody -s /bin/sh -c "PATH=$WORK/bin make -s -C '$top' --no-print-directory as-root" >"$WORK/out" 2>&1
rc=$?
set -e
[ $rc != 0 ] || fail "as a user without sudo, as-root succeeded"
grep -q "needs root" "$WORK/out" && grep -q "sudo is not installed" "$WORK/out" ||
	fail "without root or sudo, make said: $(cat "$WORK/out")"
echo pass
