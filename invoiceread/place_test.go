package invoiceread

import (
	"image"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// drawn is an OCR line as placed draws it, moved by dx, dy and scaled by s (another scan
// of the same layout: another offset, another resolution).
func drawn(text string, y int, dx, dy int, s float64) Line {
	l := placed(text, y)
	move := func(r image.Rectangle) image.Rectangle {
		return image.Rect(dx+int(float64(r.Min.X)*s), dy+int(float64(r.Min.Y)*s), dx+int(float64(r.Max.X)*s), dy+int(float64(r.Max.Y)*s))
	}
	l.Box = move(l.Box)
	for i := range l.Words {
		l.Words[i].Box = move(l.Words[i].Box)
	}
	return l
}

// page is a supplier's invoice page, its payment date after a label the rules do not
// know, drawn at an offset and scale.
func page(due, amount string, dx, dy int, s float64) []Line {
	return []Line{
		drawn("請求書", 100, dx, dy, s),
		drawn("株式会社サンプル製作所", 200, dx, dy, s),
		drawn("ご請求金額 "+amount, 300, dx, dy, s),
		drawn("ご決済予定 "+due, 400, dx, dy, s),
		drawn("振込先 みずほ銀行 東京営業部", 500, dx, dy, s),
	}
}

// valueBox is the box of the word holding v on the lines.
func valueBox(t *testing.T, lines []Line, v string) image.Rectangle {
	t.Helper()
	for _, l := range lines {
		for _, w := range l.Words {
			if w.Text == v {
				return w.Box
			}
		}
	}
	t.Fatalf("no word %q", v)
	return image.Rectangle{}
}

func TestLearn(t *testing.T) {
	lines := page("2026年11月25日", "¥125,400", 0, 0, 1)
	got := Learn(lines, Known{Total: 125400, DueDate: "2026-11-25", InvoiceDate: "2026-11-01"})
	require.Len(t, got, 2, "the invoice date is not printed: not placed")
	assert.Equal(t, "total", got[0].Field)
	assert.Equal(t, "due_date", got[1].Field)
	due := got[1].Anchors
	require.NotEmpty(t, due)
	assert.Equal(t, "ご決済予定", due[0].Text, "the label before it on its line first")
	// The value from the label's start, in the page's unit (the words' height, 40):
	// the label is 5 characters of 40 px; the value's box begins where the label ends.
	assert.Equal(t, [4]float64{5, 0, 5 + 2 + 11, 1}, due[0].At)
	var texts []string
	for _, a := range due[1:] {
		texts = append(texts, a.Text)
	}
	assert.Equal(t, []string{"振込先みずほ銀行東京営業", "株式会社サンプル製作所", "ご請求金額"}, texts,
		"then the nearest other texts (a long one cut at 12 characters); 請求書 is farther")

	// A PDF's text layer has no boxes: nothing to learn.
	assert.Empty(t, Learn([]Line{{Text: "ご決済予定 2026年11月25日", Confidence: 1}}, Known{DueDate: "2026-11-25"}))
	// A value not on the page (OCR lost it) is not placed.
	assert.Empty(t, Learn(lines, Known{Total: 99999}))
}

func TestPlacedRereads(t *testing.T) {
	learned := Learn(page("2026年11月25日", "¥125,400", 0, 0, 1), Known{Total: 125400, DueDate: "2026-11-25"})
	require.Len(t, learned, 2)

	t.Run("another scan of the next invoice: the crop covers the date wherever it is", func(t *testing.T) {
		next := page("2026年12月25日", "¥1,125,400", 37, -21, 1.5)
		asked := PlacedRereads(next, Fields{Total: found(int64(1125400), 0.9)}, learned)
		require.Len(t, asked, 1, "the total was found: only the date is asked for")
		rr := asked[0]
		assert.Equal(t, "due_date", rr.Field)
		assert.Equal(t, CharsDate, rr.Chars)
		assert.Equal(t, 1, rr.Page)
		assert.False(t, rr.Over, "a crop only fills what the reading missed")
		v := valueBox(t, next, "2026年12月25日")
		assert.True(t, v.In(rr.Box), "the crop %v holds the value %v", rr.Box, v)
		assert.Less(t, rr.Box.Dy(), 2*v.Dy(), "and not the lines above and below")
	})

	t.Run("the label read a little otherwise", func(t *testing.T) {
		long := Learn([]Line{placed("お支払い予定日付 2026年11月25日", 400)}, Known{DueDate: "2026-11-25"})
		require.Len(t, long, 1)
		asked := PlacedRereads([]Line{placed("お支払い予定白付 2026年12月25日", 400)}, Fields{}, long)
		require.Len(t, asked, 1, "one character in eight may differ")
	})

	t.Run("the label lost: the next nearest text places it", func(t *testing.T) {
		next := page("2026年12月25日", "¥125,400", 0, 0, 1)
		next[3] = drawn("ごｮ宋予ｯ 2026年12月25日", 400, 0, 0, 1)
		asked := PlacedRereads(next, Fields{}, learned)
		require.Len(t, asked, 2)
		assert.Equal(t, "due_date", asked[1].Field)
		assert.True(t, valueBox(t, next, "2026年12月25日").In(asked[1].Box), "placed from the nearest text found (the bank line below)")
	})

	t.Run("a short label must be read as it was", func(t *testing.T) {
		short := []Place{{Field: "invoice_date", Anchors: []Anchor{{Text: "請求日", At: [4]float64{3, 0, 14, 1}}}}}
		assert.Empty(t, PlacedRereads([]Line{placed("請求書 2026年12月1日", 100)}, Fields{}, short), "請求書 is not 請求日")
		assert.Len(t, PlacedRereads([]Line{placed("請求日 2026年12月1日", 100)}, Fields{}, short), 1)
	})

	t.Run("what was found, even guessed, stands", func(t *testing.T) {
		next := page("2026年12月25日", "¥125,400", 0, 0, 1)
		f := Fields{Total: found(int64(125400), sureGuess), DueDate: found("2026-12-25", sureGuess)}
		assert.Empty(t, PlacedRereads(next, f, learned))
	})

	t.Run("no places, or a text layer", func(t *testing.T) {
		assert.Empty(t, PlacedRereads(page("2026年12月25日", "¥125,400", 0, 0, 1), Fields{}, nil))
		assert.Empty(t, PlacedRereads([]Line{{Text: "ご決済予定 2026年12月25日", Confidence: 1}}, Fields{}, learned))
	})
}

// The crop's answer is read with the field's rule and fills the missing date.
func TestPlacedCropFillsTheField(t *testing.T) {
	learned := Learn(page("2026年11月25日", "¥125,400", 0, 0, 1), Known{DueDate: "2026-11-25"})
	next := page("2026年12月25日", "¥125,400", 0, 0, 1)
	var f Fields
	asked := PlacedRereads(next, f, learned)
	require.Len(t, asked, 1)
	Refine(&f, asked, []Line{{Text: "2026年12月25日", Confidence: 0.9}})
	assert.Equal(t, "2026-12-25", f.DueDate.Value)
	assert.InDelta(t, 0.9*sureLabel, f.DueDate.Confidence, 0.01)
}

func TestAnchorText(t *testing.T) {
	cases := []struct {
		in   string
		want string
		ok   bool
	}{
		{"ご決済予定：", "ご決済予定", true},
		{" お支払 期限 ", "お支払期限", true},
		{"No.", "No", true},
		{"ーー“", "", false},     // a rule read as marks
		{"請求番号 12", "", false}, // a number changes from one invoice to the next
		{"円", "", false},
	}
	for _, c := range cases {
		got, ok := anchorText(c.in)
		assert.Equal(t, c.ok, ok, c.in)
		if c.ok {
			assert.Equal(t, c.want, got, c.in)
		}
	}
}

func TestRunsOf(t *testing.T) {
	text := "請求番号 INV-2026-001 株式会社サンプル製作所東京本社営業部"
	var got []string
	for _, r := range runsOf(text) {
		got = append(got, text[r[0]:r[1]])
	}
	assert.Equal(t, []string{"請求番号 INV-", "-", "株式会社サンプル製作所東", "京本社営業部"}, got,
		"cut at digits, and at 12 characters")
}

func TestMarshalLinesRoundTrip(t *testing.T) {
	in := []Line{placed("ご決済予定 2026年11月25日", 400), {Text: "テキスト", Confidence: 1}}
	in[0].Confidence = 0.87
	b, err := MarshalLines(in)
	require.NoError(t, err)
	out, err := UnmarshalLines(b)
	require.NoError(t, err)
	assert.Equal(t, in[0], out[0])
	assert.Equal(t, "テキスト", out[1].Text)
	assert.True(t, out[1].Box.Empty())
	_, err = UnmarshalLines([]byte(`{"not":"lines"}`))
	assert.Error(t, err)
}
