package invoiceread

import (
	"slices"
	"unicode/utf8"

	"cardpay/pay"
)

// Learning per supplier (issue 28). When a buyer pays an uploaded invoice, what they
// finally used for the fields below is remembered for the supplier, with the fields the
// reading missed or got wrong (Corrections); the next invoice of the same issuer
// (FindHistory) is offered those values first (Offer), and Suggest matches what is then
// offered. A remembered value never hides what the invoice plainly says: it stands in for
// a field the reading missed, or for one it misread last time and now reads only
// slightly otherwise. A new bank account printed on the invoice is offered as read.

// The fields a supplier's history knows, by Fields' JSON keys. Branch stands for the
// branch's name and code together.
const (
	KeyIssuerName         = "issuer_name"
	KeyRegistrationNumber = "registration_number"
	KeyBankName           = "bank_name"
	KeyBranchName         = "branch_name"
	KeyAccountType        = "account_type"
	KeyAccountNumber      = "account_number"
	KeyAccountHolder      = "account_holder"
)

// HistoryKeys are the fields a supplier's history knows, in the order invoices print them.
var HistoryKeys = []string{KeyIssuerName, KeyRegistrationNumber, KeyBankName, KeyBranchName,
	KeyAccountType, KeyAccountNumber, KeyAccountHolder}

// Remembered are the values a buyer used for one supplier's invoice: the supplier's name,
// the registration number entered, the account paid into (zengin codes and names, pay's
// type, seven digits, the holder in zengin form). Empty means not used.
type Remembered struct {
	IssuerName         string
	RegistrationNumber string
	BankCode           string
	BankName           string
	BranchCode         string
	BranchName         string
	AccountType        pay.AccountType
	AccountNumber      string
	AccountHolder      string
}

// History is what one of the buyer's suppliers taught: the values last used and the
// fields the reading had missed or got wrong then (Corrected, by key).
type History struct {
	SupplierID      int64
	CorporateNumber string // the supplier's, 13 digits, or ""
	Remembered
	Corrected []string
}

// Corrections are the fields of used (the values a payment was submitted with) that the
// reading did not give: missed, or read as another value. otherNames are names the
// supplier also goes by (屋号, kana): a reading of any of them is no correction. A field
// left empty in used is neither remembered nor corrected.
func Corrections(read Fields, used Remembered, otherNames ...string) []string {
	var out []string
	for _, key := range HistoryKeys {
		if _, ok := rememberedValue(used, key); !ok {
			continue
		}
		agrees := agrees(read, used, key)
		if key == KeyIssuerName && !agrees && read.IssuerName.Found {
			for _, n := range otherNames {
				if n != "" && nameKey(n) == nameKey(read.IssuerName.Value) {
					agrees = true
				}
			}
		}
		if !agrees {
			out = append(out, key)
		}
	}
	return out
}

// rememberedValue is the value of key in r as text, and whether there is one.
func rememberedValue(r Remembered, key string) (string, bool) {
	var v string
	switch key {
	case KeyIssuerName:
		v = r.IssuerName
	case KeyRegistrationNumber:
		v = r.RegistrationNumber
	case KeyBankName:
		v = r.BankCode
	case KeyBranchName:
		if r.BankCode != "" {
			v = r.BranchCode
		}
	case KeyAccountType:
		if r.AccountType.Valid() {
			v = r.AccountType.Label()
		}
	case KeyAccountNumber:
		v = r.AccountNumber
	case KeyAccountHolder:
		v = r.AccountHolder
	}
	return v, v != ""
}

