package receipts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
	"cardpay/receipts"
)

func TestTaxOf(t *testing.T) {
	for in, want := range map[int64]int64{0: 0, -5: 0, 1: 0, 110: 10, 3000: 272, 3300: 300, 10999: 999, 2640: 240} {
		assert.Equal(t, want, receipts.TaxOf(in), "tax in ¥%d", in)
	}
}

// text reads a PDF back as poppler's pdftotext does.
func text(t *testing.T, pdf []byte) string {
	t.Helper()
	require.True(t, strings.HasPrefix(string(pdf), "%PDF-"))
	bin, err := exec.LookPath("pdftotext")
	require.NoError(t, err, "pdftotext is missing: run `go tool -modfile=tools/go.mod task ocr-tools`")
	file := filepath.Join(t.TempDir(), "r.pdf")
	require.NoError(t, os.WriteFile(file, pdf, 0o600))
	out, err := exec.Command(bin, "-layout", file, "-").Output()
	require.NoError(t, err)
	return strings.Join(strings.Fields(string(out)), " ")
}

func date(y int, m time.Month, d int) *time.Time {
	t := time.Date(y, m, d, 0, 0, 0, 0, pay.Tokyo())
	return &t
}

func TestStatementReadsBack(t *testing.T) {
	s := receipts.Statement{ServiceName: "請求書カード払い", IssuedAt: *date(2026, 12, 8), Number: "I-00000123",
		BuyerName: "テスト商事株式会社", SupplierName: "株式会社山田商事", InvoiceNumber: "INV-0042",
		InvoiceDate: date(2026, 11, 20), DueDate: date(2026, 12, 25), BankName: "みずほ銀行", BranchName: "東京営業部",
		AccountType: "普通", AccountNumber: "1234567", HolderName: "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ", TransferDate: *date(2026, 12, 8),
		Amount: 100000, Fee: 3000, Total: 103000, CardLabel: "VISA •••• 1111", CapturedAt: date(2026, 12, 1)}
	b, err := s.PDF()
	require.NoError(t, err)
	got := text(t, b)
	for _, want := range []string{"支払明細書", "請求書カード払い", "I-00000123", "テスト商事株式会社 御中", "株式会社山田商事", "INV-0042",
		"2026年11月20日", "2026年12月25日", "みずほ銀行 東京営業部", "普通 1234567", "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ", "振込日 2026年12月8日",
		"¥100,000", "¥3,000", "¥103,000", "VISA", "1111", "2026年12月1日", "発行日 2026年12月8日"} {
		assert.Contains(t, got, want)
	}
}

func TestFeeInvoiceReadsBack(t *testing.T) {
	f := receipts.FeeInvoice{ServiceName: "請求書カード払い", IssuerName: "請求書カード払い運営株式会社",
		RegistrationNumber: "T1180301018771", IssuedAt: *date(2026, 12, 8), Number: "I-00000123",
		BuyerName: "テスト商事株式会社", Description: "請求書カード払い 決済手数料（I-00000123）", Fee: 3000}
	b, err := f.PDF()
	require.NoError(t, err)
	got := text(t, b)
	for _, want := range []string{"適格請求書", "登録番号 T1180301018771", "請求書カード払い運営株式会社", "テスト商事株式会社 御中",
		"取引年月日 2026年12月8日", "決済手数料（I-00000123）", "10%対象（税込） ¥3,000", "税抜金額 ¥2,728",
		"消費税額（10%） ¥272", "合計（税込） ¥3,000"} {
		assert.Contains(t, got, want)
	}
}

func TestEmptyStatementDraws(t *testing.T) {
	_, err := receipts.Statement{}.PDF()
	require.NoError(t, err, "an empty statement still draws (every field shows ―)")
}
