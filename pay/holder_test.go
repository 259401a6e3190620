package pay_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
)

func TestNormalizeHolderName(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"voiced ガ", "ガス", "ｶﾞｽ"},
		{"semi-voiced プ", "プラン", "ﾌﾟﾗﾝ"},
		{"ヴ", "ヴイ", "ｳﾞｲ"},
		{"small ッ", "ニッポン", "ﾆﾂﾎﾟﾝ"},
		{"small ャュョ", "キャッシュ", "ｷﾔﾂｼﾕ"},
		{"small ァ and ヮ", "ファヮ", "ﾌｱﾜ"},
		{"small ヵ and ヶ", "ヵヶ", "ｶｹ"},
		{"half-width small kana", "ｷｬｯｼｭ ｧｨｩｪｫ", "ｷﾔﾂｼﾕ ｱｲｳｴｵ"},
		{"long mark ー", "コーヒー", "ｺ-ﾋ-"},
		{"half-width long mark ｰ", "ｺｰﾋｰ", "ｺ-ﾋ-"},
		{"dashes typed for the long mark", "ア－イ‐ウ―エ−オ～カ〜キ", "ｱ-ｲ-ｳ-ｴ-ｵ-ｶ-ｷ"},
		{"middle dot ・", "ジョン・スミス", "ｼﾞﾖﾝ.ｽﾐｽ"},
		{"half-width middle dot ･", "ｼﾞﾖﾝ･ｽﾐｽ", "ｼﾞﾖﾝ.ｽﾐｽ"},
		{"full-width space between words", "ヤマダ　タロウ", "ﾔﾏﾀﾞ ﾀﾛｳ"},
		{"doubled spaces", "ヤマダ  　タロウ", "ﾔﾏﾀﾞ ﾀﾛｳ"},
		{"leading and trailing spaces", " 　ヤマダ　\t", "ﾔﾏﾀﾞ"},
		{"hiragana", "やまだ　たろう", "ﾔﾏﾀﾞ ﾀﾛｳ"},
		{"small hiragana", "きゃっぷ", "ｷﾔﾂﾌﾟ"},
		{"half-width input unchanged", "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ", "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ"},
		{"half-width with every allowed symbol", "ABC(ｶ.-/,｢｣ 09", "ABC(ｶ.-/,｢｣ 09"},
		{"legal-entity abbreviation in front", "カ）ヤマダ", "ｶ)ﾔﾏﾀﾞ"},
		{"legal-entity abbreviation at the end", "ヤマダ（カ", "ﾔﾏﾀﾞ(ｶ"},
		{"legal-entity abbreviation in the middle", "ﾔﾏﾀﾞ(ｶ)ﾄｳｷﾖｳ(ｴｲ", "ﾔﾏﾀﾞ(ｶ)ﾄｳｷﾖｳ(ｴｲ"},
		{"lower-case Latin", "abc trading", "ABC TRADING"},
		{"full-width Latin and digits", "ＡＢＣｄｅｆ１２３", "ABCDEF123"},
		{"full-width symbols", "（カ）．，／－「」", "(ｶ).,/-｢｣"},
		{"corner brackets", "「ア」｢イ｣", "｢ｱ｣｢ｲ｣"},
		{"ヰ ヱ ヲ as read today", "ヰヱヲ", "ｲｴｵ"},
		{"half-width ｦ", "ｦ", "ｵ"},
		{"half-width kana and mark", "ｳﾞｧｲｵﾘﾝ", "ｳﾞｱｲｵﾘﾝ"},
		{"spacing dakuten after kana", "カ゛ハ゜", "ｶﾞﾊﾟ"},
		{"combining dakuten (decomposed text)", "カ\u3099ハ\u309A", "ｶﾞﾊﾟ"},
		{"exactly 30 characters", strings.Repeat("ｱ", 28) + "ｶﾞ", strings.Repeat("ｱ", 28) + "ｶﾞ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pay.NormalizeHolderName(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			again, err := pay.NormalizeHolderName(got)
			require.NoError(t, err)
			assert.Equal(t, got, again, "normalising twice must change nothing")
		})
	}
}

