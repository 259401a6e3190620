package invoiceread

import (
	"cmp"
	"fmt"
	"image"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/banks"
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
			// 口座名義 is four characters from x = 100; its value starts after them and goes
			// on past its line's end (580: where the reading gave up) towards the page's
			// lines' right edge (the bank's line ends at 1060), six line heights at most.
			[]Reread{{Field: "account_holder", Page: 1, Box: image.Rect(260, 200, 820, 240), Chars: CharsKana, Read: " ?? 11"},
				{Field: "account_holder", Page: 1, Box: image.Rect(260, 200, 820, 240), Chars: CharsKana, Widen: holderWiden, HalfWidth: true, Read: " ?? 11"}}},
		{"a holder's crop stops at what stands beside it on its row", []Line{placed("口座名義 ?? 1l", 200), placedAt("消費税 ¥1,000", 700, 200), placed("みずほ銀行 渋谷支店 普通 1234567", 100)},
			[]Reread{{Field: "account_holder", Page: 1, Box: image.Rect(260, 200, 700, 240), Chars: CharsKana, Read: " ?? 11"},
				{Field: "account_holder", Page: 1, Box: image.Rect(260, 200, 700, 240), Chars: CharsKana, Widen: holderWiden, HalfWidth: true, Read: " ?? 11"}}},
		{"the value ends at the next label", []Line{placed("名義 ||| 消費税 ¥1,000", 300)},
			[]Reread{{Field: "account_holder", Page: 1, Box: image.Rect(180, 300, 380, 340), Chars: CharsKana, Read: " ||| "},
				{Field: "account_holder", Page: 1, Box: image.Rect(180, 300, 380, 340), Chars: CharsKana, Widen: holderWiden, HalfWidth: true, Read: " ||| "}}},
		{"half-width kana read as letters and digits: asked over the holder found", []Line{placed("口座名義 カサツリコ9ギヨウ", 200)},
			[]Reread{{Field: "account_holder", Page: 1, Box: image.Rect(260, 200, 700, 240), Chars: CharsKana, Over: true, Read: " カサツリコ9ギヨウ"},
				{Field: "account_holder", Page: 1, Box: image.Rect(260, 200, 700, 240), Chars: CharsKana, Widen: holderWiden, HalfWidth: true, Over: true, Read: " カサツリコ9ギヨウ"}}},
		{"a holder whose mark's kana follows its bracket again: asked over it", []Line{placed("口座名義 カ)カチユウオウギケン", 200)},
			[]Reread{{Field: "account_holder", Page: 1, Box: image.Rect(260, 200, 780, 240), Chars: CharsKana, Over: true, Read: " カ)カチユウオウギケン"},
				{Field: "account_holder", Page: 1, Box: image.Rect(260, 200, 780, 240), Chars: CharsKana, Widen: holderWiden, HalfWidth: true, Over: true, Read: " カ)カチユウオウギケン"}}},
		{"a holder read clean is not asked for", []Line{placed("口座名義 カ)サンワコウギヨウ", 200)}, nil},
		{"a legal-form mark read as letters is no sign of half-width kana", []Line{placed("口座名義 hh) チユウオウギケン", 200)}, nil},
		{"a label alone over its value: the line below", []Line{placed("支払期日", 100), placed("2O2G年l2月", 150)},
			[]Reread{{Field: "due_date", Page: 1, Box: image.Rect(100, 150, 420, 190), Chars: CharsDate, Read: "202G年l2月"}}},
		{"a found field is not asked for", []Line{placed("支払期日 2026年12月31日", 100)}, nil},
		// A grid's cell walls either side of the date: the crop from a quarter of a
		// height before its era's letter to half a height past its last digit.
		{"a date between a grid's walls: the date alone", []Line{placed("請求日 | -R8.102 |", 100)},
			[]Reread{{Field: "invoice_date", Page: 1, Box: image.Rect(450, 100, 720, 140), Chars: CharsDate, Read: " | -R8.102 |"}}},
		// A ledger's header row goes on past the date to the next cell: the crop ends
		// with the date's characters.
		{"a date in a ledger's row: the date alone", []Line{placed("支払期限 20261300 ーー anes |16137858424341", 100)},
			[]Reread{{Field: "due_date", Page: 1, Box: image.Rect(260, 100, 680, 140), Chars: CharsDate, Read: " 20261300 ーー anes |16137858424341"}}},
		{"a date with a letter read for a digit: the date still", []Line{placed("お振込期日 : 2Z025年08月31日", 100)},
			[]Reread{{Field: "due_date", Page: 1, Box: image.Rect(410, 100, 960, 140), Chars: CharsDate, Read: " : 2Z025年08月31日"}}},
		// Its label lost and one digit off its check digit: the T and its digits, the
		// crop half their height, centred (the crop's padding takes it to their band).
		{"a registration number failing its check digit", []Line{placed("(Beam 2025.07.31 OO Raia T2134943984656 BO", 100)},
			[]Reread{{Field: "registration_number", Page: 1, Box: image.Rect(1160, 110, 1840, 130), Chars: CharsTNo, Read: " T2134943984656 "}}},
		{"お振込期日 misread (お畠入期日), its date unreadable", []Line{placed("お畠入期日。 : 2026/77/20", 100)},
			[]Reread{{Field: "due_date", Page: 1, Box: image.Rect(450, 100, 940, 140), Chars: CharsDate, Read: "。 : 2026/77/20"}}},
		{"no label, nothing to place", []Line{placed("ホクト ?? 1l", 100)}, nil},
		{"a text layer has no boxes", []Line{{Text: "口座名義 ?? 1l", Confidence: 1}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := Extract("", c.lines)
			assert.Equal(t, c.want, fieldCrops(Rereads(c.lines, f)))
		})
	}
}

