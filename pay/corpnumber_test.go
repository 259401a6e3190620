package pay_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"cardpay/pay"
)

// Real corporate numbers as published on the NTA's 法人番号公表サイト; a
// formula that rejected any of them would reject real buyers.
var publishedCorporateNumbers = []struct {
	holder string
	number string
}{
	{"国税庁", "7000012050002"},
	{"国立国会図書館", "1000011000005"},
	{"日本税理士会連合会", "7010705000725"},
	{"トヨタ自動車株式会社", "1180301018771"},
	{"ソニーグループ株式会社", "5010401067252"},
	{"株式会社日立製作所", "7010001008844"},
	{"株式会社FoundingBase", "4011001098993"},
}

func TestValidCorporateNumberPublished(t *testing.T) {
	for _, c := range publishedCorporateNumbers {
		t.Run(c.holder, func(t *testing.T) {
			assert.True(t, pay.ValidCorporateNumber(c.number))
			assert.True(t, pay.ValidRegistrationNumber("T"+c.number))
		})
	}
}

// Changing any single digit except a 0↔9 swap must be caught.
func TestValidCorporateNumberCatchesEverySingleDigitTypo(t *testing.T) {
	for _, c := range publishedCorporateNumbers {
		for i := range len(c.number) {
			for d := byte('0'); d <= '9'; d++ {
				orig := c.number[i]
				if d == orig || (orig == '0' && d == '9') || (orig == '9' && d == '0') {
					continue
				}
				typo := c.number[:i] + string(d) + c.number[i+1:]
				assert.False(t, pay.ValidCorporateNumber(typo), "%s (typo of %s)", typo, c.number)
			}
		}
	}
}

func TestValidCorporateNumber(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"国税庁", "7000012050002", true},
		{"wrong check digit", "8000012050002", false},
		{"check digit 0 never occurs", "0000012050002", false},
		{"two digits swapped", "7000021050002", false},
		{"12 digits (the base alone)", "000012050002", false},
		{"14 digits", "70000120500020", false},
		{"empty", "", false},
		{"letter inside", "70000120500O2", false},
		{"full-width digits are not normalised", "７００００１２０５０００２", false},
		{"hyphens are not normalised", "7-0000-1205-0002", false},
		{"surrounding space is not trimmed", " 7000012050002", false},
		{"registration number is not a corporate number", "T7000012050002", false},
		{"normalised full-width input passes", pay.NormalizeCode("７ ００００ １２０５ ０００２"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, pay.ValidCorporateNumber(tt.in))
		})
	}
}

func TestValidRegistrationNumber(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"国税庁", "T7000012050002", true},
		{"トヨタ自動車", "T1180301018771", true},
		{"one digit changed", "T1180301018772", false},
		{"no T", "7000012050002", false},
		{"lower-case t", "t7000012050002", false},
		{"other letter", "X7000012050002", false},
		{"full-width Ｔ", "Ｔ7000012050002", false},
		{"12 digits", "T000012050002", false},
		{"14 digits", "T70000120500020", false},
		{"T alone", "T", false},
		{"empty", "", false},
		{"hyphenated", "T7-0000-1205-0002", false},
		{"normalised lower-case and hyphens pass", pay.NormalizeCode("t7-0000-1205-0002"), true},
		{"normalised full-width passes", pay.NormalizeCode("Ｔ７００００１２０５０００２"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, pay.ValidRegistrationNumber(tt.in))
		})
	}
}

func TestCorporateCheckDigit(t *testing.T) {
	tests := []struct {
		base   string
		want   int
		wantOK bool
	}{
		{"000012050002", 7, true},
		{"180301018771", 1, true},
		{"123456789012", 7, true}, // worked example of the NTA's explanation
		{"000000000000", 9, true},
		{"00001205000", 0, false},
		{"0000120500020", 0, false},
		{"00001205000a", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.base, func(t *testing.T) {
			got, ok := pay.CorporateCheckDigit(tt.base)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestCorporateNumberQuery(t *testing.T) {
	for _, tc := range []struct {
		q, number, msg string
		ok             bool
	}{
		{"山田商事", "", "", false},
		{"", "", "", false},
		{"1180", "1180", "", true},
		{"１１８０-３０１０-１８７７１", "1180301018771", "", true},
		{"2180301018771", "2180301018771", "法人番号が正しくありません。13桁の数字をご確認ください", true},
		{"11803010187710", "11803010187710", "法人番号は13桁の数字です。桁数をご確認ください", true},
	} {
		number, msg, ok := pay.CorporateNumberQuery(tc.q)
		assert.Equal(t, tc.number, number, tc.q)
		assert.Equal(t, tc.msg, msg, tc.q)
		assert.Equal(t, tc.ok, ok, tc.q)
	}
}
