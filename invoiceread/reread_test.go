package invoiceread

import (
	"image"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
)

// placed is an OCR line on page 1 at row y, its words 40 px a character from x = 100,
// a gap of two characters where the text has a space.
func placed(text string, y int) Line {
	l := Line{Text: text, Confidence: 0.9, Page: 1}
	x := 100
	for _, w := range splitWords(text) {
		if w == " " {
			x += 80
			continue
		}
		n := len([]rune(w))
		l.Words = append(l.Words, Word{Text: w, Box: image.Rect(x, y, x+40*n, y+40)})
		l.Box = l.Box.Union(image.Rect(x, y, x+40*n, y+40))
		x += 40 * n
	}
	return l
}

// splitWords cuts text at spaces, keeping each run of spaces as one " ".
func splitWords(text string) []string {
	var out []string
	cur := ""
	for _, r := range text {
		if r == ' ' {
			if cur != "" {
				out = append(out, cur)
				cur = ""
			}
			if len(out) == 0 || out[len(out)-1] != " " {
				out = append(out, " ")
			}
			continue
		}
		cur += string(r)
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}

func TestRereads(t *testing.T) {
	cases := []struct {
		name  string
		lines []Line
		want  []Reread
	}{
		{"a holder not read, right of its label, as it is and widened", []Line{placed("みずほ銀行 渋谷支店 普通 1234567", 100), placed("口座名義 ?? 1l", 200)},
			// 口座名義 is four characters from x = 100; its value starts after them.
			[]Reread{{Field: "account_holder", Page: 1, Box: image.Rect(260, 200, 580, 240), Chars: CharsKana, Read: " ?? 11"},
				{Field: "account_holder", Page: 1, Box: image.Rect(260, 200, 580, 240), Chars: CharsKana, Widen: holderWiden, HalfWidth: true, Read: " ?? 11"}}},
		{"the value ends at the next label", []Line{placed("名義 ||| 消費税 ¥1,000", 300)},
			[]Reread{{Field: "account_holder", Page: 1, Box: image.Rect(180, 300, 380, 340), Chars: CharsKana, Read: " ||| "},
				{Field: "account_holder", Page: 1, Box: image.Rect(180, 300, 380, 340), Chars: CharsKana, Widen: holderWiden, HalfWidth: true, Read: " ||| "}}},
		{"half-width kana read as letters and digits: asked over the holder found", []Line{placed("口座名義 カサツリコ9ギヨウ", 200)},
			[]Reread{{Field: "account_holder", Page: 1, Box: image.Rect(260, 200, 700, 240), Chars: CharsKana, Over: true, Read: " カサツリコ9ギヨウ"},
				{Field: "account_holder", Page: 1, Box: image.Rect(260, 200, 700, 240), Chars: CharsKana, Widen: holderWiden, HalfWidth: true, Over: true, Read: " カサツリコ9ギヨウ"}}},
		{"a holder read clean is not asked for", []Line{placed("口座名義 カ)サンワコウギヨウ", 200)}, nil},
		{"a legal-form mark read as letters is no sign of half-width kana", []Line{placed("口座名義 hh) チユウオウギケン", 200)}, nil},
		{"a label alone over its value: the line below", []Line{placed("支払期日", 100), placed("2O2G年l2月", 150)},
			[]Reread{{Field: "due_date", Page: 1, Box: image.Rect(100, 150, 420, 190), Chars: CharsDate, Read: "202G年l2月"}}},
		{"a found field is not asked for", []Line{placed("支払期日 2026年12月31日", 100)}, nil},
		{"no label, nothing to place", []Line{placed("ホクト ?? 1l", 100)}, nil},
		{"a text layer has no boxes", []Line{{Text: "口座名義 ?? 1l", Confidence: 1}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := Extract("", c.lines)
			assert.Equal(t, c.want, Rereads(c.lines, f))
		})
	}
}

func TestRereadsAreBounded(t *testing.T) {
	lines := []Line{placed("口座名義 ??", 100), placed("支払期日 ??", 150), placed("口座番号 ??", 200),
		placed("ご請求金額 ??", 250), placed("支店名 ??", 300), placed("登録番号 ??", 350), placed("請求日 ??", 400)}
	rr := Rereads(lines, Extract("", lines))
	require.Len(t, rr, maxRereads)
	assert.Equal(t, "account_holder", rr[0].Field, "the holder, the field read worst, first")
}

func TestRefine(t *testing.T) {
	ask := func(field string) []Reread { return []Reread{{Field: field, Page: 1, Box: image.Rect(0, 0, 10, 10)}} }
	cases := []struct {
		name   string
		before Fields
		asked  []Reread
		answer string
		check  func(t *testing.T, f Fields)
	}{
		{"a holder read from its crop", Fields{}, ask("account_holder"), "カ)ヒカリシヨクヒン", func(t *testing.T, f Fields) {
			assert.Equal(t, found("ｶ)ﾋｶﾘｼﾖｸﾋﾝ", 0.9*sureLabel), f.AccountHolder)
		}},
		{"a due date read from its crop", Fields{}, ask("due_date"), "2026年12月31日", func(t *testing.T, f Fields) {
			assert.Equal(t, "2026-12-31", f.DueDate.Value)
		}},
		{"a total with its yen mark", Fields{}, ask("total"), `\125,400`, func(t *testing.T, f Fields) {
			assert.Equal(t, int64(125400), f.Total.Value)
		}},
		{"an account type", Fields{}, ask("account_type"), "当座預金", func(t *testing.T, f Fields) {
			assert.Equal(t, pay.AccountCurrent, f.AccountType.Value)
		}},
		{"an account number", Fields{}, ask("account_number"), "1234567", func(t *testing.T, f Fields) {
			assert.Equal(t, "1234567", f.AccountNumber.Value)
		}},
		{"a registration number only with its check digit", Fields{}, ask("registration_number"), "T9234567890123", func(t *testing.T, f Fields) {
			assert.Equal(t, "T9234567890123", f.RegistrationNumber.Value)
		}},
		{"a registration number whose check digit fails is left", Fields{}, ask("registration_number"), "T1234567890123", func(t *testing.T, f Fields) {
			assert.False(t, f.RegistrationNumber.Found)
		}},
		{"a branch read from its crop", Fields{}, ask("branch_name"), "浜松支店", func(t *testing.T, f Fields) {
			assert.Equal(t, "浜松", f.BranchName.Value)
		}},
		{"what the crop cannot parse changes nothing", Fields{}, ask("account_holder"), "1", func(t *testing.T, f Fields) {
			assert.False(t, f.AccountHolder.Found)
		}},
		{"a field found is kept", Fields{AccountHolder: found("ｶ)ﾐﾅﾄ", 0.3)}, ask("account_holder"), "カ)ヒカリ", func(t *testing.T, f Fields) {
			assert.Equal(t, "ｶ)ﾐﾅﾄ", f.AccountHolder.Value)
		}},
		{"asked over a misread holder, a sure answer replaces it", Fields{AccountHolder: found("ｶｻﾂﾘｺ", 0.5)},
			[]Reread{{Field: "account_holder", Over: true}}, "カ)サンワコウギヨウ", func(t *testing.T, f Fields) {
				assert.Equal(t, found("ｶ)ｻﾝﾜｺｳｷﾞﾖｳ", 0.9*sureLabel), f.AccountHolder)
			}},
		{"no answer (the crop failed)", Fields{}, ask("account_holder"), "", func(t *testing.T, f Fields) {
			assert.False(t, f.AccountHolder.Found)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := c.before
			Refine(&f, c.asked, []Line{{Text: c.answer, Confidence: 0.9}})
			c.check(t, f)
		})
	}
}

func TestRefineTakesTheSurerAnswer(t *testing.T) {
	asked := []Reread{{Field: "account_holder", Over: true}, {Field: "account_holder", Widen: holderWiden, Over: true}}
	cases := []struct {
		name   string
		got    []Line
		want   string
		reason string
	}{
		{"the widened crop is surer", []Line{{Text: "カコギヨリ", Confidence: 0.27}, {Text: "カ)サンワコウキ~ヨウ", Confidence: 0.82}},
			"ｶ)ｻﾝﾜｺｳｷﾞﾖｳ", "half-width kana read widened"},
		{"the crop as it is is surer", []Line{{Text: "カ)ミナトキカク", Confidence: 0.80}, {Text: "カ)ナトキカン", Confidence: 0.60}},
			"ｶ)ﾐﾅﾄｷｶｸ", "full-width kana read as they are"},
		{"neither sure enough to replace the page's", []Line{{Text: "カコギヨリ", Confidence: 0.3}, {Text: "ナトキ", Confidence: 0.5}},
			"ｶｻﾂﾘｺ", "the page's value stays"},
		{"the surer answer does not parse: the other", []Line{{Text: "カ)ミナトキカク", Confidence: 0.7}, {Text: "1", Confidence: 0.95}},
			"ｶ)ﾐﾅﾄｷｶｸ", "only answers that parse compete"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := Fields{AccountHolder: found("ｶｻﾂﾘｺ", 0.5)}
			Refine(&f, asked, c.got)
			assert.Equal(t, c.want, f.AccountHolder.Value, c.reason)
		})
	}
}