// fieldCrops are the crops of single fields among asked: the bank's block, asked when
// the account is not whole, has its own test (TestTheBankBlockIsReadAgain).
func fieldCrops(asked []Reread) []Reread {
	var out []Reread
	for _, r := range asked {
		if !r.Block {
			out = append(out, r)
		}
	}
	return out
}

func TestRereadsAreBounded(t *testing.T) {
	lines := []Line{placed("口座名義 ??", 100), placed("支払期日 ??", 150), placed("口座番号 ??", 200),
		placed("ご請求金額 ??", 250), placed("支店名 ??", 300), placed("登録番号 ??", 350), placed("請求日 ??", 400)}
	rr := Rereads(lines, Extract("", lines))
	require.Len(t, rr, maxRereads+1, "the fields' crops, then the bank's block")
	assert.Equal(t, "account_holder", rr[0].Field, "the holder, the field read worst, first")
	assert.Equal(t, "account", rr[maxRereads].Field)
	assert.True(t, rr[maxRereads].Block)
}

// A ledger's bank table read as noise loses the whole account, labels and all: the block
// from the first line naming part of it (the heading) is read again as lines, and its
// answer fills the fields the page's reading and the other crops did not.
func TestTheBankBlockIsReadAgain(t *testing.T) {
	lines := []Line{placed("ご請求金額 ¥114,510", 100), placed("お振込み先", 200), placed("トーeae L| | a.oe| ea|", 250),
		placed("SC AWEUB te 5862799 0 .", 300), placed("備考", 500)}
	f := Extract("", lines)
	require.False(t, f.BankName.Found)
	asked := Rereads(lines, f)
	require.Len(t, asked, 1)
	// From the heading's left less two heights to the page's right, five heights down.
	assert.Equal(t, Reread{Field: "account", Page: 1, Box: image.Rect(20, 180, 1220, 400), Block: true,
		Read: "お振込み先\nトーeae L| | a.oe| ea|\nSC AWEUB te 5862799 0 ."}, asked[0])

	// The answer: the table's rows as lines. The bank's and number's fields are filled,
	// the holder read by the crop before it is kept, a bank the zengin list does not know
	// is not taken.
	before := Fields{AccountHolder: found("ｶ)ｼﾗｶﾊﾞﾌｱ-ﾑ", 0.8)}
	after := before
	Refine(&after, asked, []Line{{Text: "お振込み先\n金融機関名 支店名 種別 口座番号\n京都銀行 本店営業部 普通 5862799 ﾅﾝﾄｶ", Confidence: 0.6}})
	assert.Equal(t, "京都銀行", after.BankName.Value)
	assert.Equal(t, "本店営業部", after.BranchName.Value)
	assert.Equal(t, pay.AccountOrdinary, after.AccountType.Value)
	assert.Equal(t, "5862799", after.AccountNumber.Value)
	assert.Equal(t, before.AccountHolder, after.AccountHolder, "found before: kept")
	assert.Less(t, after.BankName.Confidence, 0.6, "the rule's certainty on the crop's")
	unknown := Fields{}
	Refine(&unknown, asked, []Line{{Text: "吉孝銀行 本店営業部 5862799", Confidence: 0.6}})
	assert.False(t, unknown.BankName.Found, "no such bank")
	assert.Equal(t, "5862799", unknown.AccountNumber.Value)
	assert.Equal(t, "本店営業部", unknown.BranchName.Value)
	assert.False(t, unknown.BranchCode.Found, "the number's first digits are no branch code")

	// A letter's one line of account, its bank and labels read as noise: the type's
	// bracket and the number place the block.
	letter := []Line{placed("合計 760,100", 100), placed("A, UAT LARENiT ASE (PF) 3500274", 200),
		placed("MHA マツカゼショウカイ (カ", 250), placed("以上", 300)}
	asked = Rereads(letter, Extract("", letter))
	require.NotEmpty(t, asked)
	last := asked[len(asked)-1]
	assert.True(t, last.Block)
	assert.Equal(t, image.Rect(20, 180, 1540, 400), last.Box, "from the line of the number down")

	// A photo's heading with its first kanji misread (お折込み先), the table under it noise:
	// what is left of the heading places the block; a sentence with 込み in it does not.
	photo := []Line{placed("ご請求金額 ¥1,087,790", 100), placed("お折込み先", 200), placed("Sans ct) 。 | Tt nes |", 250),
		placed("Reta ADR RB a 5862799 770が17-4 H", 300), placed("備考", 500)}
	asked = Rereads(photo, Extract("", photo))
	require.NotEmpty(t, asked)
	assert.Equal(t, Reread{Field: "account", Page: 1, Box: image.Rect(20, 180, 1620, 400), Block: true,
		Read: "お折込み先\nSans ct) 。 | Tt nes |\nReta ADR RB a 5862799 770が17-4 H"}, asked[len(asked)-1])
	for _, heading := range []string{"お摂込先", "振込先:", "お振り込み先"} {
		assert.True(t, namesAccount(prepare("", []Line{placed(heading, 100)})[0]), heading)
	}
	assert.False(t, namesAccount(prepare("", []Line{placed("期日までにお振込みください", 100)})[0]))

	// A whole account asks for no block.
	whole := []Line{placed("お振込み先 京都銀行 本店営業部 普通 5862799", 200), placed("口座名義 ｶ)ｼﾗｶﾊﾞﾌｱ-ﾑ", 250)}
	g := Extract("", whole)
	require.True(t, accountRead(g), "%+v", g)
	assert.Empty(t, Rereads(whole, g))
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
		{"a due date whose crop lost a dot", Fields{}, ask("due_date"), "2026.1130", func(t *testing.T, f Fields) {
			assert.Equal(t, "2026-11-30", f.DueDate.Value)
		}},
		{"eight digits that are no date", Fields{}, ask("due_date"), "20261300", func(t *testing.T, f Fields) {
			assert.False(t, f.DueDate.Found)
		}},
		// R8.10.2 in a grid read without its dots: 1月02日 or 10月2日; the page's other
		// date, guessed for the invoice date, is a month after the second, ten after the
		// first. The second is the invoice date and the guess the due date.
		{"a 和暦 invoice date without its dots, by the other date", Fields{InvoiceDate: found("2026-11-01", 0.3)},
			[]Reread{{Field: "invoice_date", Page: 1, Box: image.Rect(0, 0, 10, 10), Over: true}}, "R8102",
			func(t *testing.T, f Fields) {
				assert.Equal(t, "2026-10-02", f.InvoiceDate.Value)
				assert.Equal(t, "2026-11-01", f.DueDate.Value)
			}},
		{"a dotless 和暦 date with no other date to choose by", Fields{}, ask("invoice_date"), "R8102", func(t *testing.T, f Fields) {
			assert.False(t, f.InvoiceDate.Found)
		}},
		{"a dotless 和暦 due date after the invoice date", Fields{InvoiceDate: found("2026-11-30", 0.8)}, ask("due_date"), "R81231",
			func(t *testing.T, f Fields) {
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
		page   float64 // the page's value's confidence (0: 0.5)
	}{
		{"the widened crop is surer", []Line{{Text: "カコギヨリ", Confidence: 0.27}, {Text: "カ)サンワコウキ~ヨウ", Confidence: 0.82}},
			"ｶ)ｻﾝﾜｺｳｷﾞﾖｳ", "half-width kana read widened", 0},
		{"the crop as it is is surer", []Line{{Text: "カ)ミナトキカク", Confidence: 0.80}, {Text: "カ)ナトキカン", Confidence: 0.60}},
			"ｶ)ﾐﾅﾄｷｶｸ", "full-width kana read as they are", 0},
		{"neither sure enough to replace the page's", []Line{{Text: "カコギヨリ", Confidence: 0.3}, {Text: "ナトキ", Confidence: 0.5}},
			"ｶｻﾂﾘｺ", "the page's value stays", 0},
		{"an unscored answer loses to a scored one", []Line{{Text: "ーサビス", Confidence: 0}, {Text: "カ  )ツバサジヨウホウサ  ービス", Confidence: 0.62}},
			"ｶ)ﾂﾊﾞｻｼﾞﾖｳﾎｳｻ-ﾋﾞｽ", "tesseract scores 0 when the character set took its first choice away: the glyphs looked like no kana", 0},
		{"two unscored answers: the first", []Line{{Text: "カ)ミナトキカク", Confidence: 0}, {Text: "カ)ナトキカン", Confidence: 0}},
			"ｶ)ﾐﾅﾄｷｶｸ", "each stands at cropConfidence, and the later is not surer", 0},
		{"the surer answer does not parse: the other", []Line{{Text: "カ)ミナトキカク", Confidence: 0.7}, {Text: "1", Confidence: 0.95}},
			"ｶ)ﾐﾅﾄｷｶｸ", "only answers that parse compete", 0},
		{"a page's value less sure than a guess loses to a surer answer", []Line{{Text: "デザイイジゲ", Confidence: 0.31}, {Text: "カ )カデザインジムショ", Confidence: 0.35}},
			"ｶ)ｶﾃﾞｻﾞｲﾝｼﾞﾑｼﾖ", "a row of noise read ﾃﾞｻﾞｲｸﾞ at 0.27 (unsureConfidence)", 0.27},
		{"a page's value less sure than a guess and than the answers stays", []Line{{Text: "カコギヨリ", Confidence: 0.2}, {Text: "ナトキ", Confidence: 0.25}},
			"ｶｻﾂﾘｺ", "no answer is surer than the page's", 0.27},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := Fields{AccountHolder: found("ｶｻﾂﾘｺ", cmp.Or(c.page, 0.5))}
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

// A holdout ledger's bank table as tesseract placed it (a 300 dpi scan): the header row
// split into two lines (受取人 sits higher in its taller cell), the values in the row
// below, left-aligned in cells whose labels are centred, the account type's (普) read
// as ")" and the holder's half-width kana as がが77-ム.
func ledgerBankTable(values ...Word) []Line {
	w := func(s string, x0, y0, x1, y1 int) Word { return Word{Text: s, Box: image.Rect(x0, y0, x1, y1)} }
	header := []Word{w("金融", 280, 2125, 366, 2157), w("機関", 387, 2121, 430, 2166), w("名", 429, 2125, 451, 2157),
		w("支店", 682, 2125, 781, 2157), w("名", 760, 2121, 783, 2166), w("預金", 957, 2125, 1026, 2156),
		w("種目", 1044, 2125, 1092, 2157), w("口座", 1222, 2125, 1286, 2157), w("番号", 1296, 2125, 1357, 2157)}
	if values == nil {
		values = []Word{w("北洋", 197, 2204, 268, 2238), w("銀行", 280, 2204, 342, 2238), w("本", 575, 2205, 608, 2238),
			w("店", 615, 2204, 645, 2238), w("営業", 660, 2204, 720, 2238), w("部", 730, 2204, 758, 2238),
			w(")", 930, 2204, 989, 2243), w("4540592", 1165, 2207, 1323, 2236), w("が", 1448, 2205, 1497, 2243),
			w("が", 1504, 2204, 1564, 2236), w("77-", 1576, 2207, 1639, 2236), w("ム", 1620, 2200, 1640, 2248)}
	}
	line := func(ws []Word) Line {
		// Words apart by less than a character are one word of the text (北洋銀行).
		l := Line{Confidence: 0.85, Page: 1, Words: ws}
		for i, x := range ws {
			if i > 0 && x.Box.Min.X-ws[i-1].Box.Max.X >= 40 {
				l.Text += "  "
			}
			l.Text += x.Text
			l.Box = l.Box.Union(x.Box)
		}
		return l
	}
	return []Line{
		line([]Word{w("お振込み先", 182, 2041, 387, 2092)}),
		line([]Word{w("受取", 1815, 2125, 1917, 2157), w("人", 1888, 2093, 1921, 2170)}),
		line(header),
		line(values),
		line([]Word{w("備考", 202, 2364, 269, 2396)}),
	}
}

// Each label of a header row places the cell below it: from the end of the values to its
// left to the start of those to its right, never past the neighbouring labels.
func TestHeaderCells(t *testing.T) {
	lines := ledgerBankTable()
	ls := prepare("", lines)
	for _, c := range []struct {
		field string
		box   image.Rectangle
		read  string
	}{
		// The holder's cell is the row's last: its crop goes on past where the reading
		// gave up (ム ends at 1640) by holderReach of its words' height (31), as tall as
		// most of them (ム's box takes in the cell's rule) and a quarter of that round.
		{"holder", image.Rect(1323, 2200, 1640+holderReach*31, 2236+31/4), "が が 77- ム"},
		{"type", image.Rect(758, 2200, 1165, 2248), ")"},
		{"account_number", image.Rect(989, 2200, 1448, 2248), "4540592"},
		{"branch", image.Rect(342, 2200, 930, 2248), "本 店 営業 部"},
		{"bank", image.Rect(197, 2200, 575, 2248), "北洋 銀行"},
	} {
		r, read, ok := headerCell(ls, lines, c.field)
		require.True(t, ok, c.field)
		assert.Equal(t, c.box, r.Box, c.field)
		assert.Equal(t, c.read, read, c.field)
	}

	// The type's cell lost altogether: the gap between the branch and the number.
	w := lines[3].Words
	lost := ledgerBankTable(append(append([]Word{}, w[:6]...), w[7:]...)...)
	r, read, ok := headerCell(prepare("", lost), lost, "type")
	require.True(t, ok)
	assert.Equal(t, image.Rect(758, 2200, 1165, 2248), r.Box)
	assert.Empty(t, read)

	// What Rereads asks of the page: the holder (as it is and widened) and the type, not
	// the fields the page's reading found.
	f := Extract("", lines)
	require.True(t, f.AccountNumber.Found)
	require.False(t, f.AccountType.Found)
	var got []string
	for _, rr := range Rereads(lines, f) {
		got = append(got, fmt.Sprintf("%s %v", rr.Field, rr.Box))
	}
	assert.Equal(t, []string{"account_holder (1323,2200)-(1826,2243)", "account_holder (1323,2200)-(1826,2243)",
		"account_type (758,2200)-(1165,2248)", "account (80,2016)-(1921,2296)"}, got, "and the bank's block, from its heading")

	// A label alone on its line (no other label in its row) stays cropOf's.
	solo := []Line{placed("支払期日", 100), placed("2O2G年l2月", 150)}
	_, _, ok = headerCell(prepare("", solo), solo, "due")
	assert.False(t, ok)
}

// A ledger's holder has no label of its own on its row: it is placed after the account
// number, once the number is known, by the page's reading or by the bank's block (then
// asked after the first crops, NextRereads).
func TestAHolderIsPlacedAfterTheAccountNumber(t *testing.T) {
	lines := []Line{placed("お振込み先", 100), placed("京都銀行 本店営業部 普通 5862799 HYITHN' アム", 150),
		placed("備考", 300)}
	f := Extract("", lines)
	require.Equal(t, "5862799", f.AccountNumber.Value)
	f.AccountHolder = Field[string]{} // HYITHN' アム is no holder
	// 京都銀行 本店営業部 普通 5862799 is 18 characters and three gaps from x = 100.
	box := image.Rect(1060, 150, 1580, 190)
	assert.Equal(t, []Reread{{Field: "account_holder", Page: 1, Box: box, Chars: CharsKana, Read: " HYITHN' アム"},
		{Field: "account_holder", Page: 1, Box: box, Chars: CharsKana, Widen: holderWiden, HalfWidth: true, Read: " HYITHN' アム"}},
		fieldCrops(Rereads(lines, f)))

	// A holder is two crops: with room for one, none.
	assert.Len(t, neighbourRereads(prepare("", lines), lines, f, nil, 2), 2)
	assert.Empty(t, neighbourRereads(prepare("", lines), lines, f, nil, 1))

	// The number read only by the block: the holder's crops come next, once.
	g := Extract("", lines)
	g.AccountHolder, g.AccountNumber = Field[string]{}, Field[string]{}
	first := Rereads(lines, g)
	require.Empty(t, fieldCrops(first))
	g.AccountNumber = found("5862799", 0.6)
	next := NextRereads(lines, g, first)
	require.Len(t, next, 2)
	assert.Equal(t, box, next[0].Box)
	assert.Empty(t, NextRereads(lines, g, append(first, next...)), "not asked twice")

	// A number ending its line (the holder's cell lost): as far right as the page goes.
	lost := []Line{placed("京都銀行 本店営業部 普通 5862799", 150),
		placed("下記のとおりご請求申し上げます。期日までにお振込みくださいますようお願いします", 400)}
	h := Extract("", lost)
	rr := fieldCrops(Rereads(lost, h))
	require.NotEmpty(t, rr)
	assert.Equal(t, image.Rect(1060, 150, 1660, 190), rr[0].Box)
}

func TestGuessTheTypeOfAnAccountWhoseNumberWasRead(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       Fields
		want     Field[pay.AccountType]
		wantConf float64 // at most
	}{
		{"a number without its type: 普通, unsure",
			Fields{AccountNumber: found("0874346", 0.42)},
			Field[pay.AccountType]{Value: pay.AccountOrdinary, Found: true, Confidence: 0.11}, 0.25},
		{"a type read stays",
			Fields{AccountNumber: found("5732688", 0.9), AccountType: found(pay.AccountCurrent, 0.8)},
			found(pay.AccountCurrent, 0.8), 1},
		{"no number, no type",
			Fields{}, Field[pay.AccountType]{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.in
			Guess(&f)
			assert.Equal(t, tc.want, f.AccountType)
			assert.LessOrEqual(t, f.AccountType.Confidence, tc.wantConf, "a guess is said unsure (低)")
		})
	}
}

// A date the rules guessed (the page's first date, its label lost: お支払期限 read BRAM)
// is asked for again from the crop of a label whose value the page could not read
// (請求日 -R8.102); the labelled date replaces the guess, and the guess, later, is the due
// date no label gave.
func TestAGuessedDateIsReadAgainFromItsLabel(t *testing.T) {
	lines := []Line{placed("請求日 -R8.102 |", 100), placed("請求番号 sl-202607-984.", 150), placed("BRAM |2026/11/1 |", 200)}
	f := Extract("", lines)
	require.True(t, f.InvoiceDate.Found)
	require.Equal(t, "2026-11-01", f.InvoiceDate.Value)
	require.Less(t, f.InvoiceDate.Confidence, sureGuess)
	require.False(t, f.DueDate.Found)
	var asked []Reread
	for _, r := range Rereads(lines, f) {
		if r.Field == "invoice_date" {
			asked = append(asked, r)
		}
	}
	require.Len(t, asked, 1)
	assert.True(t, asked[0].Over)
	Refine(&f, asked, []Line{{Text: "R8.10.2", Confidence: 0.8}})
	assert.Equal(t, "2026-10-02", f.InvoiceDate.Value)
	assert.Equal(t, "2026-11-01", f.DueDate.Value, "the guess, later, is the due date")
	assert.Less(t, f.DueDate.Confidence, sureGuess)

	// A labelled date is not asked for again.
	sure := []Line{placed("請求日 2026/10/2", 100)}
	for _, r := range Rereads(sure, Extract("", sure)) {
		assert.NotEqual(t, "invoice_date", r.Field)
	}
}

// A date's crop is as tall as the words there mostly are: one word's box taking in a
// ledger cell's rules (2026 from the row's top to its bottom) does not make it the row.
func TestWordsBand(t *testing.T) {
	l := Line{Words: []Word{
		{Text: "期限", Box: image.Rect(360, 518, 500, 609)},
		{Text: "2026", Box: image.Rect(553, 503, 740, 619)},
		{Text: "130", Box: image.Rect(746, 517, 904, 578)},
		{Text: "0", Box: image.Rect(938, 513, 970, 589)},
	}}
	top, bottom, ok := wordsBand(l, 540, 980)
	assert.True(t, ok)
	assert.Equal(t, []int{513, 589}, []int{top, bottom})
	_, _, ok = wordsBand(l, 1000, 1200)
	assert.False(t, ok, "no words there")
}

func TestDotlessEraDates(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"R8102", []string{"2026-01-02", "2026-10-02"}},
		{"R8.102", []string{"2026-01-02", "2026-10-02"}},
		{"R81231", []string{"2026-12-31"}},
		{"令和7715", []string{"2025-07-15"}},
		{"R8", nil},
		{"R0102", nil},
		{"2026102", nil},
	} {
		assert.Equal(t, c.want, dotlessEraDates(c.in), c.in)
	}
}

