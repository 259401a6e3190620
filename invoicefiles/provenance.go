package invoicefiles

import "cardpay/invoiceread"

// Provenance is where a pre-filled value came from (issue 28): the invoice's reading, the
// supplier's history (what the buyer paid with last time), or both agreeing; and how sure
// it is. The pages show it beside each pre-filled field as text (Badge), never as a colour
// alone.
type Provenance struct {
	Source     invoiceread.Source
	Confidence float64
}

// Provenance is the provenance of the offered field key (invoiceread.Fields' JSON keys);
// false when nothing was offered for it.
func (m Match) Provenance(key string) (Provenance, bool) {
	s := m.Offered.Source(key)
	if s == "" {
		return Provenance{}, false
	}
	return Provenance{Source: s, Confidence: m.Offered.Confidence(key)}, true
}

// FromHistory says whether the value is the supplier's history's, not on the invoice as read.
func (p Provenance) FromHistory() bool { return p.Source == invoiceread.FromHistory }

// Badge is the provenance for people, short enough to stand beside a field:
// 請求書から読み取り（確度 高）, 前回のお支払いから（確度 高）, 請求書と前回のお支払いで一致（確度 高）.
func (p Provenance) Badge() string {
	how := "（確度 " + ConfidenceLabel(p.Confidence) + "）"
	switch p.Source {
	case invoiceread.FromHistory:
		return "前回のお支払いから" + how
	case invoiceread.FromBoth:
		return "請求書と前回のお支払いで一致" + how
	}
	return "請求書から読み取り" + how
}

// ReadBadge is the badge of a value read from the invoice with confidence c, for a
// reading that could not be matched (its offer is not known).
func ReadBadge(c float64) string {
	return Provenance{Source: invoiceread.FromReading, Confidence: c}.Badge()
}

// ConfidenceLabel is a confidence for people: 高 (0.85 and above), 中 (0.6 and above) or
// 低.
func ConfidenceLabel(c float64) string {
	switch {
	case c >= 0.85:
		return "高"
	case c >= 0.6:
		return "中"
	}
	return "低"
}
