package pay

import "strconv"

// AccountInput is a supplier's bank account as a person enters it: the bank step of the
// add-supplier wizard, the account pages and POST/PUT /api/v1/suppliers/{id}/accounts.
type AccountInput struct {
	BankCode      string      `json:"bank_code"`
	BranchCode    string      `json:"branch_code"`
	AccountType   AccountType `json:"account_type"`
	AccountNumber string      `json:"account_number"`
	HolderName    string      `json:"holder_name"`
}

// BankDirectory answers the names of zengin bank and branch codes (package banks).
type BankDirectory interface {
	BankName(code string) (string, bool)
	BranchName(bankCode, branchCode string) (string, bool)
}

// CheckedAccount is an AccountInput that passed Validate, with the names the directory
// gave its codes, ready to store.
type CheckedAccount struct {
	AccountInput
	BankName   string
	BranchName string
}

// AccountTypeFromForm reads the account type a form or query sent ("2", "1"); anything
// else is AccountDefault, which Validate refuses.
func AccountTypeFromForm(v string) AccountType {
	n, err := strconv.Atoi(v)
	if err != nil || !AccountType(n).Valid() {
		return AccountDefault
	}
	return AccountType(n)
}

// Check normalises in and validates it against dir. The result's values are the
// normalised ones even when there are errors, so a form can show what will be stored
// (the holder name in half-width kana, say); a field that could not be normalised keeps
// what was typed.
func (in AccountInput) Check(dir BankDirectory) (CheckedAccount, FieldErrors) {
	var errs FieldErrors
	out := CheckedAccount{AccountInput: in}
	out.BankCode = NormalizeCode(in.BankCode)
	out.BranchCode = NormalizeCode(in.BranchCode)
	switch {
	case out.BankCode == "":
		errs.Add("bank_code", "金融機関を選択してください")
	case len(out.BankCode) != 4 || !AllDigits(out.BankCode):
		errs.Add("bank_code", "金融機関コードは4桁の数字です。金融機関を選び直してください")
	default:
		name, ok := dir.BankName(out.BankCode)
		if !ok {
			errs.Add("bank_code", "金融機関コード"+out.BankCode+"は見つかりません。金融機関を選び直してください")
		}
		out.BankName = name
	}
	switch {
	case out.BranchCode == "":
		errs.Add("branch_code", "支店を選択してください")
	case len(out.BranchCode) != 3 || !AllDigits(out.BranchCode):
		errs.Add("branch_code", "支店コードは3桁の数字です。支店を選び直してください")
	case errs.For("bank_code") != "":
		errs.Add("branch_code", "金融機関を選んでから支店を選択してください")
	default:
		name, ok := dir.BranchName(out.BankCode, out.BranchCode)
		if !ok {
			errs.Add("branch_code", out.BankName+"に支店コード"+out.BranchCode+"の支店は見つかりません。支店を選び直してください")
		}
		out.BranchName = name
	}
	if !in.AccountType.Valid() {
		errs.Add("account_type", "口座種別（普通・当座）を選択してください")
	}
	if n, err := NormalizeAccountNumber(in.AccountNumber); err != nil {
		errs.Add("account_number", err.Error())
	} else {
		out.AccountNumber = n
	}
	if h, err := NormalizeHolderName(in.HolderName); err != nil {
		errs.Add("holder_name", err.Error())
	} else {
		out.HolderName = h
	}
	return out, errs
}

// Fields lists a checked account for the check-answers page, in form order.
func (a CheckedAccount) Fields() []LabeledValue {
	return []LabeledValue{
		{"bank_code", "金融機関", a.BankName + "（" + a.BankCode + "）"},
		{"branch_code", "支店", a.BranchName + "（" + a.BranchCode + "）"},
		{"account_type", "口座種別", a.AccountType.Label()},
		{"account_number", "口座番号", a.AccountNumber},
		{"holder_name", "口座名義（カナ）", a.HolderName},
	}
}
