package pay_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"cardpay/pay"
)

func TestLuhn(t *testing.T) {
	for _, tt := range []struct {
		digits string
		want   bool
	}{
		{"4111111111111111", true},
		{"4111111111111112", false},
		{"378282246310005", true},
		{"36227206271667", true},
		{"3530111333300000", true},
		{"0", true},
		{"", false},
		{"41111111111111a1", false},
	} {
		assert.Equal(t, tt.want, pay.Luhn(tt.digits), tt.digits)
	}
}

func TestFindCardNumbers(t *testing.T) {
	for _, tt := range []struct {
		name   string
		text   string
		masked []string
	}{
		{"plain", "number=4111111111111111&x", []string{"4•••••••••••1111"}},
		{"grouped with spaces", `"card": "4111 1111 1111 1111"`, []string{"4•••••••••••1111"}},
		{"grouped with hyphens", "5555-5555-5555-4444.", []string{"5•••••••••••4444"}},
		{"AMEX grouping", "3782 822463 10005", []string{"3••••••••••0005"}},
		{"13 digits", "4222222222222", []string{"4••••••••2222"}},
		{"16 digits, Discover", "6011000990139424", []string{"6•••••••••••9424"}},
		{"19 digits", "6222020000000000000", []string{"6••••••••••••••0000"}},
		{"two in one text", "a 4111111111111111 b 3530111333300000", []string{"4•••••••••••1111", "3•••••••••••0000"}},
		{"Luhn-invalid", "4111111111111112", nil},
		{"too short", "411111111111", nil},
		{"too long", "41111111111111111111", nil},
		{"inside a hex digest", "9f4111111111111111ab", nil},
		{"inside a token", "tok_4111111111111111", nil},
		{"double separator", "4111  1111  1111  1111", nil},
		{"a date and a time", "2026-11-23 10:15:00.123456+09", nil},
		{"phone and postal", "03-1234-5678 〒100-0001", nil},
		{"full-width digits are text", "４１１１１１１１１１１１１１１１", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range pay.FindCardNumbers(tt.text) {
				got = append(got, f.Masked)
			}
			assert.Equal(t, tt.masked, got)
		})
	}
}
