package auth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
)

// ErrNoKey says a Sealer was built without a secret key. Sealing with a guessable key
// would only pretend to protect the data, so it is refused instead.
var ErrNoKey = errors.New("auth: sealer has no key")

// ErrSealed says a sealed value could not be opened: it was tampered with, truncated, or
// sealed under another key.
var ErrSealed = errors.New("auth: sealed value is corrupt or was sealed with another key")

// Sealer encrypts secrets that must be stored but not readable from the database alone,
// such as TOTP secrets: a database dump or a read-only SQL injection then yields nothing
// usable without SECRET_KEY, which lives in the environment.
//
// The format is base64url(nonce ‖ AES-256-GCM ciphertext ‖ tag), with a random 96-bit
// nonce per Seal. GCM authenticates, so any change to the stored string makes Open fail.
// Rotating SECRET_KEY makes existing values unreadable; re-seal them first.
type Sealer struct {
	key [32]byte
}

// NewSealer derives the sealing key from the app's SECRET_KEY with HKDF-SHA256 (info
// "cardpay totp"), so the raw SECRET_KEY is never used as an AES key and other uses of
// it get independent keys. An empty secretKey yields a Sealer whose Seal and Open return
// ErrNoKey.
func NewSealer(secretKey string) Sealer {
	var s Sealer
	if secretKey != "" {
		copy(s.key[:], DeriveKey(secretKey, "cardpay totp"))
	}
	return s
}

// Seal encrypts plaintext.
func (s Sealer) Seal(plaintext string) (string, error) {
	aead, err := s.aead()
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(aead.Seal(nil, nil, []byte(plaintext), nil)), nil
}

// Open decrypts a value made by Seal.
func (s Sealer) Open(sealed string) (string, error) {
	aead, err := s.aead()
	if err != nil {
		return "", err
	}
	raw, err := base64.RawURLEncoding.DecodeString(sealed)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrSealed, err)
	}
	plain, err := aead.Open(nil, nil, raw, nil)
	if err != nil {
		return "", ErrSealed
	}
	return string(plain), nil
}

func (s Sealer) aead() (cipher.AEAD, error) {
	if s.key == [32]byte{} {
		return nil, ErrNoKey
	}
	block, err := aes.NewCipher(s.key[:])
	if err != nil {
		return nil, err
	}
	// NewGCMWithRandomNonce draws the nonce and prepends it itself, so a caller cannot
	// reuse one by mistake. 2^32 seals per key is far beyond our number of TOTP secrets.
	return cipher.NewGCMWithRandomNonce(block)
}

// DeriveKey derives a 32-byte key for one purpose (info) from SECRET_KEY, so that each
// use of the secret (codes, sealing, id_tokens, file URLs) has a key of its own.
func DeriveKey(secretKey, info string) []byte {
	key, err := hkdf.Key(sha256.New, []byte(secretKey), nil, info, 32)
	if err != nil {
		// Only possible for lengths above 255*32 bytes.
		panic(err)
	}
	return key
}