// agrees says whether the reading found key with the remembered value (as the buyer would
// enter it: a bank by its code, a holder in zengin form, a name without its legal form's
// spelling).
func agrees(read Fields, r Remembered, key string) bool {
	switch key {
	case KeyIssuerName:
		return read.IssuerName.Found && nameKey(read.IssuerName.Value) == nameKey(r.IssuerName)
	case KeyRegistrationNumber:
		return read.RegistrationNumber.Found && pay.NormalizeCode(read.RegistrationNumber.Value) == pay.NormalizeCode(r.RegistrationNumber)
	case KeyBankName:
		if !read.BankName.Found {
			return false
		}
		if code, _ := matchBank(asSure(read)); code != "" {
			return code == r.BankCode
		}
		return bankKey(read.BankName.Value) == bankKey(r.BankName)
	case KeyBranchName:
		if read.BranchCode.Found && read.BranchCode.Value == r.BranchCode {
			return true
		}
		if !read.BranchName.Found {
			return false
		}
		if code, _ := matchBranch(asSure(read), r.BankCode); code != "" {
			return code == r.BranchCode
		}
		return branchKey(read.BranchName.Value) == branchKey(r.BranchName)
	case KeyAccountType:
		return read.AccountType.Found && read.AccountType.Value == r.AccountType
	case KeyAccountNumber:
		return read.AccountNumber.Found && read.AccountNumber.Value == r.AccountNumber
	case KeyAccountHolder:
		return read.AccountHolder.Found && holderKey(read.AccountHolder.Value) == holderKey(r.AccountHolder)
	}
	return false
}

// asSure lets matchBank and matchBranch look at a bank and branch read with any
// confidence: comparing with a remembered value is not choosing one.
func asSure(f Fields) Fields {
	for _, p := range []*Field[string]{&f.BankName, &f.BranchName, &f.BranchCode} {
		if p.Found {
			p.Confidence = 1
		}
	}
	return f
}

// slightly says whether the reading of key differs from the remembered value by little
// enough to be a misreading of it: one digit of an account or registration number, a
// fifth of the characters of a name or holder (at least one), a bank's or branch's name
// off by one or two. An account type read otherwise counts as slight: it is one of two.
func slightly(read Fields, r Remembered, key string) bool {
	near := func(a, b string) bool {
		n := max(utf8.RuneCountInString(b)/5, 1)
		return editDistance(a, b) <= n
	}
	switch key {
	case KeyIssuerName:
		return near(nameKey(read.IssuerName.Value), nameKey(r.IssuerName))
	case KeyRegistrationNumber:
		return editDistance(pay.NormalizeCode(read.RegistrationNumber.Value), pay.NormalizeCode(r.RegistrationNumber)) <= 1
	case KeyBankName:
		return near(bankKey(read.BankName.Value), bankKey(r.BankName))
	case KeyBranchName:
		if read.BranchName.Found {
			return near(branchKey(read.BranchName.Value), branchKey(r.BranchName))
		}
		return editDistance(read.BranchCode.Value, r.BranchCode) <= 1
	case KeyAccountType:
		return true
	case KeyAccountNumber:
		return editDistance(read.AccountNumber.Value, r.AccountNumber) <= 1
	case KeyAccountHolder:
		return near(holderKey(read.AccountHolder.Value), holderKey(r.AccountHolder))
	}
	return false
}

// readingOf says whether the reading found key, and whether surely (minConfidence).
func readingOf(read Fields, key string) (found, isSure bool) {
	switch key {
	case KeyIssuerName:
		return read.IssuerName.Found, sure(read.IssuerName)
	case KeyRegistrationNumber:
		return read.RegistrationNumber.Found, sure(read.RegistrationNumber)
	case KeyBankName:
		return read.BankName.Found, sure(read.BankName)
	case KeyBranchName:
		return read.BranchName.Found || read.BranchCode.Found, sure(read.BranchName) || sure(read.BranchCode)
	case KeyAccountType:
		return read.AccountType.Found, sure(read.AccountType)
	case KeyAccountNumber:
		return read.AccountNumber.Found, sure(read.AccountNumber)
	case KeyAccountHolder:
		return read.AccountHolder.Found, sure(read.AccountHolder)
	}
	return false, false
}

// Source says where an offered value came from.
type Source string

const (
	// FromReading: read from the invoice (読み取り).
	FromReading Source = "reading"
	// FromHistory: the supplier's history, the value the buyer used last time.
	FromHistory Source = "history"
	// FromBoth: read from the invoice, and the same as last time.
	FromBoth Source = "both"
)

