package invoiceread

import (
	"cmp"
	"encoding/json"
	"image"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Learning where a supplier prints its fields (issue 28, "the field positions guide the
// crops"). A supplier's invoices keep one layout; what changes from one to the next is
// the amount and the dates. When a buyer pays an uploaded invoice, the values submitted
// are looked for on the page's reading (Learn): where one is printed, the text printed
// just before it (the anchor: a label the rules do not know or that OCR garbled, a
// table's header cell over it) and the value's box measured from the anchor's are
// remembered for the supplier. The next invoice of the supplier that misses one of these
// fields finds the anchor again, even read a little otherwise, and reads the crop there
// with the field's characters (PlacedRereads, then Refine).

// Place is where a supplier's invoice printed one field's value, by the texts printed
// round it (Anchors, the surest first): the label before it on its line, then the
// nearest other texts of the page. Any one of them read again places the value.
type Place struct {
	Field   string   `json:"field"`
	Anchors []Anchor `json:"anchors"`
}

// Anchor is a text printed near a value (normalised, without spaces or digits) and the
// value's box from the anchor's top left corner (x0, y0, x1, y1) in the page's unit (the
// median height of its words), so that a scan at another resolution or offset places it
// alike.
type Anchor struct {
	Text string     `json:"text"`
	At   [4]float64 `json:"at"`
}

// Known are the values a buyer submitted that change from one invoice of a supplier to
// the next: the amount (yen) and the dates (2006-01-02; "" when not entered).
type Known struct {
	Total       int64
	InvoiceDate string
	DueDate     string
}

// The fields whose places are learned, in Refine's keys.
const (
	keyTotal       = "total"
	keyInvoiceDate = "invoice_date"
	keyDueDate     = "due_date"
)

// Anchor limits: an anchor is a text with no digit (labels and names stay; a number
// changes from one invoice to the next) of at least two letters (rules and noise read as
// ーー or “ are none).
const (
	anchorMinRunes = 2
	// prefixRunes is the most characters a label before its value on the line is taken
	// to have (ご請求金額(税込) is 7 without its brackets).
	prefixRunes = 8
	// anchorRunes is the most characters of another text kept as an anchor, nearMinRunes
	// the fewest (a short word is printed elsewhere too, or read as another).
	anchorRunes  = 12
	nearMinRunes = 3
	// nearAnchors other texts within nearReach of the page.s unit are kept.
	nearAnchors = 3
	nearReach   = 15.0
	// placeWiden is how far past the learned value's right edge a crop reaches, in the
	// page's unit: the next invoice's amount may have more digits.
	placeWiden = 3.0
	// placeMargin and placeRise are the room left of and above and below the learned
	// box, in the page's unit: a word box OCR drew tight, a scan a little askew. The
	// crop's edges are then snapped to the blank round the value (ocr.Reading.Reread).
	// Above and below it is less: a line's worth more reaches the next line's ink, and a
	// date read with the bottom of the amount over it lost its 年 and 月.
	placeMargin = 0.4
	placeRise   = 0.2
)

// Learn answers where on the reading lines (an OCR reading with boxes; a PDF's text layer
// has none and teaches nothing) the values of k are printed, each with its anchor. A value
// printed more than once is placed by its first print that has an anchor; a value not
// found in the reading (OCR lost it) is not placed.
func Learn(lines []Line, k Known) []Place {
	ls := prepare("", lines)
	var out []Place
	for _, want := range []struct {
		field string
		find  func(text string) [][2]int
	}{
		{keyTotal, func(t string) [][2]int { return amountSpans(t, k.Total) }},
		{keyDueDate, func(t string) [][2]int { return dateSpans(t, k.DueDate) }},
		{keyInvoiceDate, func(t string) [][2]int { return dateSpans(t, k.InvoiceDate) }},
	} {
	search:
		for i, ln := range ls {
			l := lines[ln.src]
			if l.Box.Empty() {
				continue
			}
			for _, sp := range want.find(ln.text) {
				v := spanBox(ln, l, sp[0], sp[1])
				if as := anchorsOf(ls, lines, i, sp[0], v); len(as) > 0 {
					out = append(out, Place{Field: want.field, Anchors: as})
					break search
				}
			}
		}
	}
	return out
}

// amountSpans are the byte spans of ln's amounts equal to v (0: none asked).
func amountSpans(text string, v int64) [][2]int {
	if v <= 0 {
		return nil
	}
	var out [][2]int
	for _, a := range amountsIn(text) {
		if a.value == v {
			out = append(out, [2]int{a.start, a.end})
		}
	}
	return out
}

// dateSpans are the byte spans of ln's dates equal to d ("": none asked).
func dateSpans(text, d string) [][2]int {
	if d == "" {
		return nil
	}
	var out [][2]int
	for _, t := range datesIn(text) {
		if t.value == d {
			out = append(out, [2]int{t.start, t.end})
		}
	}
	return out
}

// anchorsOf are the anchors of a value at byte start of ls[i] with box v: the label
// before it on its line, then up to nearAnchors other texts of its page within
// nearReach of the page's unit, the nearest first, each printed once on the page (株式会社
// twice places nothing).
func anchorsOf(ls []line, src []Line, i, start int, v image.Rectangle) []Anchor {
	ln, l := ls[i], src[ls[i].src]
	u := unit(src, l.Page)
	var out []Anchor
	// The words before the value on its line, from the last digit before it (another
	// value: 請求日 2026年1月5日 お支払期限 2026年1月31日), at most prefixRunes of them (a
	// line OCR joined holds the addressee before お支払期日).
	from := 0
	if k := strings.LastIndexFunc(ln.text[:start], unicode.IsDigit); k >= 0 {
		_, size := utf8.DecodeRuneInString(ln.text[k:])
		from = k + size
	}
	if _, starts, _ := compactRunes(ln.text[:start]); len(starts) > prefixRunes {
		from = max(from, starts[len(starts)-prefixRunes])
	}
	if text, ok := anchorText(ln.text[from:start]); ok {
		a := spanBox(ln, l, from, start)
		out = append(out, Anchor{Text: text, At: relative(v, a, u)})
	}

	type near struct {
		Anchor
		dist float64
	}
	var cands []near
	seen := map[string]int{}
	h := u
	for j, o := range ls {
		b := src[o.src]
		if b.Page != l.Page || b.Box.Empty() {
			continue
		}
		for _, r := range runsOf(o.text) {
			text, ok := anchorText(o.text[r[0]:r[1]])
			if !ok || utf8.RuneCountInString(text) < nearMinRunes {
				continue
			}
			seen[text]++
			if j == i && r[0] < start && r[1] > from {
				continue // the label before the value, taken above
			}
			a := spanBox(o, b, r[0], r[1])
			dx := float64((a.Min.X+a.Max.X)/2-(v.Min.X+v.Max.X)/2) / h
			dy := float64((a.Min.Y+a.Max.Y)/2-(v.Min.Y+v.Max.Y)/2) / h
			if d := math.Hypot(dx, dy); d <= nearReach {
				cands = append(cands, near{Anchor{Text: text, At: relative(v, a, u)}, d})
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b near) int { return cmp.Compare(a.dist, b.dist) })
	added := 0
	for _, c := range cands {
		if added == nearAnchors {
			break
		}
		if seen[c.Text] == 1 && !slices.ContainsFunc(out, func(a Anchor) bool { return a.Text == c.Text }) {
			out = append(out, c.Anchor)
			added++
		}
	}
	return out
}

// runsOf are the byte spans of text between its digits, each cut to anchorRunes
// characters (its start: a long line's first words).
func runsOf(text string) [][2]int {
	var out [][2]int
	begin, n := -1, 0
	flush := func(end int) {
		if begin >= 0 {
			out = append(out, [2]int{begin, end})
		}
		begin, n = -1, 0
	}
	for i, r := range text {
		if unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if begin < 0 {
			if unicode.IsSpace(r) {
				continue
			}
			begin = i
		}
		if !unicode.IsSpace(r) && !strings.ContainsRune(anchorMarks, r) {
			n++
			if n > anchorRunes {
				flush(i) // and the next run starts here
				begin, n = i, 1
			}
		}
	}
	flush(len(text))
	return out
}

// anchorText is s as an anchor (spaces and the marks around labels taken away), and
// whether it can be one: two letters or more, no digit.
func anchorText(s string) (string, bool) {
	s = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || strings.ContainsRune(anchorMarks, r) {
			return -1
		}
		return r
	}, s)
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) && r != 'ー' {
			letters++
		}
	}
	// Rules and noise read as ーー or “ are no label.
	if letters < anchorMinRunes || strings.ContainsFunc(s, unicode.IsDigit) {
		return "", false
	}
	return s, true
}

