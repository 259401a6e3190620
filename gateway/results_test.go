package gateway_test

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"

	"cardpay/gateway"
)

func TestEveryResultCodeHasAJapaneseMessage(t *testing.T) {
	seen := map[gateway.ResultCode]bool{}
	for _, c := range gateway.ResultCodes() {
		assert.False(t, seen[c], "%s listed twice", c)
		seen[c] = true
		m, ok := c.Message()
		assert.True(t, ok, c)
		assert.Regexp(t, `[ぁ-んァ-ン一-龥]`, m, "%s is Japanese", c)
		if c.IsDecline() {
			// Every decline says what the buyer can do next.
			assert.Regexp(t, `ご利用ください|お問い合わせください|お試しください|入力してください|ご確認ください`, m, c)
		}
	}
	assert.False(t, gateway.ResultApproved.IsDecline())
	assert.True(t, gateway.ResultInsufficientFunds.IsDecline())
}

func TestResultMessageOfAnUnknownCodeIsTheGeneralDecline(t *testing.T) {
	_, ok := gateway.ResultCode("Z999").Message()
	assert.False(t, ok)
	assert.Equal(t, gateway.ResultMessage(gateway.ResultDeclined), gateway.ResultMessage("Z999"))
}

func TestCardLogsOnlyWhatMayBeLogged(t *testing.T) {
	var buf bytes.Buffer
	slog.New(slog.NewTextHandler(&buf, nil)).Info("saved", "card", gateway.Card{
		Ref: "card_1", Brand: "VISA", Last4: "1111", ExpMonth: 12, ExpYear: 2030,
		Holder: "TARO YAMADA", Fingerprint: "fp_secretish",
	})
	out := buf.String()
	assert.Contains(t, out, "card.last4=1111")
	assert.Contains(t, out, "card.brand=VISA")
	assert.NotContains(t, out, "TARO")
	assert.NotContains(t, out, "fp_secretish")
}