func TestRevoice(t *testing.T) {
	cases := []struct{ crop, page, want string }{
		{"カ)サンワコウキヨウ", "カサツリコ9ギヨウ", "カ)サンワコウギヨウ"},
		{"カ) チユウオウキケン", "949ギyy", "カ) チユウオウギケン"},
		{"ヤマトセイコウ(カ", "YYトtイ19(ヵ", "ヤマトセイコウ(カ"},
		{"カ)ハナヤ", "A)パ9ヤ", "カ)パナヤ"},
		// Too far apart to be the same character: left alone.
		{"キカクカイハツ", "ヤマトセイコウギ", "キカクカイハツ"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, revoice(c.crop, c.page), "%s with %s", c.crop, c.page)
	}
}

// at is a line of words each placed at its own x (40 px a character, 40 high) on page 1.
func at(y int, words ...any) Line {
	l := Line{Confidence: 0.9, Page: 1}
	var texts []string
	for i := 0; i+1 < len(words); i += 2 {
		text, x := words[i].(string), words[i+1].(int)
		b := image.Rect(x, y, x+40*len([]rune(text)), y+40)
		l.Words = append(l.Words, Word{Text: text, Box: b})
		l.Box = l.Box.Union(b)
		texts = append(texts, text)
	}
	l.Text = strings.Join(texts, "  ")
	return l
}

