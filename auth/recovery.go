package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Recovery codes let a user sign in when the authenticator app is lost.
//
// A code is 12 characters from a 32-symbol alphabet (a–z and 2–9 without the easily
// confused o, l, 0 and 1), shown as abcd-efgh-ijkl: 60 bits of entropy each. They are
// stored as plain SHA-256: unlike passwords or six-digit codes they are machine-made and
// far too many to enumerate (2^60), so a slow or keyed hash would add nothing, and a fast
// deterministic hash lets MatchRecoveryCode check all of a user's codes cheaply. Each
// code is single-use: the caller deletes (or marks used) the hash at the matched index.
const (
	RecoveryCodeCount = 10
	recoveryGroups    = 3
	recoveryGroupLen  = 4
	recoveryLen       = recoveryGroups * recoveryGroupLen
)

// recoveryAlphabet has exactly 32 symbols, so a random byte masked to 5 bits picks one
// uniformly with no rejection loop.
const recoveryAlphabet = "abcdefghijkmnpqrstuvwxyz23456789"

// NewRecoveryCodes returns n distinct codes to show the user once, and their hashes to
// store, index for index.
func NewRecoveryCodes(n int) (codes []string, hashes []string, err error) {
	if n <= 0 {
		return nil, nil, errors.New("auth: recovery codes: n must be positive")
	}
	seen := make(map[string]bool, n)
	raw := make([]byte, recoveryLen)
	for len(codes) < n {
		if _, err := rand.Read(raw); err != nil {
			return nil, nil, fmt.Errorf("auth: recovery codes: %w", err)
		}
		var b strings.Builder
		for i, r := range raw {
			if i > 0 && i%recoveryGroupLen == 0 {
				b.WriteByte('-')
			}
			b.WriteByte(recoveryAlphabet[r&31])
		}
		code := b.String()
		// A repeat is a 2^-60 event, but a duplicate would silently be one code fewer.
		if seen[code] {
			continue
		}
		seen[code] = true
		codes = append(codes, code)
		hashes = append(hashes, hashRecoveryCode(canonicalRecoveryCode(code)))
	}
	return codes, hashes, nil
}

// MatchRecoveryCode finds input among the stored hashes. Case, hyphens, spaces and
// full-width characters are forgiven. It compares against every hash in constant time
// and returns the index of the match for the caller to consume, or (-1, false).
func MatchRecoveryCode(hashes []string, input string) (index int, ok bool) {
	code := canonicalRecoveryCode(input)
	if len(code) != recoveryLen {
		return -1, false
	}
	h := []byte(hashRecoveryCode(code))
	index = -1
	for i, stored := range hashes {
		if subtle.ConstantTimeCompare(h, []byte(stored)) == 1 && index < 0 {
			index = i
		}
	}
	return index, index >= 0
}

func canonicalRecoveryCode(s string) string {
	return strings.ToLower(normalizeInput(s))
}

func hashRecoveryCode(canonical string) string {
	sum := sha256.Sum256([]byte(canonical))
	return hex.EncodeToString(sum[:])
}
