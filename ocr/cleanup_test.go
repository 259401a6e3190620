package ocr

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/image/draw"
)

func TestToGrayDropsTheSealsRed(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 4, 1))
	img.Set(0, 0, color.NRGBA{200, 30, 30, 255})   // a seal's red
	img.Set(1, 0, color.NRGBA{235, 180, 180, 255}) // its pale edge on the paper
	img.Set(2, 0, color.NRGBA{20, 20, 20, 255})    // black text
	img.Set(3, 0, color.NRGBA{20, 40, 140, 255})   // blue text
	g := toGray(img)
	assert.Equal(t, uint8(255), g.Pix[0])
	assert.Equal(t, uint8(255), g.Pix[1])
	assert.Equal(t, uint8(20), g.Pix[2])
	assert.Less(t, g.Pix[3], uint8(80), "blue ink stays ink")

	// A JPEG decodes to YCbCr: the same rule.
	y := image.NewYCbCr(image.Rect(0, 0, 2, 2), image.YCbCrSubsampleRatio444)
	for i, c := range []color.RGBA{{200, 30, 30, 255}, {20, 20, 20, 255}} {
		yy, cb, cr := color.RGBToYCbCr(c.R, c.G, c.B)
		y.Y[i], y.Cb[i], y.Cr[i] = yy, cb, cr
	}
	g = toGray(y)
	assert.Equal(t, uint8(255), g.Pix[0])
	assert.Less(t, g.Pix[1], uint8(40))
}

// page is a white page of w×h with the given rectangles in black.
func page(w, h int, blacks ...image.Rectangle) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = 255
	}
	for _, r := range blacks {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				g.Pix[y*g.Stride+x] = 0
			}
		}
	}
	return g
}

func black(g *image.Gray, x, y int) bool { return g.Pix[y*g.Stride+x] == 0 }

func TestRemoveRulesKeepsTextAndWhatCrossesTheRule(t *testing.T) {
	g := page(1200, 1200,
		image.Rect(100, 500, 1100, 503), // a table's border, 3 px thick
		image.Rect(400, 470, 410, 540),  // a stroke crossing it
		image.Rect(300, 100, 303, 900),  // a vertical border
		image.Rect(600, 200, 640, 240),  // a character's blob
		image.Rect(700, 200, 720, 203),  // a short dash (ー) is no rule
	)
	// A dashed rule, as a fax prints it: 10 px of ink, 2 px of paper.
	for x := 100; x < 1100; x += 12 {
		for y := 800; y < 802; y++ {
			for dx := range 10 {
				g.Pix[y*g.Stride+x+dx] = 0
			}
		}
	}
	removeRules(g, false)
	assert.False(t, black(g, 200, 501), "the border is gone")
	assert.False(t, black(g, 301, 150), "the vertical border is gone")
	assert.False(t, black(g, 500, 800), "the dashed rule is gone")
	assert.True(t, black(g, 405, 501), "the stroke across the border stays")
	assert.True(t, black(g, 620, 220), "the character stays")
	assert.True(t, black(g, 710, 201), "the dash stays")
}

// A fax's rule scanned askew is a staircase of one-pixel steps; deskewed, its steps are
// short tilted pieces. Of a page that came in one bit the whole rule goes (removeRules
// stepped); the same pass for a grey scan leaves the steps standing as dashes, which is
// what hid a ledger's bank table. A stroke crossing the rule stays either way.
func TestRemoveRulesErasesAFaxsStairs(t *testing.T) {
	const deg = 1.4                                        // one step every 41 px
	fax := page(1600, 400, image.Rect(600, 120, 608, 300)) // the crossing stroke
	for x := 100; x < 1500; x++ {
		y0 := 200 + int(float64(x-100)*math.Tan(deg*math.Pi/180))
		for y := y0; y < y0+4; y++ {
			fax.Pix[y*fax.Stride+x] = 0
		}
	}
	require.True(t, oneBit(fax))
	ink := func(g *image.Gray) (n int) {
		for _, v := range g.Pix {
			if v == 0 {
				n++
			}
		}
		return n
	}
	deskewed := func() *image.Gray {
		g := rotate(fax, -deg)
		binarize(g, false)
		return g
	}
	stroke := 8 * 180
	before := ink(deskewed())
	grey, stepped := deskewed(), deskewed()
	removeRules(grey, false)
	removeRules(stepped, true)
	t.Logf("ink: %d deskewed, %d left as for a grey scan, %d left of a fax (the stroke alone: %d)", before, ink(grey), ink(stepped), stroke)
	assert.Less(t, ink(stepped), stroke*12/10, "the fax's rule is gone but for the stroke")
	assert.Greater(t, ink(grey), ink(stepped)+stroke/4, "the steps stand without it (else this test proves nothing)")
	assert.Greater(t, ink(stepped), stroke*8/10, "the stroke stays")
}

