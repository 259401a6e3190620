#!/usr/bin/env bash
# `task test:money`: the money suite (invoices/moneysuite: the model, PostgreSQL killed)
# and cmd/server's TestKilledDuringCaptureAndFileMaking side by side. The model keeps both
# cores busy for about three minutes; the kill test mostly waits on its server's restarts
# and the 2 s job lease (36 s alone, one after the other until issue 28's sixth session).
# Each writes its own log; test-results/money.log holds both, the model's first, and the
# table's rows and the verdicts are printed from it.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p test-results

go test -count=1 -timeout 10m -v -run '^TestKilledDuringCaptureAndFileMaking$' ./cmd/server/ > test-results/money-kill.log 2>&1 &
kill=$!
go test -count=1 -timeout 30m -v ./invoices/moneysuite/ > test-results/money-model.log 2>&1
model=$?
wait "$kill"
killrc=$?

cat test-results/money-model.log test-results/money-kill.log > test-results/money.log
rm -f test-results/money-model.log test-results/money-kill.log
grep -E '^(\||--- (FAIL|PASS)|ok |FAIL|panic)|money model:|\[rapid\] (OK|failed|flaky)|Error( Trace)?:|invariant' test-results/money.log

if [ "$model" -ne 0 ] || [ "$killrc" -ne 0 ]; then
	echo "test:money: FAILED (money suite exit $model, capture and file kill test exit $killrc)" >&2
	exit 1
fi