// anchorMarks are the marks around labels that an anchor leaves out.
const anchorMarks = ":：・|｜[]()「」¥.,-"

// unit is the page's measure for places: the median height of its words (of its lines
// when OCR gave no words). The same layout scanned at another resolution has its
// distances and its words' heights scaled alike; one text's own height (a large issuer
// name, a word box OCR drew loose) is no measure.
func unit(lines []Line, page int) float64 {
	var hs []int
	for _, l := range lines {
		if l.Page != page {
			continue
		}
		for _, w := range l.Words {
			if !w.Box.Empty() {
				hs = append(hs, w.Box.Dy())
			}
		}
		if len(l.Words) == 0 && !l.Box.Empty() {
			hs = append(hs, l.Box.Dy())
		}
	}
	if len(hs) == 0 {
		return 1
	}
	slices.Sort(hs)
	return float64(max(hs[len(hs)/2], 1))
}

// spanBox is the box on the page of the text of ln between bytes from and to: from
// xAt to xAt sideways, and the heights of the words it is in (a line OCR joined spans
// a large issuer name and small labels; the line's own height would be the large one's).
func spanBox(ln line, l Line, from, to int) image.Rectangle {
	box := image.Rect(xAt(ln, l, from), l.Box.Min.Y, xAt(ln, l, to), l.Box.Max.Y)
	var ys image.Rectangle
	for _, w := range l.Words {
		if w.Box.Max.X > box.Min.X && w.Box.Min.X < box.Max.X {
			if ys.Empty() {
				ys = w.Box
			} else {
				ys = ys.Union(w.Box)
			}
		}
	}
	if !ys.Empty() {
		box.Min.Y, box.Max.Y = ys.Min.Y, ys.Max.Y
	}
	return box
}

