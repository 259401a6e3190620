package pay

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/japanese"
)

// BookFormat is an accounting product's journal import format (issue 30).
type BookFormat string

const (
	// BookFreee is freee会計's generic journal import (仕訳の汎用形式): one row per entry,
	// a header row of freee's own column names (so its import maps them), UTF-8 with a BOM.
	BookFreee BookFormat = "freee"
	// BookMoneyForward is マネーフォワード クラウド会計's 仕訳帳 import: its header row,
	// entries sharing 取引No, Shift_JIS.
	BookMoneyForward BookFormat = "moneyforward"
	// BookYayoi is 弥生会計's import format (弥生インポート形式, 25 columns from 識別フラグ to
	// 調整, no header row), each entry a one-line journal (識別フラグ 2000), Shift_JIS.
	BookYayoi BookFormat = "yayoi"
)

// BookFormats are the choices in the order the export form lists them.
var BookFormats = []BookFormat{BookFreee, BookMoneyForward, BookYayoi}

var bookFormatLabels = map[BookFormat]string{
	BookFreee:        "freee会計（仕訳インポート）",
	BookMoneyForward: "マネーフォワード クラウド会計（仕訳帳インポート）",
	BookYayoi:        "弥生会計（弥生インポート形式）",
}

// Label names the format on the export form.
func (f BookFormat) Label() string { return labelOf(bookFormatLabels, f) }

// Valid reports whether f is one of BookFormats.
func (f BookFormat) Valid() bool { _, ok := bookFormatLabels[f]; return ok }

// Header is the format's header row (nil for 弥生, whose import takes none).
func (f BookFormat) Header() []string {
	switch f {
	case BookFreee:
		return freeeHeader
	case BookMoneyForward:
		return moneyForwardHeader
	}
	return nil
}

var freeeHeader = []string{"日付", "伝票番号", "決算整理仕訳", "借方勘定科目", "借方補助科目", "借方取引先", "借方税区分",
	"借方金額", "借方税額", "貸方勘定科目", "貸方補助科目", "貸方取引先", "貸方税区分", "貸方金額", "貸方税額", "摘要"}

var moneyForwardHeader = []string{"取引No", "取引日", "借方勘定科目", "借方補助科目", "借方部門", "借方取引先", "借方税区分",
	"借方インボイス", "借方金額(円)", "借方税額", "貸方勘定科目", "貸方補助科目", "貸方部門", "貸方取引先", "貸方税区分",
	"貸方インボイス", "貸方金額(円)", "貸方税額", "摘要", "仕訳メモ", "タグ", "MF仕訳タイプ", "決算整理仕訳", "作成日時",
	"作成者", "最終更新日時", "最終更新者"}

// YayoiColumns is how many columns a 弥生 import row has.
const YayoiColumns = 25

// taxName is the product's name of a tax kind (and, for マネーフォワード, its インボイス
// column: 適格 for a qualified invoice).
func (f BookFormat) taxName(k TaxKind) (name, invoice string) {
	if k == TaxNone {
		return "対象外", ""
	}
	switch f {
	case BookFreee:
		return "課対仕入10%", ""
	case BookMoneyForward:
		return "課税仕入 10%", "適格"
	}
	return "課対仕入込10%適格", ""
}

// Row is one entry as the format's CSV row.
func (f BookFormat) Row(e JournalEntry) []string {
	date := e.Date.Format("2006/01/02")
	amt := func(n int64) string { return strconv.FormatInt(n, 10) }
	dt, di := f.taxName(e.Debit.Tax)
	ct, ci := f.taxName(e.Credit.Tax)
	switch f {
	case BookFreee:
		return []string{date, e.Number, "", e.Debit.Account, e.Debit.SubAccount, e.Debit.Partner, dt, amt(e.Debit.Amount),
			amt(e.Debit.TaxAmount), e.Credit.Account, e.Credit.SubAccount, e.Credit.Partner, ct, amt(e.Credit.Amount),
			amt(e.Credit.TaxAmount), e.Summary}
	case BookMoneyForward:
		return []string{e.Number, date, e.Debit.Account, e.Debit.SubAccount, "", e.Debit.Partner, dt, di, amt(e.Debit.Amount),
			amt(e.Debit.TaxAmount), e.Credit.Account, e.Credit.SubAccount, "", e.Credit.Partner, ct, ci, amt(e.Credit.Amount),
			amt(e.Credit.TaxAmount), e.Summary, "", "", "", "", "", "", "", ""}
	}
	// 弥生: 識別フラグ, 伝票No., 決算, 取引日付, 借方勘定科目, 借方補助科目, 借方部門,
	// 借方税区分, 借方金額, 借方税金額, 貸方勘定科目, 貸方補助科目, 貸方部門, 貸方税区分,
	// 貸方金額, 貸方税金額, 摘要, 番号, 期日, タイプ, 生成元, 仕訳メモ, 付箋1, 付箋2, 調整.
	// 弥生 has no partner column in this layout: the supplier is in the summary.
	return []string{"2000", "", "", date, e.Debit.Account, e.Debit.SubAccount, "", dt, amt(e.Debit.Amount),
		amt(e.Debit.TaxAmount), e.Credit.Account, e.Credit.SubAccount, "", ct, amt(e.Credit.Amount), amt(e.Credit.TaxAmount),
		e.Summary, "", "", "0", "", "", "0", "0", "no"}
}

// ShiftJIS says whether the product reads Shift_JIS (弥生, マネーフォワード) rather than
// UTF-8 (freee, with a BOM so that its import and spreadsheets know).
func (f BookFormat) ShiftJIS() bool { return f != BookFreee }

// Journal writes the entries as the format's file: its header row, one row per entry,
// CRLF line ends, and its encoding. A character Shift_JIS lacks (a rare kanji in a name)
// becomes "?" rather than failing the whole file.
func (f BookFormat) Journal(entries []JournalEntry) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	if h := f.Header(); h != nil {
		if err := w.Write(h); err != nil {
			return nil, err
		}
	}
	for _, e := range entries {
		if err := w.Write(f.Row(e)); err != nil {
			return nil, err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, err
	}
	if !f.ShiftJIS() {
		return append([]byte("\ufeff"), buf.Bytes()...), nil
	}
	return japanese.ShiftJIS.NewEncoder().Bytes(shiftJISSafe(buf.Bytes()))
}

// shiftJISSafe puts "?" for each character Shift_JIS (Windows-31J) cannot encode.
func shiftJISSafe(b []byte) []byte {
	enc := japanese.ShiftJIS.NewEncoder()
	return []byte(strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf {
			return r
		}
		if _, err := enc.String(string(r)); err != nil {
			return '?'
		}
		return r
	}, string(b)))
}
