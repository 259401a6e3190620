package invoiceread

import (
	"image"
	"testing"

	"github.com/stretchr/testify/assert"
)

// placedAt is placed with the line's first word at x.
func placedAt(text string, x, y int) Line {
	l := placed(text, y)
	d := image.Pt(x-100, 0)
	l.Box = l.Box.Add(d)
	for i := range l.Words {
		l.Words[i].Box = l.Words[i].Box.Add(d)
	}
	return l
}

func TestTheIssuersBlockIsPlacedOverItsAddress(t *testing.T) {
	cases := []struct {
		name  string
		lines []Line
		want  image.Rectangle
		read  string
	}{
		// The name's line and the address's, 40 px a character: from a character's width
		// left of the postal code to one right of the address's end, from two and a half
		// lines above the address to its bottom.
		{"the name over the address, in the right-hand column", []Line{
			placedAt("請求書番号 INV-202605-033", 1200, 100),
			placedAt("株式会社ひかeel", 1200, 160),
			placedAt("〒767-3834 東京都渋谷区", 1200, 220),
			placedAt("登録番号 T2351900225681", 1200, 280)},
			image.Rect(1160, 120, 1200+40*15+80+40, 260), "株式会社ひかeel"},
		{"an address in a row joined with another column's: the column from the postal code on", []Line{
			placedAt("株式会社ひかeel", 1200, 160),
			placedAt("ご請求金額 ¥605,000-  〒767-3834東京都渋谷区", 100, 220),
			placedAt("登録番号 T2351900225681", 1200, 280)},
			// ご請求金額 and ¥605,000- are 14 characters and two gaps from x = 100: 〒 at
			// 820, the gap before it from 740.
			image.Rect(740-40, 120, 820+40*15+40, 260), "株式会社ひかeel\nご請求金額 ¥605,000-  〒767-3834東京都渋谷区"},
		{"of two addresses, the one nearest the registration number", []Line{
			placedAt("〒100-0001 東京都千代田区", 100, 100),
			placedAt("株式会社やまびこ 御中", 100, 160),
			placedAt("北辰ソリューションズ", 1200, 400),
			placedAt("〒840-2307 北海道札幌市", 1200, 460),
			placedAt("登録番号 T2351900225681", 1200, 520)},
			image.Rect(1160, 360, 1200+40*15+80+40, 500), "北辰ソリューションズ\n〒840-2307 北海道札幌市"},
		{"a telephone number is no postal code", []Line{
			placedAt("株式会社ひかeel", 1200, 160),
			placedAt("FAX 092-422=3543", 1200, 220)}, image.Rectangle{}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rr, read, ok := issuerPlace(prepare("", c.lines), c.lines)
			assert.Equal(t, !c.want.Empty(), ok)
			assert.Equal(t, c.want, rr.Box)
			if c.read != "" {
				assert.Contains(t, read, c.read[:len("株式会社")])
			}
		})
	}
}

