#!/usr/bin/env bash
# Runs the tests, by tier, and ends with one line: "N passed, N failed, N skipped".
#
#   tests/run.sh [--save FILE | --after FILE] [TIER...]
#
#   check        needs no root: the layers' includes (tests/layers.py), unit tests of
#                tests/unit/ (plain and under ASan+UBSan), the web UI's model under
#                node --test, the fuzz targets for a short while
#   root         needs root (BPF programs, cgroups): unit tests of tests/unit/root/,
#                integration tests on the real kernel, browser tests (serve_browser.sh)
#   unit         every unit test; those of tests/unit/root/ are skipped when not root
#   integration  the integration and browser tests (root)
#   (none)       check, then root: everything
#
# --save FILE writes this run's counts and failures to FILE instead of the closing line
# (which a later run gives); --after FILE adds those of a run saved so: `make test` runs
# the check tier as the user, then the root tier as root, with one closing line.
# The binaries are read from $SLIDEOPS_BUILD (default build/).
set -u
cd "$(dirname "$0")/.."
top=$PWD
build=${SLIDEOPS_BUILD:-$top/build}
passed=0 failed=0 skipped=0
failures=()
save='' after=''
while [ $# -gt 0 ]; do
	case $1 in
	--save) save=$2; shift 2 ;;
	--after) after=$2; shift 2 ;;
	*) break ;;
	esac
done
tiers=("$@")
[ ${#tiers[@]} = 0 ] && tiers=(check root)
# want PART: whether a tier asked for runs PART (layers, unit, unit-root, web, fuzz,
# integration).
want() {
	local t parts
	for t in "${tiers[@]}"; do
		case $t in
		check) parts="layers unit web fuzz" ;;
		root) parts="unit-root integration" ;;
		unit) parts="unit unit-root" ;;
		integration) parts="integration" ;;
		esac
		[[ " $parts " == *" $1 "* ]] && return 0
	done
	return 1
}
for t in "${tiers[@]}"; do
	case $t in
	check | root | unit | integration) ;;
	*) echo "tests/run.sh: no tier '$t': check, root, unit or integration" >&2; exit 2 ;;
	esac
done
is_root() { [ "$(id -u)" = 0 ]; }

for t in "${tiers[@]}"; do
	if { [ "$t" = root ] || [ "$t" = integration ]; } && ! is_root; then
		echo "tests: the $t tier runs as root (sudo make test): it loads BPF programs and" \
			"creates cgroups; make check runs the tests that need no root" >&2
		exit 1
	fi
done

log_dir=$(mktemp -d /tmp/slideops-tests.XXXXXX)

# cmocka prints "[  PASSED  ] N test(s)." and "[  FAILED  ] N test(s)" once per group; a
# binary with several groups (test_store: SQLite, then PostgreSQL) counts them all.
run_unit() {
	local bin=$1 name out p f s
	name=${bin#"$build"/}
	out="$log_dir/$(echo "$name" | tr / _).log"
	local rc=0
	CMOCKA_MESSAGE_OUTPUT=stdout timeout 600 "$bin" >"$out" 2>&1 || rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | awk '{n += $1} END {print n + 0}')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | awk '{n += $1} END {print n + 0}')
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$out" | awk '{n += $1} END {print n + 0}')
	p=${p:-0} f=${f:-0} s=${s:-0}
	if [ "$f" = 0 ] && { [ "$p" = 0 ] && [ "$s" = 0 ] || [ "$rc" != 0 ]; }; then
		f=1 # crashed, or never reached a group's summary
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	if [ "$f" != 0 ]; then
		failures+=("$name")
		echo "FAIL $name ($p passed, $f failed)"; tail -40 "$out" | sed 's/^/    /'
	else
		echo "ok   $name ($p tests$( [ "$s" = 0 ] || echo ", $s skipped"))"
	fi
}

if want layers; then
	echo "== layers only point down (docs/architecture.md, tests/layers.py)"
	out="$log_dir/layers.log"
	if python3 "$top/tests/layers.py" >"$out" 2>&1; then
		passed=$((passed + 1)); echo "ok   layers ($(tail -1 "$out"))"
	else
		failed=$((failed + 1)); failures+=("layers")
		echo "FAIL layers"; sed 's/^/    /' "$out"
	fi
