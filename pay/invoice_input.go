package pay

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"cardpay/calendar"
)

// InvoiceInput is the invoice part of a payment as the buyer typed it (the journey's
// invoice step, a draft, the API). Dates are "2006-01-02" strings so that a draft keeps
// what was typed, even when it is not a date yet.
type InvoiceInput struct {
	Amount             string `json:"amount"`
	InvoiceNumber      string `json:"invoice_number"`
	InvoiceDate        string `json:"invoice_date"`
	DueDate            string `json:"due_date"`
	RegistrationNumber string `json:"registration_number"`
	Memo               string `json:"memo"`
	TransferDate       string `json:"transfer_date"`
}

// CheckedInvoice is an InvoiceInput that validated.
type CheckedInvoice struct {
	Amount             int64
	InvoiceNumber      string
	InvoiceDate        *time.Time
	DueDate            time.Time
	RegistrationNumber string
	Memo               string
	TransferDate       time.Time
	// Warnings do not stop the payment: a registration number whose check digit does
	// not verify (the buyer may have the invoice right and we the rule wrong, so screening
	// decides).
	Warnings FieldErrors
}

// Field limits of the invoice form.
const (
	MaxInvoiceNumberLen = 50
	MaxMemoLen          = 200
)

// ParseYen reads an amount as people type it: "1,234,567", "¥1,234,567", "１２３４円",
// "1234". ok is false for anything else (decimals, signs, letters, an empty string).
func ParseYen(s string) (int64, bool) {
	if strings.ContainsFunc(s, isHyphenLike) {
		return 0, false // NormalizeCode would drop a minus sign
	}
	s = NormalizeCode(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "¥"), "￥")
	s = strings.TrimSuffix(s, "円")
	s = strings.ReplaceAll(strings.ReplaceAll(s, ",", ""), "，", "")
	if s == "" || len(s) > 15 || !AllDigits(s) {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// ParseDate reads a date typed or sent as "2026-12-25", "2026/12/25" or
// "2026年12月25日" (full-width digits too), as midnight in Japan time.
func ParseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '０' && r <= '９':
			b.WriteRune(r - '０' + '0')
		case r == '/' || r == '年' || r == '月' || r == '／' || r == '－' || r == '.':
			b.WriteByte('-')
		case r == '日':
		default:
			b.WriteRune(r)
		}
	}
	parts := strings.Split(b.String(), "-")
	if len(parts) != 3 || len(parts[0]) != 4 || len(parts[1]) == 0 || len(parts[1]) > 2 || len(parts[2]) == 0 || len(parts[2]) > 2 {
		return time.Time{}, false
	}
	y, e1 := strconv.Atoi(parts[0])
	m, e2 := strconv.Atoi(parts[1])
	d, e3 := strconv.Atoi(parts[2])
	if e1 != nil || e2 != nil || e3 != nil || m < 1 || m > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, tokyo)
	if t.Day() != d {
		return time.Time{}, false // 2月30日
	}
	return t, true
}

// ISODate is t's date in Japan time as "2006-01-02", the value of a date input.
func ISODate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.In(tokyo).Format("2006-01-02")
}

// Normalise tidies what was typed without changing its meaning.
func (in *InvoiceInput) Normalise() {
	in.Amount = strings.TrimSpace(in.Amount)
	if n, ok := ParseYen(in.Amount); ok {
		in.Amount = strconv.FormatInt(n, 10)
	}
	in.InvoiceNumber = NormalizeSpaces(in.InvoiceNumber)
	in.RegistrationNumber = NormalizeCode(in.RegistrationNumber)
	if in.RegistrationNumber != "" && AllDigits(in.RegistrationNumber) {
		in.RegistrationNumber = "T" + in.RegistrationNumber
	}
	in.Memo = strings.TrimSpace(in.Memo)
	for _, d := range []*string{&in.InvoiceDate, &in.DueDate, &in.TransferDate} {
		if t, ok := ParseDate(*d); ok {
			*d = ISODate(t)
		} else {
			*d = strings.TrimSpace(*d)
		}
	}
}