// relative is v measured from a's top left corner in units of h.
func relative(v, a image.Rectangle, h float64) [4]float64 {
	// Hundredths of a unit are finer than a pixel at any resolution read; and a long
	// run of digits kept is one the card data scan would stop at (a float's 16 digits
	// can pass Luhn's check).
	at := func(d int) float64 { return math.Round(float64(d)/h*100) / 100 }
	return [4]float64{at(v.Min.X - a.Min.X), at(v.Min.Y - a.Min.Y), at(v.Max.X - a.Min.X), at(v.Max.Y - a.Min.Y)}
}

// PlacedRereads asks, for each of the supplier's places whose field f misses, for the
// crop where the supplier prints it: the first of the place's anchors found among the
// lines (read a little otherwise is still it: a quarter of its characters may differ)
// places the value, and the crop reaches further right for a longer value.
func PlacedRereads(lines []Line, f Fields, places []Place) []Reread {
	ls := prepare("", lines)
	var out []Reread
	for _, p := range places {
		fd, chars, ok := placedField(&f, p.Field)
		if !ok || fd.Found {
			// A value found, even guessed, stands: measured on the generator's set, a
			// crop asked over a guess replaced a right total by a part of it read split
			// (2,005,849 as 2005) and a right date by one a digit off.
			continue
		}
		for _, an := range p.Anchors {
			a, page, ok := findAnchor(ls, lines, an.Text)
			if !ok {
				continue
			}
			h := unit(lines, page)
			box := image.Rect(
				a.Min.X+int((an.At[0]-placeMargin)*h), a.Min.Y+int((an.At[1]-placeRise)*h),
				a.Min.X+int((an.At[2]+placeWiden)*h), a.Min.Y+int((an.At[3]+placeRise)*h),
			)
			if box.Dx() > 0 && box.Dy() > 0 {
				out = append(out, Reread{Field: p.Field, Page: page, Box: box, Chars: chars})
			}
			break
		}
	}
	return out
}