// Label is the source for people.
func (s Source) Label() string {
	switch s {
	case FromReading:
		return "読み取り"
	case FromHistory:
		return "取引先の履歴"
	case FromBoth:
		return "読み取りと取引先の履歴が一致"
	}
	return ""
}

// How sure an offered value is when the history gave it: a value the buyer paid with
// last time, but not read on this invoice (高 on the pages, below a reading that agrees).
const (
	historyConfidence = 0.9
	bothConfidence    = 0.98
)

// Offered are the fields offered to pre-fill a payment: the reading, with the supplier's
// history merged in. Sources names the source of every found field, by key (Fields'
// JSON keys; branch_code follows branch_name); SupplierID is the supplier whose history
// was used (0: none).
type Offered struct {
	Fields     Fields
	Sources    map[string]Source
	SupplierID int64
}

// Source is where the offered value of key came from ("" when nothing was offered).
func (o Offered) Source(key string) Source { return o.Sources[key] }

// Offer merges the reading with a supplier's history (nil: none), field by field, for the
// fields the history knows:
//   - the reading agrees with the remembered value: the reading, from both, surer;
//   - the reading missed it: the remembered value, from the history;
//   - the buyer corrected it last time and the reading is unsure or differs only slightly
//     (slightly): the remembered value, from the history;
//   - otherwise the reading, as read: an invoice that names another account is offered
//     as it says, never hidden behind the last one.
//
// Every other found field is from the reading.
func Offer(read Fields, h *History) Offered {
	o := Offered{Fields: read, Sources: map[string]Source{}}
	for key, found := range foundFields(read) {
		if found {
			o.Sources[key] = FromReading
		}
	}
	if h == nil {
		return o
	}
	o.SupplierID = h.SupplierID
	for _, key := range HistoryKeys {
		if _, ok := rememberedValue(h.Remembered, key); !ok {
			continue
		}
		found, isSure := readingOf(read, key)
		switch {
		case found && agrees(read, h.Remembered, key):
			o.both(key)
		case !found,
			slices.Contains(h.Corrected, key) && (!isSure || slightly(read, h.Remembered, key)):
			o.remembered(key, h.Remembered)
		}
	}
	return o
}

func (o *Offered) both(key string) {
	o.Sources[key] = FromBoth
	raise := func(c *float64) { *c = max(*c, bothConfidence) }
	f := &o.Fields
	switch key {
	case KeyIssuerName:
		raise(&f.IssuerName.Confidence)
	case KeyRegistrationNumber:
		raise(&f.RegistrationNumber.Confidence)
	case KeyBankName:
		raise(&f.BankName.Confidence)
	case KeyBranchName:
		if f.BranchName.Found {
			raise(&f.BranchName.Confidence)
		}
		if f.BranchCode.Found {
			raise(&f.BranchCode.Confidence)
			o.Sources["branch_code"] = FromBoth
		}
	case KeyAccountType:
		raise(&f.AccountType.Confidence)
	case KeyAccountNumber:
		raise(&f.AccountNumber.Confidence)
	case KeyAccountHolder:
		raise(&f.AccountHolder.Confidence)
	}
}

func (o *Offered) remembered(key string, r Remembered) {
	o.Sources[key] = FromHistory
	s := func(v string) Field[string] {
		return Field[string]{Value: v, Confidence: historyConfidence, Found: true}
	}
	f := &o.Fields
	switch key {
	case KeyIssuerName:
		f.IssuerName = s(r.IssuerName)
	case KeyRegistrationNumber:
		f.RegistrationNumber = s(r.RegistrationNumber)
	case KeyBankName:
		f.BankName = s(r.BankName)
	case KeyBranchName:
		f.BranchName, f.BranchCode = s(r.BranchName), s(r.BranchCode)
		o.Sources["branch_code"] = FromHistory
	case KeyAccountType:
		f.AccountType = Field[pay.AccountType]{Value: r.AccountType, Confidence: historyConfidence, Found: true}
	case KeyAccountNumber:
		f.AccountNumber = s(r.AccountNumber)
	case KeyAccountHolder:
		f.AccountHolder = s(r.AccountHolder)
	}
}

