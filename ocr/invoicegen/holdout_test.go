package invoicegen

import (
	"bytes"
	"context"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSets(t *testing.T) {
	assert.Equal(t, Layouts, SetGenerator.Layouts())
	assert.Equal(t, HoldoutLayouts, SetHoldout.Layouts())
	assert.Len(t, HoldoutLayouts, 3)
	for _, l := range HoldoutLayouts {
		assert.NotContains(t, Layouts, l, "the holdout layouts are not the generator's")
		assert.NotContains(t, l.String(), "layout", "every layout has a name")
	}
	assert.False(t, SetGenerator.New(1).Invoice().Holdout)
	assert.True(t, SetHoldout.New(1).Invoice().Holdout)
	s, err := ParseSet("holdout")
	require.NoError(t, err)
	assert.Equal(t, SetHoldout, s)
	_, err = ParseSet("both")
	assert.Error(t, err)
}

func TestHoldoutSameSeedGivesSameInvoices(t *testing.T) {
	a, b, gen := NewHoldout(7), NewHoldout(7), New(7)
	differs := false
	for range 30 {
		ta, tb, tg := a.Invoice(), b.Invoice(), gen.Invoice()
		require.Equal(t, ta, tb)
		if ta.Total != tg.Total || ta.IssuerName != tg.IssuerName {
			differs = true
		}
	}
	assert.True(t, differs, "the holdout's invoices are not the generator's")
}

// The holdout's further forms all turn up.
func TestHoldoutFormsOccur(t *testing.T) {
	g := NewHoldout(3)
	seen := map[string]bool{}
	for range 400 {
		tr := g.Invoice()
		for _, f := range []string{"有限会社", "合同会社", "(有)", "㈲", "千葉銀行", "楽天銀行"} {
			if strings.Contains(tr.IssuerName+tr.IssuerPrinted+tr.BankName, f) {
				seen[f] = true
			}
		}
		for _, s := range []string{tr.InvoiceDateText, tr.DueDateText} {
			switch {
			case strings.Count(s, "-") == 2:
				seen["iso"] = true
			case strings.Contains(s, "年0"):
				seen["zero-padded"] = true
			case strings.Contains(s, "月１") || strings.Contains(s, "年１") || strings.Contains(s, "和８"), strings.Contains(s, "和７"):
				seen["full-width date"] = true
			}
		}
		switch {
		case strings.HasSuffix(tr.TotalText, ".-"):
			seen["¥.-"] = true
		case strings.HasPrefix(tr.TotalText, "金") && strings.HasSuffix(tr.TotalText, "（税込）"):
			seen["金円（税込）"] = true
		case strings.ContainsRune(tr.TotalText, '，'):
			seen["full-width amount"] = true
		}
		if strings.ContainsAny(tr.HolderPrinted, "ャュョー") {
			seen["holder as spelt"] = true
		}
		if strings.HasPrefix(tr.AccountHolder, "ﾕ)") || strings.HasSuffix(tr.AccountHolder, "(ﾕ") {
			seen["ユ holder"] = true
		}
	}
	for _, want := range []string{"有限会社", "合同会社", "(有)", "㈲", "千葉銀行", "楽天銀行", "iso", "zero-padded",
		"full-width date", "¥.-", "金円（税込）", "full-width amount", "holder as spelt", "ユ holder"} {
		assert.True(t, seen[want], "no holdout invoice shows %s", want)
	}
}

// Every holdout layout prints every field the accuracy run measures, as printed.
func TestHoldoutPDFTextLayerHoldsTheTruth(t *testing.T) {
	g := NewHoldout(11)
	for range 4 {
		for _, layout := range HoldoutLayouts {
			tr := g.Invoice()
			pdf, err := RenderPDF(tr, layout)
			require.NoError(t, err)
			require.True(t, bytes.HasPrefix(pdf, []byte("%PDF-")))
			text := noSpace(pdfText(t, pdf))
			for _, want := range []string{tr.TotalText, tr.InvoiceDateText, tr.DueDateText, tr.RegistrationNumber,
				tr.AccountNumber, tr.IssuerPrinted, tr.Addressee + tr.AddresseeSuffix, tr.BankName, tr.BranchPrinted,
				tr.HolderPrinted, tr.TEL, tr.FAX, Yen(tr.Tax), tr.InvoiceNumber} {
				assert.Contains(t, text, noSpace(want), "layout %s, invoice %d", layout, tr.N)
			}
		}
	}
}

// The holdout layouts use the second face (IPAex Mincho), the generator's do not.
func TestHoldoutLayoutsUseMincho(t *testing.T) {
	requireTool(t, "pdffonts")
	fonts := func(pdf []byte) string {
		f := filepath.Join(t.TempDir(), "in.pdf")
		require.NoError(t, os.WriteFile(f, pdf, 0o600))
		out, err := exec.Command("pdffonts", f).Output()
		require.NoError(t, err)
		return string(out)
	}
	tr := New(2).Invoice()
	for _, l := range HoldoutLayouts {
		pdf, err := RenderPDF(tr, l)
		require.NoError(t, err)
		assert.Contains(t, fonts(pdf), "mincho", l)
	}
	pdf, err := RenderPDF(tr, LayoutClassic)
	require.NoError(t, err)
	assert.NotContains(t, fonts(pdf), "mincho")
}

// Every kind renders from the holdout generator, at the kind's size, and its
// degradations follow from the seed.
func TestHoldoutEveryKindRendersAndDecodes(t *testing.T) {
	requireTool(t, "pdftoppm")
	ctx := context.Background()
	g := NewHoldout(5)
	tr := g.Invoice()
	size := map[Kind][2]int{KindImage: {ImageWidth, ImageHeight}, KindFax: {FaxWidth, FaxHeight}, KindPhoto: {PhotoWidth, PhotoHeight}}
	for i, kind := range Kinds {
		doc, err := g.Render(ctx, tr, HoldoutLayouts[i%len(HoldoutLayouts)], kind)
		require.NoError(t, err, kind)
		assert.Equal(t, kind, doc.Kind)
		switch kind {
		case KindTextPDF:
			assert.Contains(t, noSpace(pdfText(t, doc.Bytes)), noSpace(tr.TotalText))
		case KindScannedPDF:
			assert.Equal(t, "application/pdf", doc.MediaType)
			assert.Empty(t, strings.TrimSpace(pdfText(t, doc.Bytes)), "a scan has no text layer")
		default:
			img, _, err := image.Decode(bytes.NewReader(doc.Bytes))
			require.NoError(t, err, kind)
			assert.Equal(t, size[kind][0], img.Bounds().Dx(), kind)
			assert.Equal(t, size[kind][1], img.Bounds().Dy(), kind)
		}
	}
	render := func(seed int64) []byte {
		g := NewHoldout(seed)
		doc, err := g.Render(ctx, g.Invoice(), LayoutLedger, KindFax)
		require.NoError(t, err)
		return doc.Bytes
	}
	assert.True(t, bytes.Equal(render(9), render(9)))
	assert.False(t, bytes.Equal(render(9), render(10)))
}

func TestHoldoutForms(t *testing.T) {
	d := mustDate(t, "2026-01-05")
	for i, want := range HoldoutDateForms {
		assert.Equal(t, want, dateText(d, len(DateForms)+i))
	}
	for i, want := range HoldoutAmountForms {
		assert.Equal(t, want, amountText(1234, len(AmountForms)+i))
	}
}
