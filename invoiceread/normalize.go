package invoiceread

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// norm brings one line of OCR or PDF text to the form the rules read: full-width
// letters, digits and symbols become ASCII (invoices print ２０２６年, ￥１，２３４ and
// （株）), the ideographic space a space, ㈱ ㈲ their bracketed forms, the yen signs and
// the backslash that Japanese fonts draw as ¥ one ¥, and the dashes people and OCR
// produce one "-". Kana are kept as printed: the holder name needs them.
// Then OCR's letter-for-digit slips inside numbers are repaired (see fixDigits).
func norm(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\u3000', r == '\t', r == '\u00a0':
			r = ' '
		case r == '㈱':
			b.WriteString("(株)")
			continue
		case r == '㈲':
			b.WriteString("(有)")
			continue
		case r == '㈹':
			b.WriteString("(代)")
			continue
		case r == '￥', r == '\\':
			r = '¥'
		case r == '−', r == '‐', r == '‑', r == '‒', r == '–', r == '—', r == '―':
			r = '-'
		case r >= '！' && r <= '～':
			// The full-width ASCII block sits at a fixed offset from ASCII.
			r -= '！' - '!'
		case r == '〔', r == '【':
			r = '('
		case r == '〕', r == '】':
			r = ')'
		}
		b.WriteRune(r)
	}
	s = spacedDigitsRe.ReplaceAllStringFunc(fixDigits(b.String()), removeSpaces)
	return splitGroupRe.ReplaceAllStringFunc(s, removeSpaces)
}

// splitGroupRe finds a group of three digits after a comma that OCR split with a space
// (1,868,1 30): the group is whole again when its parts add up to three digits.
var splitGroupRe = regexp.MustCompile(`,(?:\d \d\d|\d\d \d)\b`)

// spacedDigitsRe finds numbers OCR has read one digit at a time ("1 2 3 4 5 6 7"): three
// or more single digits each one space apart. Columns of a layout are wider apart.
var spacedDigitsRe = regexp.MustCompile(`(?:^|\b)(?:\d ){2,}\d\b`)

// fixDigits repairs the letters OCR reads for digits (O and o for 0; l, I and | for 1)
// when they sit inside a number: a digit on one side and on the other a digit, a
// separator or the end, and no letter on either side, so "TOKYO" and "Vol" stay words.
func fixDigits(s string) string {
	rs := []rune(s)
	changed := false
	isDigit := func(i int) bool { return i >= 0 && i < len(rs) && rs[i] >= '0' && rs[i] <= '9' }
	sep := func(i int) bool {
		if i < 0 || i >= len(rs) {
			return true
		}
		switch rs[i] {
		case ',', '-', '.', ' ', '/', '円', '¥', ':', '(', ')':
			return true
		}
		return isDigit(i)
	}
	for i, r := range rs {
		var d rune
		switch r {
		case 'O', 'o':
			d = '0'
		case 'l', 'I', '|', ']', '[':
			d = '1'
		default:
			continue
		}
		// A thousands comma is as good as a digit on the right: ],868 is 1,868.
		left, right := isDigit(i-1), isDigit(i+1) || (i+1 < len(rs) && rs[i+1] == ',' && isDigit(i+2))
		// A | after a space is a table's ruled line before its value (|2026/11/1), not a 1.
		if r == '|' && !left && (i == 0 || rs[i-1] == ' ') {
			continue
		}
		// Nor is a rule or bracket after a whole group of thousands (¥55,000| closes its
		// cell): a fourth digit there would break the group, and read as one it became
		// an amount of its own (¥55,000 and 1, the 1 taken for the tax).
		if (r == '|' || r == ']' || r == '[') && left && i >= 4 && rs[i-4] == ',' && isDigit(i-2) && isDigit(i-3) {
			continue
		}
		if (left && sep(i+1)) || (right && sep(i-1)) {
			rs[i] = d
			changed = true
		}
	}
	if !changed {
		return s
	}
	return string(rs)
}

// mask blanks the spans of s that re matches, keeping byte offsets, so later rules do not
// read a date or a telephone number as an amount or an account number.
func mask(s string, res ...*regexp.Regexp) string {
	b := []byte(s)
	for _, re := range res {
		for _, m := range re.FindAllStringIndex(s, -1) {
			for i := m[0]; i < m[1]; i++ {
				b[i] = ' '
			}
		}
	}
	return string(b)
}

// phoneRe finds telephone and fax numbers: after a TEL/FAX/電話 mark, or in the
// hyphenated forms Japanese numbers are printed in (03-1234-5678, 0120-123-456,
// 090-1234-5678). They look like account numbers and are never one.
var phoneRe = regexp.MustCompile(`(?i:tel|fax|phone|電話番号|電話|ファックス|ファクス|☎|℡)[\s.:：]*(?:\+81[\s-]?)?\(?\d[\d()\s-]{7,}\d|\(?0\d{1,4}\)?\s?-\s?\d{1,4}\s?-\s?\d{3,4}|\(0\d{1,4}\)\s?\d{1,4}-\d{3,4}`)