func TestRemoveRulesLeavesARowOfTextAlone(t *testing.T) {
	// Thin horizontal strokes in a row, as kanji cut at one height: mostly paper between.
	g := page(1200, 400)
	for x := 100; x < 1100; x += 14 {
		for dx := range 6 {
			for y := 200; y < 203; y++ {
				g.Pix[y*g.Stride+x+dx] = 0
			}
		}
	}
	removeRules(g, false)
	assert.True(t, black(g, 100, 201))
	assert.True(t, black(g, 1094, 201))
}

func TestClearBorderWhitensTheDeskNotThePage(t *testing.T) {
	g := page(400, 400,
		image.Rect(0, 0, 400, 30),      // desk above the sheet
		image.Rect(0, 0, 25, 400),      // and at its left
		image.Rect(100, 100, 140, 140), // text on the sheet
	)
	clearBorder(g)
	assert.False(t, black(g, 5, 5))
	assert.False(t, black(g, 10, 300))
	assert.True(t, black(g, 120, 120))
}

func TestJoinRowsPutsALabelAndItsValueOnOneLine(t *testing.T) {
	tsv := "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
		// Block 1: the labels of a table, one under the other.
		"5\t1\t1\t1\t1\t1\t100\t100\t160\t40\t95\t請求日\n" +
		"5\t1\t1\t1\t2\t1\t100\t160\t200\t40\t95\tお支払期限\n" +
		// Block 2: their values, in another column, a little lower.
		"5\t1\t2\t1\t1\t1\t600\t104\t220\t40\t90\t2026/1/5\n" +
		"5\t1\t2\t1\t2\t1\t600\t163\t220\t40\t90\t2026/2/28\n" +
		// Block 3: a seal's text, tall, next to both rows: not joined to either.
		"5\t1\t3\t1\t1\t1\t1000\t90\t60\t140\t40\t印\n"
	lines, _ := parseTSV([]byte(tsv), 1, false)
	var texts []string
	for _, l := range lines {
		texts = append(texts, l.Text)
	}
	assert.Equal(t, []string{"印", "請求日  2026/1/5", "お支払期限  2026/2/28"}, texts)
}

func TestDespeckleKeepsThinStrokes(t *testing.T) {
	g := page(200, 200,
		image.Rect(20, 50, 180, 51),   // a one-pixel stroke
		image.Rect(100, 60, 101, 140), // and a vertical one
		image.Rect(30, 150, 31, 151),  // a speck
		image.Rect(60, 150, 62, 151),  // a speck of two pixels
	)
	g = despeckle(g)
	assert.True(t, black(g, 20, 50), "the stroke's end stays")
	assert.True(t, black(g, 90, 50))
	assert.True(t, black(g, 100, 100))
	assert.False(t, black(g, 30, 150), "the speck is gone")
	assert.False(t, black(g, 60, 150))
	assert.False(t, black(g, 61, 150))
}

// sheetOnDesk is a 1200×1600 photo of a bright sheet (the quad) on a dark desk, with a
// black mark near the sheet's top-left corner.
func sheetOnDesk(quad [4][2]float64) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, 1200, 1600))
	inside := func(x, y float64) bool {
		for i := range 4 {
			a, b := quad[i], quad[(i+1)%4]
			if (b[0]-a[0])*(y-a[1])-(b[1]-a[1])*(x-a[0]) < 0 {
				return false
			}
		}
		return true
	}
	for y := range 1600 {
		for x := range 1200 {
			v := uint8(95)
			if inside(float64(x), float64(y)) {
				v = 235
			}
			g.Pix[y*g.Stride+x] = v
		}
	}
	// The mark: 30 px in from the sheet's top-left corner along both sides.
	for y := quad[0][1] + 40; y < quad[0][1]+60; y++ {
		for x := quad[0][0] + 40; x < quad[0][0]+60; x++ {
			g.Pix[int(y)*g.Stride+int(x)] = 0
		}
	}
	return g
}

