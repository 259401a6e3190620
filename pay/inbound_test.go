package pay_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"cardpay/pay"
)

func TestCheckInboundMail(t *testing.T) {
	for _, tc := range []struct {
		name        string
		dmarc       string
		attachments int
		smtp        bool   // refused in the SMTP reply
		msg         string // part of the refusal; "" when its files are checked one by one
	}{
		{"one file, DMARC passed", "pass", 1, false, ""},
		{"one file, no DMARC verdict", "none", 1, false, ""},
		{"ten files is the limit", "pass", pay.MaxInboundAttachments, false, ""},
		{"eleven files", "pass", pay.MaxInboundAttachments + 1, false, "添付ファイルが11個あります"},
		{"no file", "pass", 0, false, "添付されていませんでした"},
		{"forged sender, even with a file", "fail", 1, true, "なりすまし"},
		{"forged sender without a file", "fail", 0, true, "なりすまし"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := pay.CheckInboundMail(tc.dmarc, tc.attachments)
			if tc.msg == "" {
				assert.Nil(t, r)
				return
			}
			if assert.NotNil(t, r) {
				assert.Contains(t, r.Message, tc.msg)
				assert.Equal(t, tc.smtp, r.SMTP)
				if r.SMTP {
					assert.Equal(t, 5, r.Code/100, "a permanent refusal")
					assert.NotEmpty(t, r.Reason)
				}
			}
		})
	}
}

func TestInboundMayReply(t *testing.T) {
	for _, tc := range []struct {
		name          string
		from          string
		autoSubmitted bool
		spf, dmarc    string
		want          bool
	}{
		{"a person's mail", "keiri@supplier.example.jp", false, "pass", "pass", true},
		{"no verdicts (development)", "keiri@supplier.example.jp", false, "none", "none", true},
		{"a bounce has no return path", "", false, "pass", "pass", false},
		{"a program's mail", "noreply@supplier.example.jp", true, "pass", "pass", false},
		{"return path failed SPF", "victim@example.com", false, "fail", "none", false},
		{"sender failed DMARC", "victim@example.com", false, "pass", "fail", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, pay.InboundMayReply(tc.from, tc.autoSubmitted, tc.spf, tc.dmarc))
		})
	}
}
