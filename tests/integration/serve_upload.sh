#!/usr/bin/env bash
# Debug symbols through the API (the Debug symbols panel and the card's Upload debug
# symbols): the spec's refusals as they are; a good upload lists as the CLI lists it and
# can be deleted; the body streams to disk: a 1 GB upload is accepted, one past 1 GB is
# refused while streaming, and the server's memory stays bounded through both; the file
# is gone once its names are read.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/serve-lib.bash"

command -v curl >/dev/null || skip "curl is not installed (make deps installs it)"
RSS_MAX_KB=$((64 * 1024))

cd "$WORK"
workload settle_ledger_once app
objcopy --only-keep-debug app app.debug
strip -o app-stripped app
workload settle_ledger_once_noid app-noid
echo 'not a binary' > notes.txt
bid=$(readelf -n app | awk '/Build ID/ { print $3; exit }')
start_serve

# upload FILE NAME: POSTs the file as the body; prints the status.
upload() { api POST "/api/symbols?name=$2" -H 'Content-Type: application/octet-stream' --data-binary "@$1"; }

refused() {
	local want=$1 file=$2 code
	code=$(upload "$file" "$(basename "$file")")
	[ "$code" = 400 ] || fail "upload of $file: HTTP $code, want 400: $(cat "$WORK/body")"
	[ "$(jq -r .error "$WORK/body")" = "$want" ] ||
		fail "upload of $file said $(cat "$WORK/body"), want '$want'"
}
refused "this is not an ELF binary or debug file" notes.txt
refused "the file has no build id, so SlideOps cannot tell which build it names" app-noid
refused "the file is stripped too" app-stripped

code=$(upload app.debug app.debug)
[ "$code" = 200 ] || fail "a good upload: HTTP $code: $(cat "$WORK/body")"
jq -e --arg b "$bid" '.build_id == $b and .file_name == "app.debug" and .functions >= 2' "$WORK/body" \
	>/dev/null || fail "the upload said $(cat "$WORK/body")"
expect 200 GET /api/symbols
"$SLIDEOPS" symbols list --json > cli.json
same_json "$WORK/body" cli.json
# A name from the browser is a name, never a path.
code=$(upload app.debug '..%2F..%2Fetc%2Fevil.debug')
jq -e '.file_name == "evil.debug"' "$WORK/body" >/dev/null || fail "a path as a name was kept: $(cat "$WORK/body")"

expect 200 DELETE "/api/symbols/${bid:0:12}"
jq -e --arg b "$bid" '.deleted == $b' "$WORK/body" >/dev/null || fail "delete said $(cat "$WORK/body")"
expect 404 DELETE "/api/symbols/$bid"
[ "$(jq -r .error "$WORK/body")" = "there is no upload of build $bid; 'slideops symbols list' lists them" ] ||
	fail "deleting again said $(cat "$WORK/body")"
expect 400 DELETE /api/symbols/xyz

# ---- size: refused when said too large, and while streaming when not said ----
code=$(curl -s -o "$WORK/body" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
	-H "Content-Length: $((1024 * 1024 * 1024 + 1))" -X POST --max-time 10 \
	"$BASE/api/symbols?name=big.debug" --data-binary @notes.txt || true)
[ "$code" = 413 ] && [ "$(jq -r .error "$WORK/body")" = "the file is larger than 1 GB" ] ||
	fail "a body said to be over 1 GB: HTTP $code $(cat "$WORK/body")"

before=$(ls -A "$SLIDEOPS_DATA" | sort)
# Over 1 GB, chunked (no length said): counted while it streams.
code=$( { cat app.debug; head -c $((1024 * 1024 * 1024)) /dev/zero; } |
	curl -s -o "$WORK/body" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
	-H 'Transfer-Encoding: chunked' -X POST -T - "$BASE/api/symbols?name=big.debug")
[ "$code" = 413 ] && [ "$(jq -r .error "$WORK/body")" = "the file is larger than 1 GB" ] ||
	fail "a chunked body past 1 GB: HTTP $code $(cat "$WORK/body")"

# Exactly 1 GB: a debug file padded with zeros past its sections is still that file.
size=$(stat -c %s app.debug)
code=$( { cat app.debug; head -c $((1024 * 1024 * 1024 - size)) /dev/zero; } |
	curl -s -o "$WORK/body" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
	-H 'Transfer-Encoding: chunked' -X POST -T - "$BASE/api/symbols?name=app-1g.debug")
[ "$code" = 200 ] && jq -e --arg b "$bid" '.build_id == $b and .file_name == "app-1g.debug"' "$WORK/body" >/dev/null ||
	fail "a 1 GB debug file: HTTP $code $(cat "$WORK/body")"

peak=$(rss_peak_kb "$SERVE_PID")
echo "serve peak RSS through two 1 GB uploads: $((peak / 1024)) MB"
[ "$peak" -le "$RSS_MAX_KB" ] || fail "serve's peak RSS was ${peak} kB, over $RSS_MAX_KB kB: the upload was held in memory"
# The file is not kept: nothing new in the workspace, nothing left open.
[ "$(ls -A "$SLIDEOPS_DATA" | sort)" = "$before" ] || fail "an upload left a file in the workspace: $(ls -A "$SLIDEOPS_DATA")"
! ls -l "/proc/$SERVE_PID/fd" 2>/dev/null | has '(deleted)' || fail "serve still holds an upload open"
stop_serve
echo "ok"
