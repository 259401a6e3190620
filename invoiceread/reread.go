package invoiceread

import (
	"image"
	"strings"
	"unicode"
	"unicode/utf8"

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
	maxRereads     = 5
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
// line round it), so a crop only fills what the page's reading lost. Lines without
// boxes (a PDF's text layer) ask for nothing.
func Rereads(lines []Line, f Fields) []Reread {
	ls := prepare("", lines)
	var out []Reread
	for _, r := range rereadable {
		if found, _ := r.of(&f); found {
			continue
		}
		if rr, ok := cropOf(ls, lines, r.label); ok {
			rr.Field, rr.Chars = r.field, r.chars
			out = append(out, rr)
		}
		if len(out) == maxRereads {
			break
		}
	}
	return out
}

// cropOf places the value of the first label of field that OCR placed on the page.
func cropOf(ls []line, src []Line, field string) (Reread, bool) {
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
			if strings.TrimSpace(ln.text[h.end:end]) != "" {
				right := l.Box.Max.X
				if end < len(ln.text) {
					right = xAt(ln, l, end)
				}
				box := image.Rect(xAt(ln, l, h.end), l.Box.Min.Y, right, l.Box.Max.Y)
				if box.Dx() > box.Dy()/2 {
					return Reread{Page: l.Page, Box: box}, true
				}
				continue
			}
			// The label alone: a table's header cell over its value, or a label whose
			// value OCR lost in the cell's rules. The value is on the line below, from
			// under the label on, or in the rest of this line's band.
			if i+1 < len(ls) {
				below := src[ls[i+1].src]
				if !below.Box.Empty() && below.Page == l.Page && below.Box.Min.Y-l.Box.Max.Y < 2*l.Box.Dy() {
					left := max(below.Box.Min.X, xAt(ln, l, h.start))
					if end == len(ln.text) && l.Box.Max.X > left {
						// Nothing else on the label's line: the line below is its value.
						return Reread{Page: l.Page, Box: image.Rect(left, below.Box.Min.Y, below.Box.Max.X, below.Box.Max.Y)}, true
					}
				}
			}
		}
	}
	return Reread{}, false
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

func countNonSpace(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n
}

// Refine reads each answer of the crops asked for with its field's own rule and takes
// it where the page's reading found nothing. got[i] answers asked[i].
func Refine(f *Fields, asked []Reread, got []Line) {
	for i, rr := range asked {
		if i >= len(got) {
			break
		}
		text := strings.TrimSpace(norm(got[i].Text))
		if utf8.RuneCountInString(text) == 0 {
			continue
		}
		// A crop read with a character set is as sure as a label's value; tesseract
		// scores a word 0 when the set took away its first choice, so that figure
		// says nothing.
		conf := got[i].Confidence
		if conf <= 0 {
			conf = cropConfidence
		}
		conf = min(conf, 1) * sureLabel
		switch rr.Field {
		case "account_holder":
			if v, ok := holderIn(text); ok {
				take(&f.AccountHolder, v, conf)
			}
		case "due_date":
			if d := datesIn(text); len(d) > 0 {
				take(&f.DueDate, d[0].value, conf)
			}
		case "invoice_date":
			if d := datesIn(text); len(d) > 0 {
				take(&f.InvoiceDate, d[0].value, conf)
			}
		case "total":
			if a := amountsIn(text); len(a) > 0 && a[0].value > 0 {
				take(&f.Total, a[0].value, conf)
			}
		case "account_type":
			if m := typeRe.FindString(text); m != "" {
				take(&f.AccountType, typeOf(m), conf)
			}
		case "account_number":
			if v, ok := accountNumberIn(text); ok {
				take(&f.AccountNumber, v, conf)
			}
		case "registration_number":
			d := strings.TrimPrefix(text, "T")
			if v, ok := thirteen(d); ok && pay.ValidRegistrationNumber("T"+v) {
				take(&f.RegistrationNumber, "T"+v, conf)
			}
		case "branch_name":
			var b Fields
			if readBranch(line{text: text, conf: conf / sureLabel}, text, &b) {
				take(&f.BranchName, b.BranchName.Value, b.BranchName.Confidence)
				if b.BranchCode.Found && !f.BranchCode.Found {
					f.BranchCode = b.BranchCode
				}
			}
		}
	}
}

// take puts a crop's value in a field that has none.
func take[T comparable](fd *Field[T], v T, conf float64) {
	if !fd.Found {
		*fd = found(v, conf)
	}
}
