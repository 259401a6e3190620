package auth

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHashAndCheckPassword(t *testing.T) {
	h, err := HashPassword("正しいパスワード123")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$"), h)

	h2, err := HashPassword("正しいパスワード123")
	require.NoError(t, err)
	assert.NotEqual(t, h, h2, "each hash has its own salt")

	tests := []struct {
		name     string
		encoded  string
		password string
		wantErr  error
		anyErr   bool
	}{
		{"right password", h, "正しいパスワード123", nil, false},
		{"wrong password", h, "違うパスワード", ErrMismatch, false},
		{"empty password", h, "", ErrMismatch, false},
		{"not argon2id", "$2a$10$abcdefghijklmnopqrstuv", "x", nil, true},
		{"garbage", "garbage", "x", nil, true},
		{"bad parameters", "$argon2id$v=19$m=x,t=2,p=1$c2FsdA$a2V5", "x", nil, true},
		{"bad salt", "$argon2id$v=19$m=19456,t=2,p=1$!!!$a2V5", "x", nil, true},
		{"other version", "$argon2id$v=16$m=19456,t=2,p=1$c2FsdA$a2V5", "x", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckPassword(tt.encoded, tt.password)
			switch {
			case tt.wantErr != nil:
				assert.ErrorIs(t, err, tt.wantErr)
			case tt.anyErr:
				assert.Error(t, err)
				assert.NotErrorIs(t, err, ErrMismatch)
			default:
				assert.NoError(t, err)
			}
		})
	}
}

func TestCheckNothingDoesNotPanic(t *testing.T) {
	CheckNothing("anything")
	assert.NotEmpty(t, dummyHash)
}
