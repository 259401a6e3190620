package invoicegen

import (
	"bytes"
	"context"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"os/exec"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
)

// requireTool fails (never skips) when a tool the harness needs is missing, naming
// the task that installs it.
func requireTool(t *testing.T, name string) {
	t.Helper()
	_, err := exec.LookPath(name)
	require.NoError(t, err, "%s is missing: run `task ocr-tools` (tools/ensure-ocr-tools.sh installs poppler-utils and fonts-ipaexfont-gothic)", name)
}

func noSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

func pdfText(t *testing.T, pdf []byte) string {
	t.Helper()
	requireTool(t, "pdftotext")
	cmd := exec.Command("pdftotext", "-layout", "-", "-")
	cmd.Stdin = bytes.NewReader(pdf)
	out, err := cmd.Output()
	require.NoError(t, err)
	return string(out)
}

func TestSameSeedGivesSameInvoices(t *testing.T) {
	a, b, c := New(7), New(7), New(8)
	differs := false
	for range 30 {
		ta, tb, tc := a.Invoice(), b.Invoice(), c.Invoice()
		require.Equal(t, ta, tb)
		if ta.Total != tc.Total || ta.IssuerName != tc.IssuerName {
			differs = true
		}
	}
	assert.True(t, differs, "another seed gives other invoices")
}

// Both sets' invoices add up: items, subtotals and tax by rate, the total; a valid
// registration number, a due date after the invoice date, a 7-digit account, and the
// holder printed as the bank registers it.
func TestInvoicesAreConsistentAndValid(t *testing.T) {
	for _, set := range Sets {
		g := set.New(1)
		for range 300 {
			tr := g.Invoice()
			assert.True(t, pay.ValidRegistrationNumber(tr.RegistrationNumber), tr.RegistrationNumber)
			var s10, s8 int64
			for _, it := range tr.Items {
				assert.Equal(t, it.Quantity*it.UnitPrice, it.Amount)
				if it.Reduced {
					s8 += it.Amount
				} else {
					s10 += it.Amount
				}
			}
			assert.Equal(t, s10, tr.Subtotal10, set)
			assert.Equal(t, s8, tr.Subtotal8, set)
			assert.Equal(t, s10/10, tr.Tax10, set)
			assert.Equal(t, s8*8/100, tr.Tax8, set)
			assert.Equal(t, tr.Subtotal10+tr.Subtotal8+tr.Tax10+tr.Tax8, tr.Total, set)
			assert.Equal(t, tr.Tax10+tr.Tax8, tr.Tax, set)
			assert.GreaterOrEqual(t, tr.DueDate, tr.InvoiceDate, set)
			assert.Len(t, tr.AccountNumber, 7, set)
			assert.Len(t, tr.BranchCode, 3, set)
			assert.True(t, tr.AccountType.Valid(), set)
			h, err := pay.NormalizeHolderName(tr.HolderPrinted)
			require.NoError(t, err, tr.HolderPrinted)
			assert.Equal(t, tr.AccountHolder, h, set)
			assert.NotEqual(t, tr.TEL, tr.FAX, set)
			if set == SetGenerator {
				// The generator prints the total in one of its forms; the holdout's own
				// forms (金1,234円（税込）, full width) have their test.
				assert.Contains(t, tr.TotalText, Yen(tr.Total))
			}
		}
	}
}

// Every form the issue names turns up, so the harness measures all of them.
func TestEveryPrintedFormOccurs(t *testing.T) {
	g := New(3)
	seen := map[string]bool{}
	for range 400 {
		tr := g.Invoice()
		for _, s := range []string{tr.InvoiceDateText, tr.DueDateText} {
			switch {
			case strings.HasPrefix(s, "令和"):
				seen["令和"] = true
			case strings.HasPrefix(s, "R"):
				seen["R8.1.5"] = true
			case strings.Contains(s, "年"):
				seen["年月日"] = true
			case strings.Contains(s, "/"):
				seen["slash"] = true
			case strings.Contains(s, "."):
				seen["dots"] = true
			}
		}
		for _, f := range []string{"¥", "￥", "円也", "円", "（税込）", "(株)", "㈱", "（株）"} {
			if strings.Contains(tr.TotalText+tr.IssuerPrinted, f) {
				seen[f] = true
			}
		}
		seen["before:"+boolString(strings.HasPrefix(tr.IssuerName, "株式会社"))] = true
		seen[tr.AddresseeSuffix] = true
		seen[tr.BankName] = true
		seen["halfwidth holder:"+boolString(tr.HolderPrinted == tr.AccountHolder)] = true
		seen["seal:"+boolString(tr.Seal)] = true
		seen["reduced:"+boolString(tr.Subtotal8 > 0)] = true
		seen[tr.AccountType.Label()] = true
		if strings.HasSuffix(tr.BranchPrinted, "店") && tr.BankName == "ゆうちょ銀行" {
			seen["〇一八店"] = true
		}
	}
	for _, want := range []string{"令和", "R8.1.5", "年月日", "slash", "dots", "¥", "￥", "円也", "円", "（税込）",
		"(株)", "㈱", "（株）", "before:yes", "before:no", "御中", "様", "ゆうちょ銀行", "〇一八店",
		"halfwidth holder:yes", "halfwidth holder:no", "seal:yes", "seal:no", "reduced:yes", "reduced:no", "普通", "当座"} {
		assert.True(t, seen[want], "no invoice shows %s", want)
	}
}