fi

if want unit; then
	echo "== unit tests"
	for bin in "$build"/tests/test_* "$build"/asan/tests/test_*; do
		[ -x "$bin" ] && run_unit "$bin"
	done
fi

if want unit-root; then
	echo "== unit tests that need root (tests/unit/root/)"
	for bin in "$build"/tests/root/test_* "$build"/asan/tests/root/test_*; do
		[ -x "$bin" ] || continue
		if is_root; then
			run_unit "$bin"
		else
			skipped=$((skipped + 1))
			echo "skip ${bin#"$build"/}: it loads BPF programs or makes BPF maps: run as root"
		fi
	done
fi

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

if want web; then
	echo "== web UI model (node --test)"
	if command -v node >/dev/null; then
		for file in "$top"/tests/web/*.test.mjs; do
			run_node_test "$file"
		done
	else
		skipped=$((skipped + 1)); echo "skip web: node is not installed (make deps installs it)"
	fi
fi

export SLIDEOPS="$build/slideops"
if want integration; then
	echo "== integration tests"
	for t in "$top"/tests/integration/*.sh; do
		[ "$(basename "$t")" = lib.sh ] && continue
		name=integration/$(basename "$t" .sh)
		out="$log_dir/$(basename "$t" .sh).log"
		started=$SECONDS
		SLIDEOPS_DATA=$(mktemp -d /tmp/slideops-data.XXXXXX) timeout 600 bash "$t" >"$out" 2>&1
		rc=$?
		if [ $rc = 0 ]; then
			passed=$((passed + 1)); echo "ok   $name ($((SECONDS - started)) s)"
		elif [ $rc = 77 ]; then
			skipped=$((skipped + 1)); echo "skip $name: $(tail -1 "$out")"
		else
			failed=$((failed + 1)); failures+=("$name")
			echo "FAIL $name (exit $rc)"; tail -40 "$out" | sed 's/^/    /'
		fi
	done
fi

if want fuzz; then
	echo "== fuzz targets (short runs; long runs: fuzz/README.md)"
	for target in "$build"/fuzz/fuzz_*; do
		[ -x "$target" ] || continue
		name=fuzz/$(basename "$target")
		corpus=$(mktemp -d /tmp/slideops-corpus.XXXXXX)
		seeds="$build/fuzz/seeds/$(basename "$target" | sed 's/^fuzz_//')"
		out="$log_dir/$(basename "$target").log"
		# The profile reader refuses its gzip-bomb seed with no one allocation past
		# 256 MB. The whole process may use more: ASan keeps up to 256 MB of freed
		# memory in quarantine, and libFuzzer its corpus (CI saw 256 MB passed).
		malloc=2048
		[ "$(basename "$target")" = fuzz_pprof ] && malloc=256
		if "$target" -max_total_time="${FUZZ_SECONDS:-20}" -rss_limit_mb=2048 \
			-malloc_limit_mb=$malloc \
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
fi

echo
echo "logs: $log_dir"
if [ -n "$save" ]; then
	# Not the closing line (.ci/run sums those): the run --after FILE gives it.
	{
		echo "$passed $failed $skipped"
		[ ${#failures[@]} = 0 ] || printf '%s\n' "${failures[@]}"
	} > "$save"
	echo "(so far: $passed passed, $failed failed, $skipped skipped; the next tier follows)"
	[ "$failed" = 0 ]
	exit
fi
if [ -n "$after" ]; then
	if [ -r "$after" ] && read -r p f s < "$after"; then
		passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
		mapfile -t -s 1 before < "$after"
		[ ${#before[@]} = 0 ] || failures=("${before[@]}" "${failures[@]}")
	else
		failed=$((failed + 1)); failures=("the tier before: $after has no counts" "${failures[@]}")
	fi
fi
[ ${#failures[@]} -gt 0 ] && printf 'failed: %s\n' "${failures[@]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
