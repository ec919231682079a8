#!/usr/bin/env bash
# A stripped binary of ours that burns CPU lands on the card; uploading its debug file
# names its functions in the profile captured before the upload; deleting the upload
# brings the card back. A binary without a build id is listed as such. What the capture
# could not see: the stripped binary's stacks, whole but begun in its unnamed _start, are
# said to start in unnamed code (upload its debug symbols), not to stop short; once
# uploaded, or for the same program unstripped, nothing is said of it.
source "$(dirname "$0")/lib.sh"

workload compute_invoice_totals worker
objcopy --only-keep-debug "$WORK/worker" "$WORK/worker.debug"
cp "$WORK/worker" "$WORK/worker.full"
strip "$WORK/worker"
mkdir -p "$WORK/bin" && mv "$WORK/worker" "$WORK/bin/billing-worker"
build_id=$(readelf -n "$WORK/bin/billing-worker" | awk '/Build ID/ { print $3 }')
[ -n "$build_id" ] || fail "the fixture has no build id"

cg=$(make_cgroup system.slice/slideops-test-billing.service)
start_in_cgroup "$cg" "$WORK/bin/billing-worker" >/dev/null

"$SLIDEOPS" capture cpu -d 4 --json > "$WORK/capture.json" || fail "capture failed"
id=$(jq -r .id "$WORK/capture.json")
jq -e --arg p "$WORK/bin/billing-worker" --arg b "$build_id" '
	.stripped | map(select(.path == $p)) | length == 1 and .[0].build_id == $b
	and .[0].has_build_id == true and .[0].share >= 0.01' "$WORK/capture.json" >/dev/null ||
	fail "the stripped worker is not on the card: $(jq -c .stripped "$WORK/capture.json")"
jq -e '[.functions[].name] | index("compute_invoice_totals") == null' "$WORK/capture.json" \
	>/dev/null || fail "a stripped binary was named before any upload"

# Its stacks begin in its unnamed _start: said as what to do, and counted as whole.
jq -e --arg p "$WORK/bin/billing-worker" '.stack_quality.unnamed_starts |
	map(select(.path == $p)) | length == 1 and .[0].share > 0 and (.[0].sentence |
	startswith("The stacks of billing-worker start in unnamed code: upload its debug symbols"))' \
	"$WORK/capture.json" >/dev/null ||
	fail "the stripped worker's unnamed start is not said: $(jq -c .stack_quality "$WORK/capture.json")"
jq -e '.stack_quality.complete == null or .stack_quality.complete > 0.5' "$WORK/capture.json" \
	>/dev/null || fail "whole stacks read as short: $(jq -c .stack_quality "$WORK/capture.json")"

# The text view shows the card as the spec words it.
"$SLIDEOPS" show "$id" > "$WORK/show.txt"
grep -q "^Stacks: The stacks of billing-worker start in unnamed code: upload its debug symbols" \
	"$WORK/show.txt" || fail "the text view does not say the stacks start in unnamed code: $(cat "$WORK/show.txt")"
! grep -q "known root" "$WORK/show.txt" || fail "the text view speaks of known roots"
grep -q "Some functions have no names, because their binaries were stripped" "$WORK/show.txt" ||
	fail "no card in the text view: $(cat "$WORK/show.txt")"
grep -q "billing-worker .*% of this profile, build ${build_id:0:12}" "$WORK/show.txt" ||
	fail "the card line is not as the spec has it: $(cat "$WORK/show.txt")"

# Upload the debug file: the earlier profile now names the function.
"$SLIDEOPS" symbols upload "$WORK/worker.debug" --json > "$WORK/upload.json" ||
	fail "upload of the debug file refused"
jq -e --arg b "$build_id" '.build_id == $b and .functions > 0' "$WORK/upload.json" >/dev/null ||
	fail "upload reported $(cat "$WORK/upload.json")"
"$SLIDEOPS" show "$id" --json > "$WORK/after.json"
jq -e --arg p "$WORK/bin/billing-worker" '.stripped | map(select(.path == $p)) | length == 0' \
	"$WORK/after.json" >/dev/null || fail "the card still lists the worker after the upload"