// A branch the bank has none of (横浜 read 槍表 on a photo) is read again from its crop,
// over the page's reading, and a crop's branch replaces it only when the zengin list has
// that branch at the bank: names must agree with the list.
func TestABranchTheBankHasNoneOfIsReadAgain(t *testing.T) {
	if !banks.Available() {
		t.Fatal("the zengin data is missing: task assets")
	}
	lines := []Line{placed("みずほ銀行 槍表支店 普通 1234567", 100), placed("口座名義 ｶ)ｻﾝﾌﾟﾙ", 150)}
	f := Extract("", lines)
	require.Equal(t, "槍表", f.BranchName.Value)
	var asked []Reread
	for _, r := range Rereads(lines, f) {
		if r.Field == "branch_name" {
			asked = append(asked, r)
		}
	}
	require.Len(t, asked, 1, "the branch is asked again")
	assert.True(t, asked[0].Over, "over the branch read")
	// 槍表支店 is four characters from x = 380 (みずほ銀行's five and a gap before it).
	assert.Equal(t, image.Rect(370, 100, 550, 140), asked[0].Box, "the branch's words and their kind")

	shibuya := []Line{placed("みずほ銀行 渋谷支店 普通 1234567", 100), placed("口座名義 ｶ)ｻﾝﾌﾟﾙ", 150)}
	known := Extract("", shibuya)
	require.Equal(t, "渋谷", known.BranchName.Value)
	assert.False(t, slices.ContainsFunc(Rereads(shibuya, known), func(r Reread) bool { return r.Field == "branch_name" }), "a branch the bank has is not asked for")

	cases := []struct {
		name string
		got  Line
		want string
	}{
		{"a branch of the bank", Line{Text: "横浜支店", Confidence: 0.8}, "横浜"},
		{"a branch the bank has none of either", Line{Text: "槍浜支店", Confidence: 0.9}, "槍表"},
		{"the bank's branch, read unsure", Line{Text: "横浜支店", Confidence: 0.4}, "槍表"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := f
			Refine(&g, asked, []Line{c.got})
			assert.Equal(t, c.want, g.BranchName.Value)
		})
	}
}

