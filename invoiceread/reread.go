package invoiceread

import (
	"fmt"
	"image"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"cardpay/banks"
	"cardpay/pay"
)

// Reread asks for one field to be read again from a crop of the page: the part of the
// line right of the field's label (or, for a label alone in a table's header cell, the
// line below it), with only the characters the field can hold. A whole page read with
// every character finds 力 (a kanji) where the holder has カ, or 4 where the date has 年,
// and loses a ruled cell's value among the rules; the crop read as one line does not.
type Reread struct {
	Field string // the Fields' JSON name: account_holder, due_date, total, …
	Page  int
	Box   image.Rectangle
	Chars Chars
	// Widen is how much the crop is stretched sideways before it is read (0: as it is):
	// half-width kana, ocr.Crop.Widen.
	Widen float64
	// HalfWidth asks for the widened crop's half-width kana to be redrawn as full-width
	// ones, each voiced mark against its kana (ocr.Crop.HalfWidth).
	HalfWidth bool
	// Block asks for the crop to be read as a block of lines (the bank's block,
	// Field "account"), its answer's lines apart.
	Block bool
	// Read is what the page's reading has there (Refine takes the voiced marks a widened
	// crop loses from it).
	Read string
	// Seal asks for a seal's grey to be dropped from the crop (ocr.Crop.Seal).
	Seal bool
	// Over says the crop's answer may replace the value the page's reading found: that
	// reading looked wrong (letters and digits among a holder's kana).
	Over bool
}

// Chars is the kind of characters a field's value is printed with.
type Chars string

// The kinds of Reread.Chars; the OCR adapter's sets answer them.
const (
	CharsAny    Chars = ""
	CharsKana   Chars = "kana"
	CharsDigits Chars = "digits"
	CharsDate   Chars = "date"
	CharsTNo    Chars = "t-number"
	CharsType   Chars = "account-type" // 普通預金, 当座, (普)
)

// cropConfidence is a crop's answer's confidence when tesseract gives none; maxRereads
// bounds the crops of one file (each is a run of tesseract, about 0.3–0.5 s).
const (
	cropConfidence = 0.7
	maxRereads     = 6
	// overConfidence is how sure a crop's answer must be (tesseract's confidence) to
	// replace what the page's reading found.
	overConfidence = 0.6
	// holderWiden is how much a holder's second crop is widened.
	holderWiden = 1.6
)

// rereadable are the fields worth a crop, in the order they are asked for (what a buyer
// most needs typed for them first), with the label that places the crop.
var rereadable = []struct {
	field string // the Fields' JSON name
	label string // the labels' field
	chars Chars
	of    func(*Fields) (found bool, conf float64)
}{
	{"account_holder", "holder", CharsKana, func(f *Fields) (bool, float64) { return f.AccountHolder.Found, f.AccountHolder.Confidence }},
	{"due_date", "due", CharsDate, func(f *Fields) (bool, float64) { return f.DueDate.Found, f.DueDate.Confidence }},
	{"account_type", "type", CharsType, func(f *Fields) (bool, float64) { return f.AccountType.Found, f.AccountType.Confidence }},
	{"account_number", "account_number", CharsDigits, func(f *Fields) (bool, float64) { return f.AccountNumber.Found, f.AccountNumber.Confidence }},
	{"total", "total", CharsDigits, func(f *Fields) (bool, float64) { return f.Total.Found, f.Total.Confidence }},
	{"branch_name", "branch", CharsAny, func(f *Fields) (bool, float64) { return f.BranchName.Found, f.BranchName.Confidence }},
	{"registration_number", "registration", CharsTNo, func(f *Fields) (bool, float64) {
		return f.RegistrationNumber.Found, f.RegistrationNumber.Confidence
	}},
	{"invoice_date", "invoice_date", CharsDate, func(f *Fields) (bool, float64) { return f.InvoiceDate.Found, f.InvoiceDate.Confidence }},
}

// Rereads says which fields of f, extracted from lines, are worth reading again and
// where: a field not found whose label was read on a line OCR placed on the page. A
// field found is not asked for: measured on the generator's set, a crop read again
// answered a found holder worse as often as better (a small kana read large without the
// line round it), so a crop only fills what the page's reading lost, or replaces what it
// read in a way that says it is wrong: a holder with letters among its kana or its mark's
// kana twice (markTwice), a date only guessed, a branch the bank has none of. Lines
// without boxes (a PDF's text layer) ask for nothing.
func Rereads(lines []Line, f Fields) []Reread {
	ls := prepare("", lines)
	var out []Reread
	for _, r := range rereadable {
		if len(out) >= maxRereads {
			break
		}
		found, conf := r.of(&f)
		// A date the rules only guessed (no label placed it: the first date of the page)
		// is asked for again from its label's crop when the page's reading of the labelled
		// value was unreadable (請求日 -R8.102 while 2026/11/1, the due date's value under
		// its lost label, was taken for the invoice date).
		guessed := found && (r.field == "due_date" || r.field == "invoice_date") && conf < sureGuess
		// A branch the bank has none of (横浜 read 槍表) was misread: names and numbers
		// must agree with the zengin list, and a crop may read one it has.
		strange := r.field == "branch_name" && strangeBranch(&f)
		if found && r.field != "account_holder" && !guessed && !strange {
			continue
		}
		rr, seg, ok := headerCell(ls, lines, r.label)
		if !ok {
			rr, seg, ok = cropOf(ls, lines, r.label)
		}
		if !ok && r.field == "registration_number" {
			rr, seg, ok = tNumberCrop(ls, lines)
		}
		if !ok {
			continue
		}
		if found && !guessed && !strange && !misreadKana(seg) && !(r.field == "account_holder" && markTwice(f.AccountHolder.Value)) {
			continue
		}
		rr.Field, rr.Chars, rr.Over, rr.Read = r.field, r.chars, found, seg
		out = append(out, rr)
		if r.field == "account_holder" {
			// Half-width kana (ｶ)ﾔﾏﾄｾｲｺｳ, as banks print a holder) read as letters and
			// digits, or lost: the crop again, widened towards the full-width shapes the
			// model knows. The surer of the two answers is taken (Refine). ×1.6 read the
			// generator's half-width holders surer than ×2 (0.79–0.93 against 0.51–0.87).
			// Redrawn with each voiced mark set against its kana: widened with the rest,
			// ｷﾞ's mark stood apart and was dropped (キ).
			rr.Widen, rr.HalfWidth = holderWiden, true
			out = append(out, rr)
		}
	}
	out = append(out, neighbourRereads(ls, lines, f, out, maxRereads-len(out))...)
	// The bank's block, read again as a whole when the page's reading lost part of it:
	// a ruled table's rows read as noise lose every field of the account at once, and no
	// label is left to place a field's crop (「トーeae L| | a.oe| ea|」 for 「京都銀行 本店
	// 営業部 普通 5862799 ｶ)ｼﾗｶﾊﾞﾌｱ-ﾑ」). Asked last, beyond maxRereads: its answer fills
	// only what the other crops did not.
	if !accountRead(f) {
		if rr, seg, ok := bankBlock(ls, lines); ok {
			rr.Field, rr.Block, rr.Read = "account", true, seg
			out = append(out, rr)
		}
	}
	// The issuer's block, its seal's grey dropped: asked of every page, last, as the
	// name read on the page is wrong as often as not under the seal and nothing tells
	// which (株式会社白欄ファテム reads as well-formed as the right name).
	if rr, seg, ok := issuerPlace(ls, lines); ok {
		rr.Field, rr.Block, rr.Seal, rr.Read = "issuer_name", true, true, seg
		out = append(out, rr)
	}
	return out
}

