package auth

import (
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var sixDigits = regexp.MustCompile(`^[0-9]{6}$`)

func TestCodesNewFormatAndUniformity(t *testing.T) {
	codes := Codes{Key: []byte("test key")}
	const draws = 2000
	var counts [codeDigits][10]int
	leadingZero := 0
	for range draws {
		code, hash, err := codes.New()
		require.NoError(t, err)
		require.Regexp(t, sixDigits, code)
		require.True(t, codes.Match(hash, code), "a new code matches its own hash")
		if code[0] == '0' {
			leadingZero++
		}
		for i := range code {
			counts[i][code[i]-'0']++
		}
	}
	// P(no leading zero in 2000 uniform draws) = 0.9^2000, i.e. never.
	assert.Positive(t, leadingZero, "leading zeros are kept")
	// Each digit is expected 200 times per position (σ ≈ 13); ±100 catches a biased
	// generator (say modulo bias or a missing digit) without ever flaking.
	for pos := range counts {
		for d, n := range counts[pos] {
			assert.InDelta(t, draws/10, n, 100, "position %d digit %d", pos, d)
		}
	}
}

func TestUnkeyedCodes(t *testing.T) {
	code, hash, err := Codes{}.New()
	require.NoError(t, err)
	assert.Regexp(t, sixDigits, code)
	assert.Len(t, hash, 64)
	assert.True(t, Codes{}.Match(hash, code))
	assert.False(t, Codes{Key: []byte("k")}.Match(hash, code), "keyed codes do not accept unkeyed hashes")
}

func TestNewCodes(t *testing.T) {
	a, b, c := NewCodes("secret one"), NewCodes("secret one"), NewCodes("secret two")
	assert.Len(t, a.Key, 32)
	assert.Equal(t, a.Key, b.Key, "derivation is deterministic, so every server agrees")
	assert.NotEqual(t, a.Key, c.Key)
	assert.NotEqual(t, a.Key, []byte("secret one"), "the raw secret is not the key")
	assert.Nil(t, NewCodes("").Key)
	sealer := NewSealer("secret one")
	assert.NotEqual(t, a.Key, sealer.key[:], "codes and sealer keys are independent")
}

func TestCodesMatch(t *testing.T) {
	codes := Codes{Key: []byte("server key")}
	hash := codes.hash("012345")
	tests := []struct {
		name  string
		codes Codes
		hash  string
		input string
		want  bool
	}{
		{"exact", codes, hash, "012345", true},
		{"full-width digits", codes, hash, "０１２３４５", true},
		{"full-width with hyphen and spaces", codes, hash, " ０１２－３４５ ", true},
		{"ascii hyphen", codes, hash, "012-345", true},
		{"ideographic space", codes, hash, "012\u3000345", true},
		{"kana IME dash", codes, hash, "012ー345", true},
		{"leading zero dropped", codes, hash, "12345", false},
		{"wrong code", codes, hash, "012346", false},
		{"seven digits", codes, hash, "0123456", false},
		{"letters", codes, hash, "O12345", false},
		{"empty", codes, hash, "", false},
		{"other key", Codes{Key: []byte("other key")}, hash, "012345", false},
		{"empty hash", codes, "", "012345", false},
		{"hash of a non-code is never matched", codes, codes.hash("abc"), "abc", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.codes.Match(tt.hash, tt.input))
		})
	}
}