// spaced makes a regular expression for a label that also matches it with spaces between
// its characters, as OCR of wide-set headings (ご 請 求 金 額) and vertical text gives.
func spaced(word string) string {
	var parts []string
	for _, r := range word {
		parts = append(parts, regexp.QuoteMeta(string(r)))
	}
	return strings.Join(parts, `\s*`)
}

// alternation joins words longest first, so that 内消費税 wins over 消費税 and
// 請求書発行日 over 発行日 at the same position.
func alternation(words []string) string {
	ws := append([]string(nil), words...)
	sort.SliceStable(ws, func(i, j int) bool { return len([]rune(ws[i])) > len([]rune(ws[j])) })
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = spaced(w)
	}
	return strings.Join(parts, "|")
}

func removeSpaces(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// companyForms are the legal forms printed before or after a company's name, with their
// abbreviations; abbreviations are written out in names we hand on.
var companyForms = []struct{ full, short string }{
	{"株式会社", "(株)"}, {"有限会社", "(有)"}, {"合同会社", "(同)"}, {"合資会社", "(資)"},
	{"合名会社", "(名)"}, {"一般社団法人", "(一社)"}, {"一般財団法人", "(一財)"},
	{"特定非営利活動法人", "(特非)"}, {"医療法人", "(医)"}, {"税理士法人", "(税)"},
}

var companyFormRe = func() *regexp.Regexp {
	var ws []string
	for _, f := range companyForms {
		ws = append(ws, regexp.QuoteMeta(f.full), regexp.QuoteMeta(f.short))
	}
	return regexp.MustCompile(strings.Join(ws, "|") + `|NPO法人|\(株\)|\(有\)`)
}()

// cleanName writes a company name the one way we store it: abbreviations written out
// ((株)サンプル → 株式会社サンプル), no space between the legal form and the name, and
// other runs of spaces as one.
func cleanName(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for _, f := range companyForms {
		s = strings.ReplaceAll(s, f.short, f.full)
	}
	for _, f := range companyForms {
		s = strings.ReplaceAll(s, f.full+" ", f.full)
		s = strings.ReplaceAll(s, " "+f.full, f.full)
	}
	// 株式会社 with its first kanji misread (伯式会社): no other legal form ends so.
	s = misreadKabuRe.ReplaceAllString(s, "${1}株式会社")
	// OCR leaves specks of a rule or a seal at a name's ends as _ | ' % and the like, and
	// a seal's stroke as a small kana (松風商会っ), which no name ends with.
	return strings.TrimRight(strings.Trim(s, " :・,、。_|'\"%`~^*-="), "っゃゅょッャュョ")
}

var misreadKabuRe = regexp.MustCompile(`(^|\s)[^\s株]式会社`)

// nameKey is a name reduced for comparing: legal forms and their abbreviations, spaces
// and punctuation dropped, letters upper case, katakana as is. 株式会社サンプル,
// サンプル(株) and ｻﾝﾌﾟﾙ are not the same string, but the first two give one key.
func nameKey(s string) string {
	s = cleanName(norm(s))
	for _, f := range companyForms {
		s = strings.ReplaceAll(s, f.full, "")
	}
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r), strings.ContainsRune("・.,、。()「」-ー", r):
			return -1
		}
		return unicode.ToUpper(r)
	}, s)
}

var kanjiDigits = []rune("〇一二三四五六七八九")

// kanjiNumber writes digits in kanji numerals, as ゆうちょ names its branches (018 → 〇一八).
func kanjiNumber(digits string) string {
	var b strings.Builder
	for _, r := range digits {
		if r >= '0' && r <= '9' {
			b.WriteRune(kanjiDigits[r-'0'])
		}
	}
	return b.String()
}

// kanjiSlips are what OCR reads for kanji numerals: the letter or digit O, a circle for
// 〇; the long mark or a dash for 一; 人 and 入 for 八.
var kanjiSlips = map[rune]rune{'O': '〇', 'o': '〇', '0': '〇', '○': '〇', '◯': '〇', 'ー': '一', '-': '一', '―': '一', '人': '八', '入': '八'}

// kanjiNumberRead is s, three kanji numerals as ゆうちょ names a branch (〇一八), with
// OCR's slips put right, when at least two of the three were read as numerals; "" when s
// is not one.
func kanjiNumberRead(s string) string {
	rs := []rune(s)
	if len(rs) != 3 {
		return ""
	}
	real := 0
	for i, r := range rs {
		switch {
		case slices.Contains(kanjiDigits, r):
			real++
		case kanjiSlips[r] != 0:
			rs[i] = kanjiSlips[r]
		default:
			return ""
		}
	}
	if real < 2 {
		return ""
	}
	return string(rs)
}

// digitsOfKanji reads kanji numerals digit by digit (〇一八 → 018); "" for anything else.
func digitsOfKanji(s string) string {
	var b strings.Builder
	for _, r := range s {
		i := strings.IndexRune(string(kanjiDigits), r)
		if i < 0 {
			if r == '零' {
				b.WriteByte('0')
				continue
			}
			return ""
		}
		b.WriteByte(byte('0' + len([]rune(string(kanjiDigits)[:i]))))
	}
	return b.String()
}
