package pay

// CorporateCheckDigit computes the check digit (1–9) of a corporate number
// from its 12-digit base (the 会社法人等番号 for registered companies),
// following 法人番号の指定等に関する省令 第二条: 9 − (Σ Pn×Qn mod 9), where Pn
// is the n-th digit from the right and Qn is 1 for odd n, 2 for even n.
// It answers false unless base is exactly 12 ASCII digits.
func CorporateCheckDigit(base string) (int, bool) {
	if len(base) != 12 || !AllDigits(base) {
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
	if len(s) != 13 || !AllDigits(s) {
		return false
	}
	check, ok := CorporateCheckDigit(s[1:])
	return ok && int(s[0]-'0') == check
}

// ValidRegistrationNumber reports whether s is an invoice registration
// number (適格請求書発行事業者登録番号): "T" and 13 digits passing the same
// check as a corporate number (DESIGN §4). Strict like ValidCorporateNumber:
// NormalizeCode turns "ｔ１２３…" or "T-123…" into the accepted form first.
// CorporateNumberQuery reads a search query (法人名または法人番号) the way people type
// a number: hyphens, spaces and full-width digits allowed. ok is false when q is a name;
// otherwise number is the digits and msg what is wrong with them as a corporate number
// (more than 13 digits, or 13 with a wrong check digit), "" for a number or its start.
func CorporateNumberQuery(q string) (number, msg string, ok bool) {
	number = NormalizeCode(q)
	if number == "" || !AllDigits(number) {
		return "", "", false
	}
	switch {
	case len(number) > 13:
		msg = "法人番号は13桁の数字です。桁数をご確認ください"
	case len(number) == 13 && !ValidCorporateNumber(number):
		msg = "法人番号が正しくありません。13桁の数字をご確認ください"
	}
	return number, msg, true
}

func ValidRegistrationNumber(s string) bool {
	return len(s) == 14 && s[0] == 'T' && ValidCorporateNumber(s[1:])
}
