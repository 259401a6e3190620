package invoiceread

import (
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
	if d := editDistance(got, want); d > 0 && d <= max(1, utf8.RuneCountInString(want)/3) {
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
