#!/usr/bin/env bash
# `slideops show` and `slideops compare` on a real capture. A C program with known
# functions (main -> build_report -> render_rows, busy in render_rows) runs in a unit's
# cgroup, and a second one (busy in other_work) in another. show must give the first's
# group the share of the server's CPU it really used (from /proc, within 10 points), name
# render_rows as "most of it in", list it among the top functions; export folded stacks
# root first and a pprof that `go tool pprof` names; and write a flame graph page that a
# real browser renders, searches, zooms and hovers.
# compare of two captures says what changed; unknown ids and bad options are refused.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -n "$CGROUP2" ] && [ -w "$CGROUP2/cgroup.procs" ] || skip "no writable cgroup2 mount"
"$SLIDEOPS" check >/dev/null 2>&1 || skip "this server cannot run the cpu question"

NCPUS=$(getconf _NPROCESSORS_ONLN)
TICK=$(getconf CLK_TCK)
UNIT=slideops-test-show.service
GROUP="Unit $UNIT"

workload render_rows_report show-worker

# CPU ticks a process has used (user + system), from /proc/PID/stat.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

cg=$(make_cgroup "system.slice/$UNIT")
pid=$(start_in_cgroup "$cg" "$WORK/show-worker")
# A second group of the test's own, busy in other_work: the profile has two groups of
# its own whatever else runs, so zooming to one hides boxes of another on a quiet machine.
OTHER_UNIT=slideops-test-show-other.service
workload other_work show-other
cg_other=$(make_cgroup "system.slice/$OTHER_UNIT")
start_in_cgroup "$cg_other" "$WORK/show-other" >/dev/null
sleep 0.3

# The worker's rate of CPU use while the capture runs (which takes longer than its 4 s of
# sampling: loading, reading binaries), as a share of the server's CPUs.
t0=$(cpu_ticks "$pid") w0=$(date +%s.%N)
"$SLIDEOPS" capture cpu -d 4 --json > "$WORK/capture.json" || fail "capture failed"
t1=$(cpu_ticks "$pid") w1=$(date +%s.%N)
id=$(jq -r .id "$WORK/capture.json")
[ -n "$id" ] && [ "$id" != null ] || fail "capture gave no id: $(cat "$WORK/capture.json")"

# ---- text view ----
"$SLIDEOPS" show "$id" > "$WORK/show.txt" || fail "show exited $?"
grep -q "^Over 4 seconds, " "$WORK/show.txt" || fail "no answer in the text view: $(cat "$WORK/show.txt")"
grep -q "^  $GROUP .*most of it in render_rows" "$WORK/show.txt" ||
	fail "the group row does not name render_rows: $(cat "$WORK/show.txt")"
grep -q "show-worker \[$pid\]" "$WORK/show.txt" || fail "the process is not listed under its group"
grep -Eq "^ +[0-9<]+% +[0-9<]+% +C/C\+\+ +render_rows$" "$WORK/show.txt" ||
	fail "render_rows is not among the top functions: $(cat "$WORK/show.txt")"
"$SLIDEOPS" show "$id" --top 0 > "$WORK/top0.txt"
grep -q "C/C++ *render_rows$" "$WORK/top0.txt" && fail "--top 0 still lists functions"

# ---- JSON: the group's share is what the worker really burned ----
"$SLIDEOPS" show "$id" --json > "$WORK/show.json" || fail "show --json failed"
expected=$(awk -v d=$((t1 - t0)) -v hz="$TICK" -v n="$NCPUS" -v a="$w0" -v b="$w1" \
	'BEGIN { print d / hz / (b - a) / n }')
jq -e --arg g "$GROUP" --argjson want "$expected" --argjson pid "$pid" '
	.groups | map(select(.label == $g)) | length == 1 and
	(.[0].share - $want | if . < 0 then -. else . end) <= 0.10 and .[0].kind == "unit" and
	.[0].name == "slideops-test-show.service" and .[0].unit == "nanoseconds" and
	.[0].top_function == "render_rows" and .[0].processes[0].pid == $pid and
	.[0].processes[0].comm == "show-worker"' "$WORK/show.json" >/dev/null ||
	fail "group share not within 10 points of $expected: $(jq -c --arg g "$GROUP" '.groups[] | select(.label == $g)' "$WORK/show.json")"
