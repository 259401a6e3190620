package pay_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"cardpay/pay"
)

func TestBrandFromNumber(t *testing.T) {
	tests := []struct {
		name string
		pan  string
		want pay.CardBrand
	}{
		{"VISA test number", "4111111111111111", pay.BrandVISA},
		{"VISA with spaces", "4242 4242 4242 4242", pay.BrandVISA},
		{"JCB test number", "3530111333300000", pay.BrandJCB},
		{"JCB with hyphens", "3566-0020-2036-0505", pay.BrandJCB},
		{"Mastercard test number", "5555555555554444", pay.BrandMASTER},
		{"AMEX test number", "378282246310005", pay.BrandAMEX},
		{"Diners 36 number", "36227206271667", pay.BrandDINERS},
		{"full-width digits and spaces", "４１１１　１１１１", pay.BrandVISA},
		{"leading digits only, while typing", "35", pay.BrandJCB},
		{"one digit is enough for VISA", "4", pay.BrandVISA},
		{"3 alone is undecided", "3", ""},
		{"34 AMEX is not in the spec's list", "341111111111111", ""},
		{"30 Diners is not in the spec's list", "30569309025904", ""},
		{"Discover", "6011111111111117", ""},
		{"empty", "", ""},
		{"spaces only", "   ", ""},
		{"letters", "4111abcd", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, pay.BrandFromNumber(tt.pan))
		})
	}
}

func TestBrandFromDetectorType(t *testing.T) {
	tests := []struct {
		typ  string
		want pay.CardBrand
	}{
		{"visa", pay.BrandVISA},
		{"mastercard", pay.BrandMASTER},
		{"american-express", pay.BrandAMEX},
		{"diners-club", pay.BrandDINERS},
		{"jcb", pay.BrandJCB},
		{"JCB", pay.BrandJCB},
		{" visa ", pay.BrandVISA},
		{"discover", ""},
		{"unionpay", ""},
		{"maestro", ""},
		{"elo", ""},
		{"mir", ""},
		{"hiper", ""},
		{"hipercard", ""},
		{"verve", ""},
		{"", ""},
		{"amex", ""},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			assert.Equal(t, tt.want, pay.BrandFromDetectorType(tt.typ))
		})
	}
}

func TestCardBrand(t *testing.T) {
	const hint = "JCB、VISA、Mastercard のカードをご利用ください。"
	tests := []struct {
		brand    pay.CardBrand
		code     string
		label    string
		accepted bool
		refusal  string
	}{
		{pay.BrandJCB, "JCB", "JCB", true, ""},
		{pay.BrandVISA, "VISA", "VISA", true, ""},
		{pay.BrandMASTER, "MASTER", "Mastercard", true, ""},
		{pay.BrandAMEX, "AMEX", "American Express", false, "American Express はご利用いただけません。" + hint},
		{pay.BrandDINERS, "DINERS", "Diners Club", false, "Diners Club はご利用いただけません。" + hint},
		{"", "", "不明", false, "このカードはご利用いただけません。" + hint},
		{"DISCOVER", "DISCOVER", "不明", false, "このカードはご利用いただけません。" + hint},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			assert.Equal(t, tt.code, string(tt.brand))
			assert.Equal(t, tt.label, tt.brand.Label())
			assert.Equal(t, tt.accepted, tt.brand.Accepted())
			assert.Equal(t, tt.refusal, tt.brand.RefusalMessage())
		})
	}
}

func TestAcceptedBrands(t *testing.T) {
	assert.Equal(t, []pay.CardBrand{pay.BrandJCB, pay.BrandVISA, pay.BrandMASTER}, pay.AcceptedBrands)
	for _, b := range pay.AcceptedBrands {
		assert.True(t, b.Accepted(), b)
	}
}
