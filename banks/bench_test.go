package banks

import "testing"

// Benchmarks for the searches the bank step runs as a person types
// (go test -bench . ./banks/). They print figures; no test asserts a time.
func BenchmarkSearchBanksKana(b *testing.B) {
	Available()
	for b.Loop() {
		SearchBanks("しずおか", 20)
	}
}

func BenchmarkSearchBanksCode(b *testing.B) {
	Available()
	for b.Loop() {
		SearchBanks("01", 20)
	}
}

func BenchmarkSearchBranches(b *testing.B) {
	Available()
	for b.Loop() {
		SearchBranches("0001", "とうきょう", 20)
	}
}

func BenchmarkByCode(b *testing.B) {
	Available()
	for b.Loop() {
		BranchByCode("0009", "015")
	}
}
