package web_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"cardpay/handlers/web"
)

func TestSafeRedirect(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"/myaccount", "/myaccount", true},
		{"/suppliers?status=enable", "/suppliers?status=enable", true},
		{"", "", false},
		{"myaccount", "", false},
		{"//evil.example/x", "", false},
		{"/\\evil.example", "", false},
		{"https://evil.example/", "", false},
		{"javascript:alert(1)", "", false},
		{"/%0d%0aSet-Cookie:x", "/%0d%0aSet-Cookie:x", true},
		{"/a\r\nb", "", false},
		{"/signin", "", false},
		{"/signout", "", false},
	}
	for _, tt := range tests {
		got, ok := web.SafeRedirect(tt.in)
		assert.Equal(t, tt.ok, ok, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}