// NextRereads are the crops placed by a neighbour that the first crops' answers made
// possible (a bank's name or an account number the bank's block read), other than those
// asked already: ReadFields asks them after refining with the first.
func NextRereads(lines []Line, f Fields, asked []Reread) []Reread {
	var out []Reread
	for _, r := range neighbourRereads(prepare("", lines), lines, f, nil, maxRereads) {
		if !slices.ContainsFunc(asked, func(a Reread) bool { return a.Field == r.Field && a.Box == r.Box }) {
			out = append(out, r)
		}
	}
	return out
}

// neighbourRereads places fields whose label was lost too by a neighbour the reading
// found, for the fields not asked already, at most room of them.
func neighbourRereads(ls []line, lines []Line, f Fields, asked []Reread, room int) []Reread {
	var out []Reread
	for _, u := range []struct {
		field string
		chars Chars
		place func() (Reread, string, bool)
	}{
		{"branch_name", CharsAny, func() (Reread, string, bool) {
			switch {
			case !f.BankName.Found:
				return Reread{}, "", false
			case f.BranchName.Found && strangeBranch(&f):
				return branchPlace(ls, lines, f.BranchName.Value)
			case f.BranchName.Found:
				return Reread{}, "", false
			}
			return afterBank(ls, lines, f.BankName.Value)
		}},
		{"account_type", CharsType, func() (Reread, string, bool) {
			if f.AccountType.Found || !f.AccountNumber.Found {
				return Reread{}, "", false
			}
			return markBefore(ls, lines, f.AccountNumber.Value)
		}},
		{"account_holder", CharsKana, func() (Reread, string, bool) {
			if unsureHolder(f) || !f.AccountHolder.Found && f.AccountNumber.Found {
				return afterNumber(ls, lines, f.AccountNumber.Value)
			}
			return Reread{}, "", false
		}},
	} {
		if len(out) >= room || slices.ContainsFunc(asked, func(r Reread) bool { return r.Field == u.field }) {
			continue
		}
		rr, seg, ok := u.place()
		if !ok || u.field == "account_holder" && len(out)+2 > room {
			continue // a holder is two crops
		}
		rr.Field, rr.Chars, rr.Read = u.field, u.chars, seg
		// A strange branch's, or a holder the reading found unsure.
		rr.Over = u.field == "branch_name" && f.BranchName.Found || u.field == "account_holder" && f.AccountHolder.Found
		out = append(out, rr)
		if u.field == "account_holder" {
			rr.Widen, rr.HalfWidth = holderWiden, true // as for a labelled holder
			out = append(out, rr)
		}
	}
	return out
}

// branchPlace places the branch read as name on the page: its words and its kind after
// them (槍表支店), a quarter of a line's height either side.
func branchPlace(ls []line, src []Line, name string) (Reread, string, bool) {
	for _, p := range placedText(ls, src, name) {
		ln, l, i := p.ln, p.l, p.at
		j := i + len(name)
		for _, kind := range []string{"支店", "出張所", "営業部", "支所", "店"} {
			if strings.HasPrefix(ln.text[j:], kind) {
				j += len(kind)
				break
			}
		}
		h := l.Box.Dy()
		x0 := startAt(ln, l, i)
		box := image.Rect(x0-h/4, l.Box.Min.Y, xAt(ln, l, j)+h/4, l.Box.Max.Y).Intersect(l.Box.Inset(-h / 4))
		if box.Dx() < h {
			continue
		}
		return Reread{Page: l.Page, Box: box}, ln.text[i:j], true
	}
	return Reread{}, "", false
}

// textAt is a line that holds a text: the line, OCR's line it came from (placed on the
// page) and where the text starts in it.
type textAt struct {
	ln line
	l  Line
	at int
}

// placedText are the lines OCR placed on the page whose text holds s, in order.
func placedText(ls []line, src []Line, s string) []textAt {
	var out []textAt
	for _, ln := range ls {
		l := src[ln.src]
		if i := strings.Index(ln.text, s); !l.Box.Empty() && i >= 0 {
			out = append(out, textAt{ln, l, i})
		}
	}
	return out
}

// strangeBranch says whether the branch read is none of the bank's, the zengin list
// knowing the bank: a branch misread (横浜 read 槍表).
func strangeBranch(f *Fields) bool {
	if !f.BranchName.Found {
		return false
	}
	has, known := branchOfBank(f, f.BranchName.Value)
	return known && !has
}

// unsureHolder says whether the holder the page's reading found is worth its crop after
// the account number over it: found without its label (the kana after the number) and
// less sure than a guess, its line read mostly as noise (「| 5732688  7デザイグhI」 read
// ﾃﾞｻﾞｲｸﾞ for ｶ)ﾜｶﾊﾞﾃﾞｻﾞｲﾝｼﾞﾑｼﾖ). The crop's answer replaces it when tesseract scores
// it surer (Refine, unsureConfidence).
func unsureHolder(f Fields) bool {
	return f.AccountHolder.Found && f.AccountHolder.Confidence < sureGuess && f.AccountNumber.Found
}

// afterNumber places a holder printed after the account number on its line, as a
// ledger's row of values prints it (京都銀行 本店営業部 普通 5862799 ｶ)ｼﾗｶﾊﾞﾌｱ-ﾑ), when no
// label placed it: from the number's end to the line's, or, the number ending its line
// (the holder's cell lost), as far right as the page's lines go.
func afterNumber(ls []line, src []Line, number string) (Reread, string, bool) {
	right := pageRight(src)
	for _, p := range placedText(ls, src, number) {
		ln, l, i := p.ln, p.l, p.at
		end := i + len(number)
		x0, x1, h := xAt(ln, l, end), l.Box.Max.X, l.Box.Dy()
		if x1-x0 < holderMinWidth*h {
			x1 = right
		}
		if x1-x0 < holderMinWidth*h {
			return Reread{}, "", false
		}
		box := image.Rect(x0, l.Box.Min.Y, x1, l.Box.Max.Y)
		if b, ok := holderWords(l, x0, rowRight(src, l)); ok {
			box = b
		}
		return Reread{Page: l.Page, Box: box}, ln.text[end:], true
	}
	return Reread{}, "", false
}

