package ocr

import (
	"context"
	"image"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// valueBox is the part of the line holding label to the right of the label.
func valueBox(t *testing.T, res Result, label string) (int, image.Rectangle) {
	t.Helper()
	for _, l := range res.Lines {
		if !strings.Contains(strings.ReplaceAll(l.Text, " ", ""), label) {
			continue
		}
		require.NotEmpty(t, l.Words, "a tesseract line has its words: %q", l.Text)
		seen := ""
		for _, w := range l.Words {
			assert.True(t, w.Box.In(l.Box), "the words are inside the line's box")
			seen += w.Text
			if strings.Contains(seen, label) {
				return l.Page, image.Rect(w.Box.Max.X+1, l.Box.Min.Y, l.Box.Max.X, l.Box.Max.Y)
			}
		}
	}
	t.Fatalf("no line with %s in %q", label, res.Text)
	return 0, image.Rectangle{}
}

func TestRereadReadsACropWithTheFieldsCharacters(t *testing.T) {
	r := newReader(t)
	rd, err := r.Open(context.Background(), MediaPNG, pngBytes(t, renderInvoice(t, 200)))
	require.NoError(t, err)

	cases := []struct {
		label, chars, want string
	}{
		{"口座名義", CharsKana, "カ)サンプルセイサクシヨ"},
		{"ご請求金額", CharsDigits, "¥125,400"},
		{"支払期日", CharsDate, "2026年12月25日"},
	}
	for _, c := range cases {
		page, box := valueBox(t, rd.Result, c.label)
		t0 := time.Now()
		got, err := rd.Reread(context.Background(), Crop{Page: page, Box: box, Chars: c.chars})
		require.NoError(t, err)
		t.Logf("reread %s: %q (confidence %.2f) in %d ms", c.label, got.Text, got.Confidence, time.Since(t0).Milliseconds())
		// The yen mark is read as either of its forms (¥, or \ as in Shift_JIS).
		assert.Equal(t, c.want, strings.NewReplacer(" ", "", `\`, "¥").Replace(got.Text), c.label)
		for _, ch := range strings.ReplaceAll(got.Text, " ", "") {
			assert.Contains(t, c.chars, string(ch), "only the crop's characters")
		}
		assert.Equal(t, page, got.Page)
		require.NotEmpty(t, got.Words)
		assert.True(t, got.Box.Overlaps(box), "the answer's box %v is on the page where the crop was %v", got.Box, box)
	}

	_, err = rd.Reread(context.Background(), Crop{Page: 2, Box: image.Rect(0, 0, 100, 100)})
	assert.Error(t, err, "no page 2")
	_, err = rd.Reread(context.Background(), Crop{Page: 1, Box: image.Rect(-500, -500, -400, -400)})
	assert.Error(t, err, "a crop off the page")

	require.NoError(t, rd.Close())
	left, err := os.ReadDir(r.TempDir)
	require.NoError(t, err)
	assert.Empty(t, left, "Close removes the page images")
}

// openWith reads the small invoice at dpi with its line of label printed as line, and
// answers the reading (closed when the test ends) and where the label's value is.
func openWith(t *testing.T, dpi float64, label, line string) (*Reading, int, image.Rectangle) {
	t.Helper()
	lines := slices.Clone(invoiceLines)
	for i := range lines {
		if strings.HasPrefix(lines[i].text, label) {
			lines[i].text = line
		}
	}
	rd, err := newReader(t).Open(context.Background(), MediaPNG, pngBytes(t, renderLines(t, dpi, lines)))
	require.NoError(t, err)
	t.Cleanup(func() { rd.Close() })
	page, box := valueBox(t, rd.Result, label)
	return rd, page, box
}

// A holder printed in half-width kana, as banks print it, reads as letters and digits on
// the page; its crop widened reads as the kana.
func TestRereadWidensHalfWidthKana(t *testing.T) {
	rd, page, box := openWith(t, 300, "口座名義", "口座名義 ﾔﾏﾄｾｲｺｳ(ｶ")
	as, err := rd.Reread(context.Background(), Crop{Page: page, Box: box, Chars: CharsKana})
	require.NoError(t, err)
	widened, err := rd.Reread(context.Background(), Crop{Page: page, Box: box, Chars: CharsKana, Widen: 1.6})
	require.NoError(t, err)
	t.Logf("half-width holder: as it is %q (%.2f), widened %q (%.2f)", as.Text, as.Confidence, widened.Text, widened.Confidence)
	assert.Equal(t, "ヤマトセイコウ(カ", strings.ReplaceAll(widened.Text, " ", ""))
	assert.Greater(t, widened.Confidence, as.Confidence, "the widened reading is the surer")
	assert.True(t, widened.Box.Overlaps(box), "the widened reading's boxes are back on the page: %v in %v", widened.Box, box)
}

// A half-width voiced kana is two glyphs (ｷﾞ): widened with the rest, the mark stands a
// glyph's width away and is dropped (キ); redrawn against its kana it reads ギ.
func TestRereadSetsAVoicedMarkAgainstItsKana(t *testing.T) {
	rd, page, box := openWith(t, 300, "口座名義", "口座名義 ｶ)ｻﾝﾜｺｳｷﾞﾖｳ")
	widened, err := rd.Reread(context.Background(), Crop{Page: page, Box: box, Chars: CharsKana, Widen: 1.6})
	require.NoError(t, err)
	redrawn, err := rd.Reread(context.Background(), Crop{Page: page, Box: box, Chars: CharsKana, Widen: 1.6, HalfWidth: true})
	require.NoError(t, err)
	t.Logf("ｶ)ｻﾝﾜｺｳｷﾞﾖｳ: widened %q (%.2f), redrawn %q (%.2f)", widened.Text, widened.Confidence, redrawn.Text, redrawn.Confidence)
	assert.Equal(t, "カ)サンワコウギヨウ", strings.ReplaceAll(redrawn.Text, " ", ""))
	assert.True(t, redrawn.Box.Overlaps(box), "the redrawn reading's boxes are on the page: %v in %v", redrawn.Box, box)
}

// Two of the five date forms invoices print are 和暦: the date characters hold the era.
func TestRereadReadsAJapaneseEraDate(t *testing.T) {
	rd, page, box := openWith(t, 200, "支払期日", "支払期日 令和8年12月25日")
	got, err := rd.Reread(context.Background(), Crop{Page: page, Box: box, Chars: CharsDate})
	require.NoError(t, err)
	assert.Equal(t, "令和8年12月25日", strings.ReplaceAll(got.Text, " ", ""))
}

// The bank's block asked as a block: its lines come back apart, each read whole.
func TestRereadReadsABlockAsLines(t *testing.T) {
	rd, err := newReader(t).Open(context.Background(), MediaPNG, pngBytes(t, renderInvoice(t, 200)))
	require.NoError(t, err)
	t.Cleanup(func() { rd.Close() })
	var box image.Rectangle
	for _, l := range rd.Lines {
		if s := strings.ReplaceAll(l.Text, " ", ""); strings.HasPrefix(s, "振込先") || strings.HasPrefix(s, "口座名義") {
			box = box.Union(l.Box)
		}
	}
	require.False(t, box.Empty())
	got, err := rd.Reread(context.Background(), Crop{Page: 1, Box: box, Block: true})
	require.NoError(t, err)
	t.Logf("block: %q (%.2f)", got.Text, got.Confidence)
	lines := strings.Split(strings.ReplaceAll(got.Text, " ", ""), "\n")
	assert.Equal(t, []string{"振込先みずほ銀行東京営業部普通1234567", "口座名義カ)サンプルセイサクシヨ"}, lines)
	assert.True(t, got.Box.Overlaps(box))
}

func TestATextLayerHasNothingToReread(t *testing.T) {
	r := newReader(t)
	rd, err := r.Open(context.Background(), MediaPDF, textPDF(t))
	require.NoError(t, err)
	defer rd.Close()
	for _, l := range rd.Lines {
		assert.Empty(t, l.Words, "a text layer has no boxes")
	}
	_, err = rd.Reread(context.Background(), Crop{Page: 1, Box: image.Rect(0, 0, 100, 100), Chars: CharsDigits})
	assert.ErrorContains(t, err, "not read from an image")
}

// A photo's page is kept in grey beside its thresholded image, the same size, and its
// block crops are cut from the grey; a scan's is not.
func TestAPhotosBlockIsCutFromItsGrey(t *testing.T) {
	r := newReader(t)
	ctx := context.Background()
	rd, err := r.Open(ctx, MediaJPEG, photoLike(t))
	require.NoError(t, err)
	t.Cleanup(func() { rd.Close() })
	g, grey, err := rd.pageImage(1)
	require.NoError(t, err)
	require.NotNil(t, grey, "a photo keeps its grey")
	assert.Equal(t, g.Rect, grey.Rect)
	mid := 0
	for _, v := range grey.Pix {
		if v > 40 && v < 215 {
			mid++
		}
	}
	t.Logf("grey: %d of %d pixels between black and white", mid, len(grey.Pix))
	assert.Greater(t, mid, len(grey.Pix)/100, "the grey holds the photo's tones, not the threshold's two")

	var box image.Rectangle
	for _, l := range rd.Lines {
		if s := strings.ReplaceAll(l.Text, " ", ""); strings.Contains(s, "1234567") {
			box = box.Union(l.Box)
		}
	}
	require.False(t, box.Empty(), "the account's lines in %q", rd.Text)
	block, _, err := cropImage(g, grey, Crop{Page: 1, Box: box, Block: true})
	require.NoError(t, err)
	line, _, err := cropImage(g, nil, Crop{Page: 1, Box: box})
	require.NoError(t, err)
	tones := func(c *image.Gray) (n int) {
		for _, v := range c.Pix {
			if v != 0 && v != 0xff {
				n++
			}
		}
		return n
	}
	assert.Greater(t, tones(block), 0, "the block is cut from the grey")
	assert.Zero(t, tones(line), "a line is cut from the thresholded page")
	got, err := rd.Reread(ctx, Crop{Page: 1, Box: box, Block: true})
	require.NoError(t, err)
	t.Logf("block: %q (%.2f)", got.Text, got.Confidence)
	assert.Contains(t, strings.ReplaceAll(got.Text, " ", ""), "1234567")

	scan, err := r.Open(ctx, MediaPNG, pngBytes(t, renderInvoice(t, 200)))
	require.NoError(t, err)
	t.Cleanup(func() { scan.Close() })
	_, grey, err = scan.pageImage(1)
	require.NoError(t, err)
	assert.Nil(t, grey, "a scan has no grey")
}
