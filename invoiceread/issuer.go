package invoiceread

import (
	"image"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	unorm "golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"

	"cardpay/pay"
)

// The issuer's name is where an invoice stamps its seal (角印): the name read on the page is
// the one field most often wrong on a scan (株式会社ひかeel, 株式会社中, (none) under the
// seal). Rereads asks for the issuer's block again — the name over its address, the
// seal's grey dropped, read as a block — and these rules choose between the two readings.

// issuerPlace places the issuer's block: its address (the postal code nearest the
// registration number) and the two and a half body lines above it, from a line's height
// left of the address to one right of its column's end — where a company prints its name
// over its address and stamps its seal. The page's reading there is answered too.
func issuerPlace(ls []line, src []Line) (Reread, string, bool) {
	reg, anchor := regLine(ls), -1
	var at []int
	for i, ln := range ls {
		m := postalRe.FindStringSubmatchIndex(ln.text)
		if m == nil || src[ln.src].Box.Empty() || phoneBeforeRe.MatchString(ln.text[:m[2]]) {
			continue
		}
		if anchor < 0 || reg < 0 || abs(i-reg) < abs(anchor-reg) {
			anchor, at = i, m
		}
	}
	if anchor < 0 {
		return Reread{}, "", false
	}
	a, aln := src[ls[anchor].src], ls[anchor]
	// The address's column: from its postal code to the end of its chunk (a row OCR
	// joined across the page goes on with another column's text).
	end := len(aln.text)
	if k := chunkSplit.FindStringIndex(aln.text[at[3]:]); k != nil {
		end = at[3] + k[0]
	}
	x0, x1 := xAt(aln, a, at[2]), xAt(aln, a, end)
	// The address's own words: a row joined with a larger line (ご請求金額 ¥605,000) is
	// taller than the address, and so is a word the seal ran into.
	col := wordsIn(a, x0, x1)
	if col.Empty() {
		col = a.Box
	}
	h := wordHeight(src)
	// The name and the address under it, read as a block: the line before the address's
	// is the name (Refine), wherever the seal's ink made the reading put the lines apart.
	box := image.Rect(min(x0, col.Min.X)-h, col.Min.Y-5*h/2, x1+h, col.Max.Y)
	var read []string
	for _, ln := range ls[max(anchor-2, 0) : anchor+1] {
		if l := src[ln.src]; l.Page == a.Page && l.Box.Overlaps(box) {
			read = append(read, ln.text)
		}
	}
	return Reread{Page: a.Page, Box: box}, strings.Join(read, "\n"), true
}

// phoneBeforeRe is a telephone's label ending the text before a number (FAX 092-422=3543
// read with its last hyphen lost looks like a postal code).
var phoneBeforeRe = regexp.MustCompile(`(?i)(?:tel|fax|ax|電話)\s*[:：]?\s*$`)

// postalRe is a postal code (〒604-8005), its mark read as T or 7 or lost and its last
// digit too; not a telephone number's digits (092-422-3542), nor a date's or an invoice
// number's (2025-10-31, INV-202605-033).
var postalRe = regexp.MustCompile(`(?:^|[^\d-])((?:〒|T|7)?\s?\d{3}\s?-\s?\d{3,4})(?:[^\d-]|$)`)

// issuerIn is the issuer's name in a block crop's text: the line before its address's
// (the line with the postal code), or the block's first line with a legal form, cut to
// the company's name. The holder's legal-form mark writes out a form the crop read as
// one kanji (㈱ read as 則, 帆, 費).
func issuerIn(text, holder string) (string, bool) {
	lines := strings.Split(text, "\n")
	cand := ""
	for i, l := range lines {
		if postalRe.MatchString(l) || strings.Contains(l, "〒") {
			if i > 0 {
				cand = lines[i-1]
			}
			break
		}
	}
	if cand == "" {
		for _, l := range lines {
			if companyIn(l) != "" {
				cand = l
				break
			}
		}
	}
	cand = norm(cand)
	// The chunk of the line the name is in: a row joined with another column
	// (「御中  株式会社北辰ソリューションズ」) holds more.
	// Without a legal form read, the chunk with the most kanji and kana (not the seal's
	// specks read as II beside it).
	name, most := "", 0
	for _, c := range chunks(cand) {
		if notIssuerRe.MatchString(c) || sentenceRe.MatchString(c) {
			continue
		}
		if n := companyIn(c); n != "" {
			name = n
			break
		}
		if n := japaneseRunes(c); n > most {
			name, most = cleanName(c), n
		}
	}
	name = completeKana(formByHolder(name, holder), holder)
	return name, wellFormedName(name)
}

