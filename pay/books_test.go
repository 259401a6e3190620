package pay_test

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding/japanese"

	"cardpay/pay"
)

func TestFeeTax(t *testing.T) {
	for fee, want := range map[int64]int64{0: 0, 1: 0, 11: 1, 3300: 300, 3299: 299, 2640: 240, -5: 0} {
		assert.Equal(t, want, pay.FeeTax(fee), "fee %d", fee)
	}
}

func TestBookAccountsCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   pay.BookAccounts
		errs []string // fields with a problem
	}{
		{"the defaults", pay.DefaultBookAccounts, nil},
		{"trimmed, with a card's sub-account", pay.BookAccounts{Payable: " 買掛金 ", Fee: "支払手数料", Card: "未払金", CardDetail: "法人カード"}, nil},
		{"empty names", pay.BookAccounts{}, []string{"payable", "fee", "card"}},
		{"13 characters", pay.BookAccounts{Payable: "買掛金買掛金買掛金買掛金買", Fee: "支払手数料", Card: "未払金"}, []string{"payable"}},
		{"a comma and a quote", pay.BookAccounts{Payable: "買掛,金", Fee: "支払\"手数料", Card: "未払金"}, []string{"payable", "fee"}},
		{"a control character in the sub-account", pay.BookAccounts{Payable: "買掛金", Fee: "支払手数料", Card: "未払金", CardDetail: "カード\x07"}, []string{"card_detail"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs := tc.in.Check()
			var got []string
			for _, e := range errs {
				got = append(got, e.Field)
			}
			assert.ElementsMatch(t, tc.errs, got)
			if len(tc.errs) == 0 {
				assert.Equal(t, strings.TrimSpace(out.Payable), out.Payable)
			}
		})
	}
}

var day = time.Date(2026, 11, 30, 0, 0, 0, 0, pay.Tokyo())

// A payment is two balanced entries whose credits sum to what the card was charged; the
// fee's tax is the receipt's; a payment without a fee (a promotion) is one entry.
func TestJournalOf(t *testing.T) {
	p := pay.BookPayment{ID: 1234, TransferredOn: day, Supplier: "株式会社青葉産業", InvoiceNumber: "INV-7", Amount: 110000, Fee: 3300}
	es := pay.JournalOf(p, pay.BookAccounts{Payable: "買掛金", Fee: "支払手数料", Card: "未払金", CardDetail: "法人カード"})
	require.Len(t, es, 2)
	var card int64
	for _, e := range es {
		assert.Equal(t, e.Debit.Amount, e.Credit.Amount, "balanced")
		assert.Equal(t, "未払金", e.Credit.Account)
		assert.Equal(t, "法人カード", e.Credit.SubAccount)
		assert.Equal(t, day, e.Date)
		assert.Contains(t, e.Summary, "株式会社青葉産業")
		assert.Contains(t, e.Summary, "請求書番号INV-7")
		card += e.Credit.Amount
	}
	assert.Equal(t, p.Amount+p.Fee, card, "the card's debt is what it was charged")
	assert.Equal(t, pay.JournalLine{Account: "買掛金", Partner: "株式会社青葉産業", Tax: pay.TaxNone, Amount: 110000}, es[0].Debit)
	assert.Equal(t, pay.JournalLine{Account: "支払手数料", Partner: pay.FeePartner, Tax: pay.TaxPurchase10, Amount: 3300, TaxAmount: 300}, es[1].Debit)
	assert.Len(t, pay.JournalOf(pay.BookPayment{ID: 1, TransferredOn: day, Supplier: "x", Amount: 5000}, pay.DefaultBookAccounts), 1)
}

