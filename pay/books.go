package pay

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// FeeTaxRate is the consumption tax on the service fee, in percent.
const FeeTaxRate = 10

// FeeTax is the consumption tax contained in a tax-included fee at 10 %, rounded down,
// as the fee's qualified invoice (receipts) states it and the books' entries book it.
func FeeTax(taxIncluded int64) int64 {
	if taxIncluded <= 0 {
		return 0
	}
	return taxIncluded * FeeTaxRate / (100 + FeeTaxRate)
}

// BookAccounts are the accounts a buyer's journal entries use (issue 30): the supplier
// paid off (買掛金), the service fee (支払手数料) and the card's debt that pays both
// (未払金), with an optional sub-account for the card (補助科目, e.g. the card's name).
type BookAccounts struct {
	Payable    string `db:"payable"`
	Fee        string `db:"fee"`
	Card       string `db:"card"`
	CardDetail string `db:"card_detail"`
}

// DefaultBookAccounts are the usual names in every product's default chart of accounts.
var DefaultBookAccounts = BookAccounts{Payable: "買掛金", Fee: "支払手数料", Card: "未払金"}

// maxAccountRunes: 弥生会計 takes 24 half-width places for an account name (12 Japanese
// characters), the shortest of the three products.
const maxAccountRunes = 12

// Check trims the names and says what is wrong with each (the field names are the
// settings form's): a name is required but the card's sub-account, at most 12
// characters, and without a comma, quote or control character, which no product's
// import takes in a name.
func (a BookAccounts) Check() (BookAccounts, FieldErrors) {
	var errs FieldErrors
	for _, f := range []struct {
		name     string
		v        *string
		required bool
	}{{"payable", &a.Payable, true}, {"fee", &a.Fee, true}, {"card", &a.Card, true}, {"card_detail", &a.CardDetail, false}} {
		*f.v = strings.TrimSpace(*f.v)
		switch {
		case *f.v == "" && f.required:
			errs.Add(f.name, "勘定科目名を入力してください")
		case utf8.RuneCountInString(*f.v) > maxAccountRunes:
			errs.Add(f.name, "12文字以内で入力してください（会計ソフトの勘定科目名と同じにしてください）")
		case strings.ContainsAny(*f.v, ",\"'") || strings.IndexFunc(*f.v, IsForbiddenRune) >= 0:
			errs.Add(f.name, "カンマ、引用符、制御文字は使えません")
		}
	}
	return a, errs
}

// BookPayment is a transferred payment as the books see it: the day the supplier was
// paid (in Japan), to whom, the invoice it paid and what the card was charged.
type BookPayment struct {
	ID                 int64
	TransferredOn      time.Time
	Supplier           string
	RegistrationNumber string
	InvoiceNumber      string
	Amount, Fee        int64
}

// TaxKind is how a line's consumption tax is booked; each product names it its own way.
type TaxKind int

const (
	// TaxNone: outside consumption tax (対象外): paying off a payable.
	TaxNone TaxKind = iota
	// TaxPurchase10: a taxable purchase at 10 %, tax included, from a qualified invoice
	// issuer (the service's fee, on its 適格請求書).
	TaxPurchase10
)

// JournalLine is one side of a journal entry.
type JournalLine struct {
	Account, SubAccount, Partner string
	Tax                          TaxKind
	Amount, TaxAmount            int64
}

// JournalEntry is one balanced entry: a debit and a credit of the same amount.
type JournalEntry struct {
	Number        string // the payment's number, shared by its entries
	Date          time.Time
	Debit, Credit JournalLine
	Summary       string
}

// FeePartner names the service's operator as the fee's partner in the books.
const FeePartner = "請求書カード払い"

// JournalOf books one transferred payment as two entries on the day the supplier was
// paid: the supplier's payable paid off by the card (買掛金 / 未払金, outside tax), and
// the service fee charged to the card (支払手数料 / 未払金, 10 % included, its tax as the
// receipt states it). Together the card's debt is what the card was charged.
func JournalOf(p BookPayment, a BookAccounts) []JournalEntry {
	no := InvoiceNumber(p.ID)
	summary := "請求書カード払い " + no + " " + p.Supplier
	if p.InvoiceNumber != "" {
		summary += " 請求書番号" + p.InvoiceNumber
	}
	card := JournalLine{Account: a.Card, SubAccount: a.CardDetail}
	payable := card
	payable.Amount = p.Amount
	out := []JournalEntry{{Number: no, Date: p.TransferredOn, Summary: summary,
		Debit:  JournalLine{Account: a.Payable, Partner: p.Supplier, Tax: TaxNone, Amount: p.Amount},
		Credit: payable}}
	if p.Fee > 0 {
		fee := card
		fee.Amount = p.Fee
		out = append(out, JournalEntry{Number: no, Date: p.TransferredOn, Summary: summary + " 手数料",
			Debit:  JournalLine{Account: a.Fee, Partner: FeePartner, Tax: TaxPurchase10, Amount: p.Fee, TaxAmount: FeeTax(p.Fee)},
			Credit: fee})
	}
	return out
}

// MaxBooksDays bounds one export's period: a fiscal year and a little.
const MaxBooksDays = 400

// CheckBooksPeriod reads an export's period (the days the suppliers were paid, both
// included) and says what is wrong with it, at the fields from and to.
func CheckBooksPeriod(from, to string) (start, end time.Time, errs FieldErrors) {
	start, okFrom := ParseDate(from)
	end, okTo := ParseDate(to)
	switch {
	case !okFrom:
		errs.Add("from", "日付を正しく入力してください（例：2026-11-01）")
	case !okTo:
		errs.Add("to", "日付を正しく入力してください（例：2026-11-30）")
	case end.Before(start):
		errs.Add("to", "終了日は開始日以降の日付を入力してください")
	case end.Sub(start) > MaxBooksDays*24*time.Hour:
		errs.Add("to", "期間は"+strconv.Itoa(MaxBooksDays)+"日以内にしてください")
	}
	return start, end, errs
}