// foundFields says, by key, which fields the reading found.
func foundFields(f Fields) map[string]bool {
	return map[string]bool{
		"issuer_name": f.IssuerName.Found, "registration_number": f.RegistrationNumber.Found,
		"invoice_date": f.InvoiceDate.Found, "due_date": f.DueDate.Found, "total": f.Total.Found,
		"tax": f.Tax.Found, "addressee": f.Addressee.Found, "bank_name": f.BankName.Found,
		"branch_name": f.BranchName.Found, "branch_code": f.BranchCode.Found,
		"account_type": f.AccountType.Found, "account_number": f.AccountNumber.Found,
		"account_holder": f.AccountHolder.Found,
	}
}

// FindHistory is the history of the invoice's issuer among the buyer's: the one whose
// registration number, or corporate number, is the one read (read surely); else the one
// of supplierID, the supplier the reading matched otherwise (by name or account; 0: none).
func FindHistory(read Fields, hs []History, supplierID int64) (History, bool) {
	if sure(read.RegistrationNumber) {
		t := pay.NormalizeCode(read.RegistrationNumber.Value)
		for _, h := range hs {
			if (h.RegistrationNumber != "" && pay.NormalizeCode(h.RegistrationNumber) == t) ||
				(h.CorporateNumber != "" && "T"+pay.NormalizeCode(h.CorporateNumber) == t) {
				return h, true
			}
		}
	}
	if supplierID != 0 {
		for _, h := range hs {
			if h.SupplierID == supplierID {
				return h, true
			}
		}
	}
	return History{}, false
}

// Suggest is what an invoice's reading offers the buyer, and what that matches among the
// buyer's suppliers: the reading is matched first to find the issuer's history
// (FindHistory), the history merged in (Offer), and the result matched again, so that a
// remembered account and holder find the registered account. A supplier whose history
// holds a registration number is matched by it too (the suppliers table keeps none).
func Suggest(read Fields, c Candidates, hs []History) (Offered, MatchResult) {
	withNumbers := numbered(c, hs)
	first := Match(read, withNumbers)
	h, ok := FindHistory(read, hs, first.SupplierID)
	if !ok {
		return Offer(read, nil), first
	}
	o := Offer(read, &h)
	return o, Match(o.Fields, withNumbers)
}

// IssuerHistory is the history of the invoice's issuer, found as Suggest finds it: by the
// number read, else by the supplier the reading matches.
func IssuerHistory(read Fields, c Candidates, hs []History) (History, bool) {
	return FindHistory(read, hs, Match(read, numbered(c, hs)).SupplierID)
}

// numbered are the candidates with the registration numbers their histories hold (the
// suppliers table keeps none).
func numbered(c Candidates, hs []History) Candidates {
	byID := map[int64]History{}
	for _, h := range hs {
		byID[h.SupplierID] = h
	}
	out := Candidates{Suppliers: make([]Supplier, len(c.Suppliers))}
	for i, s := range c.Suppliers {
		if h, ok := byID[s.ID]; ok && s.RegistrationNumber == "" {
			s.RegistrationNumber = h.RegistrationNumber
		}
		out.Suppliers[i] = s
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, by character.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Confidence is how sure the offered value of key is (0 when none was offered).
func (o Offered) Confidence(key string) float64 {
	f := o.Fields
	switch key {
	case "issuer_name":
		return f.IssuerName.Confidence
	case "registration_number":
		return f.RegistrationNumber.Confidence
	case "invoice_date":
		return f.InvoiceDate.Confidence
	case "due_date":
		return f.DueDate.Confidence
	case "total":
		return f.Total.Confidence
	case "tax":
		return f.Tax.Confidence
	case "addressee":
		return f.Addressee.Confidence
	case "bank_name":
		return f.BankName.Confidence
	case "branch_name":
		return f.BranchName.Confidence
	case "branch_code":
		return f.BranchCode.Confidence
	case "account_type":
		return f.AccountType.Confidence
	case "account_number":
		return f.AccountNumber.Confidence
	case "account_holder":
		return f.AccountHolder.Confidence
	}
	return 0
}
