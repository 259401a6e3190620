package pay_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
)

func TestPaymentLanding(t *testing.T) {
	tests := []struct {
		name   string
		counts pay.PaymentCounts
		want   string
	}{
		{"nothing at all", pay.PaymentCounts{}, "/payments/create"},
		{"action required", pay.PaymentCounts{ActionRequired: 1}, "/payments/review"},
		{"review", pay.PaymentCounts{Review: 2}, "/payments/review"},
		{"review beats everything", pay.PaymentCounts{Review: 1, Waiting: 5, Reserved: 5, History: 5, Draft: 5}, "/payments/review"},
		{"action required beats everything", pay.PaymentCounts{ActionRequired: 1, Waiting: 5, Reserved: 5, History: 5, Draft: 5}, "/payments/review"},
		{"waiting", pay.PaymentCounts{Waiting: 1, Reserved: 1, History: 1, Draft: 1}, "/payments/waiting"},
		{"reserved", pay.PaymentCounts{Reserved: 1, History: 1, Draft: 1}, "/payments/reserved"},
		{"history", pay.PaymentCounts{History: 1, Draft: 1}, "/payments/history"},
		{"draft", pay.PaymentCounts{Draft: 1}, "/payments/draft"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, pay.PaymentLanding(tt.counts))
		})
	}
}

func TestCollectionLanding(t *testing.T) {
	tests := []struct {
		name   string
		counts pay.CollectionCounts
		want   string
	}{
		{"nothing at all", pay.CollectionCounts{}, "/collections/history"},
		{"request", pay.CollectionCounts{Request: 1, Decided: 1, History: 1, Draft: 1}, "/collections/request"},
		{"decided", pay.CollectionCounts{Decided: 1, History: 1, Draft: 1}, "/collections/decided"},
		{"history", pay.CollectionCounts{History: 1, Draft: 1}, "/collections/history"},
		{"draft", pay.CollectionCounts{Draft: 3}, "/collections/draft"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, pay.CollectionLanding(tt.counts))
		})
	}
}

// Islands read stats under the camelCase names of SPEC §3.
func TestStatsJSON(t *testing.T) {
	stats := pay.Stats{
		SuppliersEnableCount: 1, SuppliersDisableCount: 2, NotificationUnreadCount: 3, ReceivedNewCount: 14,
		Collections: pay.CollectionCounts{Request: 4, Decided: 5, History: 6, Draft: 7},
		Payments:    pay.PaymentCounts{ActionRequired: 8, Review: 9, Reserved: 10, History: 11, Draft: 12, Waiting: 13},
	}
	got, err := json.Marshal(stats)
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"suppliersEnableCount": 1, "suppliersDisableCount": 2, "notificationUnreadCount": 3, "receivedNewCount": 14,
		"collections": {"request": 4, "decided": 5, "history": 6, "draft": 7},
		"payments": {"actionRequired": 8, "review": 9, "reserved": 10, "history": 11, "draft": 12, "waiting": 13}
	}`, string(got))
}

func TestBusinessForm(t *testing.T) {
	tests := []struct {
		form  pay.BusinessForm
		code  int
		valid bool
		label string
	}{
		{pay.Corporation, 1, true, "法人"},
		{pay.SoleProprietor, 2, true, "個人事業主"},
		{pay.BusinessForm(0), 0, false, "不明"},
		{pay.BusinessForm(3), 3, false, "不明"},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			assert.Equal(t, tt.code, int(tt.form))
			assert.Equal(t, tt.valid, tt.form.Valid())
			assert.Equal(t, tt.label, tt.form.Label())
		})
	}
}

func TestCollectionModeFor(t *testing.T) {
	excluded := map[string]bool{"7000012050002": true}
	tests := []struct {
		name     string
		form     pay.BusinessForm
		number   string
		excluded map[string]bool
		want     pay.CollectionMode
	}{
		{"corporation", pay.Corporation, "1180301018771", excluded, pay.CollectionEnabled},
		{"excluded corporation", pay.Corporation, "7000012050002", excluded, pay.CollectionBuyerOnly},
		{"excluded corporation typed loosely", pay.Corporation, "７-0000-1205-0002", excluded, pay.CollectionBuyerOnly},
		{"corporation with no exclusion list", pay.Corporation, "7000012050002", nil, pay.CollectionEnabled},
		{"corporation without a number", pay.Corporation, "", excluded, pay.CollectionEnabled},
		{"sole proprietor", pay.SoleProprietor, "", nil, pay.CollectionBuyerOnly},
		{"sole proprietor with a listed number", pay.SoleProprietor, "1180301018771", nil, pay.CollectionBuyerOnly},
		{"unknown form", pay.BusinessForm(0), "1180301018771", nil, pay.CollectionBuyerOnly},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, pay.CollectionModeFor(tt.form, tt.number, tt.excluded))
		})
	}
}

func TestCollectionModeValues(t *testing.T) {
	assert.Equal(t, "buyerOnly", string(pay.CollectionBuyerOnly))
	assert.Equal(t, "enabled", string(pay.CollectionEnabled))
}
