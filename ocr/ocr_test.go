package ocr

import (
	"context"
	"errors"
	"image"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newReader(t *testing.T) *Reader {
	t.Helper()
	if err := Available(); err != nil {
		t.Fatalf("%v: %s", err, installHint)
	}
	return &Reader{Timeout: 2 * time.Minute, TempDir: t.TempDir()}
}

// read reads b and checks that the per-call folder is gone afterwards.
func read(t *testing.T, r *Reader, name, mediaType string, b []byte) Result {
	t.Helper()
	res, err := r.Read(context.Background(), mediaType, b)
	require.NoError(t, err)
	left, err := os.ReadDir(r.TempDir)
	require.NoError(t, err)
	assert.Empty(t, left, "the per-call temp folder must be removed")
	record(name, res)
	return res
}

func TestAvailable(t *testing.T) {
	if err := Available(); err != nil {
		t.Fatalf("%v: %s", err, installHint)
	}
}

func TestTextPDFReadsTheTextLayer(t *testing.T) {
	r := newReader(t)
	res := read(t, r, "text PDF", MediaPDF, textPDF(t))
	assert.Equal(t, SourcePDFText, res.Source)
	assert.Equal(t, 1, res.Pages)
	for _, l := range invoiceLines {
		assert.Contains(t, res.Text, l.text, "pdftotext gives the exact text")
	}
	require.NotEmpty(t, res.Lines)
	for _, l := range res.Lines {
		assert.Equal(t, 1.0, l.Confidence)
		assert.Equal(t, 1, l.Page)
	}
	requireInvoiceRead(t, res)
}

func TestCleanImageIsRead(t *testing.T) {
	r := newReader(t)
	res := read(t, r, "clean PNG 200 DPI", MediaPNG, pngBytes(t, renderInvoice(t, 200)))
	assert.Equal(t, SourceTesseract, res.Source)
	assert.Equal(t, 1, res.Pages)
	assert.Equal(t, 0, res.PageStats[0].Rotation)
	requireInvoiceRead(t, res)
	for _, l := range res.Lines {
		assert.True(t, l.Confidence > 0 && l.Confidence <= 1, "confidence %v of %q", l.Confidence, l.Text)
	}
	assert.Positive(t, res.MaxRSSKB)
	assert.Positive(t, res.Duration)
}

func TestPageOnItsSideIsTurnedUpright(t *testing.T) {
	r := newReader(t)
	// The page was fed sideways: turned a quarter clockwise. OSD finds the turn back.
	res := read(t, r, "PNG turned 90°", MediaPNG, pngBytes(t, rotate90(renderInvoice(t, 200), 1)))
	assert.Equal(t, 270, res.PageStats[0].Rotation)
	requireInvoiceRead(t, res)
}

func TestUpsideDownPageIsTurned(t *testing.T) {
	r := newReader(t)
	res := read(t, r, "PNG upside down", MediaPNG, pngBytes(t, rotate90(renderInvoice(t, 200), 2)))
	assert.Equal(t, 180, res.PageStats[0].Rotation)
	requireInvoiceRead(t, res)
}

func TestPhoneJPEGWithEXIFOrientation(t *testing.T) {
	r := newReader(t)
	// Orientation 6: the pixels are stored a quarter turn anticlockwise and the viewer
	// turns them clockwise, as phones held upright do.
	b := jpegWithOrientation(t, rotate90(renderInvoice(t, 200), 3), 6, 90)
	require.Equal(t, 6, exifOrientation(b))
	res := read(t, r, "JPEG EXIF 6", MediaJPEG, b)
	assert.Equal(t, 0, res.PageStats[0].Rotation, "EXIF alone made it upright")
	requireInvoiceRead(t, res)
}

func TestFaxIsDeskewedAndDespeckled(t *testing.T) {
	r := newReader(t)
	res := read(t, r, "fax 200 DPI skew 2.5°", MediaPNG, pngBytes(t, faxLike(t)))
	assert.InDelta(t, 2.5, res.PageStats[0].Skew, 0.4)
	assert.True(t, res.PageStats[0].OneBit, "a fax comes in black and white alone")
	requireInvoiceRead(t, res)
}

func TestLowContrastPhotoIsCleanedAndUpscaled(t *testing.T) {
	r := newReader(t)
	res := read(t, r, "photo 130 DPI skew -4°", MediaJPEG, photoLike(t))
	assert.InDelta(t, -4, res.PageStats[0].Skew, 0.5)
	assert.False(t, res.PageStats[0].OneBit)
	requireInvoiceRead(t, res)
}

func TestScannedPDFFallsBackToOCR(t *testing.T) {
	r := newReader(t)
	res := read(t, r, "scanned PDF", MediaPDF, scannedPDF(t, renderInvoice(t, 150)))
	assert.Equal(t, SourceTesseract, res.Source)
	assert.Equal(t, 1, res.Pages)
	requireInvoiceRead(t, res)
}

func TestMixedPDFReadsEachPageItsWay(t *testing.T) {
	r := newReader(t)
	// A text page followed by a scanned one (a delivery note attached by the scanner).
	b := buildPDF(t, nil, renderInvoice(t, 150))
	res := read(t, r, "mixed PDF", MediaPDF, b)
	require.Equal(t, 2, res.Pages)
	require.Len(t, res.PageStats, 2)
	assert.Equal(t, SourcePDFText, res.PageStats[0].Source)
	assert.Equal(t, SourceTesseract, res.PageStats[1].Source)
	assert.Equal(t, SourceTesseract, res.Source)
	pages := strings.Split(res.Text, "\f")
	require.Len(t, pages, 2)
	assert.Contains(t, digits(pages[1]), "125400")
}

func TestTimeoutStopsTheTools(t *testing.T) {
	r := newReader(t)
	r.Timeout = 50 * time.Millisecond
	start := time.Now()
	_, err := r.Read(context.Background(), MediaPNG, pngBytes(t, renderInvoice(t, 300)))
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 30*time.Second, "the read must stop, not run to the end")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = newReader(t).Read(ctx, MediaPDF, textPDF(t))
	assert.ErrorIs(t, err, context.Canceled)
}