func TestCheckCode(t *testing.T) {
	codes := Codes{Key: []byte("server key")}
	now := time.Date(2026, 12, 25, 9, 0, 0, 0, time.UTC)
	issued := now.Add(-3 * time.Minute)
	expires := issued.Add(CodeTTL)
	hash := codes.hash("987654")
	used := now.Add(-time.Minute)

	tests := []struct {
		name   string
		stored StoredCode
		input  string
		now    time.Time
		want   CodeResult
	}{
		{"right code", StoredCode{Hash: hash, ExpiresAt: expires}, "987654", now, CodeOK},
		{"right code full-width", StoredCode{Hash: hash, ExpiresAt: expires}, "９８７６５４", now, CodeOK},
		{"wrong code", StoredCode{Hash: hash, ExpiresAt: expires}, "987655", now, CodeWrong},
		{"garbage", StoredCode{Hash: hash, ExpiresAt: expires}, "abc", now, CodeWrong},
		{"one nanosecond before expiry", StoredCode{Hash: hash, ExpiresAt: expires}, "987654", expires.Add(-time.Nanosecond), CodeOK},
		{"exactly at expiry", StoredCode{Hash: hash, ExpiresAt: expires}, "987654", expires, CodeExpired},
		{"after expiry", StoredCode{Hash: hash, ExpiresAt: expires}, "987654", expires.Add(time.Second), CodeExpired},
		{"used, right code", StoredCode{Hash: hash, ExpiresAt: expires, UsedAt: &used}, "987654", now, CodeUsed},
		{"used and expired says used", StoredCode{Hash: hash, ExpiresAt: expires, UsedAt: &used}, "987654", expires.Add(time.Hour), CodeUsed},
		{"4 wrong so far, 5th attempt right", StoredCode{Hash: hash, ExpiresAt: expires, Attempts: 4}, "987654", now, CodeOK},
		{"4 wrong so far, 5th attempt wrong", StoredCode{Hash: hash, ExpiresAt: expires, Attempts: 4}, "000000", now, CodeWrong},
		{"5 wrong so far, 6th attempt right", StoredCode{Hash: hash, ExpiresAt: expires, Attempts: 5}, "987654", now, CodeTooManyAttempts},
		{"5 wrong so far, 6th attempt wrong", StoredCode{Hash: hash, ExpiresAt: expires, Attempts: 5}, "000000", now, CodeTooManyAttempts},
		{"too many and expired says expired", StoredCode{Hash: hash, ExpiresAt: expires, Attempts: 9}, "987654", expires, CodeExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, CheckCode(tt.stored, tt.input, tt.now, codes))
		})
	}
	t.Run("other server key", func(t *testing.T) {
		got := CheckCode(StoredCode{Hash: hash, ExpiresAt: expires}, "987654", now, Codes{Key: []byte("rotated")})
		assert.Equal(t, CodeWrong, got)
	})
}

// TestCheckCodeAttemptLimit plays the caller's part: increment on CodeWrong.
func TestCheckCodeAttemptLimit(t *testing.T) {
	codes := Codes{Key: []byte("k")}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	stored := StoredCode{Hash: codes.hash("111111"), ExpiresAt: now.Add(CodeTTL)}
	var results []CodeResult
	for range 7 {
		r := CheckCode(stored, "222222", now, codes)
		if r == CodeWrong {
			stored.Attempts++
		}
		results = append(results, r)
	}
	assert.Equal(t, []CodeResult{CodeWrong, CodeWrong, CodeWrong, CodeWrong, CodeWrong, CodeTooManyAttempts, CodeTooManyAttempts}, results)
	assert.Equal(t, CodeMaxAttempts, stored.Attempts)
}

func TestCodeResultMessages(t *testing.T) {
	tests := []struct {
		result      CodeResult
		message, nm string
	}{
		{CodeOK, "", "ok"},
		{CodeWrong, "確認コードが正しくありません。", "wrong"},
		{CodeExpired, "確認コードの有効期限が切れています。もう一度コードを送信してください。", "expired"},
		{CodeUsed, "この確認コードは使用済みです。", "used"},
		{CodeTooManyAttempts, "確認コードの入力回数が上限を超えました。もう一度コードを送信してください。", "too many attempts"},
		{CodeResult(99), "", "CodeResult(99)"},
	}
	for _, tt := range tests {
		t.Run(tt.nm, func(t *testing.T) {
			assert.Equal(t, tt.message, tt.result.Message())
			assert.Equal(t, tt.nm, tt.result.String())
		})
	}
}

func TestCodePolicy(t *testing.T) {
	assert.Equal(t, 10*time.Minute, CodeTTL)
	assert.Equal(t, 5, CodeMaxAttempts)
}
