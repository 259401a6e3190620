// Package auth holds the credential primitives: password hashing, one-time mail codes,
// TOTP, sealing of stored secrets, recovery codes, sign-in throttling and API tokens.
// It is pure logic: no SQL, no HTTP. The store persists what these functions return
// and the handlers turn their results into pages, so every policy decision lives here
// once and can be tested with fixed clocks.
package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Argon2id parameters: OWASP's recommended minimum (19 MiB, 2 passes, 1 lane) keeps a
// sign-in near 30 ms on the 2-core machines we run on.
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
	saltLen      = 16
)

// ErrMismatch says the password does not match the hash.
var ErrMismatch = errors.New("auth: password does not match")

// HashPassword returns an encoded argon2id hash in the PHC string format, so the
// parameters travel with the hash and can be raised later.
func HashPassword(password string) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

var b64 = base64.RawStdEncoding

// CheckPassword compares password with an encoded hash in constant time.
func CheckPassword(encoded, password string) error {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return fmt.Errorf("auth: unknown hash format")
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return fmt.Errorf("auth: unsupported argon2 version")
	}
	// Read the parameters from the hash rather than the constants, so hashes made
	// before a parameter bump still verify.
	var memory, passes uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &passes, &threads); err != nil {
		return fmt.Errorf("auth: bad hash parameters: %w", err)
	}
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return fmt.Errorf("auth: bad salt: %w", err)
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil {
		return fmt.Errorf("auth: bad key: %w", err)
	}
	got := argon2.IDKey([]byte(password), salt, passes, memory, threads, uint32(len(want)))
	if subtle.ConstantTimeCompare(got, want) != 1 {
		return ErrMismatch
	}
	return nil
}

// dummyHash is checked when an e-mail address is unknown, so that a sign-in for a
// missing account takes as long as one with a wrong password (no user enumeration by timing).
var dummyHash, _ = HashPassword("dummy password for timing")

// CheckNothing spends the time of one CheckPassword.
func CheckNothing(password string) { _ = CheckPassword(dummyHash, password) }

// passwordLetters leave out the characters people misread (0 O o 1 l I).
const passwordLetters = "abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// NewPassword is a random 20-character password for an account someone else creates
// (an operator): about 115 bits, given once and changed by its owner.
func NewPassword() (string, error) {
	b := make([]byte, 20)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("auth: new password: %w", err)
	}
	for i := range b {
		// 256 is not a multiple of 55: the first 2 letters are a little likelier, which
		// costs well under a bit over the whole password.
		b[i] = passwordLetters[int(b[i])%len(passwordLetters)]
	}
	return string(b), nil
}