func TestMissingToolIsUnavailable(t *testing.T) {
	r := &Reader{ToolDir: t.TempDir(), TempDir: t.TempDir()}
	_, err := r.Read(context.Background(), MediaPDF, textPDF(t))
	require.ErrorIs(t, err, ErrUnavailable)
	assert.Contains(t, err.Error(), "pdftotext")

	_, err = r.Read(context.Background(), MediaPNG, pngBytes(t, renderInvoice(t, 100)))
	require.ErrorIs(t, err, ErrUnavailable)
	assert.Contains(t, err.Error(), "tesseract")

	err = r.Available(context.Background())
	require.ErrorIs(t, err, ErrUnavailable)
	assert.Contains(t, err.Error(), "tesseract")
	assert.Contains(t, err.Error(), "task ocr-tools")
}

func TestRefusesWhatItCannotRead(t *testing.T) {
	r := &Reader{TempDir: t.TempDir()}
	_, err := r.Read(context.Background(), "image/gif", []byte("GIF89a"))
	assert.Error(t, err)
	_, err = r.Read(context.Background(), MediaPNG, []byte("not a png"))
	assert.Error(t, err)
	assert.False(t, errors.Is(err, ErrUnavailable))
}

func TestAnalyseFindsSkewAndDirection(t *testing.T) {
	page := renderInvoice(t, 100)
	for _, deg := range []float64{0, 1.5, -3, 7, -9.5} {
		lay := analyse(rotate(page, deg))
		assert.False(t, lay.vertical, "%v°", deg)
		assert.InDelta(t, deg, lay.skew, 0.3, "%v°", deg)
		assert.InDelta(t, 11.0/72*100, lay.lineSize, 8, "line size at %v°", deg)
	}
	lay := analyse(rotate(rotate90(page, 1), 3))
	assert.True(t, lay.vertical)
	assert.InDelta(t, 3, lay.skew, 0.3)
}

