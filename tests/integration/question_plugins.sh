#!/usr/bin/env bash
# A question is one plug-in (docs/architecture.md, "Adding a question"): the questions'
# ids are read from src/questions/question.h, and for each of them
#   - nothing in src/ or web/ outside src/questions/ names it (QUESTION_X): the layers
#     call through the table; the failure lists the files that do;
#   - it has its C file (src/questions/ID.c), its BPF file (bpf/ID.bpf.c) and its row
#     in the one table (src/questions/questions.c);
#   - the binary knows it: `check --json` reports on it by its id.
source "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/../.." && pwd)
header=$top/src/questions/question.h
[ -f "$header" ] || fail "no $header"

# The enum's members, QUESTION__COUNT aside.
mapfile -t names < <(sed -n '/^enum question {/,/^};/p' "$header" |
	grep -o 'QUESTION_[A-Z0-9_]*' | grep -v '^QUESTION__')
[ "${#names[@]}" -ge 5 ] || fail "read ${#names[@]} questions from $header: ${names[*]}"

pattern=$(IFS='|'; echo "\\b(${names[*]})\\b")
outside=$(cd "$top" && grep -rlE "$pattern" src web | grep -v '^src/questions/' || true)
[ -z "$outside" ] || fail "files outside src/questions/ name a particular question:" \
	"$(echo "$outside" | tr '\n' ' ')($(cd "$top" && grep -rnE "$pattern" $outside | head -5))"

"$SLIDEOPS" check --json >"$WORK/check.json" 2>"$WORK/check.err" || true
jq -e .questions "$WORK/check.json" >/dev/null ||
	fail "check --json has no questions: $(cat "$WORK/check.err")"

for name in "${names[@]}"; do
	id=$(echo "${name#QUESTION_}" | tr 'A-Z' 'a-z')
	[ -f "$top/src/questions/$id.c" ] || fail "$name has no src/questions/$id.c"
	[ -f "$top/bpf/$id.bpf.c" ] || fail "$name has no bpf/$id.bpf.c"
	grep -Eq "^\s*\[$name\] = &question_$id," "$top/src/questions/questions.c" ||
		fail "$name has no row [$name] = &question_$id in src/questions/questions.c"
	grep -q "^\s*\.id = \"$id\"," "$top/src/questions/$id.c" ||
		fail "src/questions/$id.c does not give its question the id \"$id\""
	jq -e --arg id "$id" '.questions | has($id)' "$WORK/check.json" >/dev/null ||
		fail "check --json does not report on $id: $(jq -c .questions "$WORK/check.json")"
done

# Only the table's rows: no question is listed twice, none is missing.
rows=$(grep -cE '^\s*\[QUESTION_[A-Z0-9_]+\] = &question_' "$top/src/questions/questions.c")
[ "$rows" = "${#names[@]}" ] || fail "questions.c has $rows rows for ${#names[@]} questions"
echo "ok: ${#names[@]} questions, each one plug-in"