// holderWords is the crop of the holder the page's reading has among line l's words from
// x0 on, short of limit: the words as far as they run on (a gap of holderGap word heights
// ends them: a photo's row read a speck at the page's edge), as tall as most of them and a
// quarter of that round, and on to the right by holderReach of their heights (the reading
// gave up before the name's end: ﾌｱ-ﾑ of ｶ)ｼﾗｶﾊﾞﾌｱ-ﾑ lost), short of the next word. A
// tilted photo's or fax's row is a line as tall as three of its words; the holder's small
// half-width kana in a crop that tall read as nothing (ｶ)ｼﾗｶﾊﾞﾌｱ-ﾑ, 25 pixels high, in a
// 1,200 by 112 crop of a ledger's row).
func holderWords(l Line, x0, limit int) (image.Rectangle, bool) {
	var ws []Word
	for _, w := range l.Words {
		if c := (w.Box.Min.X + w.Box.Max.X) / 2; c >= x0 && c < limit {
			ws = append(ws, w)
		}
	}
	slices.SortFunc(ws, func(a, b Word) int { return a.Box.Min.X - b.Box.Min.X })
	if len(ws) == 0 {
		return image.Rectangle{}, false
	}
	// The words' height is their tops' and bottoms' medians: a word read from noise
	// takes in the cell's rules (Dua of ｶ)ﾜｶﾊﾞﾃﾞｻﾞｲﾝ, the row's whole height).
	band := func(ws []Word) (top, bottom int) {
		var tops, bottoms []int
		for _, w := range ws {
			tops, bottoms = append(tops, w.Box.Min.Y), append(bottoms, w.Box.Max.Y)
		}
		slices.Sort(tops)
		slices.Sort(bottoms)
		return tops[len(tops)/2], bottoms[(len(bottoms)-1)/2]
	}
	top, bottom := band(ws)
	h := max(bottom-top, 1)
	n, next := 1, limit
	for ; n < len(ws); n++ {
		if ws[n].Box.Min.X-ws[n-1].Box.Max.X > holderGap*h {
			next = ws[n].Box.Min.X
			break
		}
	}
	top, bottom = band(ws[:n])
	h = max(bottom-top, 1)
	x1 := max(ws[n-1].Box.Max.X, min(next-h/2, ws[n-1].Box.Max.X+holderReach*h))
	box := image.Rect(min(ws[0].Box.Min.X, x0), max(top-h/4, l.Box.Min.Y), x1, min(bottom+h/4, l.Box.Max.Y))
	if box.Dx() < holderMinWidth*h || box.Dy() <= 0 {
		return image.Rectangle{}, false
	}
	return box, true
}

// holderGap is the widest gap inside a holder's words, in their heights: a space is less
// than one, the half-width kana read as two words a little more.
const holderGap = 3

// pageRight is the right edge of the page's lines, as far right as its text goes.
func pageRight(src []Line) int {
	right := 0
	for _, l := range src {
		right = max(right, l.Box.Max.X)
	}
	return right
}

// rowRight is how far right l's row is free: the left edge of the nearest line beside it
// on the right (overlapping it by half its height), or the page's lines' right edge.
func rowRight(src []Line, l Line) int {
	right := pageRight(src)
	for _, o := range src {
		if o.Page == l.Page && o.Box.Min.X >= l.Box.Max.X && 2*overlapY(o.Box, l.Box) >= l.Box.Dy() {
			right = min(right, o.Box.Min.X)
		}
	}
	return right
}

// holderReach is how far past its line's end a labelled holder's crop goes, in line
// heights: a dozen half-width kana that the reading lost.
const holderReach = 6

// holderMinWidth is the narrowest a holder is, in its line's heights (ｶ)ﾔﾏﾀﾞ).
const holderMinWidth = 3

// accountRead says whether the page's reading found every field of the bank account.
func accountRead(f Fields) bool {
	return f.BankName.Found && f.BranchName.Found && f.AccountType.Found && f.AccountNumber.Found && f.AccountHolder.Found
}

// bankBlockLines is how many lines' height the bank's block is read down from its first
// line: a heading, a table's header row and its values, or the three or four lines of
// bank and branch, type and number, holder.
const bankBlockLines = 5

// bankBlock places the bank's block: from the first line that names part of it (the
// heading お振込先, a bank's or branch's name, an account's label) down bankBlockLines of
// its height, from its left (less two heights) to the right of the page's lines.
func bankBlock(ls []line, src []Line) (Reread, string, bool) {
	right := pageRight(src)
	for i, ln := range ls {
		l := src[ln.src]
		if l.Box.Empty() || !namesAccount(ln) {
			continue
		}
		h := l.Box.Dy()
		box := image.Rect(max(l.Box.Min.X-2*h, 0), l.Box.Min.Y-h/2, right, l.Box.Min.Y+bankBlockLines*h)
		var read []string
		for _, o := range ls[i:] {
			if b := src[o.src]; b.Page == l.Page && b.Box.Overlaps(box) {
				read = append(read, o.text)
			}
		}
		return Reread{Page: l.Page, Box: box}, strings.Join(read, "\n"), true
	}
	return Reread{}, "", false
}

// wordsIn is the box of line l's words that reach between x0 and x1.
func wordsIn(l Line, x0, x1 int) image.Rectangle {
	var r image.Rectangle
	for _, w := range l.Words {
		if w.Box.Max.X > x0 && w.Box.Min.X < x1 {
			r = r.Union(w.Box)
		}
	}
	return r
}

// wordHeight is the median height of the page's words: the body text's line height.
func wordHeight(src []Line) int {
	var hs []int
	for _, l := range src {
		for _, w := range l.Words {
			hs = append(hs, w.Box.Dy())
		}
	}
	if len(hs) == 0 {
		return 0
	}
	slices.Sort(hs)
	return hs[len(hs)/2]
}

// namesAccount says whether a line names part of the bank account: a label of one of
// its fields (振込先 among them), a bank's name or a branch's, or an account number
// after its type's bracket (the rest of a letter's 「４．お振込先 京都銀行 本店営業部 (普)
// 3500274」 read as 「A, UAT LARENiT ASE (PF) 3500274」).
func namesAccount(ln line) bool {
	for _, h := range ln.hits {
		switch h.field {
		case "bank", "branch", "type", "account_number", "holder":
			return true
		}
	}
	return bankRe.MatchString(ln.text) || strings.Contains(ln.text, "支店") || markedNumberRe.MatchString(ln.text) ||
		transferHeadingRe.MatchString(ln.text)
}

// transferHeadingRe is the heading お振込み先 with its first kanji misread (お折込み先,
// お摂込先): what is left of it, 込み先 or 込先 standing alone on its line.
var transferHeadingRe = regexp.MustCompile(`^\s*\S{0,3}込み?先\s*[:：]?\s*$`)