func TestEXIFOrientation(t *testing.T) {
	g := renderInvoice(t, 20)
	for o := uint16(1); o <= 8; o++ {
		assert.Equal(t, int(o), exifOrientation(jpegWithOrientation(t, g, o, 50)))
	}
	assert.Equal(t, 1, exifOrientation(pngBytes(t, g)))
	assert.Equal(t, 1, exifOrientation([]byte{0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF}), "a truncated segment is ignored")
}

func TestRotate90RoundTrips(t *testing.T) {
	g := renderInvoice(t, 20)
	for k := range 4 {
		assert.Equal(t, g.Pix, rotate90(rotate90(g, k), 4-k).Pix)
	}
	assert.Equal(t, g.Rect.Dy(), rotate90(g, 1).Rect.Dx())
	assert.Equal(t, g.Pix, flipH(flipH(g)).Pix)
}

func TestParseTSVJoinsJapaneseWordsByGaps(t *testing.T) {
	tsv := "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
		"1\t1\t0\t0\t0\t0\t0\t0\t2480\t3508\t-1\t\n" +
		"4\t1\t1\t1\t1\t0\t100\t100\t900\t40\t-1\t\n" +
		"5\t1\t1\t1\t1\t1\t100\t100\t200\t40\t96.5\tご請求\n" +
		"5\t1\t1\t1\t1\t2\t302\t100\t80\t40\t93.5\t金額\n" +
		"5\t1\t1\t1\t1\t3\t600\t100\t200\t40\t90\t¥125,400\n" +
		"5\t1\t1\t1\t2\t1\t100\t160\t120\t40\t80\t支払\n" +
		"5\t1\t1\t1\t2\t2\t225\t160\t120\t40\t60\t期日\n" +
		"5\t1\t1\t1\t2\t3\t380\t160\t60\t40\t-1\t \n"
	lines, score := parseTSV([]byte(tsv), 3, false)
	require.Len(t, lines, 2)
	assert.Equal(t, Line{Text: "ご請求金額  ¥125,400", Confidence: 0.933, Page: 3,
		// The line keeps its box and its words' boxes on the page, for Reading.Reread.
		Box: image.Rect(100, 100, 800, 140),
		Words: []Word{
			{Text: "ご請求", Box: image.Rect(100, 100, 300, 140), Confidence: 0.965},
			{Text: "金額", Box: image.Rect(302, 100, 382, 140), Confidence: 0.935},
			{Text: "¥125,400", Box: image.Rect(600, 100, 800, 140), Confidence: 0.9},
		}}, lines[0])
	assert.Equal(t, "支払期日", lines[1].Text)
	assert.InDelta(t, 0.7, lines[1].Confidence, 1e-9)
	assert.Positive(t, score)
}

// readsUpright takes a page as upright only on plenty of confidently read text: the
// figures of an upright and an upside-down reading of the generated invoices, and a
// page with too little text, which goes to OSD.
func TestReadsUpright(t *testing.T) {
	line := func(text string, conf float64) Line { return Line{Text: text, Confidence: conf} }
	many := func(n int, text string, conf float64) []Line {
		var ls []Line
		for range n {
			ls = append(ls, line(text, conf))
		}
		return ls
	}
	for _, tc := range []struct {
		name  string
		lines []Line
		want  bool
	}{
		{"upright: 190 confident characters at 0.57", append(many(19, "請求書番号一二三四五六", 0.8), many(10, "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ１２３", 0.2)...), true},
		{"upside down: no confident line", many(40, "ー丶ヽ丿乙ノ二亠", 0.4), false},
		{"upside down: 20 confident characters", append(many(2, "請求書番号一二三四五六", 0.75), many(40, "ー丶ヽ丿乙ノ二亠", 0.35)...), false},
		{"too little text to tell", many(3, "請求書", 0.9), false},
		{"confident lines but a poor page", append(many(7, "請求書番号一二三四五六", 0.75), many(60, "ー丶ヽ丿乙ノ二亠", 0.3)...), false},
		{"nothing read", nil, false},
	} {
		assert.Equal(t, tc.want, readsUpright(pageResult{lines: tc.lines}), tc.name)
	}
}
