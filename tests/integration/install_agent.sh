#!/usr/bin/env bash
# `make install-agent` installs what a real server runs: the binary, the agent's systemd
# unit with its paths filled in, and the agent's documentation, under DESTDIR; and
# systemd finds nothing wrong in the unit (no unknown key, no bad value).
source "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(cd "$(dirname "$SLIDEOPS")" && pwd)
dest=$WORK/root
make -s -C "$top" --no-print-directory install-agent OUTPUT="$out" DESTDIR="$dest" \
	PREFIX=/opt/slideops UNITDIR=/etc/systemd/system >"$WORK/out" 2>&1 ||
	fail "make install-agent: $(cat "$WORK/out")"
cat "$WORK/out"

bin=$dest/opt/slideops/bin/slideops
unit=$dest/etc/systemd/system/slideops-agent.service
[ "$(stat -c %a "$bin")" = 755 ] || fail "the binary is not 0755"
[ "$(stat -c %a "$unit")" = 644 ] || fail "the unit is not 0644"
for doc in agent.md protocol.md; do
	[ -s "$dest/opt/slideops/share/doc/slideops/$doc" ] || fail "docs/$doc is not installed"
done
"$bin" agent --help >"$WORK/help" 2>&1 || fail "the installed binary has no agent: $(cat "$WORK/help")"

# Every placeholder filled in; the unit starts the installed binary as an agent.
grep -n '@[A-Z]*@' "$unit" && fail "placeholders left in the unit"
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
set -- $exec_start
[ "$1" = /opt/slideops/bin/slideops ] && [ "$2" = agent ] ||
	fail "ExecStart does not run the installed agent: $exec_start"
grep -q '^Documentation=file:///opt/slideops/share/doc/slideops/agent.md$' "$unit" ||
	fail "Documentation does not point at the installed agent.md"
# A refusal for good (exit 2, docs/agent.md) is not restarted.
grep -q '^RestartPreventExitStatus=2$' "$unit" || fail "a refused agent would be restarted"
# Its memory and CPU are bounded (docs/agent.md, "Its own limits"; agent_limits.sh runs
# an agent within them).
for key in MemoryHigh MemoryMax CPUQuota TasksMax; do
	grep -q "^$key=." "$unit" || fail "the unit does not set $key"
done

# systemd's own reading of the unit: nothing said about any of its lines. (Without a
# running systemd, verify also says what it cannot do here: those lines name no line.)
command -v systemd-analyze >/dev/null || fail "systemd-analyze is missing (make deps installs systemd)"
cp "$unit" "$WORK/slideops-agent.service"
systemd-analyze verify --man=no "$WORK/slideops-agent.service" >"$WORK/verify" 2>&1 || true
if grep -E 'slideops-agent\.service:[0-9]+:' "$WORK/verify"; then
	fail "systemd finds fault with the unit"
fi
# The check can fail: a misspelt key is found.
mkdir -p "$WORK/misspelt"
sed 's/^NoNewPrivileges=/NoNewPrivilege=/' "$unit" > "$WORK/misspelt/slideops-agent.service"
systemd-analyze verify --man=no "$WORK/misspelt/slideops-agent.service" >"$WORK/verify2" 2>&1 || true
grep -qE 'slideops-agent\.service:[0-9]+:.*NoNewPrivilege' "$WORK/verify2" ||
	fail "systemd-analyze did not find a misspelt key: $(cat "$WORK/verify2")"
echo pass
