# stage_table prints the Markdown table of stage times that `task test` and `task
# test:quick` end with: the arrays names and times (seconds) of the stages that ran, and
# the total since start_all (seconds since the epoch). Sourced by both scripts.
stage_table() {
	local total=$(($(date +%s) - start_all)) i
	echo
	echo "| stage | time |"
	echo "|---|---:|"
	for i in "${!names[@]}"; do
		printf '| %s | %dm %02ds |\n' "${names[$i]}" $((times[i] / 60)) $((times[i] % 60))
	done
	printf '| **total** | %dm %02ds |\n' $((total / 60)) $((total % 60))
}
