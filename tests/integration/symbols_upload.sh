#!/usr/bin/env bash
# slideops symbols upload | list | delete, as a user meets it: every kind of build that
# carries names is accepted (PIE and not, shared library, debug file, compressed debug
# sections); each refusal exits 2 with exactly the spec's words; 1 GB is the limit, one
# byte more is refused before anything is read; the same build again replaces its upload;
# delete takes a unique prefix of 12 hex or more; the file itself is never kept.
source "$(dirname "$0")/lib.sh"

# The spec's what-to-do after each of its refusals.
declare -A HINT=(
	["this is not an ELF binary or debug file"]="Upload the Linux binary or its \`.debug\` file, not an archive or a source file"
	["the file is stripped too"]="Upload the unstripped build, or the debug file made from it"
)

# expect_refusal MESSAGE FILE: exit 2, and "slideops: MESSAGE" word for word on stderr,
# followed by what to do; with --json, {"error": MESSAGE, "hint": WHAT_TO_DO} on stdout.
expect_refusal() {
	local want=$1 file=$2 rc=0 got
	"$SLIDEOPS" symbols upload "$file" >"$WORK/out" 2>"$WORK/err" || rc=$?
	[ "$rc" = 2 ] || fail "upload of $(basename "$file"): exit $rc, want 2 ($(cat "$WORK/err"))"
	got=$(cat "$WORK/err")
	[ "${got#"slideops: $want. "}" != "$got" ] ||
		fail "upload of $(basename "$file") said '$got', want 'slideops: $want. ...'"
	if [ -n "${HINT[$want]:-}" ]; then
		[ "$got" = "slideops: $want. ${HINT[$want]}" ] ||
			fail "upload of $(basename "$file") said '$got', want the spec's what-to-do"
	fi
	[ ! -s "$WORK/out" ] || fail "a refused upload printed on stdout: $(cat "$WORK/out")"
	rc=0
	"$SLIDEOPS" --json symbols upload "$file" >"$WORK/out" 2>/dev/null || rc=$?
	[ "$rc" = 2 ] || fail "upload --json of $(basename "$file"): exit $rc, want 2"
	[ "$(json 'd["error"]' <"$WORK/out")" = "$want" ] ||
		fail "upload --json of $(basename "$file"): $(cat "$WORK/out")"
	[ "$(json 'd["hint"] is not None' <"$WORK/out")" = True ] ||
		fail "upload --json of $(basename "$file") has no hint: $(cat "$WORK/out")"
}

build_id_of() { readelf -n "$1" 2>/dev/null | awk '/Build ID/ { print $3; exit }'; }

# upload FILE: accepted; prints the JSON document.
upload() {
	"$SLIDEOPS" symbols upload "$1" --json 2>"$WORK/err" ||
		fail "upload of $(basename "$1") refused: $(cat "$WORK/err")"
}

cp "$(dirname "$0")/../workloads/post_invoice_marker.c" "$WORK/app.c" # a source file: refused
cd "$WORK"
workload post_invoice_marker_nopie app-nopie
workload post_invoice_marker app
workload post_invoice_marker_gz app-gz
workload post_invoice_marker_shared libledger.so
objcopy --only-keep-debug app app.debug
objcopy --only-keep-debug --compress-debug-sections=zlib app app-z.debug
strip -o app-stripped app
strip -o libledger-stripped.so libledger.so
workload post_invoice_marker_noid app-noid

# ---- accepted: every build that carries names ----
bid=$(build_id_of app)
[ -n "$bid" ] || fail "the fixture has no build id"
upload app.debug > up.json
jq -e --arg b "$bid" '.build_id == $b and .file_name == "app.debug" and .functions >= 3' up.json \
	>/dev/null || fail "upload of the debug file reported $(cat up.json)"
# It names exactly the functions readelf finds (main, settle_ledger, post_invoice, ...).
want=$(readelf -sW app.debug 2>/dev/null | awk '$4 == "FUNC" && $7 != "UND" && $7 != "ABS" { print $2 }' | sort -u | wc -l)
[ "$(jq .functions up.json)" = "$want" ] ||
	fail "the debug file has $want functions, upload counted $(jq .functions up.json)"

for f in app-nopie app-gz libledger.so app-z.debug; do
	upload "$f" > up.json
	jq -e --arg b "$(build_id_of "$f")" '.build_id == $b and .functions >= 3' up.json >/dev/null ||
		fail "upload of $f reported $(cat up.json)"
done

# The text form says what happened.
"$SLIDEOPS" symbols upload app-nopie > up.txt || fail "upload without --json refused"
grep -q "functions of build $(build_id_of app-nopie)" up.txt || fail "upload said: $(cat up.txt)"

# ---- list ----
# app-z.debug is the same build as app.debug: it replaced it, so four builds are listed.
"$SLIDEOPS" symbols list --json > list.json
jq -e '.uploads | length == 4' list.json >/dev/null ||
	fail "want 4 uploads listed: $(jq -c . list.json)"
