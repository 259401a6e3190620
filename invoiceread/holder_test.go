package invoiceread

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The issuer's kana spell the holder's: the voiced, semi-voiced and long marks OCR lost
// or confused are put back from them; a holder that differs otherwise stays as read.
func TestTheHolderIsSpeltByTheIssuersKana(t *testing.T) {
	cases := []struct{ issuer, read, want string }{
		{"合同会社ことぶき観光", "ﾄﾞ)ｺﾄﾌﾟｷｶﾝｺｳ", "ﾄﾞ)ｺﾄﾌﾞｷｶﾝｺｳ"},                // ﾟ for ﾞ
		{"株式会社白樺ファーム", "ｶ)ｼﾗｶﾊﾞﾌｱﾑ", "ｶ)ｼﾗｶﾊﾞﾌｱ-ﾑ"},                   // the long mark lost
		{"株式会社つばさ情報サービス", "ｶ)ﾂﾊｻｼﾞﾖｳﾎｳｻ-ﾋﾞｽ", "ｶ)ﾂﾊﾞｻｼﾞﾖｳﾎｳｻ-ﾋﾞｽ"},    // ﾞ lost
		{"株式会社北辰ソリューションズ", "ｶ)ﾎｸｼﾝｿﾘﾕｼﾖﾝｽ", "ｶ)ﾎｸｼﾝｿﾘﾕ-ｼﾖﾝｽﾞ"},        // two at the end
		{"株式会社つばさ情報サービス", "ｶ)ﾂﾊﾞﾊﾟｻｼﾞﾖｳﾎｳｻ-ﾋﾞｽ", "ｶ)ﾂﾊﾞｻｼﾞﾖｳﾎｳｻ-ﾋﾞｽ"}, // a kana too many inside
		{"株式会社つばさ情報サービス", "ｶ)ﾂﾊﾞｷｷｻｼﾞﾖｳﾎｳ", "ｶ)ﾂﾊﾞｷｷｻｼﾞﾖｳﾎｳ"},         // two: another name, as read
		{"株式会社白樺ファーム", "ｶ)ｼﾗｶﾊﾞﾌｱ-ﾑ", "ｶ)ｼﾗｶﾊﾞﾌｱ-ﾑ"},                  // right already
		{"株式会社白樺ファーム", "ｶ)ﾔﾏﾀﾞﾌｱﾝﾄﾞ", "ｶ)ﾔﾏﾀﾞﾌｱﾝﾄﾞ"},                  // another name: as read
		{"株式会社白欄ファテム", "ｶ)ｼﾗｶﾊﾞﾌｱﾑ", "ｶ)ｼﾗｶﾊﾞﾌｱﾑ"},                    // the name misread: no match
		{"株式会社山の上", "ｶ)ﾔﾏﾉｳｴ", "ｶ)ﾔﾏﾉｳｴ"},                             // の alone is too short to say
		{"大和精工株式会社", "ﾔﾏﾄｾｲｺｳ(ｶ", "ﾔﾏﾄｾｲｺｳ(ｶ"},                        // kanji only: nothing to say
		{"有限会社海鳴テクノロジー", "ﾕ)ｳﾐﾅﾘﾃｸﾉﾛｼﾞ-", "ﾕ)ｳﾐﾅﾘﾃｸﾉﾛｼﾞ-"},            // its last mark is the part's
		{"有限会社海鳴テクノロジー", "ﾕ)ｳﾐﾅﾘﾃｸﾉﾛｼ", "ﾕ)ｳﾐﾅﾘﾃｸﾉﾛｼﾞ-"},
	}
	for _, c := range cases {
		f := Fields{IssuerName: found(c.issuer, 0.9), AccountHolder: found(c.read, 0.8)}
		holderByIssuer(&f)
		assert.Equal(t, c.want, f.AccountHolder.Value, "%s: %s", c.issuer, c.read)
		holderByIssuer(&f)
		assert.Equal(t, c.want, f.AccountHolder.Value, "%s: %s, spelt twice (the page's reading, then the crops')", c.issuer, c.read)
		assert.Equal(t, 0.8, f.AccountHolder.Confidence)
	}
	// On a page, and from the registry's name once known.
	f := Extract("合同会社ことぶき観光\n口座名義 ﾄﾞ)ｺﾄﾌﾟｷｶﾝｺｳ", nil)
	assert.Equal(t, "ﾄﾞ)ｺﾄﾌﾞｷｶﾝｺｳ", f.AccountHolder.Value)
	g := Fields{RegistrationNumber: found("T1234567890123", 0.9), AccountHolder: found("ｶ)ｼﾗｶﾊﾞﾌｱﾑ", 0.8)}
	g.UseRegisteredIssuer("株式会社白樺ファーム", "")
	assert.Equal(t, "ｶ)ｼﾗｶﾊﾞﾌｱ-ﾑ", g.AccountHolder.Value)
}

