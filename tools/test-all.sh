#!/usr/bin/env bash
# `task test`: every stage in turn, each timed; the table of stage times is printed at
# the end (also when a stage fails, which stops the run) and written to
# test-results/stages.md.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/stage-table.sh

task() { go tool -modfile=tools/go.mod task "$@"; }
stages=(lint test:go test:money test:security test:islands test:browser)
names=()
times=()
status=0
start_all=$(date +%s)

report() {
  mkdir -p test-results
  stage_table | tee test-results/stages.md
}

for s in "${stages[@]}"; do
  t0=$(date +%s)
  task "$s"
  rc=$?
  names+=("$s")
  times+=($(( $(date +%s) - t0 )))
  if [ $rc -ne 0 ]; then
    echo "test: stage $s failed (exit $rc)" >&2
    status=$rc
    break
  fi
done
report
exit $status
