#!/usr/bin/env bash
# Runs every test: unit tests (plain and under ASan+UBSan), the web UI's model under
# node --test, integration tests on the real kernel, and the fuzz targets for a short
# while. Ends with one line: "N passed, N failed".
# Needs root: the tests load BPF programs and make cgroups.
set -u
cd "$(dirname "$0")/.."
top=$PWD
passed=0 failed=0 skipped=0
failures=()

if [ "$(id -u)" != 0 ]; then
	echo "tests: run as root (sudo make test): they load BPF programs and create cgroups" >&2
	exit 1
fi

log_dir=$(mktemp -d /tmp/slideops-tests.XXXXXX)

# cmocka prints "[  PASSED  ] N test(s)." and "[  FAILED  ] N test(s)" once per group; a
# binary with several groups (test_store: SQLite, then PostgreSQL) counts them all.
run_unit() {
	local bin=$1 name out p f
	name=${bin#"$top"/build/}
	out="$log_dir/$(echo "$name" | tr / _).log"
	local rc=0
	CMOCKA_MESSAGE_OUTPUT=stdout timeout 600 "$bin" >"$out" 2>&1 || rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | awk '{n += $1} END {print n + 0}')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | awk '{n += $1} END {print n + 0}')
	p=${p:-0} f=${f:-0}
	if [ "$f" = 0 ] && { [ "$p" = 0 ] || [ "$rc" != 0 ]; }; then
		f=1 # crashed, or never reached a group's summary
	fi
	passed=$((passed + p)) failed=$((failed + f))
	if [ "$f" != 0 ]; then
		failures+=("$name")
		echo "FAIL $name ($p passed, $f failed)"; tail -40 "$out" | sed 's/^/    /'
	else
		echo "ok   $name ($p tests)"
	fi
}

echo "== unit tests"
for bin in "$top"/build/tests/test_* "$top"/build/asan/tests/test_*; do
	[ -x "$bin" ] && run_unit "$bin"
done

# node --test's TAP ends with "# pass N" and "# fail N".
run_node_test() {
	local file=$1 name out p f
	name=web/$(basename "$file" .test.mjs)
	out="$log_dir/web_$(basename "$file" .test.mjs).log"
	timeout 600 node --test --test-reporter=tap "$file" >"$out" 2>&1
	p=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$out" | tail -1)
	f=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$out" | tail -1)
	p=${p:-0} f=${f:-0}
	if [ "$p" = 0 ] && [ "$f" = 0 ]; then
		f=1 # did not load, or never reached its summary
	fi
	passed=$((passed + p)) failed=$((failed + f))
	if [ "$f" != 0 ]; then
		failures+=("$name")
		echo "FAIL $name ($p passed, $f failed)"
		{ grep -A12 '^not ok' "$out" || tail -20 "$out"; } | head -60 | sed 's/^/    /'
	else
		echo "ok   $name ($p tests)"
	fi
}

echo "== web UI model (node --test)"
if command -v node >/dev/null; then
	for file in "$top"/tests/web/*.test.mjs; do
		run_node_test "$file"
	done
else
	skipped=$((skipped + 1)); echo "skip web: node is not installed (make deps installs it)"
fi

echo "== integration tests"
export SLIDEOPS="$top/build/slideops"
for t in "$top"/tests/integration/*.sh; do
	[ "$(basename "$t")" = lib.sh ] && continue
	name=integration/$(basename "$t" .sh)
	out="$log_dir/$(basename "$t" .sh).log"
	SLIDEOPS_DATA=$(mktemp -d /tmp/slideops-data.XXXXXX) timeout 600 bash "$t" >"$out" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		passed=$((passed + 1)); echo "ok   $name"
	elif [ $rc = 77 ]; then
		skipped=$((skipped + 1)); echo "skip $name: $(tail -1 "$out")"
	else
		failed=$((failed + 1)); failures+=("$name")
		echo "FAIL $name (exit $rc)"; tail -40 "$out" | sed 's/^/    /'
	fi
done

echo "== fuzz targets (short runs; long runs: fuzz/README.md)"
for target in "$top"/build/fuzz/fuzz_*; do
	[ -x "$target" ] || continue
	name=fuzz/$(basename "$target")
	corpus=$(mktemp -d /tmp/slideops-corpus.XXXXXX)
	seeds="$top/build/fuzz/seeds/$(basename "$target" | sed 's/^fuzz_//')"
	out="$log_dir/$(basename "$target").log"
	# The profile reader must refuse its gzip-bomb seed within 256 MB.
	rss=2048
	[ "$(basename "$target")" = fuzz_pprof ] && rss=256
	if "$target" -max_total_time="${FUZZ_SECONDS:-30}" -rss_limit_mb=$rss \
		-artifact_prefix="$log_dir/" "$corpus" ${seeds:+$( [ -d "$seeds" ] && echo "$seeds")} \
		>"$out" 2>&1; then
		passed=$((passed + 1))
		echo "ok   $name ($(grep -o 'Done [0-9]* runs' "$out" | tail -1))"
	else
		failed=$((failed + 1)); failures+=("$name")
		echo "FAIL $name"; tail -40 "$out" | sed 's/^/    /'
	fi
	rm -rf "$corpus"
done

echo
[ ${#failures[@]} -gt 0 ] && printf 'failed: %s\n' "${failures[@]}"
echo "logs: $log_dir"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
