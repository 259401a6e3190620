package main

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"cardpay/invoicefiles"
	"cardpay/invoiceread"
	"cardpay/ocr"
	"cardpay/ocr/invoicegen"
	"cardpay/pay"
)

// extract runs the extraction the OCR job runs on the reading (invoicefiles.ReadFields);
// without crops, the page's reading alone, to measure what the crops add. places are
// where the supplier's last invoice printed its amount and dates (nil: no history);
// base is what was read before they were used.
func extract(ctx context.Context, rd *ocr.Reading, crops bool, places []invoiceread.Place) (f, base invoiceread.Fields) {
	if crops {
		asked := false
		f, _ = invoicefiles.ReadFields(ctx, rd, func(read invoiceread.Fields) []invoiceread.Place {
			base, asked = read, true
			return places
		})
		if !asked {
			base = f
		}
		return f, base
	}
	lines := make([]invoiceread.Line, len(rd.Lines))
	for i, l := range rd.Lines {
		lines[i] = invoiceread.Line{Text: l.Text, Confidence: l.Confidence}
	}
	f = invoiceread.Extract(rd.Text, lines)
	return f, f
}

// check is one field of the table. "Exact" is after the normalisation a person would
// not call a difference: spaces, (株)/㈱ for 株式会社, 御中/様 on the addressee, 支店/店
// on the branch (or its code), and the holder in the zengin form.
type check struct {
	name  string
	want  func(invoicegen.Truth) string
	check func(fields any, t invoicegen.Truth) (got string, ok bool)
}

func fieldsOf(a any) *invoiceread.Fields { return a.(*invoiceread.Fields) }

func str(f invoiceread.Field[string]) string {
	if !f.Found {
		return "（なし）"
	}
	return f.Value
}

var checks = []check{
	{"発行者名", func(t invoicegen.Truth) string { return t.IssuerName }, func(a any, t invoicegen.Truth) (string, bool) {
		f := fieldsOf(a).IssuerName
		return str(f), f.Found && companyName(f.Value) == companyName(t.IssuerName)
	}},
	{"登録番号", func(t invoicegen.Truth) string { return t.RegistrationNumber }, func(a any, t invoicegen.Truth) (string, bool) {
		f := fieldsOf(a).RegistrationNumber
		return str(f), f.Found && f.Value == t.RegistrationNumber
	}},
	{"請求日", func(t invoicegen.Truth) string { return t.InvoiceDate }, func(a any, t invoicegen.Truth) (string, bool) {
		f := fieldsOf(a).InvoiceDate
		return str(f), f.Found && f.Value == t.InvoiceDate
	}},
	{"支払期日", func(t invoicegen.Truth) string { return t.DueDate }, func(a any, t invoicegen.Truth) (string, bool) {
		f := fieldsOf(a).DueDate
		return str(f), f.Found && f.Value == t.DueDate
	}},
	{"合計金額", func(t invoicegen.Truth) string { return fmt.Sprint(t.Total) }, func(a any, t invoicegen.Truth) (string, bool) {
		f := fieldsOf(a).Total
		return fmt.Sprint(f.Value), f.Found && f.Value == t.Total
	}},
	{"消費税額", func(t invoicegen.Truth) string { return fmt.Sprint(t.Tax) }, func(a any, t invoicegen.Truth) (string, bool) {
		f := fieldsOf(a).Tax
		return fmt.Sprint(f.Value), f.Found && f.Value == t.Tax
	}},
	{"宛名", func(t invoicegen.Truth) string { return t.Addressee }, func(a any, t invoicegen.Truth) (string, bool) {
		f := fieldsOf(a).Addressee
		return str(f), f.Found && addressee(f.Value) == companyName(t.Addressee)
	}},
	{"銀行", func(t invoicegen.Truth) string { return t.BankName }, func(a any, t invoicegen.Truth) (string, bool) {
		f := fieldsOf(a).BankName
		return str(f), f.Found && noSpace(f.Value) == t.BankName
	}},
	{"支店", func(t invoicegen.Truth) string { return t.BranchName }, func(a any, t invoicegen.Truth) (string, bool) {
		fs := fieldsOf(a)
		f, v := fs.BranchName, branch(fs.BranchName.Value)
		byCode := fs.BranchCode.Found && fs.BranchCode.Value == t.BranchCode && t.BankName == "ゆうちょ銀行"
		return str(f), (f.Found && (v == t.BranchName || v == t.BranchCode)) || byCode
	}},
	{"預金種目", func(t invoicegen.Truth) string { return t.AccountType.Label() }, func(a any, t invoicegen.Truth) (string, bool) {
		f := fieldsOf(a).AccountType
		return fmt.Sprint(f.Value), f.Found && pay.AccountType(f.Value) == t.AccountType
	}},
	{"口座番号", func(t invoicegen.Truth) string { return t.AccountNumber }, func(a any, t invoicegen.Truth) (string, bool) {
		f := fieldsOf(a).AccountNumber
		return str(f), f.Found && f.Value == t.AccountNumber
	}},
	// The holder's kana, in the zengin form: the field a buyer most needs read (aim 85 %).
	{"口座名義（カナ）", func(t invoicegen.Truth) string { return t.AccountHolder }, func(a any, t invoicegen.Truth) (string, bool) {
		f := fieldsOf(a).AccountHolder
		h, err := pay.NormalizeHolderName(f.Value)
		return str(f), f.Found && err == nil && h == t.AccountHolder
	}},
}

// checkNamed is the table's check of that name.
func checkNamed(name string) check {
	for _, c := range checks {
		if c.name == name {
			return c
		}
	}
	panic("ocraccuracy: no check " + name)
}

func noSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

var abbreviations = strings.NewReplacer("(株)", "株式会社", "（株）", "株式会社", "㈱", "株式会社",
	"(有)", "有限会社", "（有）", "有限会社", "㈲", "有限会社")

func companyName(s string) string { return abbreviations.Replace(noSpace(s)) }

func addressee(s string) string {
	s = companyName(s)
	for _, suf := range []string{"御中", "様", "殿"} {
		s = strings.TrimSuffix(s, suf)
	}
	return s
}

func branch(s string) string {
	s = noSpace(s)
	s = strings.TrimSuffix(s, "支店")
	if strings.HasSuffix(s, "店") && !strings.HasSuffix(s, "本店") {
		s = strings.TrimSuffix(s, "店")
	}
	return s
}