jq -e --arg p "$WORK/bin/billing-worker" \
	'.stack_quality.unnamed_starts | map(select(.path == $p)) | length == 0' "$WORK/after.json" \
	>/dev/null || fail "the upload named _start, yet: $(jq -c .stack_quality "$WORK/after.json")"
jq -e '.groups[] | select(.label == "Unit slideops-test-billing.service")
	| .top_function == "compute_invoice_totals"' "$WORK/after.json" >/dev/null ||
	fail "the group is not named by the uploaded symbols: $(jq -c .groups "$WORK/after.json")"
# The answer speaks of the busiest group; the worker burns a whole CPU, so on a quiet
# machine that is its unit (and when something else was busier, the group check above holds).
if jq -e '.groups[0].label == "Unit slideops-test-billing.service"' "$WORK/after.json" >/dev/null; then
	jq -e '.answer | test("most of it in compute_invoice_totals")' "$WORK/after.json" >/dev/null ||
		fail "the answer does not use the uploaded name: $(jq -r .answer "$WORK/after.json")"
fi

# The unstripped build names it the same way; one entry per build id.
"$SLIDEOPS" symbols upload "$WORK/worker.full" >/dev/null || fail "upload of the full build refused"
[ "$("$SLIDEOPS" symbols list --json | jq --arg b "$build_id" '[.uploads[] | select(.build_id == $b)] | length')" = 1 ] ||
	fail "the same build uploaded twice is listed twice"

# Deleting the upload by a 12-hex prefix brings the card back.
"$SLIDEOPS" symbols delete "${build_id:0:12}" >/dev/null || fail "delete by prefix failed"
"$SLIDEOPS" show "$id" --json | jq -e --arg p "$WORK/bin/billing-worker" \
	'.stripped | map(select(.path == $p)) | length == 1' >/dev/null ||
	fail "the card did not come back after the delete"
cg_kill "$cg"

# The same program unstripped, beside the stripped copy (one build id, the stripped one's
# .dynsym kept by the first capture, both read by this one): its stacks begin at its named
# _start, whole, nothing is said of where they start, and its function is named.
mkdir -p "$WORK/full" && cp "$WORK/worker.full" "$WORK/full/billing-worker"
start_in_cgroup "$cg" "$WORK/full/billing-worker" >/dev/null
start_in_cgroup "$cg" "$WORK/bin/billing-worker" >/dev/null
"$SLIDEOPS" capture cpu -d 3 --json > "$WORK/full.json" || fail "capture failed"
jq -e --arg p "$WORK/full/billing-worker" '(.stack_quality.unnamed_starts |
	map(select(.path == $p)) | length == 0) and .stack_quality.complete > 0.5 and
	(.stack_quality.sentence | test("^[0-9<]+% of the stacks are whole"))' "$WORK/full.json" \
	>/dev/null || fail "the unstripped worker's stacks: $(jq -c .stack_quality "$WORK/full.json")"
jq -e '[.functions[].name] | index("compute_invoice_totals") != null' "$WORK/full.json" \
	>/dev/null || fail "the unstripped worker is not named: $(jq -c '[.functions[].name][:8]' "$WORK/full.json")"
cg_kill "$cg"

# A stripped binary without a build id is listed as such.
workload spin_without_id nobuildid
strip "$WORK/nobuildid"
start_in_cgroup "$cg" "$WORK/nobuildid" >/dev/null
"$SLIDEOPS" capture cpu -d 3 --json > "$WORK/noid.json" || fail "capture failed"
jq -e --arg p "$WORK/nobuildid" '.stripped | map(select(.path == $p)) | length == 1
	and .[0].has_build_id == false' "$WORK/noid.json" >/dev/null ||
	fail "the binary without a build id is not on the card: $(jq -c .stripped "$WORK/noid.json")"
"$SLIDEOPS" show "$(jq -r .id "$WORK/noid.json")" | has -- "--build-id" ||
	fail "the card does not say how to add a build id"
echo "stripped card: ok"
