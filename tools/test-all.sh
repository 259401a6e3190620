#!/usr/bin/env bash
# `task test`: every stage in turn, each timed; the table of stage times is printed at
# the end (also when a stage fails, which stops the run) and written to
# test-results/stages.md.
set -uo pipefail
cd "$(dirname "$0")/.."

task() { go tool -modfile=tools/go.mod task "$@"; }
stages=(lint test:go test:money test:security test:islands test:browser)
names=()
times=()
status=0
start_all=$(date +%s)

report() {
  local total=$(( $(date +%s) - start_all ))
  mkdir -p test-results
  {
    echo
    echo "| stage | time |"
    echo "|---|---:|"
    for i in "${!names[@]}"; do
      printf '| %s | %dm %02ds |\n' "${names[$i]}" $(( times[i] / 60 )) $(( times[i] % 60 ))
    done
    printf '| **total** | %dm %02ds |\n' $(( total / 60 )) $(( total % 60 ))
  } | tee test-results/stages.md
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