func TestNormalizeHolderNameRefuses(t *testing.T) {
	const hint = "は使えません。カタカナ・英数字で入力してください"
	tests := []struct {
		name string
		in   string
		msg  string
	}{
		{"empty", "", "口座名義を入力してください"},
		{"spaces only", " 　\t ", "口座名義を入力してください"},
		{"kanji", "株式会社", "口座名義に「株」" + hint},
		{"kanji after kana", "ヤマ田", "口座名義に「田」" + hint},
		{"emoji", "ヤマダ😀", "口座名義に「😀」" + hint},
		{"full-width at sign", "ＡＢＣ＠", "口座名義に「＠」" + hint},
		{"ampersand", "A&B", "口座名義に「&」" + hint},
		{"yen sign", "¥", "口座名義に「¥」" + hint},
		{"backslash", `A\B`, `口座名義に「\」` + hint},
		{"circled 株", "㈱ヤマダ", "口座名義に「㈱」" + hint},
		{"accented Latin", "Café", "口座名義に「é」" + hint},
		{"iteration mark", "ススヽ", "口座名義に「ヽ」" + hint},
		{"hiragana iteration mark", "すゝ", "口座名義に「ゝ」" + hint},
		{"ideographic full stop", "ア。", "口座名義に「。」" + hint},
		{"dakuten on a kana that has no voiced form", "ｱﾞ", "口座名義に「ﾞ」" + hint},
		{"dakuten first", "゛ア", "口座名義に「゛」" + hint},
		{"two dakuten", "ｶﾞﾞ", "口座名義に「ﾞ」" + hint},
		{"handakuten on カ", "カ゜", "口座名義に「゜」" + hint},
		{"obsolete voiced ヺ", "ヺ", "口座名義に「ヺ」" + hint},
		{"dakuten on ヲ", "ヲ゛", "口座名義に「゛」" + hint},
		{"zero-width space", "ヤマ\u200Bダ", "口座名義に目に見えない文字（U+200B）が含まれています。削除してから入力し直してください"},
		{"control character", "ヤマ\x07ダ", "口座名義に目に見えない文字（U+0007）が含まれています。削除してから入力し直してください"},
		{"31 characters", strings.Repeat("ｱ", 31), "口座名義は半角30文字以内で入力してください（現在31文字）"},
		{"too long once voiced kana are split", strings.Repeat("ガ", 16), "口座名義は半角30文字以内で入力してください（現在32文字）"},
		{"invalid UTF-8", "ヤマ\xffダ", "口座名義に読み取れない文字が含まれています。入力し直してください"},
		{"truncated UTF-8", "ヤマ\xe3\x83", "口座名義に読み取れない文字が含まれています。入力し直してください"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pay.NormalizeHolderName(tt.in)
			assert.Empty(t, got)
			var he *pay.HolderNameError
			require.True(t, errors.As(err, &he), "want *HolderNameError, got %T", err)
			assert.Equal(t, tt.msg, he.Message)
			assert.Equal(t, tt.msg, err.Error())
		})
	}
}

// Every result must be in the zengin set, whatever was typed: this walks
// the kana, full-width and ASCII blocks and checks each accepted character,
// and that the result is accepted again unchanged.
func TestNormalizeHolderNameOutputIsZengin(t *testing.T) {
	const allowed = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789().-/,｢｣ " +
		"ｱｲｳｴｵｶｷｸｹｺｻｼｽｾｿﾀﾁﾂﾃﾄﾅﾆﾇﾈﾉﾊﾋﾌﾍﾎﾏﾐﾑﾒﾓﾔﾕﾖﾗﾘﾙﾚﾛﾜﾝﾞﾟ"
	blocks := [][2]rune{{0x20, 0x7E}, {0x3000, 0x30FF}, {0xFF01, 0xFF9F}}
	for _, blk := range blocks {
		for r := blk[0]; r <= blk[1]; r++ {
			got, err := pay.NormalizeHolderName("ｶ" + string(r) + "ｶ")
			if err != nil {
				continue
			}
			for _, c := range got {
				assert.True(t, strings.ContainsRune(allowed, c), "%q gave %q, which has %q", r, got, c)
			}
			assert.LessOrEqual(t, utf8.RuneCountInString(got), pay.HolderNameMaxLen)
			again, err := pay.NormalizeHolderName(got)
			if assert.NoError(t, err, "%q gave %q", r, got) {
				assert.Equal(t, got, again, "%q: normalising twice must change nothing", r)
			}
		}
	}
}
