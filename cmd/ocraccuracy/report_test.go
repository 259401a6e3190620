package main

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"cardpay/ocr/invoicegen"
)

func TestPercentile(t *testing.T) {
	s := time.Second
	// 1..20 s, shuffled: nearest rank p50 = 10th = 10 s, p95 = 19th = 19 s.
	var ds []time.Duration
	for _, v := range []int{7, 3, 20, 1, 15, 9, 12, 5, 18, 2, 11, 4, 16, 6, 19, 8, 14, 10, 17, 13} {
		ds = append(ds, time.Duration(v)*s)
	}
	assert.Equal(t, 10*s, percentile(ds, 50))
	assert.Equal(t, 19*s, percentile(ds, 95))
	assert.Equal(t, 20*s, percentile(ds, 100))
	assert.Equal(t, 7*s, ds[0], "the input is not sorted in place")

	assert.Equal(t, 2*s, percentile([]time.Duration{2 * s}, 50))
	assert.Equal(t, 2*s, percentile([]time.Duration{2 * s}, 95))
	// Two: p50 is the first (1 of 2 at most it), p95 the second.
	assert.Equal(t, 1*s, percentile([]time.Duration{3 * s, 1 * s}, 50))
	assert.Equal(t, 3*s, percentile([]time.Duration{3 * s, 1 * s}, 95))
	assert.Equal(t, time.Duration(0), percentile(nil, 50))
}

func TestPagesPerMinute(t *testing.T) {
	assert.InDelta(t, 12.0, pagesPerMinute(10, 50*time.Second), 1e-9)
	assert.InDelta(t, 120.0, pagesPerMinute(2, time.Second), 1e-9)
	assert.InDelta(t, 0.0, pagesPerMinute(0, time.Minute), 1e-9)
	assert.InDelta(t, 0.0, pagesPerMinute(5, 0), 1e-9)
	assert.Equal(t, "12.0", rate(12))
	assert.Equal(t, "120", rate(120))
	assert.Equal(t, "–", rate(0))
}

func TestMarks(t *testing.T) {
	assert.Equal(t, "95 %", pct(19, 20, 0.95))
	assert.Equal(t, "90 % ✗", pct(18, 20, 0.95))
	assert.Equal(t, "50 %", pct(1, 2, 0))
	assert.Equal(t, "–", pct(0, 0, 0.9))
	assert.Equal(t, "3s", timeCell(3*time.Second, true, p50Aim))
	assert.Equal(t, "3.01s ✗", timeCell(3010*time.Millisecond, true, p50Aim))
	assert.Equal(t, "–", timeCell(0, false, p50Aim))
}

// Both sets get their own tables; the holder's kana is its own row with its aim.
func TestReportShowsBothSets(t *testing.T) {
	hits := map[string]int{}
	for _, c := range checks {
		hits[c.name] = 2
	}
	hits["口座名義（カナ）"] = 1
	kr := kindResult{Kind: invoicegen.KindFax, Docs: 2, Pages: 2, Hits: hits, RegistryIssuer: 2, RegistryHolder: 2,
		FilledHits: 2*len(checks) - 2, PageTimes: []time.Duration{time.Second, 9 * time.Second}, Wall: 30 * time.Second}
	var b bytes.Buffer
	printReport(&b, []setReport{{Set: invoicegen.SetGenerator, Kinds: []kindResult{kr}}, {Set: invoicegen.SetHoldout, Kinds: []kindResult{kr}}}, 2, 1, 2, "/tmp/x")
	out := b.String()
	assert.Contains(t, out, "## OCR 精度 — generator")
	assert.Contains(t, out, "## OCR 精度 — holdout")
	assert.Contains(t, out, "| 口座名義（カナ） | 50 % ✗ |")
	assert.Contains(t, out, "| 口座名義（カナ）（登録名のフリガナで）¹ | 100 % |", "the holder the registry's kana spelt, beside the one read")
	assert.Contains(t, out, "| fax | 2 | 0 | 1s | 9s ✗ | 4.0 |")
	all := fmt.Sprintf("%.0f %%", 100*float64(2*len(checks)-2)/float64(2*len(checks)))
	assert.Contains(t, out, "| **全項目（発行者名は登録から）¹** | **"+all, "all fields as the form is filled, with its aim")
}
