package pay_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"cardpay/pay"
)

func TestValidateEmail(t *testing.T) {
	const (
		required = "メールアドレスを入力してください"
		format   = "メールアドレスを正しい形式で入力してください（例：name@example.co.jp）"
	)
	tests := []struct {
		name    string
		in      string
		want    string
		wantMsg string
	}{
		{"plain", "name@example.co.jp", "name@example.co.jp", ""},
		{"trimmed", "  name@example.co.jp\t", "name@example.co.jp", ""},
		{"full-width space trimmed", "　name@example.co.jp　", "name@example.co.jp", ""},
		{"domain lower-cased, local kept", "Taro.Yamada@Example.CO.JP", "Taro.Yamada@example.co.jp", ""},
		{"full-width IME input", "ｎａｍｅ＠ｅｘａｍｐｌｅ．ｊｐ", "name@example.jp", ""},
		{"plus tag", "name+billing@example.com", "name+billing@example.com", ""},
		{"old docomo address with dots", "taro..yamada.@docomo.ne.jp", "taro..yamada.@docomo.ne.jp", ""},
		{"Japanese domain", "info@日本語.jp", "info@日本語.jp", ""},
		{"254 bytes", strings.Repeat("a", 64) + "@" + strings.Repeat("b", 185) + ".com", strings.Repeat("a", 64) + "@" + strings.Repeat("b", 185) + ".com", ""},
		{"empty", "", "", required},
		{"only spaces", " 　 ", "", required},
		{"255 bytes", strings.Repeat("a", 64) + "@" + strings.Repeat("b", 186) + ".com", strings.Repeat("a", 64) + "@" + strings.Repeat("b", 186) + ".com", format},
		{"local part over 64 bytes", strings.Repeat("a", 65) + "@example.com", strings.Repeat("a", 65) + "@example.com", format},
		{"no @", "name.example.com", "name.example.com", format},
		{"two @", "name@foo@example.com", "name@foo@example.com", format},
		{"no local part", "@example.com", "@example.com", format},
		{"no domain", "name@", "name@", format},
		{"no dot in domain", "name@localhost", "name@localhost", format},
		{"domain starts with a dot", "name@.example.com", "name@.example.com", format},
		{"domain ends with a dot", "name@example.com.", "name@example.com.", format},
		{"two dots in domain", "name@example..com", "name@example..com", format},
		{"space inside", "na me@example.com", "na me@example.com", format},
		{"full-width space inside", "na　me@example.com", "na me@example.com", format},
		{"tab inside", "na\tme@example.com", "na\tme@example.com", format},
		{"control character", "na\x00me@example.com", "na\x00me@example.com", format},
		{"zero-width space", "name\u200b@example.com", "name\u200b@example.com", format},
		{"angle brackets", "<name@example.com>", "<name@example.com>", format},
		{"display name", "Taro <name@example.com>", "Taro <name@example.com>", format},
		{"comma (two addresses)", "a@example.com,b@example.com", "a@example.com,b@example.com", format},
		{"invalid UTF-8", "name\xff@example.com", "name\uFFFD@example.com", format},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, msg := pay.ValidateEmail(tt.in)
			assert.Equal(t, tt.wantMsg, msg)
			assert.Equal(t, tt.want, got)
		})
	}
}
