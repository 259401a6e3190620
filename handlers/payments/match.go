package payments

import (
	"strings"

	"cardpay/invoicefiles"
	"cardpay/pay"
	"cardpay/store"
	pages "cardpay/views/payments"
)

// The file page's 登録済みの情報との照合: what the reading matched among the buyer's own
// suppliers and accounts and the banks (invoicefiles.Service.FileMatch, which the API
// shares), with the reason for each, and plainly what is not registered yet.

const (
	outcomeMatched  = "一致"
	outcomeNew      = "未登録"
	outcomeNotFound = "見つかりません"
)

// matchView is the section for a read file, or nil when the reading found nothing to
// match (no issuer, registration number, bank or account number). It turns a match into the section's rows: the supplier always, the bank, branch
// and account when the invoice named them.
func matchView(m invoicefiles.Match) *pages.InvoiceMatchView {
	r := m.Read
	issuer := issuerOf(r.IssuerName.Found, r.IssuerName.Value, r.RegistrationNumber.Found, r.RegistrationNumber.Value)
	if m.Supplier == nil && issuer == "" && !r.BankName.Found && !r.AccountNumber.Found {
		return nil
	}
	v := &pages.InvoiceMatchView{}
	add := func(label, value, reason, outcome string) {
		v.Rows = append(v.Rows, pages.MatchRow{Label: label, Value: value, Reason: reason, Outcome: outcome, Matched: outcome == outcomeMatched})
	}

	switch {
	case m.Supplier != nil:
		reason := m.SupplierReason
		if m.Supplier.Status == pay.SupplierRejected {
			reason += "。この取引先は審査で「" + pay.SupplierRejected.Label() + "」になっています"
		}
		add("取引先", "「"+m.Supplier.Name+"」", sentence(reason), outcomeMatched)
	case issuer != "":
		add("取引先", "登録されていません",
			"請求書の発行者（"+issuer+"）に一致する取引先は登録されていません。次の画面で新しい取引先として登録できます。", outcomeNew)
	default:
		add("取引先", "特定できません",
			"請求書から発行者を読み取れませんでした。次の画面で取引先を選ぶか、新しく登録できます。", outcomeNotFound)
	}

	switch {
	case m.BankCode != "":
		add("金融機関", m.BankName+"（"+m.BankCode+"）", sentence(m.BankReason), outcomeMatched)
	case r.BankName.Found && r.BankName.Value != "":
		add("金融機関", "「"+r.BankName.Value+"」",
			"金融機関の一覧に見つかりませんでした。次の画面で金融機関を選んでください。", outcomeNotFound)
	}

	readBranch := r.BranchName.Value
	if readBranch == "" {
		readBranch = r.BranchCode.Value
	}
	switch {
	case m.BranchCode != "":
		add("支店", m.BranchName+"（店番 "+m.BranchCode+"）", sentence(m.BranchReason), outcomeMatched)
	case m.BankCode != "" && readBranch != "":
		add("支店", "「"+readBranch+"」",
			"この金融機関の支店の一覧に見つかりませんでした。次の画面で支店を選んでください。", outcomeNotFound)
	}

	switch {
	case m.Account != nil:
		add("口座", accountLabel(*m.Account), sentence(m.AccountReason), outcomeMatched)
	case m.Supplier != nil && r.AccountNumber.Found && r.AccountNumber.Value != "":
		add("口座", "登録されていません",
			"請求書の口座（口座番号 "+r.AccountNumber.Value+"）は、この取引先の登録済みの口座にありません。次の画面で口座を登録できます。", outcomeNew)
	}
	return v
}

// issuerOf names the issuer as the invoice prints it: the name, the registration number,
// or both.
func issuerOf(nameFound bool, name string, numberFound bool, number string) string {
	var parts []string
	if nameFound && name != "" {
		parts = append(parts, "「"+name+"」")
	}
	if numberFound && number != "" {
		parts = append(parts, "登録番号 "+number)
	}
	return strings.Join(parts, "、")
}

// accountLabel is a stored account for people: 三菱ＵＦＪ銀行 渋谷支店 普通 1234567 ｶ)ｻﾝﾌﾟﾙ.
func accountLabel(a store.SupplierAccount) string {
	return strings.Join([]string{a.BankName, a.BranchName, a.AccountType.Label(), a.AccountNumber, a.HolderName}, " ")
}

// sentence ends a reason with 。 (invoiceread's reasons are phrases).
func sentence(s string) string {
	if s == "" || strings.HasSuffix(s, "。") {
		return s
	}
	return s + "。"
}