jq -e '.functions | map(select(.name == "render_rows")) | length == 1 and .[0].self > 0.1
	and .[0].total >= .[0].self and .[0].language == "C/C++"' "$WORK/show.json" >/dev/null ||
	fail "render_rows not in functions: $(jq -c '.functions[:5]' "$WORK/show.json")"
jq -e '.functions | map(select(.name == "build_report")) | .[0].total > 0.1' \
	"$WORK/show.json" >/dev/null || fail "build_report has no total share"
jq -e --arg id "$id" '.id == $id and .question == "cpu" and (.server | length) > 0 and
	(.started_at | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$")) and
	(.answer | startswith("Over 4 seconds, ")) and (.lost | type) == "number" and
	(.stripped | type) == "array"' "$WORK/show.json" >/dev/null ||
	fail "the document lacks architecture.md fields: $(jq -c 'del(.groups, .functions)' "$WORK/show.json")"
[ "$("$SLIDEOPS" show "$id" --json --top 1 | jq '.functions | length')" = 1 ] ||
	fail "--top 1 --json lists more than one function"

# ---- folded: root first, GROUP;COMM;...;LEAF SAMPLES ----
"$SLIDEOPS" show "$id" --export folded "$WORK/out.folded" >/dev/null || fail "folded export failed"
grep -Eq "^$GROUP;show-worker;(.*;)?main;build_report;render_rows [0-9]+$" "$WORK/out.folded" ||
	fail "no root-first stack of the worker: $(grep show-worker "$WORK/out.folded" | head -3)"
folded_samples=$(awk '{ n += $NF } END { print n }' "$WORK/out.folded")
profile_samples=$(jq '[.groups[].value] | add' "$WORK/show.json")
[ "$folded_samples" -gt 0 ] || fail "the folded file counts no samples"
[ "$(awk '{ print (NF > 1 && $NF ~ /^[0-9]+$/) }' "$WORK/out.folded" | sort -u)" = 1 ] ||
	fail "a folded line does not end in a count"
[ "$("$SLIDEOPS" show "$id" --export folded - | wc -l)" = "$(wc -l < "$WORK/out.folded")" ] ||
	fail "--export folded - does not write the same lines to standard output"
: "$profile_samples"

# ---- pprof: go tool pprof reads it with names ----
"$SLIDEOPS" show "$id" --export pprof "$WORK/out.pb.gz" >/dev/null || fail "pprof export failed"
if command -v go >/dev/null; then
	HOME=$WORK GOCACHE=$WORK/gocache go tool pprof -top "$WORK/out.pb.gz" > "$WORK/pprof.txt" 2>&1 ||
		fail "go tool pprof cannot read the export: $(tail -5 "$WORK/pprof.txt")"
	grep -q render_rows "$WORK/pprof.txt" || fail "go tool pprof does not name render_rows: $(head -20 "$WORK/pprof.txt")"
fi

# ---- flame graph ----
"$SLIDEOPS" show "$id" --flamegraph "$WORK/fg.html" --color group > "$WORK/fg.txt" ||
	fail "flame graph failed"
grep -q "Flame graph: $WORK/fg.html" "$WORK/fg.txt" || fail "show does not say where the flame graph is"
grep -Eq '(src|href)="https?:' "$WORK/fg.html" && fail "the flame graph fetches from the network"
grep -q '"colour":"group"' "$WORK/fg.html" || fail "--color group is not the page's colouring"
grep -q "render_rows" "$WORK/fg.html" || fail "the page does not carry the profile"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHROMIUM" ]; then
	browse() { # browse URL: the DOM after the page's scripts ran
		timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --user-data-dir="$WORK/chrome" \
			--allow-file-access-from-files --window-size=1400,900 --virtual-time-budget=5000 \
			--dump-dom "$1" 2>/dev/null
	}
	# Search: the share matched is render_rows' total share.
	browse "file://$WORK/fg.html#search=^render_rows\$" > "$WORK/dom1.html"
	grep -q 'data-ready="1"' "$WORK/dom1.html" || fail "the page did not finish its script"
	matched=$(grep -o 'data-matched="[0-9.]*"' "$WORK/dom1.html" | grep -o '[0-9.]*')
	want=$(jq '.functions[] | select(.name == "render_rows") | .total * 100' "$WORK/show.json")
	[ -n "$matched" ] && awk -v m="$matched" -v w="$want" 'BEGIN { exit !((m - w) ^ 2 < 1) }' ||
		fail "search matched ${matched:-nothing}%, render_rows holds $want%"
	grep -q "data-key=\"$GROUP\"" "$WORK/dom1.html" || fail "the group legend lacks $GROUP"

	# Hover, click and zoom, driven from a page that holds the flame graph in a frame.
	cat > "$WORK/drive.html" <<'HTML'
<!doctype html><html><body><iframe id="f" src="fg.html#colour=language" width="1200" height="800"></iframe>
<pre id="out"></pre>
<script>
const f = document.getElementById('f'), out = document.getElementById('out');
f.onload = () => {
	const w = f.contentWindow, d = f.contentDocument, body = d.getElementById('fg');
	const canvas = d.getElementById('graph'), r = canvas.getBoundingClientRect();
	const at = (row, x, type) => canvas.dispatchEvent(new w.MouseEvent(type,
		{ clientX: r.left + x, clientY: r.top + row * 18 + 9, bubbles: true }));
	const say = s => { out.textContent += s + '\n'; };
	const boxes = Number(body.dataset.boxes);
	at(0, 5, 'mousemove');
	say('hover-root=' + d.getElementById('tip').textContent + ' hidden=' + d.getElementById('tip').hidden);
	at(1, 5, 'mousemove');
	const group = d.getElementById('tip').firstChild.textContent;
	say('hover-group=' + group);
	at(1, 5, 'click');
	say('zoom=' + body.dataset.zoom + ' fewer=' + (Number(body.dataset.boxes) < boxes ? 1 : 0));
	say('crumbs=' + d.getElementById('crumbs').textContent);
	d.getElementById('reset').click();
	say('reset=' + (body.dataset.zoom || 'all') + ' boxes=' + (Number(body.dataset.boxes) === boxes ? 1 : 0));
	const legend = [...d.querySelectorAll('#legend span')].map(s => s.dataset.key);
	say('legend=' + legend.join('|'));
	const sel = d.getElementById('colour');
	sel.value = 'group';
	sel.dispatchEvent(new w.Event('change'));
	say('legend-group=' + [...d.querySelectorAll('#legend span')].map(s => s.dataset.key).join('|'));
	say('done');
};
</script></body></html>
HTML
	browse "file://$WORK/drive.html" > "$WORK/dom2.html"
	grep -q '^done$' "$WORK/dom2.html" || fail "driving the page failed: $(grep -A12 '<pre id="out">' "$WORK/dom2.html")"
	grep -q 'hover-root=alleverything in this profile.*100% of total hidden=false$' "$WORK/dom2.html" ||
		fail "hovering the root shows no tooltip: $(grep hover-root "$WORK/dom2.html")"
	group=$(sed -n 's/^hover-group=//p' "$WORK/dom2.html")
	jq -e --arg g "$group" '.groups | map(.label) | index($g) != null' "$WORK/show.json" >/dev/null ||
		fail "the first row under the root is not an owner group: '$group'"
	jq -e --arg g "Unit $OTHER_UNIT" '.groups | map(.label) | index($g) != null' \
		"$WORK/show.json" >/dev/null || fail "the profile lacks the second group, Unit $OTHER_UNIT"
	grep -q "^zoom=$group fewer=1$" "$WORK/dom2.html" || fail "clicking a group does not zoom to it: $(grep ^zoom= "$WORK/dom2.html")"
	grep -q "^crumbs=all › $group$" "$WORK/dom2.html" || fail "no way back shown after zooming"
	grep -q '^reset=all boxes=1$' "$WORK/dom2.html" || fail "reset zoom does not show everything again"
	grep -q '^legend=.*C/C++' "$WORK/dom2.html" || fail "the language legend lacks C/C++: $(grep ^legend= "$WORK/dom2.html")"
	grep -q "^legend-group=.*$GROUP" "$WORK/dom2.html" || fail "the group legend lacks $GROUP"

	# A link can zoom: the box of build_report fills the width.
	browse "file://$WORK/fg.html#zoom=build_report" > "$WORK/dom3.html"
	grep -q 'data-zoom="build_report"' "$WORK/dom3.html" || fail "#zoom=build_report did not zoom"
else
	echo "chromium not installed: the flame graph was not opened in a browser"
fi

# ---- compare: the worker stopped, its group and function are gone ----
cg_kill "$cg"
"$SLIDEOPS" capture cpu -d 2 --json > "$WORK/capture2.json" || fail "second capture failed"
id2=$(jq -r .id "$WORK/capture2.json")
"$SLIDEOPS" compare "$id" "$id2" --json > "$WORK/compare.json" || fail "compare failed"
before=$(jq --arg g "$GROUP" '.groups[] | select(.label == $g) | .share' "$WORK/show.json")
jq -e --arg g "$GROUP" --arg a "$id" --arg b "$id2" --argjson before "$before" '
	.question == "cpu" and .before.id == $a and .after.id == $b and (.summary | length) > 0
	and (.groups | map(select(.label == $g)) | length == 1 and .[0].after == 0 and
	     (.[0].before - $before | if . < 0 then -. else . end) < 1e-6)
	and (.shrank | map(.name) | index("render_rows") != null)' "$WORK/compare.json" >/dev/null ||
	fail "compare does not show the stopped worker: $(jq -c '{summary, groups, shrank}' "$WORK/compare.json")"
"$SLIDEOPS" compare "$id" "$id2" > "$WORK/compare.txt" || fail "compare (text) failed"
grep -q "^  $GROUP .* 0% .*-" "$WORK/compare.txt" ||
	fail "compare text lacks the group's fall to 0%: $(cat "$WORK/compare.txt")"
grep -q "render_rows$" "$WORK/compare.txt" || fail "compare text lacks render_rows"
"$SLIDEOPS" compare "$id" "$id" --json | jq -e '.grew == [] and .shrank == []' >/dev/null ||
	fail "a profile compared with itself shows changes"

# ---- refusals ----
# exit_code CMD...: the exit status of CMD, its output kept in $WORK/err.txt.
exit_code() { "$@" >/dev/null 2> "$WORK/err.txt" && echo 0 || echo $?; }
[ "$(exit_code "$SLIDEOPS" show no-such-profile)" = 1 ] || fail "an unknown id does not exit 1"
grep -q "^slideops: no profile has the id 'no-such-profile'" "$WORK/err.txt" ||
	fail "unclear error for an unknown id: $(cat "$WORK/err.txt")"
[ "$(exit_code "$SLIDEOPS" show "$id" --color blue)" = 2 ] || fail "--color blue is not refused with exit 2"
[ "$(exit_code "$SLIDEOPS" show "$id" --export svg x)" = 2 ] || fail "--export svg is not refused with exit 2"
[ "$(exit_code "$SLIDEOPS" show)" = 2 ] || fail "show without an id is not a usage error"
[ "$(exit_code "$SLIDEOPS" compare "$id")" = 2 ] || fail "compare with one id is not a usage error"
[ "$(exit_code "$SLIDEOPS" compare "$id" no-such-profile)" = 1 ] ||
	fail "compare with an unknown id does not exit 1"
echo "show and compare: ok"
