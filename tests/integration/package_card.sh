#!/usr/bin/env bash
# Files the distribution installed are system files, like those under /usr/lib: Debian's
# stripped /usr/bin/dash is never on the stripped-binary card, while a stripped binary
# from a .deb the user built and installed with dpkg -i stays theirs.
source "$(dirname "$0")/lib.sh"

# The capture records it through packages__from_archive.
# (grep reads a copy: with pipefail, nm killed by an early grep -q would read as absent.)
symbols=$(nm "$SLIDEOPS" 2>/dev/null || true)
grep -q ' T packages__from_archive$' <<<"$symbols" ||
	skip "the capture does not call packages__from_archive yet, so package-owned binaries are not recorded"
command -v dpkg-deb >/dev/null || skip "not a dpkg system"
dpkg -S /bin/dash >/dev/null 2>&1 || dpkg -S /usr/bin/dash >/dev/null 2>&1 ||
	skip "dash is not installed from a package here"

# The user's own package: one stripped binary that spins.
workload spin_own_package spinner
strip "$WORK/spinner"
pkg=slideops-test-spinner
mkdir -p "$WORK/deb/DEBIAN" "$WORK/deb/usr/bin"
cp "$WORK/spinner" "$WORK/deb/usr/bin/$pkg"
printf 'Package: %s\nVersion: 1.0\nArchitecture: %s\nMaintainer: Test <test@example.com>\nDescription: test spinner\n' \
	"$pkg" "$(dpkg --print-architecture)" > "$WORK/deb/DEBIAN/control"
dpkg-deb --build "$WORK/deb" "$WORK/$pkg.deb" >/dev/null || fail "dpkg-deb failed"
dpkg -i "$WORK/$pkg.deb" >/dev/null || fail "dpkg -i failed"
defer "dpkg -r $pkg >/dev/null 2>&1"

cg=$(make_cgroup system.slice/slideops-test-pkg.service)
start_in_cgroup "$cg" /usr/bin/dash -c 'while :; do :; done' >/dev/null
start_in_cgroup "$cg" "/usr/bin/$pkg" >/dev/null
"$SLIDEOPS" capture cpu -d 4 --json > "$WORK/capture.json" || fail "capture failed"
jq -e '[.stripped[].path] | index("/usr/bin/dash") == null and index("/bin/dash") == null' \
	"$WORK/capture.json" >/dev/null ||
	fail "Debian's dash is on the card: $(jq -c .stripped "$WORK/capture.json")"
jq -e --arg p "/usr/bin/$pkg" '[.stripped[].path] | index($p) != null' "$WORK/capture.json" \
	>/dev/null || fail "the user's own package is not on the card: $(jq -c .stripped "$WORK/capture.json")"
echo "package card: ok"