// A kana read twice, voiced and then semi-voiced (or the other way), is one: the first.
func TestAKanaReadVoicedAndSemiVoicedIsOne(t *testing.T) {
	cases := []struct{ read, want string }{
		{"ｶ)ｼﾗｶﾊﾞﾊﾟﾌｱ-ﾑ", "ｶ)ｼﾗｶﾊﾞﾌｱ-ﾑ"}, // a photo's ﾊﾞ read twice
		{"ｼﾗｶﾊﾟﾊﾞﾌｱ-ﾑ", "ｼﾗｶﾊﾟﾌｱ-ﾑ"},     // the other way: the first is kept
		{"ｶ)ﾊﾞﾊﾞﾘ-", "ｶ)ﾊﾞﾊﾞﾘ-"},         // voiced twice is a name (ババ)
		{"ｶ)ﾊﾊﾞﾗ", "ｶ)ﾊﾊﾞﾗ"},             // a kana and its voiced form is a name (ハバラ)
		{"ｶ)ﾋﾞﾌﾟ", "ｶ)ﾋﾞﾌﾟ"},             // two kana
		{"ｶ)ﾎﾟﾎﾟﾎﾞ", "ｶ)ﾎﾟﾎﾟ"},           // the last two: the first of them kept
	}
	for _, c := range cases {
		got, ok := holderIn(c.read)
		assert.True(t, ok, c.read)
		assert.Equal(t, c.want, got, c.read)
	}
}

// A legal-form mark at the name's end is written against its bracket, once (the holdout's
// 合同会社 holders read with the bracket's width after it, or the mark twice).
func TestAFormMarkIsWrittenOnce(t *testing.T) {
	cases := []struct{ read, want string }{
		{"ﾌｼﾞﾉｷｺｳｷﾞﾖｳ( ﾄﾞ", "ﾌｼﾞﾉｷｺｳｷﾞﾖｳ(ﾄﾞ"},
		{"アサヒビルメンテナンス(ドド", "ｱｻﾋﾋﾞﾙﾒﾝﾃﾅﾝｽ(ﾄﾞ"},
		{"ﾄｳﾎｳｷﾔﾘｱ( ﾕ", "ﾄｳﾎｳｷﾔﾘｱ(ﾕ"},
		{"ﾔﾏﾄｾｲｺｳ(ｶｶ", "ﾔﾏﾄｾｲｺｳ(ｶ"},
		{"ﾄﾞ )ﾐﾗｲ", "ﾄﾞ)ﾐﾗｲ"},
		{"ｶ)ｶｶﾞﾜ", "ｶ)ｶｶﾞﾜ"},     // a name's kana after the mark stay
		{"ﾀﾅｶ ﾄﾞﾄﾞ", "ﾀﾅｶ ﾄﾞﾄﾞ"}, // no bracket: a name
	}
	for _, c := range cases {
		got, ok := holderIn(c.read)
		assert.True(t, ok, c.read)
		assert.Equal(t, c.want, got, c.read)
	}
}

// The label's (カナ) is not the holder (受取人 (カナ) over a ledger's row of values).
func TestTheLabelsKanaIsNoHolder(t *testing.T) {
	_, ok := holderIn("(カナ)")
	assert.False(t, ok)
	got, ok := holderIn(" (カナ) ユ)トウホウキャリア")
	assert.True(t, ok)
	assert.Equal(t, "ﾕ)ﾄｳﾎｳｷﾔﾘｱ", got)
	f := Extract("金融機関名  支店名  預金種目  口座番号  受取人 (カナ)\n北洋銀行  本店営業部  普通  4873057  ユ) トウホウキャリア", nil)
	assert.NotEqual(t, "(ｶﾅ)", f.AccountHolder.Value)
}