func boolString(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func TestDateForms(t *testing.T) {
	for i, want := range DateForms {
		d := mustDate(t, "2026-01-05")
		assert.Equal(t, want, dateText(d, i))
	}
	for i, want := range AmountForms {
		assert.Equal(t, want, amountText(1234, i))
	}
	assert.Equal(t, "1,234,567", Yen(1234567))
	assert.Equal(t, "999", Yen(999))
}

// The text layer holds what the invoice prints, as printed: the amount due, both dates,
// the registration number and the account.
func TestPDFTextLayerHoldsTheTruth(t *testing.T) {
	g := New(11)
	for range 4 {
		for _, layout := range Layouts {
			tr := g.Invoice()
			pdf, err := RenderPDF(tr, layout)
			require.NoError(t, err)
			require.True(t, bytes.HasPrefix(pdf, []byte("%PDF-")))
			text := noSpace(pdfText(t, pdf))
			for _, want := range []string{tr.TotalText, tr.InvoiceDateText, tr.DueDateText, tr.RegistrationNumber,
				tr.AccountNumber, tr.IssuerPrinted, tr.Addressee + tr.AddresseeSuffix, tr.BankName, tr.BranchPrinted,
				tr.HolderPrinted, tr.TEL, tr.FAX, "¥" + Yen(tr.Tax)} {
				assert.Contains(t, text, noSpace(want), "layout %s, invoice %d", layout, tr.N)
			}
		}
	}
}

// Each kind is what it says: a PDF with or without a text layer, or an image of the
// expected size that decodes.
func TestEveryKindRendersAndDecodes(t *testing.T) {
	requireTool(t, "pdftoppm")
	ctx := context.Background()
	g := New(5)
	tr := g.Invoice()
	want := map[Kind][3]any{
		KindImage: {"image/png", ImageWidth, ImageHeight},
		KindFax:   {"image/png", FaxWidth, FaxHeight},
		KindPhoto: {"image/jpeg", PhotoWidth, PhotoHeight},
	}
	for i, kind := range Kinds {
		doc, err := g.Render(ctx, tr, Layouts[i%len(Layouts)], kind)
		require.NoError(t, err, kind)
		assert.Equal(t, kind, doc.Kind)
		switch kind {
		case KindTextPDF:
			assert.Equal(t, "application/pdf", doc.MediaType)
			assert.Contains(t, noSpace(pdfText(t, doc.Bytes)), noSpace(tr.TotalText))
		case KindScannedPDF:
			assert.Equal(t, "application/pdf", doc.MediaType)
			assert.Empty(t, strings.TrimSpace(pdfText(t, doc.Bytes)), "a scan has no text layer")
			page, err := Rasterize(ctx, doc.Bytes, 50)
			require.NoError(t, err, "the scan's PDF renders")
			assert.InDelta(t, 414, page.Bounds().Dx(), 2)
		default:
			w := want[kind]
			assert.Equal(t, w[0], doc.MediaType, kind)
			img, format, err := image.Decode(bytes.NewReader(doc.Bytes))
			require.NoError(t, err, kind)
			assert.Equal(t, strings.TrimPrefix(w[0].(string), "image/"), format)
			assert.Equal(t, w[1], img.Bounds().Dx(), kind)
			assert.Equal(t, w[2], img.Bounds().Dy(), kind)
			assert.Equal(t, doc.Width, img.Bounds().Dx())
			assert.Equal(t, doc.Height, img.Bounds().Dy())
		}
	}
}

// The degradations follow from the seed too, so a bad read can be made again.
func TestSameSeedGivesSamePhoto(t *testing.T) {
	requireTool(t, "pdftoppm")
	ctx := context.Background()
	render := func() []byte {
		g := New(9)
		doc, err := g.Render(ctx, g.Invoice(), LayoutModern, KindPhoto)
		require.NoError(t, err)
		return doc.Bytes
	}
	assert.True(t, bytes.Equal(render(), render()))
}

func mustDate(t *testing.T, s string) time.Time {
	t.Helper()
	d, err := time.Parse(time.DateOnly, s)
	require.NoError(t, err)
	return d
}
