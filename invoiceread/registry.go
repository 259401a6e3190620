package invoiceread

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"cardpay/pay"
)

// A corporation's registration number is "T" and its 13-digit corporate number, which the
// National Tax Agency's 法人番号 registry names: the issuer's name as registered is known
// from the number alone, whatever the print, the fax or the photo did to the name on the
// invoice. (A sole proprietor's registration number is not a corporate number; the
// registry does not know it, and the name read stands.)

// CorporateNumber is the issuer's corporate number when the registration number was
// read: its 13 digits.
func (f Fields) CorporateNumber() (string, bool) {
	v := f.RegistrationNumber.Value
	if !f.RegistrationNumber.Found || len(v) != 14 || v[0] != 'T' {
		return "", false
	}
	return v[1:], true
}

// sureRegistry is the certainty of a name the registry gave for the number read: as sure
// as the number, which has passed its check digit, and never less than this.
const sureRegistry = 0.95

// UseRegisteredIssuer takes the registry's name for the issuer's corporate number over
// the name read, and says so (IssuerFromRegistry). kana is the name's furigana as the
// registry has it ("" when it has none): the holder read close to it is spelt by it
// (holderByRegistry).
func (f *Fields) UseRegisteredIssuer(name, kana string) {
	name = cleanName(name)
	if name == "" {
		return
	}
	f.IssuerName = found(name, max(f.RegistrationNumber.Confidence, sureRegistry))
	f.IssuerFromRegistry = true
	// The registered name may say a legal form the name read had lost, and spell the
	// kana of the holder's name.
	restoreHolderMark(f)
	holderByIssuer(f)
	holderByRegistry(f, kana)
}

// holderByRegistry spells the holder read as the registry's kana when it is that name
// misread in a few places: a corporation's account is held in its name, which zengin
// writes as the furigana with its form's mark (株式会社中央技研, チュウオウギケン: ｶ)ﾁﾕｳｵｳｷﾞｹﾝ).
// A faxed holder reads a kana wrong or one too many (ｶ)ｶﾁﾕｳｵｳｷﾞｹﾝ, ﾎｸｼﾂ for ﾎｸｼﾝ) where the
// page has no other spelling of it. A holder further from the name than a third of its
// length is another's account (a factor's, a person's) and stays as read; a holder not
// read is not made up.
func holderByRegistry(f *Fields, kana string) {
	if !f.AccountHolder.Found || kana == "" {
		return
	}
	want, ok := registeredHolder(f.IssuerName.Value, kana)
	if !ok {
		return
	}
	got := f.AccountHolder.Value
	if n, err := pay.NormalizeHolderName(got); err == nil {
		got = n
	}
	// Spelt by it, or read as it: as sure as the registry either way.
	if d := editDistance(got, want); d <= max(1, utf8.RuneCountInString(want)/3) {
		f.AccountHolder = found(want, max(f.AccountHolder.Confidence, sureRegistry))
	}
}

// registeredHolder is the zengin holder of a corporation registered as name with
// furigana kana: its form's mark before the kana when the form comes first (ｶ)ﾁﾕｳｵｳｷﾞｹﾝ),
// after when last (ﾔﾏﾄｾｲｺｳ(ｶ); ok is false for a name without one of those forms.
func registeredHolder(name, kana string) (string, bool) {
	name = removeSpaces(name)
	for _, form := range holderForms {
		var h string
		switch {
		case strings.HasPrefix(name, form.name):
			h = form.kana + ")" + kana
		case strings.HasSuffix(name, form.name):
			h = kana + "(" + form.kana
		default:
			continue
		}
		z, err := pay.NormalizeHolderName(h)
		return z, err == nil
	}
	return "", false
}

// A T-number read one digit wrong fails its check digit, and the check digit alone
// cannot say which digit (each place has a digit that would pass). The registry can: of
// the readings that pass, the one whose registered name is the issuer's name read on the
// page is the number printed. RegistrationCandidates are those readings, ChooseRegistration
// asks the registry about them.

// maxCandidates bounds the registry's lookups for one invoice (each may be a call to the
// NTA): a number with more passing readings than this is too garbled to choose from.
const maxCandidates = 8

// confusedDigits are the digits OCR reads for each digit (a fax's 3 read as 9, 6 as 8,
// 1 as 7), the likeliest first.
var confusedDigits = [10]string{
	'0' - '0': "869", '1' - '0': "74", '2' - '0': "73", '3' - '0': "8952", '4' - '0': "19",
	'5' - '0': "638", '6' - '0': "850", '7' - '0': "12", '8' - '0': "36905", '9' - '0': "8340",
}

