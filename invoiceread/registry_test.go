package invoiceread_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"cardpay/invoiceread"
)

// A corporation's registration number names it: the registry's name stands over a name
// the fax mangled, and says where it came from; a registration number not read gives no
// corporate number to ask about.
func TestRegisteredIssuer(t *testing.T) {
	f := invoiceread.Extract("木朱式会社ヒ力リ食ロロ\n登録番号 "+validT+"\n名義  ) ヒカリシヨクヒン", nil)
	n, ok := f.CorporateNumber()
	assert.True(t, ok)
	assert.Equal(t, validT[1:], n)
	assert.Equal(t, ")ﾋｶﾘｼﾖｸﾋﾝ", f.AccountHolder.Value, "the legal form is lost from the mangled name too")

	f.UseRegisteredIssuer("株式会社 ヒカリ食品")
	assert.Equal(t, "株式会社ヒカリ食品", f.IssuerName.Value)
	assert.True(t, f.IssuerFromRegistry)
	assert.GreaterOrEqual(t, f.IssuerName.Confidence, 0.95)
	assert.Equal(t, "ｶ)ﾋｶﾘｼﾖｸﾋﾝ", f.AccountHolder.Value, "the registered 株式会社 puts the holder's カ) back")

	none := invoiceread.Extract("株式会社ヒカリ食品\n振込先 みずほ銀行", nil)
	_, ok = none.CorporateNumber()
	assert.False(t, ok, "no registration number read")
	none.UseRegisteredIssuer("")
	assert.False(t, none.IssuerFromRegistry, "an empty name changes nothing")
}