// wellFormedName says whether a name read is a company's name as printed: a legal form
// and at least two more characters, all of them kanji, kana or the marks names use (no
// letters or digits a seal's strokes were read as, no rule's |).
func wellFormedName(s string) bool {
	if !hasForm(s) {
		return false
	}
	return japaneseName(companyFormRe.ReplaceAllString(s, ""))
}

// japaneseName says whether s is two or more kanji and kana, and the marks names use.
func japaneseName(s string) bool {
	n := utf8.RuneCountInString(s)
	return n >= 2 && japaneseRunes(s) == n
}

// japaneseRunes counts the kanji, kana and name marks (ー・々ヶ) of s.
func japaneseRunes(s string) int {
	n := 0
	for _, r := range s {
		if unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
			r == 'ー' || r == '・' || r == '々' || r == 'ヶ' {
			n++
		}
	}
	return n
}

// holderForms are the legal forms a zengin holder marks (ｶ) for 株式会社 …).
var holderForms = []struct{ name, kana string }{{"株式会社", "ｶ"}, {"有限会社", "ﾕ"}, {"合同会社", "ﾄﾞ"}}

// formByHolder writes the legal form into a name read without one, from the holder's
// mark: the account is held in the issuer's name, and ｶ) before it is 株式会社 before
// the name, (ｶ after it after. OCR reads the one glyph ㈱ under a seal as a kanji (則
// みなと企画, 大和精工帆) or a bracket and a kanji ((柳つばさ…): that glyph is the form.
// A name starting with kana lost its form outright; it is put before.
func formByHolder(name, holder string) string {
	if name == "" || hasForm(name) || holder == "" {
		return name
	}
	for _, form := range holderForms {
		rs := []rune(name)
		switch {
		case strings.HasPrefix(holder, form.kana+")"):
			rest := rs
			if n := formGlyph(rs); n > 0 {
				rest = rs[n:]
			}
			if japaneseName(removeSpaces(string(rest))) {
				return cleanName(form.name + string(rest))
			}
		case strings.HasSuffix(holder, "("+form.kana):
			rest := rs
			if n := formGlyphAtEnd(rs); n > 0 {
				rest = rs[:len(rs)-n]
			}
			if japaneseName(removeSpaces(string(rest))) {
				return cleanName(string(rest) + form.name)
			}
		}
	}
	return name
}

// formGlyph is how many runes at the start of rs are a misread ㈱: a bracket and one or
// two characters with or without its closing bracket ((柳, (和則), or one kanji. Kana
// start a name whose form was lost: none. A name that lost a form printed in full and
// starts with a kanji loses that kanji too — wrong, as it was without its form; on the
// generator's and the holdout's scans the kanji was the seal's ㈱ or 株式会社 every time
// (内みなと企画, 幌海陽テクノロジー).
func formGlyph(rs []rune) int {
	if rs[0] == '(' {
		for i := 1; i < len(rs) && i <= 3; i++ {
			switch rs[i] {
			case ')':
				return i + 1
			case ' ':
				return i
			}
		}
		return min(2, len(rs))
	}
	if unicode.Is(unicode.Han, rs[0]) {
		return 1
	}
	return 0
}

// formGlyphAtEnd is formGlyph at the end of a name: one kanji, or a bracket's part.
func formGlyphAtEnd(rs []rune) int {
	n := len(rs)
	for i := n - 1; i >= 0 && i >= n-4; i-- {
		if rs[i] == '(' {
			return n - i // (株 or (株) or (柳)
		}
	}
	if rs[n-1] == ')' {
		return min(2, n)
	}
	if unicode.Is(unicode.Han, rs[n-1]) {
		return 1
	}
	return 0
}

