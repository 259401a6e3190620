package ocr

import (
	"image"
	"math"

	"cardpay/ocr/internal/geom"
)

// flatten finds a photographed sheet on a darker desk and maps it onto an upright
// rectangle, undoing the phone's perspective: its text lines come out straight and
// level, which the deskew (one angle for the whole page), the ruled-line removal and the
// joining of rows all need. ok is false when no sheet stands out (a scan, a screenshot,
// a photo filled by the page): g is then to be used as it is.
//
// The sheet is the largest bright region of a reduced copy, split from the desk by
// Otsu's threshold; its corners are the region's extreme points along the diagonals.
func flatten(g *image.Gray) (out *image.Gray, ok bool) {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	f := math.Min(1, 600/float64(max(w, h)))
	small := g
	if f < 1 {
		small = scale(g, f)
	}
	sw, sh := small.Rect.Dx(), small.Rect.Dy()
	hist, n := histogram(small)
	t := otsu(hist, n)
	bright := func(i int) bool { return small.Pix[i/sw*small.Stride+i%sw] > t }

	// The largest 4-connected bright region.
	label := make([]int32, sw*sh)
	var best []int32
	var stack, comp []int32
	next := int32(0)
	for start := range sw * sh {
		if label[start] != 0 || !bright(start) {
			continue
		}
		next++
		comp, stack = comp[:0], append(stack[:0], int32(start))
		label[start] = next
		for len(stack) > 0 {
			i := int(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
			comp = append(comp, int32(i))
			x, y := i%sw, i/sw
			for _, d := range [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
				nx, ny := x+d[0], y+d[1]
				if nx < 0 || ny < 0 || nx >= sw || ny >= sh {
					continue
				}
				if j := ny*sw + nx; label[j] == 0 && bright(j) {
					label[j] = next
					stack = append(stack, int32(j))
				}
			}
		}
		if len(comp) > len(best) {
			best = append(best[:0], comp...)
		}
	}
	if len(best) < sw*sh/4 {
		return g, false // no sheet: too little of the picture is bright and joined
	}
	// The sheet must stand free of the picture's edges: a page that fills the frame (or
	// a bright desk) has nothing to flatten.
	edge := 0
	for _, i := range best {
		x, y := int(i)%sw, int(i)/sw
		if x == 0 || y == 0 || x == sw-1 || y == sh-1 {
			edge++
		}
	}
	if edge > (sw+sh)/10 {
		return g, false
	}
	// Corners: top-left has the least x+y, bottom-right the most; top-right the most x−y,
	// bottom-left the least.
	var tl, tr, br, bl [2]float64
	minS, maxS, maxD, minD := math.Inf(1), math.Inf(-1), math.Inf(-1), math.Inf(1)
	for _, i := range best {
		x, y := float64(int(i)%sw), float64(int(i)/sw)
		if s := x + y; s < minS {
			minS, tl = s, [2]float64{x, y}
		}
		if s := x + y; s > maxS {
			maxS, br = s, [2]float64{x, y}
		}
		if d := x - y; d > maxD {
			maxD, tr = d, [2]float64{x, y}
		}
		if d := x - y; d < minD {
			minD, bl = d, [2]float64{x, y}
		}
	}
	dist := func(a, b [2]float64) float64 { return math.Hypot(a[0]-b[0], a[1]-b[1]) }
	top, bottom, left, right := dist(tl, tr), dist(bl, br), dist(tl, bl), dist(tr, br)
	// A sheet's sides: each at least a third of the picture, opposite sides alike.
	if min(top, bottom) < float64(sw)/3 || min(left, right) < float64(sh)/3 ||
		math.Abs(top-bottom) > 0.25*max(top, bottom) || math.Abs(left-right) > 0.25*max(left, right) {
		return g, false
	}
	// Back to the full picture's pixels (the centre of each reduced pixel).
	quad := [4][2]float64{tl, tr, br, bl}
	for i := range quad {
		quad[i] = [2]float64{(quad[i][0] + 0.5) / f, (quad[i][1] + 0.5) / f}
	}
	ow := int(math.Round(max(top, bottom) / f))
	oh := int(math.Round(max(left, right) / f))
	rect := [4][2]float64{{0, 0}, {float64(ow), 0}, {float64(ow), float64(oh)}, {0, float64(oh)}}
	hm := geom.Homography(rect, quad) // output pixel → picture
	out = image.NewGray(image.Rect(0, 0, ow, oh))
	for y := range oh {
		row := out.Pix[y*out.Stride:]
		for x := range ow {
			sx, sy := geom.Apply(hm, float64(x)+0.5, float64(y)+0.5)
			row[x] = sampleGray(g, sx-0.5, sy-0.5)
		}
	}
	return out, true
}

// sampleGray reads g at (x, y) with bilinear interpolation, the nearest edge outside.
func sampleGray(g *image.Gray, x, y float64) uint8 {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	x = math.Max(0, math.Min(float64(w-1), x))
	y = math.Max(0, math.Min(float64(h-1), y))
	x0, y0 := int(x), int(y)
	x1, y1 := min(x0+1, w-1), min(y0+1, h-1)
	fx, fy := x-float64(x0), y-float64(y0)
	p := func(x, y int) float64 { return float64(g.Pix[y*g.Stride+x]) }
	v := (p(x0, y0)*(1-fx)+p(x1, y0)*fx)*(1-fy) + (p(x0, y1)*(1-fx)+p(x1, y1)*fx)*fy
	return uint8(math.Round(v))
}