// markedNumberRe is a bracket of one or two characters and seven digits after it.
var markedNumberRe = regexp.MustCompile(`\(\s?[^\s()]{1,2}\s?\)\s*\d{7}(?:\D|$)`)

// markBefore places the account type's bracketed mark printed before the account number
// ((普) 1234567) that the page's reading could not read: (#), (8), (MH), CF).
func markBefore(ls []line, src []Line, number string) (Reread, string, bool) {
	for _, ln := range ls {
		l := src[ln.src]
		i := strings.Index(ln.text, number)
		if l.Box.Empty() || i < 0 {
			continue
		}
		m := markBeforeRe.FindStringIndex(ln.text[:i])
		if m == nil {
			continue
		}
		// xAt at a word's first character answers the end of the word before it: the
		// mark begins where the next word does.
		x0 := xAt(ln, l, m[0])
		for _, w := range l.Words {
			if w.Box.Min.X >= x0 {
				x0 = w.Box.Min.X
				break
			}
		}
		box := image.Rect(x0, l.Box.Min.Y, xAt(ln, l, m[1]), l.Box.Max.Y)
		if box.Dx() <= 0 {
			continue
		}
		return Reread{Page: l.Page, Box: box}, ln.text[m[0]:m[1]], true
	}
	return Reread{}, "", false
}

// markBeforeRe is a bracketed mark of one to three characters ending just before the
// account number; the opening bracket may be lost.
var markBeforeRe = regexp.MustCompile(`\(?\s?[^\s()|]{1,3}\s?\)\s*$`)

// afterBank places the branch that follows the bank's name on its line when the page's
// reading lost it: the gap to the line's next word, when it is wide enough to have held
// a name (a ruled row's cell tesseract dropped: 「北洋銀行 ⟨gap⟩ 当座預金 5732688」), or,
// the bank's name ending its line, as wide a part to its right. The bank's name is looked
// for as found, else as the line's first bank name of any kind (OCR's spelling of it).
func afterBank(ls []line, src []Line, bank string) (Reread, string, bool) {
	for _, ln := range ls {
		l := src[ln.src]
		if l.Box.Empty() {
			continue
		}
		end := -1
		if i := strings.Index(ln.text, bank); i >= 0 {
			end = i + len(bank)
		} else if m := bankRe.FindStringIndex(ln.text); m != nil {
			end = m[1]
		}
		if end < 0 {
			continue
		}
		h := l.Box.Dy()
		x0 := xAt(ln, l, end)
		x1 := x0 + branchWidth*h
		for _, w := range l.Words {
			if w.Box.Min.X > x0+h/4 {
				x1 = w.Box.Min.X
				break
			}
		}
		if x1-x0 < branchGap*h {
			return Reread{}, "", false // the next word follows closely: nothing was lost there
		}
		return Reread{Page: l.Page, Box: image.Rect(x0, l.Box.Min.Y, x1, l.Box.Max.Y)}, ln.text[end:], true
	}
	return Reread{}, "", false
}

// branchGap is the gap after a bank's name, in the line's heights, from which a branch
// may have been lost in it; branchWidth how far right of a name ending its line a
// branch is looked for (本店営業部 is five characters and a space).
const (
	branchGap   = 3
	branchWidth = 7
)

// misreadKana says whether the text read after a holder's label holds letters or digits
// among its kana, past a legal-form mark read as letters (hh)): the half-width kana most
// holders are printed in, which the page's reading takes for Latin letters and digits
// (ﾔﾏﾄｾｲｺｳ read as "YYトtイ19").
func misreadKana(seg string) bool {
	seg = strings.TrimLeft(seg, " :：.,・･|｜[]「」『』")
	if m := misreadMarkRe.FindStringSubmatchIndex(seg); m != nil {
		seg = seg[m[3]:]
	}
	kana, other := 0, 0
	for _, r := range seg {
		switch {
		case r >= 'ァ' && r <= 'ヺ' || r >= 'ｦ' && r <= 'ﾝ':
			kana++
		case r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z':
			other++
		}
	}
	return other > 0 && other+kana >= 3
}

// markTwice says whether a holder's name starts with its legal-form mark's kana again
// (ｶ)ｶﾁﾕｳｵｳｷﾞｹﾝ): a fax's full-width bracket read as the bracket and the kana before it
// as often as a name that starts so (ｶ)ｶﾜｻｷ); the crop, read alone, tells.
func markTwice(h string) bool {
	for _, m := range []string{"ｶ", "ﾕ", "ﾒ"} {
		if strings.HasPrefix(h, m+")"+m) {
			return true
		}
	}
	return false
}

// cropOf places the value of the first label of field that OCR placed on the page, and
// answers the text the page's reading has there.
func cropOf(ls []line, src []Line, field string) (Reread, string, bool) {
	for i, ln := range ls {
		l := src[ln.src]
		if l.Box.Empty() {
			continue
		}
		for _, h := range ln.hits {
			if h.field != field {
				continue
			}
			end := len(ln.text)
			for _, o := range ln.hits {
				if o.start >= h.end && o.start < end {
					end = o.start
				}
			}
			if seg := ln.text[h.end:end]; strings.TrimSpace(seg) != "" {
				right := l.Box.Max.X
				if end < len(ln.text) {
					right = xAt(ln, l, end)
				} else if field == "holder" {
					// A holder misread ends its line's box where the reading gave up, not
					// where the print does: half-width ﾂﾊﾞｻｼﾞﾖｳﾎｳｻ-ﾋﾞｽ read 7お99か ビス
					// was cropped short of its ﾋﾞｽ. Its crop goes on to what stands next
					// on the row, or as far right as the page's lines go, but no further
					// than holderReach line heights: a photo's page is wide, and a tilted
					// row's crop that wide read nothing.
					right = min(rowRight(src, l), l.Box.Max.X+holderReach*l.Box.Dy())
				}
				box := image.Rect(xAt(ln, l, h.end), l.Box.Min.Y, right, l.Box.Max.Y)
				if field == "due" || field == "invoice_date" {
					box = dateBox(ln, l, h.end, end, box)
				}
				if box.Dx() > box.Dy()/2 {
					return Reread{Page: l.Page, Box: box}, seg, true
				}
				continue
			}
			// The label alone: a table's header cell over its value, or a label whose
			// value OCR lost in the cell's rules. The value is on the line below, from
			// under the label on.
			if i+1 < len(ls) && end == len(ln.text) {
				below := src[ls[i+1].src]
				if !below.Box.Empty() && below.Page == l.Page && below.Box.Min.Y-l.Box.Max.Y < 2*l.Box.Dy() {
					left := max(below.Box.Min.X, xAt(ln, l, h.start))
					if below.Box.Max.X > left {
						return Reread{Page: l.Page, Box: image.Rect(left, below.Box.Min.Y, below.Box.Max.X, below.Box.Max.Y)}, ls[i+1].text, true
					}
				}
			}
		}
	}
	return Reread{}, "", false
}

