package auth

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewRecoveryCodes(t *testing.T) {
	format := regexp.MustCompile(`^[a-kmnp-z2-9]{4}-[a-kmnp-z2-9]{4}-[a-kmnp-z2-9]{4}$`)
	seen := map[string]bool{}
	for range 50 {
		codes, hashes, err := NewRecoveryCodes(RecoveryCodeCount)
		require.NoError(t, err)
		require.Len(t, codes, 10)
		require.Len(t, hashes, 10)
		for i, c := range codes {
			require.Regexp(t, format, c)
			require.False(t, seen[c], "duplicate %s", c)
			seen[c] = true
			require.Len(t, hashes[i], 64)
			require.Equal(t, hashRecoveryCode(strings.ReplaceAll(c, "-", "")), hashes[i], "hash of the canonical form")
		}
	}
	// Every symbol of the alphabet turns up in 500 codes × 12 characters, and nothing else.
	var all strings.Builder
	for c := range seen {
		all.WriteString(strings.ReplaceAll(c, "-", ""))
	}
	for _, r := range recoveryAlphabet {
		assert.Contains(t, all.String(), string(r))
	}
	assert.Len(t, recoveryAlphabet, 32)
	assert.NotContains(t, all.String(), "0")
	assert.NotContains(t, all.String(), "1")
	assert.NotContains(t, all.String(), "o")
	assert.NotContains(t, all.String(), "l")

	for _, n := range []int{0, -1} {
		_, _, err := NewRecoveryCodes(n)
		assert.Error(t, err)
	}
	codes, _, err := NewRecoveryCodes(1)
	require.NoError(t, err)
	assert.Len(t, codes, 1)
}

func TestMatchRecoveryCode(t *testing.T) {
	codes, hashes, err := NewRecoveryCodes(RecoveryCodeCount)
	require.NoError(t, err)
	third := codes[2]
	upper := strings.ToUpper(third)
	fullWidth := strings.Map(func(r rune) rune {
		if r == '-' {
			return '－'
		}
		return r + ('Ａ' - 'A')
	}, upper)
	// A code that is well-formed but not issued: change the first character.
	other := []byte(third)
	other[0] = recoveryAlphabet[(strings.IndexByte(recoveryAlphabet, other[0])+1)%32]

	tests := []struct {
		name      string
		hashes    []string
		input     string
		wantIndex int
		wantOK    bool
	}{
		{"as shown", hashes, third, 2, true},
		{"upper case", hashes, upper, 2, true},
		{"without hyphens", hashes, strings.ReplaceAll(third, "-", ""), 2, true},
		{"upper case without hyphens", hashes, strings.ReplaceAll(upper, "-", ""), 2, true},
		{"spaces instead of hyphens", hashes, strings.ReplaceAll(third, "-", " "), 2, true},
		{"full-width upper case", hashes, fullWidth, 2, true},
		{"first", hashes, codes[0], 0, true},
		{"last", hashes, codes[9], 9, true},
		{"not issued", hashes, string(other), -1, false},
		{"too short", hashes, third[:13], -1, false},
		{"too long", hashes, third + "a", -1, false},
		{"empty", hashes, "", -1, false},
		{"no codes left", nil, third, -1, false},
		{"already consumed", append(append([]string{}, hashes[:2]...), hashes[3:]...), third, -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i, ok := MatchRecoveryCode(tt.hashes, tt.input)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.wantIndex, i)
		})
	}
}
