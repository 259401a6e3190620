package pay

import "strings"

// CardBrand is a card brand code as our API and the PSP use it (SPEC §1).
type CardBrand string

const (
	BrandVISA   CardBrand = "VISA"
	BrandJCB    CardBrand = "JCB"
	BrandMASTER CardBrand = "MASTER"
	BrandAMEX   CardBrand = "AMEX"
	BrandDINERS CardBrand = "DINERS"
)

// AcceptedBrands are the brands the service charges, in the order shown to
// buyers. Do not modify.
var AcceptedBrands = []CardBrand{BrandJCB, BrandVISA, BrandMASTER}

var brandLabels = map[CardBrand]string{
	BrandVISA:   "VISA",
	BrandJCB:    "JCB",
	BrandMASTER: "Mastercard",
	BrandAMEX:   "American Express",
	BrandDINERS: "Diners Club",
}

// Label is the brand's name as printed on cards, for people to read.
func (b CardBrand) Label() string { return labelOf(brandLabels, b) }

// Accepted reports whether the service takes cards of brand b.
func (b CardBrand) Accepted() bool {
	return b == BrandJCB || b == BrandVISA || b == BrandMASTER
}

const acceptedBrandsHint = "JCB、VISA、Mastercard のカードをご利用ください。"

// RefusalMessage explains why a card cannot be used, naming the brand when
// we recognise it so the buyer knows it is the brand, not a typo. It is
// empty for an accepted brand.
func (b CardBrand) RefusalMessage() string {
	switch {
	case b.Accepted():
		return ""
	case b == BrandAMEX || b == BrandDINERS:
		return b.Label() + " はご利用いただけません。" + acceptedBrandsHint
	}
	return "このカードはご利用いただけません。" + acceptedBrandsHint
}

// BrandFromNumber guesses the brand from a card number's leading digits
// exactly as SPEC §5 lists them. Spaces and hyphens (half- or full-width)
// and full-width digits are tolerated because people paste numbers that
// way; anything else yields "". It is a hint for the form only: the PSP
// decides the real brand.
func BrandFromNumber(pan string) CardBrand {
	digits := NormalizeCode(pan)
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return ""
	}
	// Two-digit prefixes first: 35, 36 and 37 would otherwise never match.
	switch {
	case strings.HasPrefix(digits, "35"):
		return BrandJCB
	case strings.HasPrefix(digits, "36"):
		return BrandDINERS
	case strings.HasPrefix(digits, "37"):
		return BrandAMEX
	case strings.HasPrefix(digits, "4"):
		return BrandVISA
	case strings.HasPrefix(digits, "5"):
		return BrandMASTER
	}
	return ""
}

// detectorBrands maps the card-type names of the islands' brand detector
// (the npm credit-card-type names) to our codes. Types it recognises but we
// have no code for (discover, unionpay, maestro, elo, mir, hiper, hipercard,
// verve) map to "".
var detectorBrands = map[string]CardBrand{
	"visa":             BrandVISA,
	"mastercard":       BrandMASTER,
	"american-express": BrandAMEX,
	"diners-club":      BrandDINERS,
	"jcb":              BrandJCB,
}

// BrandFromDetectorType converts a detector type name to our brand code,
// "" when there is none.
func BrandFromDetectorType(t string) CardBrand {
	return detectorBrands[strings.ToLower(strings.TrimSpace(t))]
}