// placedField is the field a place is of, as found so far, and its characters.
func placedField(f *Fields, field string) (Field[string], Chars, bool) {
	switch field {
	case keyTotal:
		return Field[string]{Found: f.Total.Found, Confidence: f.Total.Confidence}, CharsDigits, true
	case keyDueDate:
		return f.DueDate, CharsDate, true
	case keyInvoiceDate:
		return f.InvoiceDate, CharsDate, true
	}
	return Field[string]{}, CharsAny, false
}

// findAnchor finds an anchor's text among the lines: the closest run of a line's
// characters as long as it, or one more or fewer (OCR joined or split a character); its
// box and page.
func findAnchor(ls []line, src []Line, text string) (image.Rectangle, int, bool) {
	want := []rune(text)
	// Some characters may be read otherwise in a long anchor; a short one must be read
	// as it was (ご請求日 must not find ご請求申し上げます, 請求日 not 請求書).
	limit := (len(want) - 2) / 4
	var box image.Rectangle
	page, best := 0, limit+1
	for _, ln := range ls {
		l := src[ln.src]
		if l.Box.Empty() {
			continue
		}
		compact, starts, ends := compactRunes(ln.text)
		for n := max(len(want)-1, 1); n <= len(want)+1; n++ {
			for s := 0; s+n <= len(compact); s++ {
				if d := editDistance(string(compact[s:s+n]), text); d < best {
					best, page = d, l.Page
					box = spanBox(ln, l, starts[s], ends[s+n-1])
				}
			}
		}
	}
	return box, page, best <= limit && !box.Empty()
}

// compactRunes is text's characters without spaces and the marks anchorText takes away,
// and for each the byte offsets in text where it starts and ends.
func compactRunes(text string) (rs []rune, starts, ends []int) {
	for i, r := range text {
		if unicode.IsSpace(r) || strings.ContainsRune(anchorMarks, r) {
			continue
		}
		rs = append(rs, r)
		starts = append(starts, i)
		ends = append(ends, i+utf8.RuneLen(r))
	}
	return rs, starts, ends
}

// storedLine is a Line as a file's reading keeps it (MarshalLines): short keys and the
// boxes as x0, y0, x1, y1, for a page of some sixty lines.
type storedLine struct {
	Text       string       `json:"t"`
	Confidence float64      `json:"c"`
	Page       int          `json:"p,omitempty"`
	Box        [4]int       `json:"b"`
	Words      []storedWord `json:"w,omitempty"`
}

type storedWord struct {
	Text string `json:"t"`
	Box  [4]int `json:"b"`
}

func corners(r image.Rectangle) [4]int { return [4]int{r.Min.X, r.Min.Y, r.Max.X, r.Max.Y} }
func rect(b [4]int) image.Rectangle    { return image.Rect(b[0], b[1], b[2], b[3]) }

// MarshalLines encodes a reading's lines for keeping with the file: where its values
// were printed is learned from them when the file is paid (Learn).
func MarshalLines(lines []Line) ([]byte, error) {
	out := make([]storedLine, len(lines))
	for i, l := range lines {
		s := storedLine{Text: l.Text, Confidence: round2(l.Confidence), Page: l.Page, Box: corners(l.Box)}
		for _, w := range l.Words {
			s.Words = append(s.Words, storedWord{Text: w.Text, Box: corners(w.Box)})
		}
		out[i] = s
	}
	return json.Marshal(out)
}

// UnmarshalLines decodes MarshalLines' lines.
func UnmarshalLines(b []byte) ([]Line, error) {
	var in []storedLine
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, err
	}
	out := make([]Line, len(in))
	for i, s := range in {
		l := Line{Text: s.Text, Confidence: s.Confidence, Page: s.Page, Box: rect(s.Box)}
		for _, w := range s.Words {
			l.Words = append(l.Words, Word{Text: w.Text, Box: rect(w.Box)})
		}
		out[i] = l
	}
	return out, nil
}