// Check validates the invoice of a payment submitted at now, within limits. The messages
// are in the order of the form's fields.
func (in InvoiceInput) Check(l Limits, now time.Time) (CheckedInvoice, FieldErrors) {
	in.Normalise()
	var out CheckedInvoice
	var errs FieldErrors
	today := calendar.DateOf(now).Midnight()
	out.Amount, out.InvoiceNumber, out.InvoiceDate = checkInvoiceHead(in.Amount, in.InvoiceNumber, in.InvoiceDate, l, today, &errs)
	switch t, ok := ParseDate(in.DueDate); {
	case in.DueDate == "":
		errs.Add("due_date", "支払期日を入力してください")
	case !ok:
		errs.Add("due_date", "支払期日を正しい日付で入力してください（例：2026-12-25）")
	case out.InvoiceDate != nil && t.Before(*out.InvoiceDate):
		errs.Add("due_date", "支払期日は請求日以降の日付を入力してください")
	case DueDateUnmet(t, now):
		errs.Add("due_date", DueDateUnmetMessage(t, now))
	default:
		out.DueDate = t
	}
	out.RegistrationNumber = in.RegistrationNumber
	if r := in.RegistrationNumber; r != "" {
		switch {
		case len(r) != 14 || r[0] != 'T' || !AllDigits(r[1:]):
			errs.Add("registration_number", "登録番号は「T」に続く13桁の数字で入力してください（例：T1234567890123）")
		case !ValidRegistrationNumber(r):
			out.Warnings.Add("registration_number", "登録番号"+r+"のチェックディジットが一致しません。請求書の記載をご確認ください（このまま申請することもできます）")
		}
	}
	out.Memo = in.Memo
	if utf8.RuneCountInString(in.Memo) > MaxMemoLen {
		errs.Add("memo", "メモは"+strconv.Itoa(MaxMemoLen)+"文字以内で入力してください")
	}
	switch t, ok := ParseDate(in.TransferDate); {
	case in.TransferDate == "":
		errs.Add("transfer_date", "振込日を選んでください")
	case !ok:
		errs.Add("transfer_date", "振込日を正しい日付で入力してください（例：2026-12-25）")
	case errs.For("due_date") == "":
		var due *time.Time
		if !out.DueDate.IsZero() {
			due = &out.DueDate
		}
		errs.Add("transfer_date", TransferDateMessage(t, now, due))
		out.TransferDate = t
	default:
		out.TransferDate = t
	}
	return out, errs
}

// checkInvoiceHead checks what a payment's and a card-payment request's invoice share: the
// amount within the limits, the invoice number and the invoice date (not in the future).
func checkInvoiceHead(amount, number, date string, l Limits, today time.Time, errs *FieldErrors) (int64, string, *time.Time) {
	var n int64
	switch v, ok := ParseYen(amount); {
	case amount == "":
		errs.Add("amount", "請求金額を入力してください")
	case !ok:
		errs.Add("amount", "請求金額は半角数字で、円単位で入力してください（例：123456）")
	default:
		n = v
		errs.Add("amount", l.AmountMessage(v))
	}
	if utf8.RuneCountInString(number) > MaxInvoiceNumberLen {
		errs.Add("invoice_number", "請求書番号は"+strconv.Itoa(MaxInvoiceNumberLen)+"文字以内で入力してください")
	}
	var invoiceDate *time.Time
	if date != "" {
		switch t, ok := ParseDate(date); {
		case !ok:
			errs.Add("invoice_date", "請求日を正しい日付で入力してください（例：2026-12-25）")
		case t.After(today):
			errs.Add("invoice_date", "請求日に未来の日付は入力できません")
		default:
			invoiceDate = &t
		}
	}
	return n, number, invoiceDate
}

// Fields are the checked invoice's rows for a check-answers page.
func (c CheckedInvoice) Fields() []LabeledValue {
	orNone := func(s string) string {
		if s == "" {
			return NotEntered
		}
		return s
	}
	invoiceDate := NotEntered
	if c.InvoiceDate != nil {
		invoiceDate = JapaneseDate(*c.InvoiceDate)
	}
	return []LabeledValue{
		{"amount", "請求金額", Yen(c.Amount)},
		{"invoice_number", "請求書番号", orNone(c.InvoiceNumber)},
		{"invoice_date", "請求日", invoiceDate},
		{"due_date", "支払期日", JapaneseDate(c.DueDate)},
		{"registration_number", "登録番号", orNone(c.RegistrationNumber)},
		{"memo", "メモ", orNone(c.Memo)},
		{"transfer_date", "振込日", JapaneseDate(c.TransferDate)},
	}
}
