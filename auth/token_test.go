package auth

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewToken(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		token, hash, err := NewToken()
		require.NoError(t, err)
		require.Len(t, token, 43)
		raw, err := base64.RawURLEncoding.DecodeString(token)
		require.NoError(t, err)
		require.Len(t, raw, 32)
		require.Equal(t, HashToken(token), hash)
		require.NotEqual(t, token, hash)
		require.False(t, seen[token], "duplicate token")
		seen[token] = true
	}
}

func TestHashToken(t *testing.T) {
	tests := []struct{ token, want string }{
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, HashToken(tt.token), tt.token)
	}
	assert.NotEqual(t, HashToken("abc"), HashToken("abd"))
}
