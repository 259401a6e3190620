package invoiceread

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
// the name read, and says so (IssuerFromRegistry).
func (f *Fields) UseRegisteredIssuer(name string) {
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
}