// tCandidateRe is a T or the registration label and the thirteen to fifteen characters
// after it that OCR may have made of a T-number: digits and the letters read for them.
var tCandidateRe = regexp.MustCompile(`(?:(?:^|[^A-Za-z])T|登録[^\s\d]?号\s*[:：]?\s*T?)\s*[:-]?\s*([0-9OolI|ASsBZzGbgqDQ]{13,15})(?:$|[^0-9A-Za-z])`)

// registrationCandidates are the corporate numbers a T-number read wrong may be: for a
// run of thirteen digits (after mapping letters to their likeliest digit) whose check
// digit fails, each reading with one digit changed to one OCR confuses it with that
// passes; a run of fourteen is read without its first character (a stray mark between
// the T and the number: TO6137858424941), without its last, and with a digit read twice
// read once (T22914688604927: doubledOnce).
func registrationCandidates(ls []line) []string {
	var out []string
	seen := map[string]bool{}
	add := func(d string) {
		if !seen[d] && len(out) < maxCandidates {
			seen[d] = true
			out = append(out, d)
		}
	}
	for _, ln := range ls {
		for _, m := range tCandidateRe.FindAllStringSubmatch(ln.text, -1) {
			d := likeliestDigits(m[1])
			var runs []string
			switch len(d) {
			case 13:
				runs = []string{d}
			case 14:
				runs = []string{d[1:], d[:13]}
				// A digit read twice: only readings whose check digit holds (one
				// misreading at a time, or the candidates are too many to ask).
				for _, r := range doubledOnce(d) {
					if pay.ValidRegistrationNumber("T" + r) {
						add(r)
					}
				}
			default:
				continue
			}
			for _, r := range runs {
				if pay.ValidRegistrationNumber("T" + r) {
					add(r)
					continue
				}
				for i := range len(r) {
					for _, c := range []byte(confusedDigits[r[i]-'0']) {
						if c2 := r[:i] + string(c) + r[i+1:]; pay.ValidRegistrationNumber("T" + c2) {
							add(c2)
						}
					}
				}
			}
		}
	}
	if len(out) >= maxCandidates {
		return nil // too many readings pass: the number is too garbled to choose from
	}
	return out
}

// likeliestDigits reads each letter of s as the digit it most often stands for.
func likeliestDigits(s string) string {
	b := []byte(ocrDigitMap.Replace(s))
	for i, c := range b {
		if c < '0' || c > '9' {
			d := letterDigits[c]
			if d == "" {
				return ""
			}
			b[i] = d[0]
		}
	}
	return string(b)
}

// sureCandidate is the certainty of a registration number the registry chose among the
// readings of one read wrong: less than one read whole.
const sureCandidate = 0.8

// ChooseRegistration fills a registration number the page's reading had wrong from its
// candidates (RegistrationCandidates): registered(number) answers the registry's name
// and furigana for a corporate number (ok false when it has none). The one candidate
// whose registered name is the issuer's name read (a few characters apart at most: a
// fax's 身樺 for 白樺) is taken, with that name (UseRegisteredIssuer); none, or two, and
// nothing changes. It answers whether one was taken.
func (f *Fields) ChooseRegistration(registered func(number string) (name, kana string, ok bool)) bool {
	if f.RegistrationNumber.Found || !f.IssuerName.Found || len(f.RegistrationCandidates) == 0 {
		return false
	}
	var number, name, kana string
	for _, c := range f.RegistrationCandidates {
		n, k, ok := registered(c)
		if !ok || !nameReadAs(n, f.IssuerName.Value) {
			continue
		}
		if number != "" {
			return false // two corporations so named: the registry cannot tell
		}
		number, name, kana = c, n, k
	}
	if number == "" {
		return false
	}
	f.RegistrationNumber = found("T"+number, sureCandidate)
	f.UseRegisteredIssuer(name, kana)
	return true
}

// nameReadAs says whether two names are one name read with a few characters wrong: their
// keys (legal form, spaces and marks aside) a third of their length apart at most, and
// no more than two characters.
func nameReadAs(a, b string) bool {
	ka, kb := nameKey(a), nameKey(b)
	if ka == "" || kb == "" {
		return false
	}
	n := max(utf8.RuneCountInString(ka), utf8.RuneCountInString(kb))
	return editDistance(ka, kb) <= min(2, max(1, n/3))
}