// A holder's crop is cut to its words: as tall as most of them (a word read from noise
// takes in the row's rules), as far as they run on (a speck at the page's edge is not
// the holder's), and on past where the reading gave up by holderReach of their heights.
// In a header row's cell, a word of kanji or a long number is another column's.
func TestAHoldersCropIsItsWords(t *testing.T) {
	w := func(s string, x0, y0, x1, y1 int) Word { return Word{Text: s, Box: image.Rect(x0, y0, x1, y1)} }
	line := func(ws ...Word) Line {
		l := Line{Confidence: 0.6, Page: 1, Words: ws}
		for i, x := range ws {
			if i > 0 {
				l.Text += "  "
			}
			l.Text += x.Text
			l.Box = l.Box.Union(x.Box)
		}
		return l
	}
	// A fax's ledger: the header row read 銀行名 and 名義人 alone, the row of values as a
	// line as tall as three of its words (tilted), the holder (ｶ)ﾜｶﾊﾞﾃﾞｻﾞｲﾝｼﾞﾑｼﾖ) as noise.
	header := line(w("銀行名", 330, 2091, 430, 2130), w("名義人", 1840, 2095, 1943, 2140))
	values := line(w("北洋銀行", 287, 2157, 426, 2220), w("本店営業部", 649, 2185, 827, 2221), w("当座預金", 992, 2164, 1178, 2229),
		w("5732688", 1217, 2188, 1369, 2219), w("Dua", 1469, 2156, 1615, 2257), w("デザ", 1593, 2158, 1655, 2218),
		w("イム", 1666, 2153, 1733, 2217), w("3", 1737, 2189, 1787, 2216))
	lines := []Line{line(w("御振込先", 280, 2020, 420, 2060)), header, values, line(w("備考", 290, 2400, 360, 2440))}
	r, read, ok := headerCell(prepare("", lines), lines, "holder")
	require.True(t, ok)
	// From the number's end; the words' tops and bottoms' medians 2158 and 2217 (Dua's
	// box is the row's), a quarter of their 59 round, within the row; on past 3 by six
	// times 59, but half a height short of where the page's lines end (1943).
	assert.Equal(t, image.Rect(1369, 2153, 1943-59/2, 2217+59/4), r.Box)
	assert.Equal(t, "Dua デザ イム 3", read)

	// After the account number, no label: a speck at the page's edge is not the holder's.
	speck := []Line{line(w("京都銀行", 200, 2620, 400, 2660), w("5862799", 900, 2625, 1050, 2660),
		w("770が17-4", 1100, 2630, 1300, 2660), w("H", 2790, 2620, 2828, 2732))}
	box, ok := holderWords(speck[0], 1050, rowRight(speck, speck[0]))
	require.True(t, ok)
	// 770が17-4 alone, 30 high: to 1300 + 6×30, a quarter of 30 above and below.
	assert.Equal(t, image.Rect(1050, 2630-30/4, 1300+holderReach*30, 2660+30/4), box)

	// Too narrow for a holder (ｶ)ﾔﾏﾀﾞ is three heights): none.
	_, ok = holderWords(speck[0], 1050, 1100)
	assert.False(t, ok)
}

