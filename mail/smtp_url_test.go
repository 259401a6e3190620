package mail

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSMTPURL(t *testing.T) {
	valid := []struct {
		url         string
		host        string
		port        int
		implicitTLS bool
		user, pass  string
	}{
		{"smtp://mail.example.jp", "mail.example.jp", 25, false, "", ""},
		{"smtp://127.0.0.1:2525", "127.0.0.1", 2525, false, "", ""},
		{"smtp://user:pass@mail.example.jp:587", "mail.example.jp", 587, false, "user", "pass"},
		{"smtp://apikey%40example.jp:p%40ss%3Aword@mail.example.jp:587/", "mail.example.jp", 587, false, "apikey@example.jp", "p@ss:word"},
		{"smtp://user@mail.example.jp:587", "mail.example.jp", 587, false, "user", ""},
		{"smtps://mail.example.jp", "mail.example.jp", 465, true, "", ""},
		{"SMTPS://user:pass@mail.example.jp:465", "mail.example.jp", 465, true, "user", "pass"},
		{"smtp://[::1]:25", "::1", 25, false, "", ""},
	}
	for _, tt := range valid {
		t.Run(tt.url, func(t *testing.T) {
			s, err := parseSMTPURL(tt.url)
			require.NoError(t, err)
			assert.Equal(t, tt.host, s.host)
			assert.Equal(t, tt.port, s.port)
			assert.Equal(t, tt.implicitTLS, s.implicitTLS)
			assert.Equal(t, tt.user, s.username)
			assert.Equal(t, tt.pass, s.password)
			assert.Equal(t, tt.user != "", s.hasUser)
		})
	}

	invalid := []struct {
		url  string
		want string
	}{
		{"", "SMTP_URL is empty"},
		{"   ", "SMTP_URL is empty"},
		{"mail.example.jp:25", "must start with smtp:// or smtps://"},
		{"http://mail.example.jp", "must start with smtp:// or smtps://"},
		{"smtp:mail.example.jp", "has no host"},
		{"smtp://", "has no host"},
		{"smtp://:25", "has no host"},
		{"smtp://mail.example.jp:0", "port must be 1-65535"},
		{"smtp://mail.example.jp:70000", "port must be 1-65535"},
		{"smtp://mail.example.jp:", "empty port"},
		{"smtp://mail.example.jp:smtp", "not a valid URL"},
		{"smtp://mail.example.jp/inbox", "no path, query or fragment"},
		{"smtp://mail.example.jp?tls=off", "no path, query or fragment"},
		{"smtp://:secret@mail.example.jp", "no user name"},
		{"smtp://user:se cret%zz@mail.example.jp", "not a valid URL"},
	}
	for _, tt := range invalid {
		t.Run("invalid "+tt.url, func(t *testing.T) {
			_, err := parseSMTPURL(tt.url)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), "secret", "errors never show the password")
		})
	}
}

func TestNewSMTPChecksFrom(t *testing.T) {
	_, err := NewSMTP("smtp://127.0.0.1:25", "not an address")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "From address")

	s, err := newSMTP("smtp://127.0.0.1:25", "請求書カード払い <no-reply@cardpay.example>", nil)
	require.NoError(t, err)
	assert.Equal(t, "請求書カード払い", s.from.Name)
	assert.Equal(t, "no-reply@cardpay.example", s.from.Address)
}

func TestMinutesRoundUp(t *testing.T) {
	assert.Equal(t, 10, minutes(10*time.Minute))
	assert.Equal(t, 2, minutes(90*time.Second))
	assert.Equal(t, 1, minutes(0))
	assert.Equal(t, 60, minutes(time.Hour))
}