// The answers are the generator's scans' issuer blocks read with their seal dropped.
func TestIssuerIn(t *testing.T) {
	cases := []struct {
		text, holder, want string
		ok                 bool
	}{
		{"株式会社ひかり食品\n〒767-3834 東京都谷区渋谷 2-15-1", "", "株式会社ひかり食品", true},
		{"(株) 三和工業\n〒545-6553 神奈川県横浜市西区みなとみらい2-2-1", "", "株式会社三和工業", true},
		{"北斗システム(株)\n〒191-7865埼玉県さいたま市大宮区桜木町1-7-5", "", "北斗システム株式会社", true},
		// ㈱ under the seal read as a kanji, or a bracket and one: the holder's mark says
		// it is the form, and where.
		{"則みなと企画\n〒389-8128 福岡県福岡市博多区博多駅前2-1-1", "ｶ)ﾐﾅﾄｷｶｸ", "株式会社みなと企画", true},
		{"(和則 みなと企画\n〒389-8128 福岡県福岡市博多区博多駅前2-1-1", "ｶ)ﾐﾅﾄｷｶｸ", "株式会社みなと企画", true},
		{"(柳つばさ情報サービス\n〒629-1029 東京都千代円区丸の内 1-6-5", "ｶ)ﾂﾊﾞｻｼﾞﾖｳﾎｳｻ-ﾋﾞｽ", "株式会社つばさ情報サービス", true},
		{"大和精工帆\n〒631-6548 神奈川県横浜市西区みなとみっらい2-2-1", "ﾔﾏﾄｾｲｺｳ(ｶ", "大和精工株式会社", true},
		{"大和精工帆\n〒631-6548 神奈川県横浜市西区みなとみっらい2-2-1", "", "大和精工帆", false},
		// The seal's specks read as letters beside the name: the chunk of kanji and kana.
		{"II  偶みなと企画:\n「。  〒389-8128 福岡県福岡市博多区博多釈前2-1-1", "ｶ)ﾐﾅﾄｷｶｸ", "株式会社みなと企画", true},
		// A row joined with the addressee's: the addressee's chunk is not the name.
		{"遇計り\nク 御中  株式会社北辰ソリューションズ\nーー  840-2307 北海道札幌市中央区", "", "株式会社北辰ソリューションズ", true},
		// No address read: the line with a legal form.
		{"合同会社ことぶき観光", "", "合同会社ことぶき観光", true},
		// Noise is no name, and a form is not written into letters.
		{"2  -\nーー", "", "", false},
		{"Piel\n〒191-7865 埼玉県", "ﾎｸﾄｼｽﾃﾑ(ｶ", "", false},
		{"株式会社ひかeel\n〒767-3834 東京都", "", "株式会社ひかeel", false},
	}
	for _, c := range cases {
		got, ok := issuerIn(c.text, c.holder)
		assert.Equal(t, c.want, got, "%q", c.text)
		assert.Equal(t, c.ok, ok, "%q", c.text)
	}
}

func TestFormByHolder(t *testing.T) {
	cases := []struct{ name, holder, want string }{
		{"内みなと企画", "ｶ)ﾐﾅﾄｷｶｸ", "株式会社みなと企画"},
		{"みなと企画", "ｶ)ﾐﾅﾄｷｶｸ", "株式会社みなと企画"}, // the form lost outright
		{"ことぶき観光", "ﾄﾞ)ｺﾄﾌﾞｷｶﾝｺｳ", "合同会社ことぶき観光"},
		{"大和精工(株", "ﾔﾏﾄｾｲｺｳ(ｶ", "大和精工株式会社"},
		{"株式会社みなと企画", "ﾕ)ﾐﾅﾄｷｶｸ", "株式会社みなと企画"}, // a form read stands
		{"内みなと企画", "ﾐﾅﾄｷｶｸ", "内みなと企画"},         // no mark, no form
		{"naam", "ｶ)ﾐﾅﾄｷｶｸ", "naam"},
		{"内み", "ｶ)ﾐﾅﾄｷｶｸ", "内み"}, // one character is no name
	}
	for _, c := range cases {
		assert.Equal(t, c.want, formByHolder(c.name, c.holder), "%s %s", c.name, c.holder)
	}
}

