package invoiceread

import (
	"strings"

	"cardpay/banks"
	"cardpay/pay"
)

// Candidates are what the buyer already has, filled in by the caller from its store:
// the buyer's suppliers and their accounts.
type Candidates struct {
	Suppliers []Supplier
}

// Supplier is one of the buyer's suppliers. Names holds every name it goes by (the
// registered name, the business name 屋号, the kana).
type Supplier struct {
	ID                 int64
	Names              []string
	CorporateNumber    string // 13 digits, or ""
	RegistrationNumber string // T + 13 digits, or ""
	Accounts           []Account
}

// Account is one of a supplier's bank accounts, as stored (zengin codes, pay's type,
// seven digits, the holder in zengin form).
type Account struct {
	ID         int64
	BankCode   string
	BranchCode string
	Type       pay.AccountType
	Number     string
	Holder     string
}

// MatchResult is what the invoice was matched to (named apart from the function Match,
// as Go allows one name per package), each with the reason in Japanese (shown next
// to the pre-filled field, so the buyer sees why it was chosen). Zero ids and empty
// codes mean no match.
type MatchResult struct {
	SupplierID     int64  `json:"supplier_id,omitempty"`
	SupplierReason string `json:"supplier_reason,omitempty"`
	AccountID      int64  `json:"account_id,omitempty"`
	AccountReason  string `json:"account_reason,omitempty"`
	BankCode       string `json:"bank_code,omitempty"`
	BankReason     string `json:"bank_reason,omitempty"`
	BranchCode     string `json:"branch_code,omitempty"`
	BranchReason   string `json:"branch_reason,omitempty"`
}

// minConfidence is how sure a read value must be before it is matched or compared: below
// it OCR is as likely wrong as right, and a wrong match is worse than none.
const minConfidence = 0.6

func sure[T any](f Field[T]) bool { return f.Found && f.Confidence >= minConfidence }

// Match finds the invoice's supplier among the buyer's (by registration number, then
// corporate number, then name), the bank and branch in the zengin data, and the account
// among the supplier's accounts. A name shared by two suppliers matches neither.
func Match(f Fields, c Candidates) MatchResult {
	var m MatchResult
	m.BankCode, m.BankReason = matchBank(f)
	m.BranchCode, m.BranchReason = matchBranch(f, m.BankCode)

	if sure(f.RegistrationNumber) {
		for _, s := range c.Suppliers {
			if s.RegistrationNumber != "" && pay.NormalizeCode(s.RegistrationNumber) == f.RegistrationNumber.Value {
				m.SupplierID, m.SupplierReason = s.ID, "登録番号（"+f.RegistrationNumber.Value+"）が一致しました"
				break
			}
		}
		if m.SupplierID == 0 {
			// A company's registration number is T and its corporate number.
			for _, s := range c.Suppliers {
				if s.CorporateNumber != "" && "T"+pay.NormalizeCode(s.CorporateNumber) == f.RegistrationNumber.Value {
					m.SupplierID, m.SupplierReason = s.ID, "登録番号が法人番号（"+s.CorporateNumber+"）と一致しました"
					break
				}
			}
		}
	}
	if m.SupplierID == 0 && sure(f.IssuerName) {
		key := nameKey(f.IssuerName.Value)
		var ids []int64
		for _, s := range c.Suppliers {
			for _, n := range s.Names {
				if key != "" && nameKey(n) == key {
					ids = append(ids, s.ID)
					break
				}
			}
		}
		if len(ids) == 1 {
			m.SupplierID, m.SupplierReason = ids[0], "名称（"+f.IssuerName.Value+"）が一致しました"
		}
	}

	// The account: among the matched supplier's, or among all when no supplier matched
	// (a matching account then names the supplier).
	if !sure(f.AccountNumber) {
		return m
	}
	holder := ""
	if sure(f.AccountHolder) {
		holder = unvoiced(holderKey(f.AccountHolder.Value))
	}
	type hitAccount struct {
		supplier int64
		account  Account
		reason   string
	}
	var hits []hitAccount
	for _, s := range c.Suppliers {
		if m.SupplierID != 0 && s.ID != m.SupplierID {
			continue
		}
		for _, a := range s.Accounts {
			if a.Number != f.AccountNumber.Value {
				continue
			}
			switch {
			case m.BankCode != "" && m.BranchCode != "" && a.BankCode == m.BankCode && a.BranchCode == m.BranchCode:
				hits = append(hits, hitAccount{s.ID, a, "銀行・支店・口座番号が一致しました"})
			case m.BankCode != "" && m.BranchCode == "" && a.BankCode == m.BankCode && holder != "" && unvoiced(holderKey(a.Holder)) == holder:
				hits = append(hits, hitAccount{s.ID, a, "銀行・口座番号・口座名義が一致しました"})
			case m.BankCode == "" && holder != "" && unvoiced(holderKey(a.Holder)) == holder:
				hits = append(hits, hitAccount{s.ID, a, "口座番号・口座名義が一致しました"})
			}
		}
	}
	if len(hits) == 1 {
		h := hits[0]
		m.AccountID, m.AccountReason = h.account.ID, h.reason
		if m.SupplierID == 0 {
			m.SupplierID, m.SupplierReason = h.supplier, "振込先の口座が登録済みの口座と一致しました"
		}
	}
	return m
}

// bankKey is a bank's name reduced for comparing: full-width letters ASCII, 銀行 and
// spaces dropped, the kinds of institution written as zengin abbreviates them.
func bankKey(s string) string {
	s = removeSpaces(norm(s))
	return strings.NewReplacer("銀行", "", "信用金庫", "信金", "信用組合", "信組", "労働金庫", "労金",
		"農業協同組合", "農協").Replace(s)
}

// branchKey drops 支店, which zengin's names leave out.
func branchKey(s string) string {
	return strings.TrimSuffix(removeSpaces(norm(s)), "支店")
}

// unvoiced is a zengin holder without its voiced and semi-voiced marks: OCR drops the
// half-width ﾞ and ﾟ (ｷﾞ is two glyphs, the mark a speck), and with the account's number
// (and bank) agreeing, ｶ)ﾁﾕｳｵｳｷｹﾝ read is the registered ｶ)ﾁﾕｳｵｳｷﾞｹﾝ.
func unvoiced(s string) string { return strings.NewReplacer("ﾞ", "", "ﾟ", "").Replace(s) }

func holderKey(s string) string {
	h, err := pay.NormalizeHolderName(s)
	if err != nil {
		h = s
	}
	return removeSpaces(h)
}

func matchBank(f Fields) (string, string) {
	if !sure(f.BankName) {
		return "", ""
	}
	key := bankKey(f.BankName.Value)
	found := banks.SearchBanks(f.BankName.Value, 10)
	for _, b := range found {
		if bankKey(b.Name) == key {
			return b.Code, "銀行名（" + b.Name + "）が一致しました"
		}
	}
	return "", ""
}

func matchBranch(f Fields, bankCode string) (string, string) {
	if bankCode == "" {
		return "", ""
	}
	if sure(f.BranchCode) {
		if br, ok := banks.BranchByCode(bankCode, f.BranchCode.Value); ok {
			return br.Code, "店番（" + br.Code + " " + br.Name + "）が一致しました"
		}
	}
	if !sure(f.BranchName) {
		return "", ""
	}
	key := branchKey(f.BranchName.Value)
	for _, br := range banks.SearchBranches(bankCode, f.BranchName.Value, 20) {
		if branchKey(br.Name) == key {
			return br.Code, "支店名（" + br.Name + "）が一致しました"
		}
	}
	return "", ""
}
