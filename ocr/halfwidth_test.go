package ocr

import (
	"image"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// inkRuns answers the runs of inked columns of g: [x0, x1) each.
func inkRuns(g *image.Gray) [][2]int {
	var out [][2]int
	for x := 0; x < g.Rect.Dx(); x++ {
		inked := func(x int) bool {
			for y := range g.Rect.Dy() {
				if g.Pix[y*g.Stride+x] < 128 {
					return true
				}
			}
			return false
		}
		if !inked(x) {
			continue
		}
		x0 := x
		for x < g.Rect.Dx() && inked(x) {
			x++
		}
		out = append(out, [2]int{x0, x})
	}
	return out
}

func TestHalfWidthKanaWidensGlyphsAndSetsMarksAgainstThem(t *testing.T) {
	// Two glyphs 10 wide and 30 high, 4 apart, then a mark 6 wide at the top of the line,
	// 3 after the second, then a third glyph 4 after the mark.
	g := page(80, 50,
		image.Rect(10, 10, 20, 40), image.Rect(24, 10, 34, 40), // glyphs
		image.Rect(37, 8, 43, 16), // the mark: small, in the upper half
		image.Rect(47, 10, 57, 40))
	out := halfWidthKana(g, 2)
	runs := inkRuns(out)
	t.Logf("runs %v → %v", inkRuns(g), runs)
	assert.Equal(t, 50, out.Rect.Dy(), "the height is kept")
	// The left margin kept (10), the first glyph ×2 (20), the gap ×2 (8), the second glyph
	// ×2 (20) ending at 58; the mark, 6 wide, set 0.6 of its width back into it, so it
	// joins the glyph's run; then the gap ×2 and the third glyph ×2.
	if assert.Len(t, runs, 3) {
		assert.InDelta(t, 10, runs[0][0], 1)
		assert.InDelta(t, 30, runs[0][1], 2)
		assert.InDelta(t, 38, runs[1][0], 2)
		assert.InDelta(t, 58+6-3, runs[1][1], 2, "the mark ends 2.4 past the glyph it voices")
		assert.InDelta(t, 20, runs[2][1]-runs[2][0], 2, "the third glyph widened")
	}
	// The mark's rows are kept: its ink is above the glyphs' top.
	var markTop bool
	for x := runs[1][1] - 3; x < runs[1][1]; x++ {
		if out.Pix[8*out.Stride+x] < 128 {
			markTop = true
		}
	}
	assert.True(t, markTop, "the mark stays at the top of the line")
}

func TestHalfWidthKanaLeavesALowSmallGlyphAlone(t *testing.T) {
	// A period (small, at the foot of the line) and a long mark (in the middle) are no
	// voiced marks: widened as glyphs, each keeps its own run.
	g := page(80, 50,
		image.Rect(10, 10, 20, 40), image.Rect(23, 34, 26, 40), // a glyph, a period
		image.Rect(30, 23, 40, 27), // a long mark
		image.Rect(44, 10, 54, 40))
	runs := inkRuns(halfWidthKana(g, 2))
	assert.Len(t, runs, 4, "%v", runs)
}

// Whatever a crop holds (noise, ink to its edges, one column), the redraw keeps its
// height and never writes outside its page.
func TestHalfWidthKanaTakesAnyCrop(t *testing.T) {
	rnd := rand.New(rand.NewPCG(28, 1))
	for n := range 200 {
		w, h := 1+rnd.IntN(120), 1+rnd.IntN(60)
		g := image.NewGray(image.Rect(0, 0, w, h))
		ink := rnd.IntN(100)
		for i := range g.Pix {
			if rnd.IntN(100) < ink {
				g.Pix[i] = uint8(rnd.IntN(128))
			} else {
				g.Pix[i] = 255
			}
		}
		out := halfWidthKana(g, 1+rnd.Float64())
		assert.Equal(t, h, out.Rect.Dy(), "crop %d (%dx%d, %d %% ink)", n, w, h, ink)
	}
}
