package payments

import (
	"context"
	"strings"

	"cardpay/invoicefiles"
	"cardpay/pay"
	pages "cardpay/views/payments"
)

// Where each pre-filled value of the journey came from (issue 28): the steps that show a
// value pre-filled from an uploaded invoice say beside it, as text, whether it was read
// from the invoice, is the supplier's history (what the buyer paid with last time), or
// both agreeing, and how sure it is (invoicefiles.Provenance.Badge). It is worked out
// again from the file when a step is shown (invoicefiles.Service.FileMatch), and shown
// only while the value is still the one offered: a value the buyer changed is theirs.

// fileOffer is the match of the journey's file; false when the journey did not start
// from a file, or the file's reading has nothing to offer.
func (h *Handler) fileOffer(ctx context.Context, buyerID int64, j journey) (invoicefiles.Match, bool, error) {
	if j.FileID == 0 {
		return invoicefiles.Match{}, false, nil
	}
	f, err := h.Store.InvoiceFile(ctx, buyerID, j.FileID)
	if err != nil {
		return invoicefiles.Match{}, false, err
	}
	return h.InvoiceFiles.FileMatch(ctx, buyerID, f)
}

// invoiceFieldKeys are the invoice step's fields by the reading's keys.
var invoiceFieldKeys = map[string]string{
	"amount": "total", "invoice_date": "invoice_date", "due_date": "due_date", "registration_number": "registration_number",
}

// invoiceBadges are the badges of the invoice step's pre-filled fields (j.Prefilled keeps
// those the buyer has not changed).
func invoiceBadges(m invoicefiles.Match, prefilled []string) map[string]string {
	out := map[string]string{}
	for _, field := range prefilled {
		if p, ok := m.Provenance(invoiceFieldKeys[field]); ok {
			out[field] = p.Badge()
		}
	}
	return out
}

// accountProvenance lists the account's fields as the file offered them, with where each
// came from, when in is still that account (the values the buyer left as offered).
func accountProvenance(m invoicefiles.Match, in pay.AccountInput) []pages.ProvenanceRow {
	o := m.Offered.Fields
	holder := func(s string) string {
		if h, err := pay.NormalizeHolderName(s); err == nil {
			return strings.ReplaceAll(h, " ", "")
		}
		return s
	}
	rows := []struct {
		key, label string
		same       bool
	}{
		{"bank_name", "金融機関", m.BankCode != "" && in.BankCode == m.BankCode},
		{"branch_name", "支店", m.BranchCode != "" && in.BranchCode == m.BranchCode},
		{"account_type", "口座種別", o.AccountType.Found && in.AccountType == o.AccountType.Value},
		{"account_number", "口座番号", o.AccountNumber.Found && in.AccountNumber == o.AccountNumber.Value},
		{"account_holder", "口座名義", o.AccountHolder.Found && in.HolderName != "" && holder(in.HolderName) == holder(o.AccountHolder.Value)},
	}
	var out []pages.ProvenanceRow
	for _, r := range rows {
		if !r.same {
			continue
		}
		if p, ok := m.Provenance(r.key); ok {
			out = append(out, pages.ProvenanceRow{Label: r.label, Badge: p.Badge(), FromHistory: p.FromHistory()})
		}
	}
	return out
}

// accountOf is a registered account as the account form's answers.
func accountOf(m invoicefiles.Match) pay.AccountInput {
	a := m.Account
	return pay.AccountInput{BankCode: a.BankCode, BranchCode: a.BranchCode, AccountType: a.AccountType,
		AccountNumber: a.AccountNumber, HolderName: a.HolderName}
}

// provenanceLead is the rows as one sentence, for the shared bank-account form whose lead
// is text: 入力欄にあらかじめ入れた内容：金融機関（請求書から読み取り（確度 高））、…
func provenanceLead(rows []pages.ProvenanceRow) string {
	if len(rows) == 0 {
		return ""
	}
	parts := make([]string, len(rows))
	for i, r := range rows {
		parts[i] = r.Label + "：" + r.Badge
	}
	return "入力欄にあらかじめ入れた内容と、その出どころ（" + strings.Join(parts, "、") + "）。"
}
