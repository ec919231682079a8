#!/usr/bin/env bash
# Debug files installed on the server name functions with nothing uploaded: with
# libc6-dbg, libc's internal (not exported) functions have their names in a capture.
source "$(dirname "$0")/lib.sh"

# The capture's binary-reading phase reads them through symtab__read_binary.
# (grep reads a copy: with pipefail, nm killed by an early grep -q would read as absent.)
symbols=$(nm "$SLIDEOPS" 2>/dev/null || true)
grep -q ' T symtab__read_binary$' <<<"$symbols" ||
	skip "the capture does not call symtab__read_binary yet, so installed debug files are not read"
libc=$(ldd /bin/true | awk '/libc.so.6/ { print $3 }')
bid=$(readelf -n "$libc" | awk '/Build ID/ { print $3 }')
[ -f "/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" ] ||
	skip "libc6-dbg is not installed for this libc (make deps installs it)"

# Time inside malloc and free, whose work is in libc's internal _int_malloc/_int_free.
build_c churn -O1 -fno-omit-frame-pointer <<'C'
#include <stdlib.h>
void *volatile keep[4096];
int main(void)
{
	for (unsigned long i = 0;; i++) {
		unsigned k = (unsigned)(i * 2654435761u) % 4096;
		free(keep[k]);
		keep[k] = malloc(16 + (i * 40503u) % 4000);
	}
}
C
cg=$(make_cgroup system.slice/slideops-test-churn.service)
start_in_cgroup "$cg" "$WORK/churn" >/dev/null
"$SLIDEOPS" capture cpu -d 4 --json > "$WORK/capture.json" || fail "capture failed"
jq -e '[.functions[].name] | index("_int_malloc") != null or index("_int_free") != null' \
	"$WORK/capture.json" >/dev/null ||
	fail "libc's internal functions are not named: $(jq -c '[.functions[:15][].name]' "$WORK/capture.json")"
echo "installed debug files: ok"
