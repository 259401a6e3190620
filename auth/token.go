package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
)

// API tokens are 32 random bytes (256 bits) in base64url, 43 characters, safe in headers
// and URLs. Only SHA-256 of a token is stored: a database leak then yields no usable
// token, and because the token is random and long, a fast unsalted hash cannot be
// reversed, while staying deterministic lets the store find a token by its hash with an
// index instead of comparing against every row.
const tokenBytes = 32

// NewToken returns a token to hand out once and the hash to store.
func NewToken() (token string, hash string, err error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("auth: new token: %w", err)
	}
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, HashToken(token), nil
}

// HashToken is the lookup key for a presented token: hex SHA-256, 64 characters.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
