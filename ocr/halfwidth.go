package ocr

import (
	"image"
	"slices"
)

// halfWidthKana redraws a crop of half-width katakana (ｶ)ﾁﾕｳｵｳｷﾞｹﾝ, as banks print an
// account holder) as the full-width kana they stand for: each glyph is widened by widen,
// and each voiced or semi-voiced mark, which half-width kana print as a glyph of its own
// (ｷﾞ is two), is set unwidened against the top right of the glyph before it, where a
// full-width ギ has it. Widened with the rest, the mark is a wide stroke a glyph's width
// away, which tesseract drops: ｻﾝﾜｺｳｷﾞﾖｳ read サンワコウキヨウ.
//
// A glyph is a run of columns whose ink is joined (the parts of ﾊ or ﾘ overlap no
// column of their neighbours' but stand within the glyph's own pitch); a mark is such a
// run whose ink keeps to the upper half of the line and is small.
func halfWidthKana(g *image.Gray, widen float64) *image.Gray {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	hist, n := histogram(g)
	t := otsu(hist, n)
	ink := func(x, y int) bool { return g.Pix[y*g.Stride+x] <= t }
	// Columns with ink, and each column's ink rows.
	type col struct{ top, bottom int }
	cols := make([]col, w)
	for x := range w {
		cols[x] = col{-1, -1}
		for y := range h {
			if ink(x, y) {
				if cols[x].top < 0 {
					cols[x].top = y
				}
				cols[x].bottom = y
			}
		}
	}
	// Runs of inked columns.
	type run struct{ x0, x1, top, bottom int } // x1 exclusive
	var runs []run
	for x := 0; x < w; x++ {
		if cols[x].top < 0 {
			continue
		}
		r := run{x, x, cols[x].top, cols[x].bottom}
		for ; x < w && cols[x].top >= 0; x++ {
			r.top, r.bottom = min(r.top, cols[x].top), max(r.bottom, cols[x].bottom)
		}
		r.x1 = x
		runs = append(runs, r)
	}
	if len(runs) < 2 {
		return resize(g, int(float64(w)*widen), h, catmullRom)
	}
	// The line's band: the tallest runs' top and bottom.
	var heights []int
	for _, r := range runs {
		heights = append(heights, r.bottom-r.top+1)
	}
	slices.Sort(heights)
	lineH := heights[len(heights)*3/4]
	top, bottom := h, 0
	for _, r := range runs {
		if r.bottom-r.top+1 >= lineH*2/3 {
			top, bottom = min(top, r.top), max(bottom, r.bottom)
		}
	}
	bandH := bottom - top + 1
	isMark := func(i int) bool {
		r := runs[i]
		return i > 0 && r.bottom < top+bandH/2 && r.bottom-r.top+1 <= bandH*45/100 && r.x1-r.x0 <= bandH*6/10
	}
	// A mark's two strokes can stand apart: runs of marks a hair apart are one.
	var merged []run
	var marks []bool
	for i, r := range runs {
		m := isMark(i)
		if m && len(merged) > 0 && marks[len(marks)-1] && r.x0-merged[len(merged)-1].x1 <= bandH/8 {
			p := &merged[len(merged)-1]
			p.x1, p.top, p.bottom = r.x1, min(p.top, r.top), max(p.bottom, r.bottom)
			continue
		}
		merged = append(merged, r)
		marks = append(marks, m)
	}
	// The new width: glyphs and gaps widened, marks as they are.
	outW := merged[0].x0
	for i, r := range merged {
		if i > 0 && !marks[i] {
			outW += int(float64(r.x0-merged[i-1].x1) * widen)
		}
		if marks[i] {
			outW += r.x1 - r.x0
		} else {
			outW += int(float64(r.x1-r.x0) * widen)
		}
	}
	outW += w - merged[len(merged)-1].x1
	out := image.NewGray(image.Rect(0, 0, outW, h))
	for i := range out.Pix {
		out.Pix[i] = 0xff
	}
	// columns copies g's columns [x0, x1) to out at x, dw wide.
	columns := func(x0, x1, x, dw int) {
		part := image.NewGray(image.Rect(0, 0, x1-x0, h))
		for y := range h {
			copy(part.Pix[y*part.Stride:], g.Pix[y*g.Stride+x0:y*g.Stride+x1])
		}
		if dw != x1-x0 {
			part = resize(part, dw, h, catmullRom)
		}
		for y := range h {
			dst := out.Pix[y*out.Stride+x : y*out.Stride+x+dw]
			src := part.Pix[y*part.Stride : y*part.Stride+dw]
			for k, v := range src {
				dst[k] = min(dst[k], v)
			}
		}
	}
	x := merged[0].x0
	for i, r := range merged {
		if marks[i] {
			back := min(int(markOverlap*float64(r.x1-r.x0)), x)
			columns(r.x0, r.x1, x-back, r.x1-r.x0)
			x += r.x1 - r.x0 - back
			continue
		}
		if i > 0 {
			x += int(float64(r.x0-merged[i-1].x1) * widen)
		}
		dw := max(int(float64(r.x1-r.x0)*widen), 1)
		columns(r.x0, r.x1, x, dw)
		x += dw
	}
	return out
}

// markOverlap is how far (of its own width) a voiced mark is set back into the glyph
// before it. Set just after the glyph (0), tesseract still read ｷﾞ as キ on the
// generator's four voiced misses; a fifth to the whole of its width back, as ギ on all
// four (0.6 chosen from the middle).
const markOverlap = 0.6
