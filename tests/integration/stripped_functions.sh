#!/usr/bin/env bash
# A stripped binary's addresses are grouped by the function that holds them (.eh_frame
# knows where each starts): two hot unnamed functions are two rows, named by their
# starts, not one row per sampled address; the binary stays on the card.
source "$(dirname "$0")/lib.sh"

workload price_and_ship_orders worker
start_of() { printf '%x' "0x$(nm "$WORK/worker" | awk -v f="$1" '$3 == f { print $1 }')"; }
price=$(start_of price_orders)
ship=$(start_of ship_orders)
main=$(start_of main)
entry=$(start_of _start)
strip "$WORK/worker"
mkdir -p "$WORK/bin" && mv "$WORK/worker" "$WORK/bin/billing-worker"

cg=$(make_cgroup system.slice/slideops-test-twofn.service)
start_in_cgroup "$cg" "$WORK/bin/billing-worker" >/dev/null
"$SLIDEOPS" capture cpu -d 4 --json > "$WORK/capture.json" || fail "capture failed"

rows=$(jq -c '[.functions[] | select(.name | startswith("billing-worker+0x"))]' "$WORK/capture.json")
# Each function holds about half of the worker's time, however busy the machine is.
share=$(jq '.groups[] | select(.label == "Unit slideops-test-twofn.service") | .share' \
	"$WORK/capture.json")
[ -n "$share" ] || fail "the worker's unit is not in the profile: $(jq -c .groups "$WORK/capture.json")"
for f in "$price" "$ship"; do
	jq -e --arg n "billing-worker+0x$f" --argjson g "$share" \
		'map(select(.name == $n and .self >= 0.2 * $g)) | length == 1' <<<"$rows" >/dev/null ||
		fail "no row billing-worker+0x$f (price $price, ship $ship; unit $share): $rows"
done
# Every row of the binary is a function's start: no row per sampled address. Complete
# stacks reach _start beneath main.
jq -e --arg a "billing-worker+0x$price" --arg b "billing-worker+0x$ship" \
	--arg m "billing-worker+0x$main" --arg e "billing-worker+0x$entry" \
	'all(.[]; .name == $a or .name == $b or .name == $m or .name == $e)' \
	<<<"$rows" >/dev/null || fail "rows that are not function starts: $rows"
jq -e --arg p "$WORK/bin/billing-worker" '.stripped | map(select(.path == $p)) | length == 1' \
	"$WORK/capture.json" >/dev/null || fail "the stripped worker is not on the card"
jq -e --arg a "billing-worker+0x$price" --arg b "billing-worker+0x$ship" '
	.groups[] | select(.label == "Unit slideops-test-twofn.service")
	| .top_function == $a or .top_function == $b' "$WORK/capture.json" >/dev/null ||
	fail "the group's top function is not one of the two: $(jq -c .groups "$WORK/capture.json")"
echo "stripped functions: ok"
