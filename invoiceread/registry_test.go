package invoiceread_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
		sure                   bool // as sure as the registry's name: spelt or confirmed by its furigana
	}{
		{"株式会社中央技研", "チュウオウギケン", "ｶ)ｶﾁﾕｳｵｳｷﾞｹﾝ", "ｶ)ﾁﾕｳｵｳｷﾞｹﾝ", true},
		{"株式会社中央技研", "チュウオウギケン", "ｶ)ﾁｴﾕｳｵｳｷﾞｹﾝ", "ｶ)ﾁﾕｳｵｳｷﾞｹﾝ", true},
		{"株式会社北辰ソリューションズ", "ホクシンソリューションズ", "ｶ)ﾎｸｼﾂｿﾘﾕ-ｼﾖﾝｽﾞ", "ｶ)ﾎｸｼﾝｿﾘﾕ-ｼﾖﾝｽﾞ", true},
		{"株式会社つばさ情報サービス", "ツバサジョウホウサービス", "ｶﾘﾂﾊﾞｻｼﾞﾖｳﾎｳｻ-ﾋﾞｽ", "ｶ)ﾂﾊﾞｻｼﾞﾖｳﾎｳｻ-ﾋﾞｽ", true},
		{"有限会社東邦キャリア", "トウホウキャリア", "ﾕｺﾌﾄｳｳﾎｳｷﾔﾘｱ", "ﾕ)ﾄｳﾎｳｷﾔﾘｱ", true},
		{"大和精工株式会社", "ヤマトセイコウ", "ﾔﾏﾄｾｲｺ(ｶ", "ﾔﾏﾄｾｲｺｳ(ｶ", true},
		// Right already: as read, and as sure as the registry.
		{"株式会社中央技研", "チュウオウギケン", "ｶ)ﾁﾕｳｵｳｷﾞｹﾝ", "ｶ)ﾁﾕｳｵｳｷﾞｹﾝ", true},
		// Another's: as read.
		{"株式会社中央技研", "チュウオウギケン", "ﾔﾏﾀﾞ ﾀﾛｳ", "ﾔﾏﾀﾞ ﾀﾛｳ", false},
		{"株式会社中央技研", "チュウオウギケン", "ｶ)ﾁﾕｳｵｳﾌｱｲﾅﾝｽ", "ｶ)ﾁﾕｳｵｳﾌｱｲﾅﾝｽ", false},
		// No furigana, or a name without a form the holder marks: as read.
		{"株式会社中央技研", "", "ｶ)ｶﾁﾕｳｵｳｷﾞｹﾝ", "ｶ)ｶﾁﾕｳｵｳｷﾞｹﾝ", false},
		{"一般社団法人中央会", "チュウオウカイ", "ﾁﾕｳｵｳｶｲｲ", "ﾁﾕｳｵｳｶｲｲ", false},
	}
	for _, c := range cases {
		f := invoiceread.Fields{RegistrationNumber: invoiceread.Field[string]{Value: validT, Confidence: 0.9, Found: true},
			AccountHolder: invoiceread.Field[string]{Value: c.read, Confidence: 0.5, Found: true}}
		f.UseRegisteredIssuer(c.name, c.kana)
		assert.Equal(t, c.want, f.AccountHolder.Value, "%s %s: %s", c.name, c.kana, c.read)
		if c.sure {
			assert.GreaterOrEqual(t, f.AccountHolder.Confidence, 0.95, "as sure as the registry's name")
		} else {
			assert.Equal(t, 0.5, f.AccountHolder.Confidence)
		}
	}
	none := invoiceread.Fields{RegistrationNumber: invoiceread.Field[string]{Value: validT, Confidence: 0.9, Found: true}}
	none.UseRegisteredIssuer("株式会社中央技研", "チュウオウギケン")
	assert.False(t, none.AccountHolder.Found, "a holder not read is not made up")
}

// A T-number read a digit wrong fails its check digit; of its readings that pass, the
// registry names the one the issuer has. Taken only when exactly one registered name is
// the name read on the page: a corporation of another name at a neighbouring number (the
// registry's numbers are dense) is never taken for the issuer.
func TestTheRegistryChoosesAmongAMisreadNumbersReadings(t *testing.T) {
	const (
		printed = "6137858424341" // the corporate number printed, T6137858424341
		other   = "6137858424911" // another reading of the misread number that passes its check digit
	)
	// A fax: a stray O between the T and the number, and the printed 3 read as 9.
	page := "株式会社身樺ファーム\n登録番号：TO6137858424941\n"
	registry := func(known map[string]string) func(string) (string, string, bool) {
		return func(n string) (string, string, bool) {
			name, ok := known[n]
			return name, "", ok
		}
	}
	cases := []struct {
		name   string
		page   string
		known  map[string]string
		want   string // the registration number taken, "" none
		issuer string
	}{
		{"the one reading the registry names as the name read", page,
			map[string]string{printed: "株式会社白樺ファーム", other: "株式会社丸和運輸"}, "T" + printed, "株式会社白樺ファーム"},
		{"no reading is registered under the name read", page,
			map[string]string{other: "株式会社丸和運輸"}, "", "株式会社身樺ファーム"},
		{"two readings registered under the name: the registry cannot tell", page,
			map[string]string{printed: "株式会社白樺ファーム", other: "株式会社白樺ファーム"}, "", "株式会社身樺ファーム"},
		{"no name read to compare with", "登録番号：TO6137858424941\n",
			map[string]string{printed: "株式会社白樺ファーム"}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := invoiceread.Extract(c.page, nil)
			require.False(t, f.RegistrationNumber.Found, "the check digit refuses the number as read")
			assert.Contains(t, f.RegistrationCandidates, printed, "the printed number is among the readings")
			taken := f.ChooseRegistration(registry(c.known))
			assert.Equal(t, c.want != "", taken)
			assert.Equal(t, c.want, f.RegistrationNumber.Value)
			assert.Equal(t, c.issuer, f.IssuerName.Value)
			assert.Equal(t, c.want != "", f.IssuerFromRegistry)
		})
	}

	whole := invoiceread.Extract("株式会社白樺ファーム\n登録番号：T"+printed+"\n", nil)
	assert.Equal(t, "T"+printed, whole.RegistrationNumber.Value)
	assert.Empty(t, whole.RegistrationCandidates, "a number read whole asks the registry nothing more")
	assert.False(t, whole.ChooseRegistration(registry(map[string]string{other: "株式会社白樺ファーム"})), "nor is it replaced")
}

// A fax read a digit of the T-number twice (T22914688604927 for T2291468604927): both
// readings with a doubled digit read once pass the check digit, so the page takes
// neither and the registry is asked about both.
func TestADigitReadTwiceIsAskedOfTheRegistry(t *testing.T) {
	f := invoiceread.Extract("株式会社中野ホールディングス\nSAE| RT610 | 人 |T22914688604927ー\n", nil)
	require.False(t, f.RegistrationNumber.Found, "two readings pass: the page cannot tell")
	assert.Contains(t, f.RegistrationCandidates, "2291468604927", "the 88 read once")
	assert.Contains(t, f.RegistrationCandidates, "2914688604927", "the 22 read once")
	registered := func(n string) (string, string, bool) {
		if n == "2291468604927" {
			return "株式会社中野ホールディングス", "ナカノホールディングス", true
		}
		return "", "", false
	}
	require.True(t, f.ChooseRegistration(registered))
	assert.Equal(t, "T2291468604927", f.RegistrationNumber.Value)
}
