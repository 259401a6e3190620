package pay_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"cardpay/pay"
)

func TestCardExpired(t *testing.T) {
	tokyo := pay.Tokyo()
	for _, tc := range []struct {
		month, year int
		now         time.Time
		expired     bool
	}{
		{12, 2030, time.Date(2030, 12, 31, 23, 59, 59, 0, tokyo), false},
		{12, 2030, time.Date(2031, 1, 1, 0, 0, 0, 0, tokyo), true},
		// 2031-01-01 00:30 in Tokyo is still 2030-12-31 in UTC: Japan's month counts.
		{12, 2030, time.Date(2030, 12, 31, 15, 30, 0, 0, time.UTC), true},
		{12, 2030, time.Date(2030, 12, 31, 14, 59, 0, 0, time.UTC), false},
		{2, 2027, time.Date(2027, 2, 28, 12, 0, 0, 0, tokyo), false},
		{2, 2027, time.Date(2027, 3, 1, 0, 0, 0, 0, tokyo), true},
		{1, 2020, time.Date(2026, 6, 1, 0, 0, 0, 0, tokyo), true},
		{0, 2030, time.Date(2026, 6, 1, 0, 0, 0, 0, tokyo), true},
		{13, 2030, time.Date(2026, 6, 1, 0, 0, 0, 0, tokyo), true},
	} {
		assert.Equal(t, tc.expired, pay.CardExpired(tc.month, tc.year, tc.now), "%02d/%d at %s", tc.month, tc.year, tc.now)
	}
}

func TestCardExpiry(t *testing.T) {
	assert.Equal(t, "03/30", pay.CardExpiry(3, 2030))
	assert.Equal(t, "12/07", pay.CardExpiry(12, 2107))
}

func TestPaymentAmountMessage(t *testing.T) {
	for _, ok := range []int64{1_000, 1_001, 9_999_999, 10_000_000} {
		assert.Empty(t, pay.PaymentAmountMessage(ok), ok)
	}
	for _, bad := range []int64{-1, 0, 999, 10_000_001} {
		assert.Equal(t, "お支払い金額は¥1,000から¥10,000,000までの範囲で指定してください", pay.PaymentAmountMessage(bad), bad)
	}
}
