#!/usr/bin/env bash
# `task test`: every stage in turn, each timed; the table of stage times is printed at
# the end (also when a stage fails, which stops the run) and written to
# test-results/stages.md.
#
# "a+b" runs stage a beside stage b: in the background, its output kept and printed when
# b ends, each timed on its own (the total is the wall clock, less than the rows' sum).
# The browser tests leave a third of the two cores idle while Chromium and the server wait
# on each other: the islands (30 s of node) run beside them. Measured in issue 28's sixth
# session (fresh clone, cold Go cache, quiet 2-core machine): with the overlaps inside
# test:go and test:money, the run went from 21m 35s to 19m 58s
# (20m 08s in a second rehearsal). Tried and left: lint
# beside the browser tests too (20m 14s: `go vet` keeps a core busy for 70 s, and the
# browser tests took 36 s longer); the security suite stays alone (its enumeration rows
# compare response times), and so does the money suite (it keeps both cores busy).
# Side by side, no stage rewrites what another compiles: generate and assets are skipped
# when their sources did not change (Taskfile.yml).
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/stage-table.sh

task() { go tool -modfile=tools/go.mod task "$@"; }
stages=(lint test:go test:money test:security test:islands+test:browser)
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
  IFS=+ read -ra parts <<< "$s"
  s=${parts[-1]}
  sides=("${parts[@]:0:${#parts[@]}-1}")
  pids=()
  mkdir -p test-results
  for side in "${sides[@]}"; do
    { task "$side" > "test-results/$side.log" 2>&1; echo $? > "test-results/$side.rc"; echo $(( $(date +%s) - t0 )) > "test-results/$side.time"; } &
    pids+=($!)
  done
  task "$s"
  rc=$?
  elapsed=$(( $(date +%s) - t0 ))
  for i in "${!sides[@]}"; do
    side=${sides[$i]}
    wait "${pids[$i]}"
    echo
    echo "==> $side (beside $s)"
    cat "test-results/$side.log"
    siderc=$(cat "test-results/$side.rc")
    names+=("$side (beside $s)")
    times+=("$(cat "test-results/$side.time")")
    rm -f "test-results/$side.log" "test-results/$side.rc" "test-results/$side.time"
    if [ "$siderc" -ne 0 ]; then
      echo "test: stage $side failed (exit $siderc)" >&2
      status=$siderc
    fi
  done
  names+=("$s")
  times+=("$elapsed")
  if [ $rc -ne 0 ]; then
    echo "test: stage $s failed (exit $rc)" >&2
    status=$rc
  fi
  [ $status -ne 0 ] && break
done
report
exit $status