// The block's name goes over the page's when the page's is no well-formed name, or when
// the holder spells the block's kana and not the page's.
func TestPutIssuer(t *testing.T) {
	cases := []struct{ page, crop, holder, want string }{
		{"株式会社ひかeel", "株式会社ひかり食品", "", "株式会社ひかり食品"},
		{"株式会社中", "株式会社中央技研", "", "株式会社中央技研"},
		{"", "株式会社中央技研", "", "株式会社中央技研"},
		{"株式会社白欄ファテム", "株式会社白樺ファーム", "ｶ)ｼﾗｶﾊﾞﾌｱ-ﾑ", "株式会社白樺ファーム"},
		// Two well-formed names the holder does not tell apart: the page's stands.
		{"株式会社白樺ファーム", "株式会社白欄ファーム", "ｶ)ｼﾗｶﾊﾞﾌｱ-ﾑ", "株式会社白樺ファーム"},
		{"有限会社海鳴テクノロジー", "有限会社海陽テクノロジー", "", "有限会社海鳴テクノロジー"},
	}
	for _, c := range cases {
		var f Fields
		if c.page != "" {
			f.IssuerName = found(c.page, 0.7)
		}
		if c.holder != "" {
			f.AccountHolder = found(c.holder, 0.8)
		}
		putIssuer(&f, c.crop, 0.8)
		assert.Equal(t, c.want, f.IssuerName.Value, "page %q crop %q", c.page, c.crop)
	}

	// The page took the addressee, its 御中 lost, for the issuer: the block's name goes
	// in, the page's becomes the addressee, at a guess. An addressee read stays.
	f := Fields{IssuerName: found("合同会社ブルーオーシャン", 0.8), AccountHolder: found("ｶ)ﾂﾊﾞｻｼﾞﾖｳﾎｳｻ-ﾋﾞｽ", 0.8)}
	putIssuer(&f, "株式会社つばさ情報サービス", 0.8)
	assert.Equal(t, "株式会社つばさ情報サービス", f.IssuerName.Value)
	assert.Equal(t, "合同会社ブルーオーシャン", f.Addressee.Value)
	assert.Less(t, f.Addressee.Confidence, 0.5)
	f = Fields{IssuerName: found("合同会社ブルーオーシャン", 0.8), Addressee: found("株式会社やまびこ", 0.9),
		AccountHolder: found("ｶ)ﾂﾊﾞｻｼﾞﾖｳﾎｳｻ-ﾋﾞｽ", 0.8)}
	putIssuer(&f, "株式会社つばさ情報サービス", 0.8)
	assert.Equal(t, "株式会社やまびこ", f.Addressee.Value)
}

func TestWellFormedName(t *testing.T) {
	for s, want := range map[string]bool{
		"株式会社ひかり食品": true, "北斗システム株式会社": true, "合同会社ことぶき観光": true, "株式会社ジェイ・プラン": true,
		"株式会社中": false, "株式会社": false, "株式会社ひかeel": false, "有限会社東邦キャ|リリア": false, "ひかり食品": false,
	} {
		assert.Equal(t, want, wellFormedName(s), s)
	}
}

func TestCompleteKana(t *testing.T) {
	cases := []struct{ name, holder, want string }{
		{"株式会社白樺ファzaps", "ｶ)ｼﾗｶﾊﾞﾌｱ-ﾑ", "株式会社白樺ファーム"},
		{"有限会社東邦キャ9ア", "ﾕ)ﾄｳﾎｳｷﾔﾘｱ", "有限会社東邦キャリア"},
		{"株式会社つばさ情報サー", "ｶ)ﾂﾊﾞｻｼﾞﾖｳﾎｳｻ-ﾋﾞｽ", "株式会社つばさ情報サービス"},
		{"株式会社ポ", "ｶ)ﾎﾟﾌﾟﾗ", "株式会社ポ"},           // one kana is no run to find
		{"北斗システ", "ﾎｸﾄｼｽﾃﾑ(ｶ", "北斗システ"},         // no form read: not this rule's
		{"北斗システ株式会社", "ﾎｸﾄｼｽﾃﾑ(ｶ", "北斗システ株式会社"}, // the run does not end the name
		// A tail of more than three kana is a reading of kanji (事務所), left.
		{"株式会社若葉デザイwtih", "ｶ)ﾜｶﾊﾞﾃﾞｻﾞｲﾝｼﾞﾑｼﾖ", "株式会社若葉デザイwtih"},
		// The whole name read: nothing to add.
		{"株式会社白樺ファーム", "ｶ)ｼﾗｶﾊﾞﾌｱ-ﾑ", "株式会社白樺ファーム"},
		// A holder of another name does not spell it.
		{"株式会社白樺ファzaps", "ｶ)ﾔﾏﾋﾞｺ", "株式会社白樺ファzaps"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, completeKana(c.name, c.holder), "%s %s", c.name, c.holder)
	}
	assert.Equal(t, "ービスパブ", fullKana("-ﾋﾞｽﾊﾟﾌﾞ"))
}
