package auth

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSealerRoundTrip(t *testing.T) {
	s := NewSealer("app secret key")
	for _, plain := range []string{"JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", "", "経理部の秘密"} {
		sealed, err := s.Seal(plain)
		require.NoError(t, err)
		if plain != "" {
			assert.NotContains(t, sealed, plain)
		}
		_, err = base64.RawURLEncoding.DecodeString(sealed)
		require.NoError(t, err, "base64url without padding")

		// Another Sealer from the same SECRET_KEY (another server, a restart) opens it.
		got, err := NewSealer("app secret key").Open(sealed)
		require.NoError(t, err)
		assert.Equal(t, plain, got)
	}

	a, err := s.Seal("same")
	require.NoError(t, err)
	b, err := s.Seal("same")
	require.NoError(t, err)
	assert.NotEqual(t, a, b, "a random nonce per seal")
}

func TestSealerRefuses(t *testing.T) {
	s := NewSealer("app secret key")
	sealed, err := s.Seal("JBSWY3DPEHPK3PXP")
	require.NoError(t, err)
	raw, err := base64.RawURLEncoding.DecodeString(sealed)
	require.NoError(t, err)
	flip := func(i int) string {
		b := append([]byte(nil), raw...)
		b[i] ^= 0x01
		return base64.RawURLEncoding.EncodeToString(b)
	}

	tests := []struct {
		name    string
		sealer  Sealer
		sealed  string
		wantErr error
	}{
		{"wrong key", NewSealer("other secret key"), sealed, ErrSealed},
		{"tampered nonce", s, flip(0), ErrSealed},
		{"tampered ciphertext", s, flip(12), ErrSealed},
		{"tampered tag", s, flip(len(raw) - 1), ErrSealed},
		{"truncated", s, base64.RawURLEncoding.EncodeToString(raw[:len(raw)-1]), ErrSealed},
		{"too short for a nonce", s, "AAAA", ErrSealed},
		{"empty", s, "", ErrSealed},
		{"not base64url", s, sealed + "!", ErrSealed},
		{"std base64 padding", s, sealed + "=", ErrSealed},
		{"zero Sealer", Sealer{}, sealed, ErrNoKey},
		{"empty SECRET_KEY", NewSealer(""), sealed, ErrNoKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.sealer.Open(tt.sealed)
			assert.ErrorIs(t, err, tt.wantErr)
			assert.Empty(t, got)
		})
	}

	_, err = NewSealer("").Seal("secret")
	assert.ErrorIs(t, err, ErrNoKey, "never seal with a guessable key")
}
