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

	f.UseRegisteredIssuer("株式会社 ヒカリ食品", "")
	assert.Equal(t, "株式会社ヒカリ食品", f.IssuerName.Value)
	assert.True(t, f.IssuerFromRegistry)
	assert.GreaterOrEqual(t, f.IssuerName.Confidence, 0.95)
	assert.Equal(t, "ｶ)ﾋｶﾘｼﾖｸﾋﾝ", f.AccountHolder.Value, "the registered 株式会社 puts the holder's カ) back")

	none := invoiceread.Extract("株式会社ヒカリ食品\n振込先 みずほ銀行", nil)
	_, ok = none.CorporateNumber()
	assert.False(t, ok, "no registration number read")
	none.UseRegisteredIssuer("", "")
	assert.False(t, none.IssuerFromRegistry, "an empty name changes nothing")
}

// The registry's furigana spells a holder read a few kana wrong (a fax's ﾝ as ﾂ, a kana
// too many, the mark's bracket as kana); a holder further from it is another's account
// and stays as read, and a holder not read is not made up.
func TestTheRegistrysKanaSpellsTheHolder(t *testing.T) {
	cases := []struct {
		name, kana, read, want string
	}{
		{"株式会社中央技研", "チュウオウギケン", "ｶ)ｶﾁﾕｳｵｳｷﾞｹﾝ", "ｶ)ﾁﾕｳｵｳｷﾞｹﾝ"},
		{"株式会社中央技研", "チュウオウギケン", "ｶ)ﾁｴﾕｳｵｳｷﾞｹﾝ", "ｶ)ﾁﾕｳｵｳｷﾞｹﾝ"},
		{"株式会社北辰ソリューションズ", "ホクシンソリューションズ", "ｶ)ﾎｸｼﾂｿﾘﾕ-ｼﾖﾝｽﾞ", "ｶ)ﾎｸｼﾝｿﾘﾕ-ｼﾖﾝｽﾞ"},
		{"株式会社つばさ情報サービス", "ツバサジョウホウサービス", "ｶﾘﾂﾊﾞｻｼﾞﾖｳﾎｳｻ-ﾋﾞｽ", "ｶ)ﾂﾊﾞｻｼﾞﾖｳﾎｳｻ-ﾋﾞｽ"},
		{"有限会社東邦キャリア", "トウホウキャリア", "ﾕｺﾌﾄｳｳﾎｳｷﾔﾘｱ", "ﾕ)ﾄｳﾎｳｷﾔﾘｱ"},
		{"大和精工株式会社", "ヤマトセイコウ", "ﾔﾏﾄｾｲｺ(ｶ", "ﾔﾏﾄｾｲｺｳ(ｶ"},
		// Right already, or another's: as read.
		{"株式会社中央技研", "チュウオウギケン", "ｶ)ﾁﾕｳｵｳｷﾞｹﾝ", "ｶ)ﾁﾕｳｵｳｷﾞｹﾝ"},
		{"株式会社中央技研", "チュウオウギケン", "ﾔﾏﾀﾞ ﾀﾛｳ", "ﾔﾏﾀﾞ ﾀﾛｳ"},
		{"株式会社中央技研", "チュウオウギケン", "ｶ)ﾁﾕｳｵｳﾌｱｲﾅﾝｽ", "ｶ)ﾁﾕｳｵｳﾌｱｲﾅﾝｽ"},
		// No furigana, or a name without a form the holder marks: as read.
		{"株式会社中央技研", "", "ｶ)ｶﾁﾕｳｵｳｷﾞｹﾝ", "ｶ)ｶﾁﾕｳｵｳｷﾞｹﾝ"},
		{"一般社団法人中央会", "チュウオウカイ", "ﾁﾕｳｵｳｶｲｲ", "ﾁﾕｳｵｳｶｲｲ"},
	}
	for _, c := range cases {
		f := invoiceread.Fields{RegistrationNumber: invoiceread.Field[string]{Value: validT, Confidence: 0.9, Found: true},
			AccountHolder: invoiceread.Field[string]{Value: c.read, Confidence: 0.5, Found: true}}
		f.UseRegisteredIssuer(c.name, c.kana)
		assert.Equal(t, c.want, f.AccountHolder.Value, "%s %s: %s", c.name, c.kana, c.read)
		if c.want != c.read {
			assert.GreaterOrEqual(t, f.AccountHolder.Confidence, 0.95, "as sure as the registry's name")
		} else {
			assert.Equal(t, 0.5, f.AccountHolder.Confidence)
		}
	}
	none := invoiceread.Fields{RegistrationNumber: invoiceread.Field[string]{Value: validT, Confidence: 0.9, Found: true}}
	none.UseRegisteredIssuer("株式会社中央技研", "チュウオウギケン")
	assert.False(t, none.AccountHolder.Found, "a holder not read is not made up")
}
