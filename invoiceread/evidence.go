package invoiceread

import (
	"fmt"
	"strings"

	"cardpay/banks"
	"cardpay/pay"
)

// Entered is what the buyer entered for a payment, compared with the invoice before it
// is submitted. Empty fields are not compared.
type Entered struct {
	Amount        int64
	PayeeName     string
	BankCode      string
	BankName      string
	BranchCode    string
	BranchName    string
	AccountType   pay.AccountType
	AccountNumber string
	AccountHolder string
}

// Warning is one difference between what was entered and what the invoice says, for the
// buyer to acknowledge. Field names the form field it concerns.
type Warning struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Evidence compares the entered payment with the invoice as read, and the invoice's
// addressee with the buyer's own names: the differences for which screening sends
// payments back (another amount, another payee, another account, an invoice addressed to
// someone else). Only values read with confidence ≥ 0.6 are compared; an unsure reading
// warns of nothing rather than of something wrong.
func Evidence(entered Entered, read Fields, buyerNames []string) []Warning {
	var ws []Warning
	add := func(field, format string, args ...any) {
		ws = append(ws, Warning{field, fmt.Sprintf(format, args...)})
	}
	if sure(read.Total) && entered.Amount != 0 && entered.Amount != read.Total.Value {
		add("amount", "入力した金額（%s）が請求書の金額（%s）と一致しません。", pay.Yen(entered.Amount), pay.Yen(read.Total.Value))
	}
	if sure(read.IssuerName) && entered.PayeeName != "" && nameKey(entered.PayeeName) != nameKey(read.IssuerName.Value) {
		add("payee", "入力した支払先（%s）が請求書の発行者（%s）と一致しません。", entered.PayeeName, read.IssuerName.Value)
	}
	m := Match(read, Candidates{})
	if sure(read.BankName) && (entered.BankCode != "" || entered.BankName != "") {
		same := bankKey(entered.BankName) == bankKey(read.BankName.Value)
		if m.BankCode != "" && entered.BankCode != "" {
			same = m.BankCode == entered.BankCode
		}
		if !same {
			add("bank", "入力した銀行（%s）が請求書の振込先の銀行（%s）と一致しません。", orCode(entered.BankName, entered.BankCode, bankName), read.BankName.Value)
		}
	}
	readBranch := sure(read.BranchName) || sure(read.BranchCode)
	if readBranch && (entered.BranchCode != "" || entered.BranchName != "") {
		same := branchKey(entered.BranchName) == branchKey(read.BranchName.Value)
		if m.BranchCode != "" && entered.BranchCode != "" {
			same = m.BranchCode == entered.BranchCode
		} else if sure(read.BranchCode) && entered.BranchCode != "" {
			same = read.BranchCode.Value == entered.BranchCode
		}
		if !same {
			shown := read.BranchName.Value
			if shown == "" {
				shown = read.BranchCode.Value
			}
			add("branch", "入力した支店（%s）が請求書の振込先の支店（%s）と一致しません。", orCode(entered.BranchName, entered.BranchCode, nil), shown)
		}
	}
	if sure(read.AccountType) && entered.AccountType.Valid() && entered.AccountType != read.AccountType.Value {
		add("account_type", "入力した預金種目（%s）が請求書の預金種目（%s）と一致しません。", entered.AccountType.Label(), read.AccountType.Value.Label())
	}
	if sure(read.AccountNumber) && entered.AccountNumber != "" && pay.NormalizeCode(entered.AccountNumber) != read.AccountNumber.Value {
		add("account_number", "入力した口座番号（%s）が請求書の口座番号（%s）と一致しません。", entered.AccountNumber, read.AccountNumber.Value)
	}
	// A holder read without a voiced mark OCR dropped (ｷﾞ is two glyphs) is the one typed
	// with it, as Match takes it.
	if sure(read.AccountHolder) && entered.AccountHolder != "" &&
		unvoiced(holderKey(entered.AccountHolder)) != unvoiced(holderKey(read.AccountHolder.Value)) {
		add("account_holder", "入力した口座名義（%s）が請求書の口座名義（%s）と一致しません。", entered.AccountHolder, read.AccountHolder.Value)
	}
	if sure(read.Addressee) && len(buyerNames) > 0 {
		key := nameKey(read.Addressee.Value)
		ok := false
		for _, n := range buyerNames {
			// The addressee often adds a department (株式会社山田商店 経理部 御中).
			if k := nameKey(n); k != "" && (k == key || strings.HasPrefix(key, k)) {
				ok = true
				break
			}
		}
		if !ok {
			add("addressee", "請求書の宛名（%s %s）がお客様の会社名（%s）と一致しません。自社宛ての請求書かご確認ください。",
				read.Addressee.Value, read.AddresseeHonorific, buyerNames[0])
		}
	}
	return ws
}

func bankName(code string) string {
	if b, ok := banks.ByCode(code); ok {
		return b.Name
	}
	return ""
}

// orCode shows the entered name, or the code (with the name looked up) when only the
// code was entered.
func orCode(name, code string, lookup func(string) string) string {
	if name != "" {
		return name
	}
	if lookup != nil {
		if n := lookup(code); n != "" {
			return n
		}
	}
	return code
}