func TestFlattenUndoesThePerspectiveOfAPhoto(t *testing.T) {
	// Clockwise from the top-left, the far edge narrower as a phone held low sees it.
	quad := [4][2]float64{{180, 120}, {1030, 150}, {1110, 1500}, {90, 1460}}
	out, ok := flatten(sheetOnDesk(quad))
	require.True(t, ok)
	assert.InDelta(t, 1020, out.Rect.Dx(), 40, "the sheet's longer width")
	assert.InDelta(t, 1350, out.Rect.Dy(), 40, "the sheet's longer height")
	// No desk left at the corners, and the mark near the top-left corner.
	for _, p := range [][2]int{{3, 3}, {out.Rect.Dx() - 4, 3}, {3, out.Rect.Dy() - 4}, {out.Rect.Dx() - 4, out.Rect.Dy() - 4}} {
		assert.Greater(t, out.Pix[p[1]*out.Stride+p[0]], uint8(150), "corner %v is paper", p)
	}
	dark := 0
	for y := range 120 {
		for x := range 120 {
			if out.Pix[y*out.Stride+x] < 100 {
				dark++
			}
		}
	}
	assert.Greater(t, dark, 100, "the mark is in the top-left corner")

	// A page that fills the picture, and a picture with no sheet: left alone.
	_, ok = flatten(page(1200, 1600, image.Rect(100, 100, 200, 200)))
	assert.False(t, ok)
	_, ok = flatten(sheetOnDesk([4][2]float64{{500, 700}, {700, 700}, {700, 900}, {500, 900}}))
	assert.False(t, ok)
}

// scale's own resampler gives what x/image/draw's Catmull-Rom (enlarging) and
// approximate bilinear (shrinking) gave, on text-like content: OCR is sensitive to one
// grey level, and a first version that rounded instead of truncating moved the readings.
func TestScaleMatchesXImageDraw(t *testing.T) {
	src := image.NewGray(image.Rect(0, 0, 301, 203))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range src.Pix {
		src.Pix[i] = 255
	}
	for range 400 { // strokes: dark bars of a few pixels
		x, y := rng.IntN(290), rng.IntN(195)
		for dy := range 2 + rng.IntN(6) {
			for dx := range 2 + rng.IntN(8) {
				src.SetGray(x+dx, y+dy, color.Gray{uint8(rng.IntN(80))})
			}
		}
	}
	for _, tc := range []struct {
		f    float64
		ref  draw.Scaler
		name string
	}{{1.5, draw.CatmullRom, "enlarge"}, {2.3, draw.CatmullRom, "enlarge more"}, {0.6, draw.ApproxBiLinear, "shrink"}, {0.25, draw.ApproxBiLinear, "shrink more"}, {0.1, draw.ApproxBiLinear, "shrink a lot"}} {
		got := scale(src, tc.f)
		want := image.NewGray(got.Rect)
		tc.ref.Scale(want, want.Rect, src, src.Rect, draw.Src, nil)
		var sum, worst int
		for i := range got.Pix {
			d := int(got.Pix[i]) - int(want.Pix[i])
			d = max(d, -d)
			sum += d
			worst = max(worst, d)
		}
		mean := float64(sum) / float64(len(got.Pix))
		t.Logf("%s ×%.1f: mean difference %.3f, largest %d", tc.name, tc.f, mean, worst)
		// The same bytes but for float rounding: a page's reading must not change with it.
		assert.Less(t, mean, 0.01, tc.name)
		assert.LessOrEqual(t, worst, 1, tc.name)
	}
}

// median9 is the middle of the nine values, as sorting them says, for any nine.
func TestMedian9IsTheMiddleOfNine(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for range 200000 {
		var v [9]uint8
		for i := range v {
			v[i] = uint8(rng.IntN(4) * 80) // few values: many ties
			if rng.IntN(2) == 0 {
				v[i] = uint8(rng.IntN(256))
			}
		}
		got := median9(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8])
		s := v
		slices.Sort(s[:])
		if got != s[4] {
			t.Fatalf("median9%v = %d, sorted %v", v, got, s)
		}
	}
}

// The histogram's four counts add up to one count of every pixel, rows of any width, a
// sub-image's stride included.
func TestHistogramCountsEveryPixel(t *testing.T) {
	for _, w := range []int{1, 3, 4, 5, 7, 64, 1653} {
		g := image.NewGray(image.Rect(0, 0, w+2, 9))
		for i := range g.Pix {
			g.Pix[i] = uint8(i*7 + i/5)
		}
		sub := g.SubImage(image.Rect(1, 1, w+1, 8)).(*image.Gray)
		var want [256]int
		for y := sub.Rect.Min.Y; y < sub.Rect.Max.Y; y++ {
			for x := sub.Rect.Min.X; x < sub.Rect.Max.X; x++ {
				want[sub.GrayAt(x, y).Y]++
			}
		}
		got, n := histogram(sub)
		if got != want || n != w*7 {
			t.Errorf("width %d: histogram differs from a count of every pixel (n %d, want %d)", w, n, w*7)
		}
	}
}
