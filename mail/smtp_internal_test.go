package mail

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/mail/internal/smtpd"
)

// TestSendHeaders reads the raw message as it crossed the wire.
func TestSendHeaders(t *testing.T) {
	got := make(chan smtpd.Delivery, 1)
	srv, err := smtpd.Start(smtpd.Options{}, func(_ context.Context, d smtpd.Delivery) error {
		got <- d
		return nil
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })

	sender, err := NewSMTP("smtp://"+srv.Addr(), "請求書カード払い <no-reply@cardpay.example>")
	require.NoError(t, err)
	require.NoError(t, sender.Send(context.Background(), SignupCode("user@example.jp", "請求書カード払い", "123456", 10*time.Minute)))

	var d smtpd.Delivery
	select {
	case d = <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("no mail arrived")
	}
	assert.Equal(t, "no-reply@cardpay.example", d.From, "envelope sender")
	assert.Equal(t, []string{"user@example.jp"}, d.To, "envelope recipient")
	raw := string(d.Data)
	assert.Regexp(t, regexp.MustCompile(`(?m)^Date: \w{3}, \d{1,2} \w{3} \d{4} \d{2}:\d{2}:\d{2} \+0900\r$`), raw, "Date in Japan time")
	assert.Regexp(t, regexp.MustCompile(`(?mi)^Message-ID: <[a-z2-7]{26}@cardpay\.example>\r$`), raw)
	// Long headers are folded onto continuation lines.
	assert.Regexp(t, regexp.MustCompile(`(?mi)^From:\s+=\?utf-8\?[bq]\?[^?]+\?=(\s+=\?utf-8\?[bq]\?[^?]+\?=)* <no-reply@cardpay\.example>\r$`), raw, "the service name is encoded in From")
	assert.Regexp(t, regexp.MustCompile(`(?mi)^Subject:\s+=\?UTF-8\?b\?`), raw, "the Japanese subject is RFC 2047 encoded")
	assert.Contains(t, raw, "Content-Type: text/plain; charset=UTF-8")
	assert.Contains(t, raw, "Content-Transfer-Encoding: base64")
	assert.NotContains(t, raw, "User-Agent")
	for i := 0; i < len(raw); i++ {
		require.Less(t, raw[i], byte(0x80), "the message is 7-bit clean")
	}

	r, err := Decode(d.Data)
	require.NoError(t, err)
	assert.Equal(t, "【請求書カード払い】新規登録の認証コード", r.Subject)
}