// dateBox narrows a date's crop to the date: from its first character (a digit or the
// era's) to its last digit, and to the height of the words there. A grid's cell walls on
// either side of it (「請求日 | R8.10.2 |」, read -R8.102) and a taller line OCR joined it to
// (the title 御請求書) made tesseract read the crop as nothing.
func dateBox(ln line, l Line, from, to int, box image.Rectangle) image.Rectangle {
	seg := ln.text[from:to]
	first := strings.IndexFunc(seg, func(r rune) bool { return unicode.IsDigit(r) || r == 'R' || r == '令' })
	if first < 0 {
		return box
	}
	// The date ends where its characters do: a ledger's header row goes on past it to
	// the next cell's label and value (「支払期限 20261300 ーー anes |T6137…」), which
	// a crop to the row's last digit read as nothing.
	run := first + dateRun(seg[first:])
	last := strings.LastIndexFunc(seg[:run], unicode.IsDigit)
	if last < 0 {
		return box
	}
	h := l.Box.Dy()
	for _, w := range l.Words {
		h = min(h, max(w.Box.Dy(), 1))
	}
	x0, x1 := xAt(ln, l, from+first), xAt(ln, l, from+last+1)
	narrow := image.Rect(max(box.Min.X, x0-h/4), box.Min.Y, min(box.Max.X, x1+h/2), box.Max.Y)
	if narrow.Dx() < 2*h {
		return box
	}
	if top, bottom, ok := wordsBand(l, narrow.Min.X, narrow.Max.X); ok {
		narrow.Min.Y, narrow.Max.Y = top, bottom
	}
	return narrow
}

// wordsBand is the height of line l's words that reach between x0 and x1: the median of
// their tops and of their bottoms. One word's box can take in a cell's rule above or
// below (a ledger's 2026 from the row's top to its bottom) and the crop then the row
// above, which read as the date's one line read nothing.
func wordsBand(l Line, x0, x1 int) (top, bottom int, ok bool) {
	var tops, bottoms []int
	for _, w := range l.Words {
		if w.Box.Max.X > x0 && w.Box.Min.X < x1 {
			tops, bottoms = append(tops, w.Box.Min.Y), append(bottoms, w.Box.Max.Y)
		}
	}
	if len(tops) == 0 {
		return 0, 0, false
	}
	slices.Sort(tops)
	slices.Sort(bottoms)
	return tops[len(tops)/2], bottoms[(len(bottoms)-1)/2], true
}

// tNumberCrop places a registration number whose label was lost and whose reading failed
// its check digit (T2134943984656 for …655, TO6137858424941 for T6137858424341): the
// words of the T and the digits after it.
func tNumberCrop(ls []line, src []Line) (Reread, string, bool) {
	for _, ln := range ls {
		l := src[ln.src]
		if l.Box.Empty() {
			continue
		}
		for _, m := range tNumberLikeRe.FindAllStringIndex(ln.text, -1) {
			x0, x1 := xAt(ln, l, m[0]), xAt(ln, l, m[1])
			top, bottom, ok := wordsBand(l, x0, x1)
			if !ok {
				continue
			}
			// The crop is padded by half its height (ocr.Crop): half the band's height,
			// centred on it, pads to the band. A cell's rules above and below kept the
			// padding going to the row above, and the number read as nothing.
			h := bottom - top
			box := image.Rect(max(x0-h/2, l.Box.Min.X), top+h/4, min(x1+h/2, l.Box.Max.X), bottom-h/4)
			return Reread{Page: l.Page, Box: box}, ln.text[m[0]:m[1]], true
		}
	}
	return Reread{}, "", false
}

// tNumberLikeRe is a T and thirteen or fourteen digits, or letters OCR reads for them,
// nothing of a word before it.
var tNumberLikeRe = regexp.MustCompile(`(?:^|[^A-Za-z0-9])T\s?[0-9A-Za-z|]{13,14}(?:$|[^A-Za-z0-9])`)

// dateRun is the length of the date s starts with: digits, the era's and the date's
// characters, letters OCR reads for digits (2Z025年) and single spaces, up to anything
// else or a gap of two spaces.
func dateRun(s string) int {
	for i, r := range s {
		date := unicode.IsDigit(r) || r < utf8.RuneSelf && unicode.IsLetter(r) || strings.ContainsRune("./-年月日令和 ", r)
		if !date || r == ' ' && strings.HasPrefix(s[i:], "  ") {
			return i
		}
	}
	return len(s)
}

// headerCell places the value of field's label in a table's header row (金融機関名 支店名
// 預金種目 口座番号 口座名義 over one row of values): the cell under the label, between
// the values of its neighbours' columns. Labels are centred in their cells and values
// start at a cell's left edge, so the part of the line below from the label on (cropOf)
// cut a long holder's first half away, and a label between two others had no crop at all.
// OCR splits such a row into several lines when a cell's text sits a little higher (受取人
// in a taller cell): the row is every line overlapping the label's in height, and so is
// the row of values. Each value goes to the label it is nearest across (a left-aligned
// value reaches under its own label); the crop spans from the end of the values of the
// columns to the left to the start of those to the right, so that what the page's reading
// lost of the value ((普 of (普)) is inside it.
func headerCell(ls []line, src []Line, field string) (Reread, string, bool) {
	for i, ln := range ls {
		l := src[ln.src]
		if l.Box.Empty() || len(l.Words) == 0 {
			continue
		}
		for k, h := range ln.hits {
			if h.field != field {
				continue
			}
			end := len(ln.text)
			if k+1 < len(ln.hits) {
				end = ln.hits[k+1].start
			}
			if strings.TrimSpace(ln.text[h.end:end]) != "" {
				continue // the value is beside its label
			}
			row := sameRow(ls, src, i)
			var spans []span // the row's labels, this one among them
			self := span{startAt(ln, l, h.start), xAt(ln, l, h.end)}
			for _, j := range row {
				lj := src[ls[j].src]
				for _, o := range ls[j].hits {
					spans = append(spans, span{startAt(ls[j], lj, o.start), xAt(ls[j], lj, o.end)})
				}
			}
			if len(spans) < 2 {
				continue // a label alone: cropOf's
			}
			below := rowBelow(ls, src, row)
			if len(below) == 0 {
				continue
			}
			r, seg, ok := cellUnder(ls, src, below, spans, self, field == "holder")
			if ok {
				r.Page = l.Page
				return r, seg, true
			}
		}
	}
	return Reread{}, "", false
}

// span is an x range on the page.
type span struct{ x0, x1 int }

// far is further than any page is wide, either way (not math.MaxInt: gap subtracts).
const far = 1 << 30

// gap is how far apart two x ranges are (0 when they overlap).
func (a span) gap(b span) int { return max(a.x0-b.x1, b.x0-a.x1, 0) }

