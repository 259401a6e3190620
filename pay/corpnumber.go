package pay

// CorporateCheckDigit computes the check digit (1–9) of a corporate number
// from its 12-digit base (the 会社法人等番号 for registered companies),
// following 法人番号の指定等に関する省令 第二条: 9 − (Σ Pn×Qn mod 9), where Pn
// is the n-th digit from the right and Qn is 1 for odd n, 2 for even n.
// It answers false unless base is exactly 12 ASCII digits.
func CorporateCheckDigit(base string) (int, bool) {
	if len(base) != 12 || !allASCIIDigits(base) {
		return 0, false
	}
	sum := 0
	for n := 1; n <= 12; n++ {
		p := int(base[12-n] - '0')
		q := 1
		if n%2 == 0 {
			q = 2
		}
		sum += p * q
	}
	return 9 - sum%9, true
}

// ValidCorporateNumber reports whether s is a 13-digit corporate number
// (法人番号) whose leading check digit matches the other twelve. It is
// strict: exactly 13 ASCII digits, no spaces, hyphens or full-width digits;
// pass user input through NormalizeCode first. A match only catches typos
// (and not 0↔9 swaps); it does not prove the number was ever issued.
func ValidCorporateNumber(s string) bool {
	if len(s) != 13 || !allASCIIDigits(s) {
		return false
	}
	check, ok := CorporateCheckDigit(s[1:])
	return ok && int(s[0]-'0') == check
}

// ValidRegistrationNumber reports whether s is an invoice registration
// number (適格請求書発行事業者登録番号): "T" and 13 digits passing the same
// check as a corporate number (DESIGN §4). Strict like ValidCorporateNumber:
// NormalizeCode turns "ｔ１２３…" or "T-123…" into the accepted form first.
func ValidRegistrationNumber(s string) bool {
	return len(s) == 14 && s[0] == 'T' && ValidCorporateNumber(s[1:])
}
