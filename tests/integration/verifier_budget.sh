#!/usr/bin/env bash
# The verifier's budget on the kernel this runs on (docs/kernel.md): every program of every
# question, the full walker and the smaller one, within 250,000 processed instructions
# (tests/unit/root/test_verifier_budget.c, which prints each program's count). In the
# root tier and in each guest of the kernel matrix, whose kernels' verifiers differ.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
bin=$(dirname "$SLIDEOPS")/tests/root/test_verifier_budget
[ -x "$bin" ] || bin=$(dirname "$0")/../../build/tests/root/test_verifier_budget
[ -x "$bin" ] || fail "test_verifier_budget is not built: make all build/tests/root/test_verifier_budget"
"$bin" > "$WORK/budget.log" 2>&1 || fail "over budget or refused on $(uname -r): $(tail -30 "$WORK/budget.log")"
cat "$WORK/budget.log"
has "PASSED" < "$WORK/budget.log" || fail "no test ran: $(cat "$WORK/budget.log")"
echo "ok"
