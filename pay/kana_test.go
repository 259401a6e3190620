package pay_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"cardpay/pay"
)

func TestIsFullWidthKatakana(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"plain", "ヤマダ", true},
		{"voiced ガ", "ガンマ", true},
		{"semi-voiced パ", "パン", true},
		{"ヴ", "ヴァイオリン", true},
		{"small ッ", "ニッポン", true},
		{"long mark ー", "コーポレーション", true},
		{"small ヵ and ヶ", "ヵヶ", true},
		{"middle dot ・ (foreign names)", "ジョン・スミス", true},
		{"words separated by a full-width space", "カブシキガイシャ　サンプル", true},
		{"three words", "ア　イ　ウ", true},
		{"empty", "", false},
		{"only a space", "　", false},
		{"leading full-width space", "　ヤマダ", false},
		{"trailing full-width space", "ヤマダ　", false},
		{"two full-width spaces", "ヤマダ　　タロウ", false},
		{"ASCII space", "ヤマダ タロウ", false},
		{"hiragana", "やまだ", false},
		{"mixed hiragana", "ヤマだ", false},
		{"half-width katakana", "ﾔﾏﾀﾞ", false},
		{"kanji", "山田", false},
		{"kanji among katakana", "ヤマ田", false},
		{"Latin letters", "ABC", false},
		{"full-width Latin letters", "ＡＢＣ", false},
		{"digits", "サンプル1", false},
		{"hyphen-minus instead of ー", "コ-ヒ-", false},
		{"spacing dakuten alone", "カ゛", false},
		{"combining dakuten", "カ\u3099", false},
		{"invalid UTF-8", "ヤマ\xffダ", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, pay.IsFullWidthKatakana(tt.in))
		})
	}
}

func TestToFullWidthKatakana(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"katakana unchanged", "ヤマダ", "ヤマダ"},
		{"hiragana", "やまだ たろう", "ヤマダ　タロウ"},
		{"hiragana voiced", "がっこう", "ガッコウ"},
		{"hiragana ゔ", "ゔぁいおりん", "ヴァイオリン"},
		{"hiragana small ゕ ゖ", "ゕゖ", "ヵヶ"},
		{"hiragana iteration marks", "ゝゞ", "ヽヾ"},
		{"half-width", "ﾔﾏﾀﾞ ﾀﾛｳ", "ヤマダ　タロウ"},
		{"half-width ｶﾞ", "ｶﾞ", "ガ"},
		{"half-width ﾊﾟ", "ﾊﾟ", "パ"},
		{"half-width ﾊﾞ", "ﾊﾞ", "バ"},
		{"half-width ｳﾞ", "ｳﾞｧｲｵﾘﾝ", "ヴァイオリン"},
		{"half-width ﾜﾞ", "ﾜﾞ", "ヷ"},
		{"half-width small ｯ and long ｰ", "ｺｰﾋｰｶｯﾌﾟ", "コーヒーカップ"},
		{"half-width middle dot", "ｼﾞｮﾝ･ｽﾐｽ", "ジョン・スミス"},
		{"half-width company", "ｶﾌﾞｼｷｶﾞｲｼｬ ｻﾝﾌﾟﾙ", "カブシキガイシャ　サンプル"},
		{"full-width katakana with spacing ゛", "カ゛", "ガ"},
		{"hiragana with combining dakuten", "か\u3099", "ガ"},
		{"katakana with combining handakuten", "ハ\u309A", "パ"},
		{"mark that cannot combine is kept", "ｱﾞ", "ア゛"},
		{"semi-voiced mark on カ is kept", "カ゜", "カ゜"},
		{"mark at the start is kept", "ﾞｱ", "゛ア"},
		{"trimmed", "  やまだ\t", "ヤマダ"},
		{"runs of spaces collapse", "やまだ 　 たろう", "ヤマダ　タロウ"},
		{"kanji kept for the check to reject", "山田たろう", "山田タロウ"},
		{"Latin kept", "abc", "abc"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, pay.ToFullWidthKatakana(tt.in))
		})
	}
}

// Whatever a person types in kana in any of the three common ways must be
// accepted after conversion.
func TestToFullWidthKatakanaThenValid(t *testing.T) {
	for _, in := range []string{"やまだ　たろう", "ﾔﾏﾀﾞ ﾀﾛｳ", "ヤマダ タロウ", " ぱぴぷぺぽ ", "ｶﾞｷﾞｸﾞｹﾞｺﾞ", "ゔ", "ジョン・スミス"} {
		t.Run(in, func(t *testing.T) {
			assert.True(t, pay.IsFullWidthKatakana(pay.ToFullWidthKatakana(in)))
		})
	}
}

func TestNormalizeSpaces(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"nothing to do", "山田太郎", "山田太郎"},
		{"trim ASCII", "  ABC Trading  ", "ABC Trading"},
		{"trim full-width", "　山田　", "山田"},
		{"keeps one full-width space", "山田　太郎", "山田　太郎"},
		{"double ASCII", "ABC  Trading", "ABC Trading"},
		{"tab and newline", "ABC\t\nTrading", "ABC Trading"},
		{"mixed run with a full-width space", "山田 　太郎", "山田　太郎"},
		{"only spaces", " 　\t", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, pay.NormalizeSpaces(tt.in))
		})
	}
}
