package commonpasswords_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"cardpay/auth/commonpasswords"
)

func TestContains(t *testing.T) {
	tests := []struct {
		pw   string
		want bool
	}{
		{"password123", true},
		{"qwerty123456", true},
		{"iloveyou143", true},
		{"PassWord123", true},              // any case
		{"ｐａｓｓｗｏｒｄ１２３", true},              // full-width, as a Japanese IME types it
		{"Ｐａｓｓｗｏｒｄ123", true},              // mixed widths
		{"password", false},                // on the source list, but shorter than MinRunes
		{"password123 ", false},            // compared exactly as typed, spaces included
		{"kanri2026pass", false},           // webtest.SignupPassword
		{"correct horse battery 7", false}, // webtest.Password
		{"", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, commonpasswords.Contains(tt.pw), "%q", tt.pw)
	}
}

func TestListSize(t *testing.T) {
	// 1,557 of the package's 49,233 are 10 characters or longer; a much smaller
	// set means the file was cut or misread.
	assert.Greater(t, commonpasswords.Len(), 1000)
}

func TestEntries(t *testing.T) {
	assert.Equal(t, []string{"#hashtag1234", " spaced 123 "}, commonpasswords.Entries("# header\n#\n\n#hashtag1234\n spaced 123 \n"))
	assert.Nil(t, commonpasswords.Entries("# no body\n"))
}