// A holder the page's reading found unsure and without its label (the kana after the
// number, from a row read as noise) is asked again after the number, over what was read.
func TestAnUnsureHolderIsReadAgainAfterTheNumber(t *testing.T) {
	lines := []Line{placed("お振込み先", 100), placed("京都銀行 本店営業部 普通 5862799 デザイグhI", 150), placed("備考", 300)}
	f := Extract("", lines)
	require.Equal(t, "5862799", f.AccountNumber.Value)
	f.AccountHolder = found("ﾃﾞｻﾞｲｸﾞ", 0.27)
	crops := fieldCrops(Rereads(lines, f))
	require.Len(t, crops, 2)
	for _, c := range crops {
		assert.Equal(t, "account_holder", c.Field)
		assert.True(t, c.Over, "over the page's reading")
	}
	// Sure enough (a guess's certainty), it is not asked again.
	f.AccountHolder.Confidence = sureGuess
	assert.Empty(t, fieldCrops(Rereads(lines, f)))
}

func TestMayHoldKana(t *testing.T) {
	for word, want := range map[string]bool{
		"Dua": true, "デザ": true, "力)ﾜｶﾊﾞ": true, // one kanji: カ read 力
		"3": true, "2025": true, // a digit or four: a kana read as digits
		"本店営業部": false, "当座預金": false, "5732688": false, "”5732688": false,
	} {
		assert.Equal(t, want, mayHoldKana(word), word)
	}
}

// A page's holder read from a label's value with digits among its kana (口座名義
// :7サッギョ9 on a clean image, taken as ｻﾂｷﾞﾖ at 0.74) is no surer than a guess: a scored
// crop as sure as a guess replaces it, though under overConfidence. Read cleanly, the
// same answer does not.
func TestRefineTakesAnAnswerOverAMisreadHolder(t *testing.T) {
	got := []Line{{Text: "ビサッギョウ", Confidence: 0.32}, {Text: "カ) アオバサンギヨウ", Confidence: 0.58}}
	for _, c := range []struct {
		read, want string
	}{
		{" :7サッギョ9  ", "ｶ)ｱｵﾊﾞｻﾝｷﾞﾖｳ"},
		{" : サツキギヨ  ", "ｻﾂｷﾞﾖ"},
	} {
		asked := []Reread{{Field: "account_holder", Over: true, Read: c.read}, {Field: "account_holder", Widen: holderWiden, Over: true, Read: c.read}}
		f := Fields{AccountHolder: found("ｻﾂｷﾞﾖ", 0.74)}
		Refine(&f, asked, got)
		assert.Equal(t, c.want, f.AccountHolder.Value, "page read %q", c.read)
	}
}
