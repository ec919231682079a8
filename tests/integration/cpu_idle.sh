#!/usr/bin/env bash
# The cpu answer of a nearly idle server, on the real kernel. A server that used under 5%
# of its CPU time, all groups together, is called nearly idle first ("Over 3 seconds, this
# server was nearly idle: 0.8% of its CPU time was used. Most of it was System, in F.");
# above that the answer keeps the spec's form. The machine this runs on may be quiet or
# loaded (other tests, builds): what /proc/stat says the CPUs did over the capture decides
# which wording is owed, with a margin for sampling either side of the line; in the
# margin either wording will do, as long as its numbers are the profile's. Then a busy
# workload (spin_all_day, one CPU's worth) is never called idle.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -n "$CGROUP2" ] && [ -w "$CGROUP2/cgroup.procs" ] || skip "no writable cgroup2 mount"
"$SLIDEOPS" check >/dev/null 2>&1 ||
	skip "this server cannot run the cpu question: $("$SLIDEOPS" check 2>&1 | tail -5)"

idle_re='^Over ([0-9]+) seconds?, this server was nearly idle: ([0-9]+\.[0-9]%|<0\.1%) of its CPU time was used\. Most of it was (.+)\.$'
# A machine so quiet that nothing was sampled while the capture ran (what /proc/stat saw
# busy was the capture starting and ending) gets the empty profile's answer.
empty_re='^Over ([0-9]+) seconds?, no process used the CPU on this server: the profile has no samples\.$'
busy_re='^Over ([0-9]+) seconds?, (.+) used ([0-9]+%|<1%) of the CPU time on this server(, most of it in [^ ]+)?\.( Next was .+, at ([0-9]+%|<1%)\.)?$'

# The CPUs' busy share from /proc/stat's first line: (all - idle - iowait) / all.
stat_ticks() {
	awk '/^cpu / { t = 0; for (i = 2; i <= 9; i++) t += $i; print t, $5 + $6 }' /proc/stat
}

# capture NAME: a 3 s cpu capture into $WORK/NAME.json; prints /proc/stat's busy share of
# the same seconds.
capture() {
	local before after
	before=$(stat_ticks)
	"$SLIDEOPS" capture cpu -d 3 --json > "$WORK/$1.json" 2> "$WORK/$1.err" ||
		fail "capture cpu failed: $(cat "$WORK/$1.err")"
	after=$(stat_ticks)
	echo "$before $after" | awk '{ all = $3 - $1; idle = $4 - $2;
		printf "%.4f\n", (all > 0 ? (all - idle) / all : 1) }'
}

# The profile's own use of the server: its groups' shares together.
used() { jq '[.groups[].share] | add // 0' "$WORK/$1.json"; }

echo "== a capture of this machine as it is"
busy=$(capture quiet)
answer=$(jq -r .answer "$WORK/quiet.json")
used=$(used quiet)
echo "/proc/stat: $busy busy; the profile: $used of the server; $answer"
if [[ $answer =~ $empty_re ]]; then
	awk -v b="$busy" 'BEGIN { exit !(b < 0.08) }' ||
		fail "the CPUs were $busy busy by /proc/stat, yet nothing was sampled: $answer"
	awk -v u="$used" 'BEGIN { exit !(u == 0) }' ||
		fail "called empty at $used of the server: $answer"
elif [[ $answer =~ $idle_re ]]; then
	awk -v b="$busy" 'BEGIN { exit !(b < 0.08) }' ||
		fail "the CPUs were $busy busy by /proc/stat, yet: $answer"
	awk -v u="$used" 'BEGIN { exit !(u < 0.05) }' ||
		fail "called idle at $used of the server: $answer"
	pct=${BASH_REMATCH[2]%\%}
	[ "$pct" = "<0.1" ] ||
		awk -v p="$pct" -v u="$used" \
			'BEGIN { d = p - u * 100; exit !(d <= 0.051 && d >= -0.051) }' ||
		fail "the answer says $pct%, the groups add up to $used: $answer"
	[ "${BASH_REMATCH[3]%%, in *}" = "$(jq -r '.groups[0].label' "$WORK/quiet.json")" ] ||
		fail "the idle answer does not name the largest group: $answer"
else
	[[ $answer =~ $busy_re ]] || fail "the answer is in neither form: $answer"
	awk -v b="$busy" 'BEGIN { exit !(b > 0.02) }' ||
		fail "the CPUs were $busy busy by /proc/stat (nearly idle), yet: $answer"
	awk -v u="$used" 'BEGIN { exit !(u >= 0.05) }' ||
		fail "not called idle at $used of the server: $answer"
fi

echo "== a busy workload is never called idle"
workload spin_all_day spinner
cg=$(make_cgroup "system.slice/slideops-test-cpu-busy.service")
start_in_cgroup "$cg" "$WORK/spinner" >/dev/null
sleep 0.3
busy=$(capture busy)
cg_kill "$cg"
answer=$(jq -r .answer "$WORK/busy.json")
echo "/proc/stat: $busy busy; the profile: $(used busy) of the server; $answer"
[[ $answer =~ $busy_re ]] ||
	fail "a server with a spinning workload is not answered in the spec's form: $answer"
[[ $answer != *"nearly idle"* ]] ||
	fail "a server with a spinning workload was called idle: $answer"
jq -e 'any(.groups[]; .label == "Unit slideops-test-cpu-busy.service" and
	.top_function == "spin_all_day")' "$WORK/busy.json" >/dev/null ||
	fail "the spinner is not among the groups: $(jq -c '[.groups[] | {label, share}]' \
		"$WORK/busy.json")"
echo "ok"