jq -e '.uploads | all(has("file_name") and has("functions") and has("build_id") and has("uploaded_at"))
	and all(.uploaded_at | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"))' \
	list.json >/dev/null || fail "list entries miss fields: $(jq -c . list.json)"
"$SLIDEOPS" symbols list | has "app-z.debug" || fail "the text list does not show app-z.debug"

# ---- the same build again replaces its upload ----
upload app > up.json
jq -e --arg b "$bid" '.build_id == $b' up.json >/dev/null || fail "unstripped build reported $(cat up.json)"
"$SLIDEOPS" symbols list --json > list.json
[ "$(jq --arg b "$bid" '[.uploads[] | select(.build_id == $b)] | length' list.json)" = 1 ] ||
	fail "one build uploaded twice is listed twice: $(jq -c . list.json)"
[ "$(jq -r --arg b "$bid" '.uploads[] | select(.build_id == $b) | .file_name' list.json)" = app ] ||
	fail "the later upload did not replace the earlier one: $(jq -c . list.json)"

# ---- the file itself is never kept ----
if grep -rqa "SLIDEOPS-FILE-CONTENT-MARKER-7f3a" "$SLIDEOPS_DATA"; then
	fail "bytes of an uploaded file were stored in the workspace"
fi

# ---- refusals, exactly as the spec words them ----
not_elf="this is not an ELF binary or debug file"
expect_refusal "$not_elf" app.c
workload post_invoice_marker_object obj.o
ar rcs archive.a obj.o
expect_refusal "$not_elf" archive.a
expect_refusal "$not_elf" obj.o
: > empty
expect_refusal "$not_elf" empty
gzip -c app > app.gz
expect_refusal "$not_elf" app.gz
head -c 4000 app > app.cut
expect_refusal "$not_elf" app.cut
head -c $(($(stat -c %s app.debug) - 1)) app.debug > app.debug.cut
expect_refusal "$not_elf" app.debug.cut
mkdir -p somedir
# A directory is said to be one, not "not an ELF".
rc=0
"$SLIDEOPS" symbols upload somedir >"$WORK/out" 2>"$WORK/err" || rc=$?
[ "$rc" = 2 ] || fail "upload of a directory: exit $rc"
grep -q "somedir is a directory" "$WORK/err" || fail "upload of a directory said: $(cat "$WORK/err")"
expect_refusal "the file has no build id, so SlideOps cannot tell which build it names" app-noid
expect_refusal "the file is stripped too" app-stripped
# .dynsym alone is not names for a build: a stripped library is refused too.
expect_refusal "the file is stripped too" libledger-stripped.so

# 1 GB is accepted, one byte more is not, and that is known before reading: a sparse file
# of 1 GB + 1 byte that starts as a real build is still refused for its size alone.
cp app big-elf && truncate -s $(((1 << 30) + 1)) big-elf
expect_refusal "the file is larger than 1 GB" big-elf
truncate -s $((1 << 30)) exactly-1g
expect_refusal "$not_elf" exactly-1g
rm -f big-elf exactly-1g

# A missing file is a failure (exit 1), with the reason.
rc=0; "$SLIDEOPS" symbols upload no-such-file 2>err || rc=$?
[ "$rc" = 1 ] && grep -q "no-such-file" err || fail "a missing file: exit $rc, $(cat err)"

# ---- delete ----
rc=0; "$SLIDEOPS" symbols delete "${bid:0:11}" 2>err || rc=$?
[ "$rc" = 2 ] || fail "a prefix of 11 hex was taken (exit $rc)"
rc=0; "$SLIDEOPS" symbols delete "not-hex-at-all-zz" 2>err || rc=$?
[ "$rc" = 2 ] || fail "a non-hex id was taken (exit $rc)"
rc=0; "$SLIDEOPS" symbols delete 000000000000000000 2>err || rc=$?
[ "$rc" = 1 ] || fail "deleting an id never uploaded: exit $rc, want 1"
"$SLIDEOPS" symbols delete "${bid:0:12}" --json > del.json || fail "delete by a 12-hex prefix failed"
jq -e --arg b "$bid" '.deleted == $b' del.json >/dev/null || fail "delete reported $(cat del.json)"
"$SLIDEOPS" symbols list --json | jq -e --arg b "$bid" '[.uploads[] | select(.build_id == $b)] | length == 0' \
	>/dev/null || fail "the deleted upload is still listed"
# A full id, uppercase, works too.
full=$(build_id_of app-nopie)
"$SLIDEOPS" symbols delete "${full^^}" >/dev/null || fail "delete by the full id (uppercase) failed"

# Two builds sharing their first 12 hex: the prefix is ambiguous, a longer one is not.
workload post_invoice_marker_twin1 twin1
workload post_invoice_marker_twin2 twin2
upload twin1 >/dev/null
upload twin2 >/dev/null
rc=0; "$SLIDEOPS" symbols delete aabbccddeeff 2>err || rc=$?
[ "$rc" = 2 ] || fail "an ambiguous prefix deleted something (exit $rc)"
"$SLIDEOPS" symbols delete aabbccddeeff0 >/dev/null || fail "a unique 13-hex prefix did not delete"
"$SLIDEOPS" symbols list --json | jq -e '[.uploads[].build_id] | index("aabbccddeeff99887766554433221100ffeeddcc") != null
	and index("aabbccddeeff00112233445566778899aabbccdd") == null' >/dev/null ||
	fail "the wrong twin was deleted"

# ---- usage ----
"$SLIDEOPS" symbols --help | has "upload FILE" || fail "symbols --help"
rc=0; "$SLIDEOPS" symbols 2>/dev/null || rc=$?; [ "$rc" = 2 ] || fail "symbols alone: exit $rc"
rc=0; "$SLIDEOPS" symbols frob 2>/dev/null || rc=$?; [ "$rc" = 2 ] || fail "symbols frob: exit $rc"
rc=0; "$SLIDEOPS" symbols upload 2>/dev/null || rc=$?; [ "$rc" = 2 ] || fail "upload without FILE: exit $rc"
rc=0; "$SLIDEOPS" symbols upload app app 2>/dev/null || rc=$?; [ "$rc" = 2 ] || fail "two FILEs: exit $rc"

echo "symbols upload: ok"