// Each product's file read back by its published layout (the column names and order
// written out here, not taken from the code): the header, the column count, the
// encoding, the date, the accounts, the amounts and the tax names.
func TestBookFormatsReadBack(t *testing.T) {
	p := pay.BookPayment{ID: 77, TransferredOn: day, Supplier: "有限会社\"松風\",商会 𠮷田", Amount: 54321, Fee: 1629}
	entries := pay.JournalOf(p, pay.DefaultBookAccounts)
	read := func(t *testing.T, f pay.BookFormat) [][]string {
		t.Helper()
		b, err := f.Journal(entries)
		require.NoError(t, err)
		require.True(t, bytes.HasSuffix(b, []byte("\r\n")), "CRLF")
		if f.ShiftJIS() {
			b, err = japanese.ShiftJIS.NewDecoder().Bytes(b)
			require.NoError(t, err)
		} else {
			require.True(t, bytes.HasPrefix(b, []byte("\ufeff")), "UTF-8 with a BOM")
			b = bytes.TrimPrefix(b, []byte("\ufeff"))
		}
		rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		require.NoError(t, err)
		return rows
	}
	col := func(header []string, row []string, name string) string {
		for i, h := range header {
			if h == name {
				return row[i]
			}
		}
		t.Fatalf("no column %s", name)
		return ""
	}

	t.Run("freee", func(t *testing.T) {
		rows := read(t, pay.BookFreee)
		h := []string{"日付", "伝票番号", "決算整理仕訳", "借方勘定科目", "借方補助科目", "借方取引先", "借方税区分", "借方金額", "借方税額",
			"貸方勘定科目", "貸方補助科目", "貸方取引先", "貸方税区分", "貸方金額", "貸方税額", "摘要"}
		require.Equal(t, h, rows[0])
		require.Len(t, rows, 3)
		assert.Equal(t, "2026/11/30", col(h, rows[1], "日付"))
		assert.Equal(t, "有限会社\"松風\",商会 𠮷田", col(h, rows[1], "借方取引先"), "UTF-8 keeps every character")
		assert.Equal(t, "買掛金", col(h, rows[1], "借方勘定科目"))
		assert.Equal(t, "対象外", col(h, rows[1], "借方税区分"))
		assert.Equal(t, "54321", col(h, rows[1], "借方金額"))
		assert.Equal(t, "課対仕入10%", col(h, rows[2], "借方税区分"))
		assert.Equal(t, "148", col(h, rows[2], "借方税額"))
		assert.Equal(t, "1629", col(h, rows[2], "貸方金額"))
	})
	t.Run("マネーフォワード", func(t *testing.T) {
		rows := read(t, pay.BookMoneyForward)
		h := []string{"取引No", "取引日", "借方勘定科目", "借方補助科目", "借方部門", "借方取引先", "借方税区分", "借方インボイス",
			"借方金額(円)", "借方税額", "貸方勘定科目", "貸方補助科目", "貸方部門", "貸方取引先", "貸方税区分", "貸方インボイス",
			"貸方金額(円)", "貸方税額", "摘要", "仕訳メモ", "タグ", "MF仕訳タイプ", "決算整理仕訳", "作成日時", "作成者",
			"最終更新日時", "最終更新者"}
		require.Equal(t, h, rows[0])
		require.Len(t, rows, 3)
		for _, r := range rows[1:] {
			require.Len(t, r, len(h))
			assert.Equal(t, pay.InvoiceNumber(77), col(h, r, "取引No"), "the payment's entries share a number")
		}
		assert.Equal(t, "有限会社\"松風\",商会 ?田", col(h, rows[1], "借方取引先"), "Shift_JIS lacks 𠮷: a ? instead of no file")
		assert.Equal(t, "課税仕入 10%", col(h, rows[2], "借方税区分"))
		assert.Equal(t, "適格", col(h, rows[2], "借方インボイス"))
		assert.Equal(t, "148", col(h, rows[2], "借方税額"))
		assert.Equal(t, "未払金", col(h, rows[2], "貸方勘定科目"))
	})
	t.Run("弥生", func(t *testing.T) {
		rows := read(t, pay.BookYayoi)
		require.Len(t, rows, 2, "no header row")
		h := []string{"識別フラグ", "伝票No.", "決算", "取引日付", "借方勘定科目", "借方補助科目", "借方部門", "借方税区分", "借方金額",
			"借方税金額", "貸方勘定科目", "貸方補助科目", "貸方部門", "貸方税区分", "貸方金額", "貸方税金額", "摘要", "番号", "期日",
			"タイプ", "生成元", "仕訳メモ", "付箋1", "付箋2", "調整"}
		for _, r := range rows {
			require.Len(t, r, pay.YayoiColumns)
			assert.Equal(t, "2000", col(h, r, "識別フラグ"), "a one-line journal entry")
			assert.Equal(t, "2026/11/30", col(h, r, "取引日付"))
			assert.Equal(t, "0", col(h, r, "タイプ"))
			assert.Equal(t, "no", col(h, r, "調整"))
			d, _ := strconv.Atoi(col(h, r, "借方金額"))
			c, _ := strconv.Atoi(col(h, r, "貸方金額"))
			assert.Equal(t, d, c, "balanced")
		}
		assert.Equal(t, "課対仕入込10%適格", col(h, rows[1], "借方税区分"))
		assert.Equal(t, "148", col(h, rows[1], "借方税金額"))
		assert.Contains(t, col(h, rows[0], "摘要"), "松風")
	})
}

func TestSpreadsheetCell(t *testing.T) {
	for in, want := range map[string]string{"": "", "株式会社A": "株式会社A", "=HYPERLINK(1)": "'=HYPERLINK(1)", "+81": "'+81",
		"-1": "'-1", "@SUM": "'@SUM", "\tx": "'\tx", "a=b": "a=b"} {
		assert.Equal(t, want, pay.SpreadsheetCell(in), in)
	}
}
