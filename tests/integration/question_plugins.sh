#!/usr/bin/env bash
# A question is one folder (docs/architecture.md, "Adding a question"): the questions are
# the rows of src/questions/questions.def, and for each of them
#   - nothing in src/ or web/ outside src/questions/ and web/ui/questions/ names it
#     (QUESTION_X) or reaches into its folder (src/questions/ID/): the layers call
#     through the table; the failure lists the files that do;
#   - its folder holds its plug-in (src/questions/ID/ID.c, giving the id "ID") and its
#     BPF program (src/questions/ID/ID.bpf.c); its UI renderer is web/ui/questions/ID.js,
#     with its row in the UI's table (web/ui/questions/questions.js);
#   - the binary knows it: `check --json` reports on it by its id.
# And no folder of src/questions/ or file of web/ui/questions/ is no row's.
source "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/../.." && pwd)
table=$top/src/questions/questions.def
ui_table=$top/web/ui/questions/questions.js
[ -f "$table" ] || fail "no $table"
[ -f "$ui_table" ] || fail "no $ui_table"

# The rows: QUESTION(id, ID).
mapfile -t ids < <(sed -n 's/^QUESTION(\([a-z0-9_]*\), [A-Z0-9_]*)$/\1/p' "$table")
[ "${#ids[@]}" -ge 5 ] || fail "read ${#ids[@]} questions from $table: ${ids[*]}"
names=()
for id in "${ids[@]}"; do
	names+=("QUESTION_$(echo "$id" | tr 'a-z' 'A-Z')")
	grep -qx "QUESTION($id, ${names[-1]#QUESTION_})" "$table" ||
		fail "$table: the row of $id is not QUESTION($id, ${names[-1]#QUESTION_})"
done

pattern=$(IFS='|'; echo "\\b(${names[*]})\\b")
outside=$(cd "$top" && grep -rlE "$pattern" src web |
	grep -v -e '^src/questions/' -e '^web/ui/questions/' || true)
[ -z "$outside" ] || fail "files outside src/questions/ name a particular question:" \
	"$(echo "$outside" | tr '\n' ' ')($(cd "$top" && grep -rnE "$pattern" $outside | head -5))"
reach=$(cd "$top" && grep -rnE '#\s*include\s*"questions/[a-z0-9_]+/' src bpf |
	grep -v '^src/questions/' || true)
[ -z "$reach" ] || fail "files outside src/questions/ include a question's own file: $reach"
for id in "${ids[@]}"; do
	# A question's folder is its own: no other question's file includes from it.
	other=$(cd "$top" && grep -rlE "#\s*include\s*\"questions/$id/" src/questions |
		grep -v "^src/questions/$id/" || true)
	[ -z "$other" ] || fail "files of other questions include from src/questions/$id/: $other"
done

"$SLIDEOPS" check --json >"$WORK/check.json" 2>"$WORK/check.err" || true
jq -e .questions "$WORK/check.json" >/dev/null ||
	fail "check --json has no questions: $(cat "$WORK/check.err")"

for id in "${ids[@]}"; do
	dir=$top/src/questions/$id
	[ -f "$dir/$id.c" ] || fail "$id has no src/questions/$id/$id.c"
	[ -f "$dir/$id.bpf.c" ] || fail "$id has no src/questions/$id/$id.bpf.c"
	grep -q "^\s*\.id = \"$id\"," "$dir/$id.c" ||
		fail "src/questions/$id/$id.c does not give its question the id \"$id\""
	grep -q "^const struct question_plugin question_$id = {" "$dir/$id.c" ||
		fail "src/questions/$id/$id.c does not define question_$id"
	[ -f "$top/web/ui/questions/$id.js" ] || fail "$id has no web/ui/questions/$id.js"
	grep -Eq "^import \* as $id from './$id\.js';" "$ui_table" ||
		fail "$ui_table does not import ./$id.js as $id"
	grep -Eq "^\s*$id,$" "$ui_table" || fail "$ui_table has no row $id"
	jq -e --arg id "$id" '.questions | has($id)' "$WORK/check.json" >/dev/null ||
		fail "check --json does not report on $id: $(jq -c .questions "$WORK/check.json")"
done

# Only the table's rows: no folder, no renderer that is no row's.
for dir in "$top"/src/questions/*/; do
	id=$(basename "$dir")
	printf '%s\n' "${ids[@]}" | grep -qx "$id" || fail "src/questions/$id/ is no row of $table"
done
for file in "$top"/web/ui/questions/*.js; do
	id=$(basename "$file" .js); id=${id%_model}
	[ "$id" = questions ] || printf '%s\n' "${ids[@]}" | grep -qx "$id" ||
		fail "web/ui/questions/$id.js is no row of $table"
done
echo "ok: ${#ids[@]} questions, each one folder"