// sameRow is line i with the lines of its page that overlap it by half the lower's height.
func sameRow(ls []line, src []Line, i int) []int {
	a := src[ls[i].src]
	var out []int
	for j := range ls {
		b := src[ls[j].src]
		if j == i || (b.Page == a.Page && !b.Box.Empty() && overlapY(a.Box, b.Box) >= min(a.Box.Dy(), b.Box.Dy())/2) {
			out = append(out, j)
		}
	}
	return out
}

func overlapY(a, b image.Rectangle) int { return min(a.Max.Y, b.Max.Y) - max(a.Min.Y, b.Min.Y) }

// rowBelow is the row of lines under row: the nearest line starting below row's lowest
// bottom (within two of its lines' height), with the lines overlapping it.
func rowBelow(ls []line, src []Line, row []int) []int {
	var bottom, h int
	page := src[ls[row[0]].src].Page
	for _, j := range row {
		b := src[ls[j].src].Box
		bottom, h = max(bottom, b.Max.Y), max(h, b.Dy())
	}
	next := -1
	for j := range ls {
		b := src[ls[j].src]
		if b.Page != page || b.Box.Empty() || slices.Contains(row, j) || b.Box.Min.Y < bottom-h/3 || b.Box.Min.Y-bottom > 2*h {
			continue
		}
		if next < 0 || b.Box.Min.Y < src[ls[next].src].Box.Min.Y {
			next = j
		}
	}
	if next < 0 {
		return nil
	}
	return sameRow(ls, src, next)
}

// cellUnder is the crop of the values row (the lines below) in the column of the label
// at self, among the row's labels at spans. The row's words are cut into values at gaps
// of a line's height; a value belongs to the label whose column it can start in (a left-
// aligned value starts after the label before and before its own label ends) or end in
// (a right-aligned amount), the nearest when none fits.
//
// A holder's cell (holder) holds kana alone: a word of kanji or a long number is another
// column's whatever the columns say (a fax's header row read 銀行名 and 名義人 alone, and
// the holder's crop took in 本店営業部 当座預金 5732688 before the name). Its crop is cut
// to the holder's words (holderWords), and goes past where the reading gave up when it is
// the row's last cell.
func cellUnder(ls []line, src []Line, below []int, spans []span, self span, holder bool) (Reread, string, bool) {
	slices.SortFunc(spans, func(a, b span) int { return a.x0 - b.x0 })
	k := slices.Index(spans, self)
	var box image.Rectangle
	var words []Word
	for _, j := range below {
		l := src[ls[j].src]
		box = box.Union(l.Box)
		words = append(words, l.Words...)
	}
	slices.SortFunc(words, func(a, b Word) int { return a.Box.Min.X - b.Box.Min.X })
	// The values, as runs of words.
	type value struct {
		span
		text []string
	}
	var values []value
	other := func(text string) bool { return holder && !mayHoldKana(text) }
	for _, w := range words {
		if n := len(values); n > 0 && w.Box.Min.X-values[n-1].x1 < box.Dy() && !other(w.Text) && !other(values[n-1].text[0]) {
			values[n-1].x1 = max(values[n-1].x1, w.Box.Max.X)
			values[n-1].text = append(values[n-1].text, w.Text)
			continue
		}
		values = append(values, value{span{w.Box.Min.X, w.Box.Max.X}, []string{w.Text}})
	}
	// column says which label's column a value is in.
	column := func(v value) int {
		if other(v.text[0]) && k > 0 && (v.x0+v.x1)/2 < (self.x0+self.x1)/2 {
			return k - 1
		} else if other(v.text[0]) {
			return k + 1
		}
		best, bestCost := 0, math.MaxInt
		for c, s := range spans {
			from, to := -far, far // where a value of c may start, or end
			if c > 0 {
				from = spans[c-1].x1
			}
			if c+1 < len(spans) {
				to = spans[c+1].x0
			}
			// Left-aligned first: a holder that starts in its cell and ends under the
			// next column's label would fit that column as a right-aligned amount.
			cost := min(2*span{from, s.x1}.gap(span{v.x0, v.x0}), 2*span{s.x0, to}.gap(span{v.x1, v.x1})+1)
			if cost < bestCost {
				best, bestCost = c, cost
			}
		}
		return best
	}
	// From the end of the values to the left to the start of those to the right, never
	// past the neighbours' labels (their values may be lost too).
	x0, x1 := box.Min.X, box.Max.X
	if k > 0 {
		x0 = spans[k-1].x0
	}
	if k+1 < len(spans) {
		x1 = spans[k+1].x1
	}
	var read []string
	for _, v := range values {
		switch c := column(v); {
		case c == k:
			read = append(read, v.text...)
		case c < k:
			x0 = max(x0, v.x1)
		default:
			x1 = min(x1, v.x0)
		}
	}
	if x1-x0 < box.Dy()/2 {
		return Reread{}, "", false
	}
	crop := image.Rect(x0, box.Min.Y, x1, box.Max.Y)
	if holder {
		for _, j := range below {
			l := src[ls[j].src]
			limit := x1
			if k+1 == len(spans) {
				limit = rowRight(src, l)
			}
			if b, ok := holderWords(l, x0, limit); ok {
				crop = b
				break
			}
		}
	}
	return Reread{Box: crop}, strings.Join(read, " "), true
}

// mayHoldKana says whether a word the page's reading has may be part of a holder's kana
// misread: not two kanji or more (本店営業部, 当座預金: one is a カ read 力), nor five digits
// in a row (an account number).
func mayHoldKana(word string) bool {
	han, digits := 0, 0
	for _, r := range word {
		if unicode.Is(unicode.Han, r) {
			han++
		}
		if unicode.IsDigit(r) {
			digits++
			if digits >= 5 {
				return false
			}
		} else {
			digits = 0
		}
	}
	return han < 2
}

// xAt is the x on the page where the character at byte pos of ln's text begins (the
// text's end: where its last character ends). Each word's characters share its box
// evenly; when normalising changed the count of characters, the line's box is shared.
func xAt(ln line, l Line, pos int) int {
	k := countNonSpace(ln.text[:pos])
	total := countNonSpace(ln.text)
	var counts []int
	sum := 0
	for _, w := range l.Words {
		c := countNonSpace(norm(w.Text))
		counts = append(counts, c)
		sum += c
	}
	if sum != total || len(l.Words) == 0 {
		if total == 0 {
			return l.Box.Min.X
		}
		return l.Box.Min.X + l.Box.Dx()*k/total
	}
	at := 0
	for j, w := range l.Words {
		if k <= at+counts[j] && counts[j] > 0 {
			if k == at+counts[j] {
				return w.Box.Max.X // the end of this word: the label's last character
			}
			return w.Box.Min.X + w.Box.Dx()*(k-at)/counts[j]
		}
		at += counts[j]
	}
	return l.Box.Max.X
}