// kanaAgreement counts the kana runs of a name that the holder spells (ファーム in
// ｶ)ｼﾗｶﾊﾞﾌｱ-ﾑ) less those it does not (ファテム): the holder is the name's reading, so a
// name whose kana it does not hold was misread there.
func kanaAgreement(name, holder string) int {
	if holder == "" {
		return 0
	}
	h := string(skeleton([]rune(holder)))
	score := 0
	for _, z := range holderKana(name) {
		if utf8.RuneCountInString(z) < 2 {
			continue
		}
		if strings.Contains(h, string(skeleton([]rune(z)))) {
			score++
		} else {
			score--
		}
	}
	return score
}

// putIssuer puts the issuer's block's reading of the name over the page's when the
// page's is not a well-formed name, or when the holder spells the crop's kana better.
func putIssuer(f *Fields, name string, conf float64) {
	page := f.IssuerName.Value
	h := f.AccountHolder.Value
	if f.IssuerName.Found && wellFormedName(page) && kanaAgreement(name, h) <= kanaAgreement(page, h) {
		return
	}
	// A well-formed other company the page took for the issuer, with no addressee read,
	// is the addressee whose 御中 was lost (guessAddressee would have taken it had the page
	// read the issuer's name): an invoice names two companies.
	if f.IssuerName.Found && wellFormedName(page) && !f.Addressee.Found && nameKey(page) != nameKey(name) {
		f.Addressee = found(page, f.IssuerName.Confidence*sureGuess)
	}
	f.IssuerName = found(name, round2(conf*sureShape))
}

// issuerByHolder writes out the page's issuer's form from the holder's mark (formByHolder)
// when the page read the name without one, and finishes a katakana ending cut short
// (completeKana).
func issuerByHolder(f *Fields) {
	if !f.IssuerName.Found || !f.AccountHolder.Found {
		return
	}
	h := f.AccountHolder.Value
	if v := completeKana(formByHolder(f.IssuerName.Value, h), h); v != f.IssuerName.Value {
		f.IssuerName.Value, f.IssuerName.Confidence = v, round2(f.IssuerName.Confidence*0.9)
	}
}

// completeKana finishes a name whose katakana ending was cut short by a seal's strokes
// (株式会社白樺ファzaps, 有限会社東邦キャ9ア) from the holder, which spells the name to its
// end: the name's last kana run, its trailing specks dropped, found in the holder's kana
// with at most maxKanaTail kana after it to the holder's end (or its legal-form mark) is
// followed by those kana written full width (ﾌｱ-ﾑ after ﾌｱ: ーム). A longer tail is a
// reading of kanji (ﾃﾞｻﾞｲﾝｼﾞﾑｼﾖ after ﾃﾞｻﾞｲ: ン事務所, not ンジムシヨ) and is left.
func completeKana(name, holder string) string {
	if holder == "" || !hasForm(name) {
		return name
	}
	rs := []rune(name)
	// The name's Japanese part up to the first speck after its last kana run.
	end := len(rs)
	for i, r := range rs {
		if japaneseRunes(string(r)) == 0 {
			end = i
			break
		}
	}
	stem := string(rs[:end])
	runs := nameKanaRe.FindAllStringIndex(stem, -1)
	if len(runs) == 0 || runs[len(runs)-1][1] != len(stem) {
		return name
	}
	last := stem[runs[len(runs)-1][0]:]
	z, err := pay.NormalizeHolderName(last)
	if err != nil {
		return name
	}
	body := holder
	for _, form := range holderForms {
		body = strings.TrimPrefix(strings.TrimSuffix(body, "("+form.kana), form.kana+")")
	}
	i := strings.LastIndex(body, z)
	if i < 0 {
		return name
	}
	tail := body[i+len(z):]
	if n := len(skeleton([]rune(tail))); n == 0 || n > maxKanaTail {
		return name
	}
	return stem + fullKana(tail)
}

// maxKanaTail is the most kana completeKana adds: a katakana word's last syllables.
const maxKanaTail = 3

// fullKana writes zengin's half-width kana full width: the long mark for -, each voiced
// and semi-voiced mark joined to its kana (width.Widen makes them combining marks).
func fullKana(s string) string {
	return unorm.NFC.String(width.Widen.String(strings.ReplaceAll(s, "-", "ー")))
}
