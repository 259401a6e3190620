package ocr

import (
	"bytes"
	"context"
	"image"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wordsLine is a line of n words of lineH×lineH at y, from x, a word's width apart.
func wordsLine(x, y, n, lineH int) Line {
	var l Line
	for i := range n {
		b := image.Rect(x+2*i*lineH, y, x+2*i*lineH+lineH, y+lineH)
		l.Words = append(l.Words, Word{Text: "字", Box: b})
		l.Box = l.Box.Union(b)
	}
	return l
}

func TestLostRegionsAreTheInkNoWordCovers(t *testing.T) {
	const lineH = 30
	read := []Line{wordsLine(200, 200, 6, lineH), wordsLine(200, 300, 6, lineH)}
	var blacks []image.Rectangle
	for _, l := range read {
		for _, w := range l.Words {
			blacks = append(blacks, w.Box)
		}
	}
	// A line the reading left out: three characters, a character's gap apart.
	lostLine := []image.Rectangle{image.Rect(200, 500, 230, 530), image.Rect(260, 500, 290, 530), image.Rect(320, 500, 350, 530)}
	blacks = append(blacks, lostLine...)
	// Not lines: a speck, a rule's dot at a box's corner, ink at the page's edge (a photo's
	// desk), a block taller than four lines (a logo).
	blacks = append(blacks, image.Rect(700, 700, 703, 703), image.Rect(900, 200, 908, 208), image.Rect(0, 800, 40, 830),
		image.Rect(600, 900, 800, 1100))
	g := page(1200, 1600, blacks...)

	got := lostRegions(g, read)
	require.Len(t, got, 1, "%v", got)
	assert.True(t, image.Rect(200, 500, 350, 530).In(got[0].Inset(-1)), "the lost line: %v", got[0])
	assert.Less(t, got[0].Dx(), 200, "no more than the line: %v", got[0])

	// A page whose ink the reading covers has nothing lost, nor one read too little to
	// know a line's height.
	assert.Empty(t, lostRegions(page(1200, 1600, blacks[:12]...), read))
	assert.Empty(t, lostRegions(g, read[:1]))
}

// A line the page segmentation left out is read again and joins the page's lines at its
// place: here the reading of a rendered invoice with the due date's line taken out of
// tesseract's answer, as psm 3 left 「お支払期限：2025/10/31」 out of a generated one.
func TestRecoverLostReadsALineThePageLeftOut(t *testing.T) {
	r := newReader(t)
	dir := t.TempDir()
	g, _, _, err := prepare(context.Background(), renderInvoice(t, 300), 300)
	require.NoError(t, err)
	file := filepath.Join(dir, "page.png")
	require.NoError(t, writePNG(file, g))
	pr, err := r.tesseract(context.Background(), dir, file, 1, false, false)
	require.NoError(t, err)

	var due Line
	for _, l := range pr.lines {
		if strings.Contains(l.Text, "支払期日") {
			due = l
		}
	}
	require.NotEmpty(t, due.Words, "the page reads the due date: %s", pr.text)
	// tesseract's answer without the due date's words.
	var tsv bytes.Buffer
	var kept []Line
	for _, row := range strings.Split(string(pr.tsv), "\n") {
		f := strings.Split(row, "\t")
		if len(f) >= 12 && f[0] == "5" {
			top, _ := atoi(f[7])
			if top >= due.Box.Min.Y-5 && top <= due.Box.Max.Y {
				continue
			}
		}
		tsv.WriteString(row + "\n")
	}
	for _, l := range pr.lines {
		if l.Box != due.Box {
			kept = append(kept, l)
		}
	}
	lost, _ := parseTSV(tsv.Bytes(), 1, false)
	require.Len(t, lost, len(pr.lines)-1)

	out, _, err := r.recoverLost(context.Background(), dir, g, 1, tsv.Bytes(), kept)
	require.NoError(t, err)
	require.NotNil(t, out, "the due date's ink is found lost")
	lines, _ := parseTSV(out, 1, false)
	require.Len(t, lines, len(pr.lines), "the line is back, no other added")
	var back Line
	for i, l := range lines {
		if strings.Contains(compact(l.Text), "2026年12月25日") {
			back = l
			assert.Contains(t, lines[i-1].Text, "ご請求金額", "in its place among the lines")
		}
	}
	require.NotEmpty(t, back.Words, "read again: %v", lines)
	assert.InDelta(t, due.Box.Min.Y, back.Box.Min.Y, float64(due.Box.Dy())/2, "on the page's coordinates")
	assert.InDelta(t, due.Box.Min.X, back.Box.Min.X, float64(due.Box.Dy()), "on the page's coordinates")

	// Nothing lost: the page's own answer, no tesseract run.
	none, _, err := r.recoverLost(context.Background(), dir, g, 1, pr.tsv, pr.lines)
	require.NoError(t, err)
	assert.Nil(t, none)
}