// startAt is where the text from byte pos of ln's text begins on the page: xAt, but at a
// word's first character the word's start, not the end of the word before it (a label
// after a gap: 名義人 far right of 銀行名 began at 銀行名's end).
func startAt(ln line, l Line, pos int) int {
	x := xAt(ln, l, pos)
	for k, w := range l.Words {
		if w.Box.Max.X == x && k+1 < len(l.Words) {
			return l.Words[k+1].Box.Min.X
		}
	}
	return x
}

func countNonSpace(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n
}

// Refine reads each answer of the crops asked for with its field's own rule and takes,
// per field, the surest answer that parses: where the page's reading found nothing, or
// where the crop was asked Over a value that looked misread and its answer is sure
// enough. got[i] answers asked[i].
func Refine(f *Fields, asked []Reread, got []Line) {
	type answer struct {
		apply  setter
		conf   float64 // tesseract's, 0..1
		over   bool
		scored bool // tesseract gave conf (not cropConfidence)
		// misread: the page's reading of the field had digits or letters among its kana
		// (口座名義 :7サッギョ9, taken as ｻﾂｷﾞﾖ at 0.74): what it found is no surer than a
		// guess, and a scored answer as sure as a guess replaces it (カ) アオバサンギヨウ
		// at 0.58, under overConfidence).
		misread bool
	}
	best := map[string]answer{}
	var order []string
	for i, rr := range asked {
		if i >= len(got) {
			break
		}
		text := strings.TrimSpace(norm(got[i].Text))
		if rr.Widen > 1 {
			text = revoice(text, norm(rr.Read))
		}
		if utf8.RuneCountInString(text) == 0 {
			continue
		}
		apply, ok := cropValue(rr.Field, text)
		if !ok {
			continue
		}
		// tesseract scores a word 0 when the character set took away its first choice,
		// so that figure says nothing of the answer alone; beside another crop of the
		// field that tesseract did score, it says the glyphs looked like none of the
		// field's characters, and the scored answer is taken (a holder's half-width kana
		// cropped as printed read ーサビス unscored, widened カ)ツバサジヨウホウサービス
		// at 0.49).
		conf, scored := got[i].Confidence, got[i].Confidence > 0
		if !scored {
			conf = cropConfidence
		}
		b, seen := best[rr.Field]
		if !seen {
			order = append(order, rr.Field)
		}
		if !seen || scored && !b.scored || scored == b.scored && conf > b.conf {
			best[rr.Field] = answer{apply, min(conf, 1), rr.Over, scored, rr.Field == "account_holder" && misreadKana(rr.Read)}
		}
	}
	for _, field := range order {
		if a := best[field]; !a.over || a.conf >= overConfidence || a.scored && a.conf > unsureConfidence(f, field) ||
			a.scored && a.misread && a.conf >= sureGuess {
			a.apply(f, a.conf, a.over)
		}
	}
	// A holder read from a crop has its mark and is spelt by the issuer's name as one
	// read on the page is.
	issuerByHolder(f)
	restoreHolderMark(f)
	holderByIssuer(f)
}

// unsureConfidence is how sure the value of field the page's reading found is, when it
// is less sure than a guess (1 otherwise): a crop's scored answer surer than that is
// taken over it although it is not sure (overConfidence). A holder read as ﾃﾞｻﾞｲｸﾞ at
// 0.27 from a row of noise, its crop ｶ)ｶﾃﾞｻﾞｲﾝｼﾞﾑｼﾖ at 0.35.
func unsureConfidence(f *Fields, field string) float64 {
	for _, r := range rereadable {
		if found, conf := r.of(f); r.field == field && found && conf < sureGuess {
			return conf
		}
	}
	return 1
}

// dotlessEraRe is a 和暦 date whose dots a crop lost (R8102 for R8.10.2, R8.102): the
// era's R and the digits of year, month and day.
var dotlessEraRe = regexp.MustCompile(`^(?:R|令和)\s*(\d{1,2})\s*[./-]?\s*(\d{3,4})$`)

// dotlessEraDates are the dates a dotless 和暦 crop can be: R8102 is 令和8年1月02日 or
// 10月2日, R81231 令和8年12月31日; an era year past 20 is none.
func dotlessEraDates(text string) []string {
	m := dotlessEraRe.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return nil
	}
	ds := m[1] + m[2]
	var out []string
	for y := 1; y <= 2 && y < len(ds); y++ { // the year's digits
		year, _ := strconv.Atoi(ds[:y])
		rest := ds[y:]
		if year < 1 || year > 20 || ds[0] == '0' || len(rest) < 3 || len(rest) > 4 {
			continue
		}
		for mo := 1; mo <= 2; mo++ { // the month's digits, the day's the rest
			if day := len(rest) - mo; day < 1 || day > 2 {
				continue
			}
			month, _ := strconv.Atoi(rest[:mo])
			day, _ := strconv.Atoi(rest[mo:])
			for _, t := range datesIn(fmt.Sprintf("%d/%d/%d", 2018+year, month, day)) {
				if !slices.Contains(out, t.value) {
					out = append(out, t.value)
				}
			}
		}
	}
	return out
}

// byOtherDate chooses among a dotless date's readings by the page's other date: an
// invoice date is before its due date and within dateSpan of it, a due date after the
// invoice date and as near; exactly one reading must fit. The other date is the due
// date for an invoice date, or the first date the rules guessed for it (which then
// becomes the due date).
func byOtherDate(dates []string, field string, f *Fields) (string, bool) {
	var fit []string
	for _, v := range dates {
		t, _ := time.Parse(time.DateOnly, v)
		switch {
		case field == "invoice_date":
			other := f.DueDate
			if !other.Found {
				other = f.InvoiceDate
			}
			o, err := time.Parse(time.DateOnly, other.Value)
			if other.Found && err == nil && !t.After(o) && o.Sub(t) <= dateSpan {
				fit = append(fit, v)
			}
		case field == "due_date" && f.InvoiceDate.Found:
			o, err := time.Parse(time.DateOnly, f.InvoiceDate.Value)
			if err == nil && !t.Before(o) && t.Sub(o) <= dateSpan {
				fit = append(fit, v)
			}
		}
	}
	if len(fit) != 1 {
		return "", false
	}
	return fit[0], true
}

// dateSpan is how far apart an invoice's date and its due date are at most, for
// choosing between a date's readings: terms run to the end of the next month or the
// one after (末締め翌々月末), about 92 days.
const dateSpan = 92 * 24 * time.Hour

// compactDateRe is a date's crop read with a separator lost (2026.1130, 202611.30,
// 20261130): four digits of year, two of month and two of day, nothing else.
var compactDateRe = regexp.MustCompile(`^(20\d\d)[./-]?(\d\d)[./-]?(\d\d)$`)

// compactDate is the date of a date's crop whose separators were lost; a crop holds the
// date alone, so its eight digits are one (the page's line could be any number).
func compactDate(text string) []dateTok {
	m := compactDateRe.FindStringSubmatch(strings.ReplaceAll(text, " ", ""))
	if m == nil {
		return nil
	}
	return datesIn(m[1] + "/" + m[2] + "/" + m[3])
}

