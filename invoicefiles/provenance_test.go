package invoicefiles_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"cardpay/invoicefiles"
	"cardpay/invoiceread"
)

func TestProvenanceBadge(t *testing.T) {
	for _, tc := range []struct {
		source     invoiceread.Source
		confidence float64
		want       string
	}{
		{invoiceread.FromReading, 0.95, "請求書から読み取り（確度 高）"},
		{invoiceread.FromReading, 0.7, "請求書から読み取り（確度 中）"},
		{invoiceread.FromReading, 0.4, "請求書から読み取り（確度 低）"},
		{invoiceread.FromHistory, 0.9, "前回のお支払いから（確度 高）"},
		{invoiceread.FromBoth, 0.98, "請求書と前回のお支払いで一致（確度 高）"},
	} {
		p := invoicefiles.Provenance{Source: tc.source, Confidence: tc.confidence}
		assert.Equal(t, tc.want, p.Badge())
		assert.Equal(t, tc.source == invoiceread.FromHistory, p.FromHistory())
	}
	assert.Equal(t, "請求書から読み取り（確度 中）", invoicefiles.ReadBadge(0.6))
	m := invoicefiles.Match{Offered: invoiceread.Offer(invoiceread.Fields{
		AccountNumber: invoiceread.Field[string]{Value: "1234567", Confidence: 0.9, Found: true}}, nil)}
	p, ok := m.Provenance("account_number")
	assert.True(t, ok)
	assert.Equal(t, "請求書から読み取り（確度 高）", p.Badge())
	_, ok = m.Provenance("account_holder")
	assert.False(t, ok, "nothing offered, no provenance")
}