// cropsOf answers the crops Rereads asks of field for lines, as extracted.
func cropsOf(field string, lines []Line) []Reread {
	var out []Reread
	for _, rr := range Rereads(lines, Extract("", lines)) {
		if rr.Field == field {
			out = append(out, rr)
		}
	}
	return out
}

// A branch the page's reading lost from a ruled row (the cell dropped, a wide gap left
// after the bank's name) is read again from that gap; one that was read, or a gap too
// narrow to have held it, asks for nothing.
func TestRereadsTheBranchLostAfterTheBank(t *testing.T) {
	branchCrops := func(lines []Line) []Reread { return cropsOf("branch_name", lines) }
	got := branchCrops([]Line{at(100, "北洋銀行", 100, "当座預金", 800, "5732688", 1100)})
	if assert.Len(t, got, 1) {
		assert.Equal(t, image.Rect(260, 100, 800, 140), got[0].Box, "the gap between the bank and the next word")
		assert.Equal(t, CharsAny, got[0].Chars)
	}
	got = branchCrops([]Line{at(100, "みずほ銀行", 100)})
	if assert.Len(t, got, 1) {
		assert.Equal(t, image.Rect(300, 100, 300+branchWidth*40, 140), got[0].Box, "right of a bank ending its line")
	}
	assert.Empty(t, branchCrops([]Line{at(100, "北洋銀行", 100, "本店営業部", 300, "当座", 560)}), "the branch was read")
	assert.Empty(t, branchCrops([]Line{at(100, "北洋銀行", 100, "当座預金", 340, "5732688", 560)}), "a gap of two characters lost nothing")
	assert.Empty(t, branchCrops([]Line{at(100, "北洋銀行", 100, "当座預金", 800)}[:0]), "no lines")
}

// An account type's bracketed mark OCR could not read before the account number is read
// again from its crop, with the type's characters; a type read asks for nothing.
func TestRereadsTheTypesMarkBeforeTheNumber(t *testing.T) {
	typeCrops := func(lines []Line) []Reread { return cropsOf("account_type", lines) }
	for _, mark := range []string{"(#)", "(MH)", "CF)", "(8)"} {
		got := typeCrops([]Line{at(100, "北洋銀行本店営業部", 100), at(200, "請求合計", 100, mark, 500, "0874346", 700)})
		if assert.Len(t, got, 1, mark) {
			assert.Equal(t, image.Rect(500, 200, 500+40*len([]rune(mark)), 240), got[0].Box, mark)
			assert.Equal(t, CharsType, got[0].Chars)
		}
	}
	assert.Empty(t, typeCrops([]Line{at(100, "北洋銀行", 100, "普通", 300, "0874346", 500)}), "the type was read")
	assert.Empty(t, typeCrops([]Line{at(100, "北洋銀行", 100, "0874346", 500)}), "no mark before the number")
}