// A setter puts a crop's value in its field, given tesseract's confidence in the crop
// (0..1) and whether it may replace the page's value.
type setter func(f *Fields, conf float64, over bool)

// cropValue reads a crop's text with its field's own rule, once: whether it holds a value,
// and how to put it in. A crop read with a character set is as sure as a label's value.
func cropValue(field, text string) (setter, bool) {
	switch field {
	case "account_holder":
		v, ok := holderIn(text)
		return func(f *Fields, c float64, over bool) { put(&f.AccountHolder, v, c*sureLabel, over) }, ok
	case "due_date", "invoice_date":
		d := datesIn(text)
		if len(d) == 0 {
			d = compactDate(text)
		}
		var eras []string
		if len(d) == 0 {
			if eras = dotlessEraDates(text); len(eras) == 0 {
				return nil, false
			}
		}
		return func(f *Fields, c float64, over bool) {
			fd := &f.DueDate
			if field == "invoice_date" {
				fd = &f.InvoiceDate
			}
			was := *fd
			value := ""
			if len(d) > 0 {
				value = d[0].value
			} else if v, ok := byOtherDate(eras, field, f); ok {
				value = v
			} else {
				return
			}
			put(fd, value, c*sureLabel, over)
			// The guess the labelled invoice date replaced is the page's other date: with
			// no due date read, a later one is it, as unsure as it was.
			if field == "invoice_date" && was.Found && was.Value > fd.Value && !f.DueDate.Found {
				f.DueDate = was
			}
		}, true
	case "total":
		a := amountsIn(text)
		if len(a) == 0 || a[0].value <= 0 {
			return nil, false
		}
		return func(f *Fields, c float64, over bool) { put(&f.Total, a[0].value, c*sureLabel, over) }, true
	case "account_type":
		m := typeRe.FindString(text)
		return func(f *Fields, c float64, _ bool) { put(&f.AccountType, typeOf(m), c*sureLabel, false) }, m != ""
	case "account_number":
		v, ok := accountNumberIn(text)
		return func(f *Fields, c float64, _ bool) { put(&f.AccountNumber, v, c*sureLabel, false) }, ok
	case "registration_number":
		v, ok := thirteen(strings.TrimPrefix(text, "T"))
		ok = ok && pay.ValidRegistrationNumber("T"+v)
		return func(f *Fields, c float64, _ bool) { put(&f.RegistrationNumber, "T"+v, c*sureLabel, false) }, ok
	case "account":
		// The bank's block: the account's rules on its lines, each field as sure as the
		// rule that found it, on the crop's confidence.
		b := Extract(text, nil)
		if bk, ok := banks.Closest(b.BankName.Value); !ok || printedBank(bk) != b.BankName.Value {
			// A bank's name in a block read out of a ruled table's noise is taken only
			// when the zengin list knows it (吉孝銀行 is no bank).
			b.BankName = Field[string]{}
		}
		if !b.BankName.Found && !b.AccountNumber.Found && !b.AccountHolder.Found {
			return nil, false
		}
		return func(f *Fields, c float64, _ bool) {
			fill(&f.BankName, b.BankName, c)
			fill(&f.BranchName, b.BranchName, c)
			fill(&f.BranchCode, b.BranchCode, c)
			fill(&f.AccountType, b.AccountType, c)
			fill(&f.AccountNumber, b.AccountNumber, c)
			fill(&f.AccountHolder, b.AccountHolder, c)
		}, true
	case "issuer_name":
		// The holder the other crops read says the name's form and spells its kana.
		return func(f *Fields, c float64, _ bool) {
			if name, ok := issuerIn(text, f.AccountHolder.Value); ok {
				putIssuer(f, name, c)
			}
		}, true
	case "branch_name":
		var b Fields
		if !readBranch(line{text: text, conf: 1}, text, &b) {
			return nil, false
		}
		return func(f *Fields, c float64, over bool) {
			if over {
				// Asked over a branch the bank has none of: a branch it has, or nothing.
				if has, _ := branchOfBank(f, b.BranchName.Value); !has {
					return
				}
				f.BranchName, f.BranchCode = Field[string]{}, Field[string]{}
			}
			// readBranch's own certainty (a branch's shape), on the crop's confidence.
			put(&f.BranchName, b.BranchName.Value, c*b.BranchName.Confidence, false)
			if b.BranchCode.Found && !f.BranchCode.Found {
				f.BranchCode = found(b.BranchCode.Value, c*b.BranchCode.Confidence)
			}
		}, true
	}
	return nil, false
}

// put puts a crop's value in a field that has none, or over the page's value when the
// crop was asked over it.
func put[T comparable](fd *Field[T], v T, conf float64, over bool) {
	if !fd.Found || over {
		*fd = found(v, conf)
	}
}

// fill puts a field a block's crop read into a field that has none, its confidence the
// rule's times the crop's.
func fill[T comparable](fd *Field[T], got Field[T], conf float64) {
	if got.Found && !fd.Found {
		*fd = found(got.Value, got.Confidence*conf)
	}
}

// voiced and plain are the katakana with a voiced or semi-voiced mark and the same kana
// without it, rune for rune.
var (
	voiced = []rune("ガギグゲゴザジズゼゾダヂヅデドバビブベボパピプペポヴ")
	plain  = []rune("カキクケコサシスセソタチツテトハヒフヘホハヒフヘホウ")
)

// revoice gives a widened crop of half-width kana back the voiced marks it lost: ｷﾞ is
// two glyphs, and widened the mark alone is dropped (ｻﾝﾜｺｳｷﾞﾖｳ read as サンワコウキヨウ),
// where the page's reading, garbled as it is, often kept the voiced kana (カサツリコ9ギヨウ).
// A voiced kana of page whose plain form stands in crop at about the same place (within
// a quarter of the text, spaces not counted) voices it there.
func revoice(crop, page string) string {
	c, p := []rune(crop), []rune(page)
	var at, pat []int // the indexes of the non-space runes
	for i, r := range c {
		if r != ' ' {
			at = append(at, i)
		}
	}
	for i, r := range p {
		if r != ' ' {
			pat = append(pat, i)
		}
	}
	if len(at) == 0 || len(pat) == 0 {
		return crop
	}
	for pi, i := range pat {
		k := slices.Index(voiced, p[i])
		if k < 0 {
			continue
		}
		want := float64(pi) / float64(len(pat))
		best, bestD := -1, 0.25
		for ci, j := range at {
			if c[j] != plain[k] {
				continue
			}
			if d := math.Abs(float64(ci)/float64(len(at)) - want); d < bestD {
				best, bestD = j, d
			}
		}
		if best >= 0 {
			c[best] = voiced[k]
		}
	}
	return string(c)
}
