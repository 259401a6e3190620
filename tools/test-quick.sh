#!/usr/bin/env bash
# `task test:quick`: the loop while working, in well under the full command's time. It
# checks what a change touches: the files changed since QUICK_BASE (by default the
# branch's upstream, else origin/main, else HEAD — and HEAD~1, the last commit, when the
# work tree is clean), committed or not, and new files git does not ignore.
#   lint     go vet on the touched packages, gofmt on the touched Go files, templ fmt when
#            a templ file changed
#   go       go test without the race detector on the touched packages (the money model
#            with MONEY_SEQUENCES=300 when it is touched; the full command runs 10,000)
#   islands  the TypeScript check and vitest when an island, or the npm set-up, changed
# Packages can be named instead: task test:quick -- ./pay/ ./account/...
# It is no substitute for `task test` (race detector, the suites, the browser): run that
# before you stop.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/stage-table.sh

base=${QUICK_BASE:-$(git rev-parse -q --verify '@{upstream}' 2>/dev/null || git rev-parse -q --verify origin/main || git rev-parse HEAD)}
if [[ -z ${QUICK_BASE:-} && $(git rev-parse "$base") == $(git rev-parse HEAD) && -z $(git status --porcelain) ]]; then
	base=$(git rev-parse HEAD~1)
fi
changed=$( {
	git diff --name-only "$base" --
	git ls-files --others --exclude-standard
} | sort -u)

declare -a pkgs=()
if (($#)); then
	pkgs=("$@")
else
	# The folder of each touched Go or templ file (a test's data counts for its package).
	mapfile -t pkgs < <(printf '%s\n' "$changed" | grep -E '\.(go|templ)$|/testdata/' | grep -v '^tools/' |
		sed -E 's#/testdata/.*##; s#/[^/]*$##; t; s#^[^/]*$#.#' | sort -u |
		while read -r d; do [[ -d $d ]] && ls "$d"/*.go >/dev/null 2>&1 && echo "./$d/"; done)
fi

names=()
times=()
status=0
start_all=$(date +%s)
stage() { # stage NAME COMMAND...
	local name=$1 t0 rc
	shift
	printf '\n==> %s\n' "$name"
	t0=$(date +%s)
	"$@"
	rc=$?
	names+=("$name")
	times+=($(($(date +%s) - t0)))
	if ((rc != 0)); then
		echo "test:quick: $name failed (exit $rc)" >&2
		status=$rc
	fi
}

lint() {
	local gofiles
	gofiles=$(printf '%s\n' "$changed" | grep -E '\.go$' | grep -v '_templ\.go$' | while read -r f; do [[ -f $f ]] && echo "$f"; done)
	go vet "${pkgs[@]}" || return 1
	if [[ -n $gofiles ]]; then
		local bad
		bad=$(gofmt -l $gofiles)
		[[ -z $bad ]] || { echo "gofmt would change: $bad"; return 1; }
	fi
	if printf '%s\n' "$changed" | grep -q '\.templ$'; then
		go tool -modfile=tools/go.mod templ fmt -fail views || return 1
	fi
}

gotests() {
	MONEY_SEQUENCES=${MONEY_SEQUENCES:-300} go test -count=1 "${pkgs[@]}"
}

islands() {
	npm run -s typecheck && npm run -s test:islands
}

if ((${#pkgs[@]})); then
	echo "packages: ${pkgs[*]}"
	stage lint lint
	stage go gotests
else
	echo "no Go package touched since $(git rev-parse --short "$base")"
fi
if printf '%s\n' "$changed" | grep -qE '^(islands/|package(-lock)?\.json$|tsconfig|vitest)'; then
	stage islands islands
else
	echo "no island touched: islands skipped"
fi

stage_table
exit $status
