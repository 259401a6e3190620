package ocr

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"

	"golang.org/x/image/draw"

	"cardpay/pay"
)

// maxLongSide bounds the working image: a 13 MP phone photo holds A4 text at well over
// 300 DPI, and tesseract's time grows with the pixels.
const maxLongSide = 4200

// decodeImage decodes a JPEG or PNG through pay.DecodeImage, the one check of every
// uploaded image: its type from the magic bytes, its size and the memory its decoding
// takes from the header alone (a decompression bomb is refused before any pixel is
// allocated). It then turns the picture upright by its EXIF orientation (phones store the
// sensor's rotation there, not in the pixels).
func decodeImage(b []byte) (image.Image, error) {
	img, _, err := pay.DecodeImage(b)
	if err != nil {
		return nil, fmt.Errorf("ocr: image: %w", err)
	}
	if o := exifOrientation(b); o > 1 {
		img = orient(toGray(img), o)
	}
	return img, nil
}

// exifOrientation reads tag 0x0112 from a JPEG's APP1 Exif segment (1 when absent).
func exifOrientation(b []byte) int {
	if len(b) < 4 || b[0] != 0xFF || b[1] != 0xD8 {
		return 1
	}
	i := 2
	for i+4 <= len(b) && b[i] == 0xFF {
		marker := b[i+1]
		if marker == 0xDA || marker == 0xD9 { // start of scan: no more metadata
			return 1
		}
		size := int(binary.BigEndian.Uint16(b[i+2:]))
		if size < 2 || i+2+size > len(b) {
			return 1
		}
		seg := b[i+4 : i+2+size]
		if marker == 0xE1 && len(seg) > 14 && string(seg[:6]) == "Exif\x00\x00" {
			return tiffOrientation(seg[6:])
		}
		i += 2 + size
	}
	return 1
}

func tiffOrientation(t []byte) int {
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 1
	}
	off := int(bo.Uint32(t[4:]))
	if off < 8 || off+2 > len(t) {
		return 1
	}
	n := int(bo.Uint16(t[off:]))
	for k := range n {
		e := off + 2 + 12*k
		if e+12 > len(t) {
			return 1
		}
		if bo.Uint16(t[e:]) == 0x0112 {
			if v := int(bo.Uint16(t[e+8:])); v >= 1 && v <= 8 {
				return v
			}
			return 1
		}
	}
	return 1
}

// orient applies an EXIF orientation (2..8) so that the picture is upright.
func orient(g *image.Gray, o int) *image.Gray {
	switch o {
	case 2:
		return flipH(g)
	case 3:
		return rotate90(g, 2)
	case 4:
		return flipH(rotate90(g, 2))
	case 5:
		return flipH(rotate90(g, 1))
	case 6:
		return rotate90(g, 1)
	case 7:
		return flipH(rotate90(g, 3))
	case 8:
		return rotate90(g, 3)
	}
	return g
}

// toGray is the page in grey, with the red of a seal (角印, 社印) dropped out to white:
// Japanese invoices stamp the company seal over the issuer's name, and in plain
// luminance its red is as dark as the text under it, which tesseract then reads as
// neither. Text printed in black, grey or blue keeps its luminance.
func toGray(img image.Image) *image.Gray {
	if g, ok := img.(*image.Gray); ok && g.Rect.Min == (image.Point{}) {
		return g
	}
	b := img.Bounds()
	g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	switch src := img.(type) {
	case *image.YCbCr:
		for y := range b.Dy() {
			row := g.Pix[y*g.Stride:]
			for x := range b.Dx() {
				yi := src.YOffset(b.Min.X+x, b.Min.Y+y)
				ci := src.COffset(b.Min.X+x, b.Min.Y+y)
				r, gg, bb := color.YCbCrToRGB(src.Y[yi], src.Cb[ci], src.Cr[ci])
				row[x] = inkGray(r, gg, bb)
			}
		}
	case *image.NRGBA:
		for y := range b.Dy() {
			p := src.Pix[src.PixOffset(b.Min.X, b.Min.Y+y):]
			row := g.Pix[y*g.Stride:]
			for x := range b.Dx() {
				i := 4 * x
				if a := p[i+3]; a != 255 {
					// Transparent areas are paper.
					row[x] = inkGray(blendWhite(p[i], a), blendWhite(p[i+1], a), blendWhite(p[i+2], a))
					continue
				}
				row[x] = inkGray(p[i], p[i+1], p[i+2])
			}
		}
	case *image.RGBA:
		for y := range b.Dy() {
			p := src.Pix[src.PixOffset(b.Min.X, b.Min.Y+y):]
			row := g.Pix[y*g.Stride:]
			for x := range b.Dx() {
				i := 4 * x
				a := p[i+3]
				row[x] = inkGray(p[i]+255-a, p[i+1]+255-a, p[i+2]+255-a) // premultiplied over white
			}
		}
	default:
		draw.Draw(g, g.Rect, img, b.Min, draw.Src)
	}
	return g
}

// inkGray is one pixel's grey: white for a seal's red, else its luminance (BT.601).
func inkGray(r, g, b uint8) uint8 {
	// The seal's edge, blended with the paper, is a pale red: dropped too (a grey edge of
	// black text has r ≈ g ≈ b).
	if int(r) >= 120 && int(r)-int(g) >= 28 && int(r)-int(b) >= 24 {
		return 255
	}
	return uint8((299*int(r) + 587*int(g) + 114*int(b) + 500) / 1000)
}

func blendWhite(c, a uint8) uint8 { return uint8((int(c)*int(a) + 255*(255-int(a)) + 127) / 255) }

// rotate90 turns g by k quarter turns clockwise.
func rotate90(g *image.Gray, k int) *image.Gray {
	k = ((k % 4) + 4) % 4
	if k == 0 {
		return g
	}
	w, h := g.Rect.Dx(), g.Rect.Dy()
	var out *image.Gray
	if k == 2 {
		out = image.NewGray(image.Rect(0, 0, w, h))
	} else {
		out = image.NewGray(image.Rect(0, 0, h, w))
	}
	for y := range h {
		row := g.Pix[y*g.Stride : y*g.Stride+w]
		for x, v := range row {
			switch k {
			case 1: // (x,y) → (h-1-y, x)
				out.Pix[x*out.Stride+h-1-y] = v
			case 2:
				out.Pix[(h-1-y)*out.Stride+w-1-x] = v
			case 3: // (x,y) → (y, w-1-x)
				out.Pix[(w-1-x)*out.Stride+y] = v
			}
		}
	}
	return out
}

func flipH(g *image.Gray) *image.Gray {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	out := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			out.Pix[y*out.Stride+w-1-x] = g.Pix[y*g.Stride+x]
		}
	}
	return out
}

// scale resizes g by f: Catmull-Rom when enlarging (sharp edges for upscaled text),
// bilinear when shrinking. It works on the gray bytes directly, in two passes (rows, then
// columns): x/image/draw's scalers go through the generic RGBA64 path for *image.Gray
// and took half of prepare's time.
func scale(g *image.Gray, f float64) *image.Gray {
	w := max(1, int(math.Round(float64(g.Rect.Dx())*f)))
	h := max(1, int(math.Round(float64(g.Rect.Dy())*f)))
	k := catmullRom
	if f < 1 {
		k = bilinear
	}
	return resize(g, w, h, k)
}

// kernel is a resampling filter: its weight at a distance t (in source pixels) from the
// sample's centre, nonzero within support.
type kernel struct {
	support float64
	at      func(t float64) float64
}

var (
	catmullRom = kernel{2, func(t float64) float64 {
		t = math.Abs(t)
		switch {
		case t < 1:
			return (1.5*t-2.5)*t*t + 1
		case t < 2:
			return ((-0.5*t+2.5)*t-4)*t + 2
		}
		return 0
	}}
	bilinear = kernel{1, func(t float64) float64 { return max(0, 1-math.Abs(t)) }}
)

// taps are one output pixel's source pixels along an axis and their weights.
type taps struct {
	first int // the first source index; the rest follow
	w     []float32
}

// axisTaps samples a source axis of n pixels at m points, pixel centres aligned, the
// weights of the pixels inside the image summing to 1 (as x/image/draw does: the
// page's reading must not move with the resampler).
func axisTaps(n, m int, k kernel) []taps {
	out := make([]taps, m)
	ratio := float64(n) / float64(m)
	for d := range m {
		c := (float64(d)+0.5)*ratio - 0.5
		lo := int(math.Floor(c-k.support)) + 1
		hi := int(math.Floor(c + k.support))
		first, last := max(lo, 0), min(hi, n-1)
		w := make([]float32, max(last-first+1, 0))
		var sum float64
		for s := first; s <= last; s++ {
			v := k.at(c - float64(s))
			w[s-first] = float32(v)
			sum += v
		}
		if sum != 0 {
			for i := range w {
				w[i] /= float32(sum)
			}
		}
		out[d] = taps{first, w}
	}
	return out
}

// resize resamples g to w×h with kernel k.
func resize(g *image.Gray, w, h int, k kernel) *image.Gray {
	sw, sh := g.Rect.Dx(), g.Rect.Dy()
	xs, ys := axisTaps(sw, w, k), axisTaps(sh, h, k)
	// Rows first, into floats: w×sh.
	tmp := make([]float32, w*sh)
	for y := range sh {
		row := g.Pix[y*g.Stride : y*g.Stride+sw]
		t := tmp[y*w : (y+1)*w]
		for x, tp := range xs {
			var v float32
			for i, wt := range tp.w {
				v += wt * float32(row[tp.first+i])
			}
			t[x] = v
		}
	}
	out := image.NewGray(image.Rect(0, 0, w, h))
	acc := make([]float32, w)
	for y, tp := range ys {
		clear(acc)
		for i, wt := range tp.w {
			src := tmp[(tp.first+i)*w : (tp.first+i+1)*w]
			for x, v := range src {
				acc[x] += wt * v
			}
		}
		dst := out.Pix[y*out.Stride : y*out.Stride+w]
		for x, v := range acc {
			// x/image/draw's 16-bit arithmetic, truncated: the same bytes as before.
			dst[x] = uint8(uint32(min(max(v*257, 0), 65535)) >> 8)
		}
	}
	return out
}

// oneBit says whether every pixel of g is black or white: a fax, or a page a scanner
// sent in one bit.
func oneBit(g *image.Gray) bool {
	for y := range g.Rect.Dy() {
		for _, v := range g.Pix[y*g.Stride : y*g.Stride+g.Rect.Dx()] {
			if v != 0 && v != 0xff {
				return false
			}
		}
	}
	return true
}

// histogram of a gray image.
func histogram(g *image.Gray) (h [256]int, n int) {
	// Four counts, each pixel of four to its own: a page is mostly one white, and one
	// count taking every pixel waits on its own last increment (store to load), a fifth
	// of the page's preparation (pprof, issue 28's eighth session).
	var hs [4][256]int32
	w := g.Rect.Dx()
	for y := range g.Rect.Dy() {
		row := g.Pix[y*g.Stride : y*g.Stride+w]
		i := 0
		for ; i+4 <= len(row); i += 4 {
			hs[0][row[i]]++
			hs[1][row[i+1]]++
			hs[2][row[i+2]]++
			hs[3][row[i+3]]++
		}
		for ; i < len(row); i++ {
			hs[0][row[i]]++
		}
	}
	for v := range h {
		h[v] = int(hs[0][v]) + int(hs[1][v]) + int(hs[2][v]) + int(hs[3][v])
	}
	return h, w * g.Rect.Dy()
}

func percentile(h [256]int, n int, p float64) int {
	want := int(float64(n) * p)
	acc := 0
	for v, c := range h {
		acc += c
		if acc > want {
			return v
		}
	}
	return 255
}

// stretch maps the darkest 0.5 % to black and the brightest 0.5 % to white, so that faint
// faxes and grey photos use the whole range. It returns the range found before.
func stretch(g *image.Gray) (lo, hi int) {
	h, n := histogram(g)
	lo, hi = percentile(h, n, 0.005), percentile(h, n, 0.995)
	if hi-lo < 8 || (lo == 0 && hi == 255) {
		return lo, hi
	}
	var lut [256]uint8
	for v := range lut {
		lut[v] = uint8(min(255, max(0, (v-lo)*255/(hi-lo))))
	}
	for i, v := range g.Pix {
		g.Pix[i] = lut[v]
	}
	return lo, hi
}

// otsu is the threshold that best separates ink from paper in the histogram.
func otsu(h [256]int, n int) uint8 {
	var sum float64
	for v, c := range h {
		sum += float64(v * c)
	}
	var sumB, wB, best float64
	t := 128
	for v, c := range h {
		wB += float64(c)
		if wB == 0 {
			continue
		}
		wF := float64(n) - wB
		if wF == 0 {
			break
		}
		sumB += float64(v * c)
		mB, mF := sumB/wB, (sum-sumB)/wF
		if between := wB * wF * (mB - mF) * (mB - mF); between > best {
			best, t = between, v
		}
	}
	return uint8(t)
}

// binarize sets every pixel to black or white. With uneven lighting (phone photos, a
// shadow across a scan) one threshold loses text in the dark part, so the threshold is
// then the local mean of a window about 1/16 of the page wide, a little lowered (Bradley),
// and at least 32 levels below it so that the grain of a dim corner stays paper.
func binarize(g *image.Gray, adaptive bool) {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	if !adaptive {
		hist, n := histogram(g)
		t := otsu(hist, n)
		for i, v := range g.Pix {
			if v <= t {
				g.Pix[i] = 0
			} else {
				g.Pix[i] = 255
			}
		}
		return
	}
	integral := make([]int64, (w+1)*(h+1))
	for y := range h {
		var row int64
		for x := range w {
			row += int64(g.Pix[y*g.Stride+x])
			integral[(y+1)*(w+1)+x+1] = integral[y*(w+1)+x+1] + row
		}
	}
	r := max(8, max(w, h)/32)
	out := make([]uint8, len(g.Pix))
	for y := range h {
		y0, y1 := max(0, y-r), min(h, y+r+1)
		for x := range w {
			x0, x1 := max(0, x-r), min(w, x+r+1)
			s := integral[y1*(w+1)+x1] - integral[y0*(w+1)+x1] - integral[y1*(w+1)+x0] + integral[y0*(w+1)+x0]
			cnt := int64((y1 - y0) * (x1 - x0))
			// Ink is clearly darker than its surroundings: relatively (a faint page) and
			// by a margin above the grain (a dim corner of a photo).
			if v := int64(g.Pix[y*g.Stride+x]); v*cnt*100 <= s*85 && (v+32)*cnt <= s {
				out[y*g.Stride+x] = 0
			} else {
				out[y*g.Stride+x] = 255
			}
		}
	}
	copy(g.Pix, out)
}

// median3 removes salt-and-pepper noise (fax speckle, sensor noise) with a 3×3 median.
// The middle of the nine values is found from three sorted triples (median9): a whole
// sort of each window took a fifth of a photo's clean-up (200 ms of a 4.3-megapixel
// photo).
func median3(g *image.Gray) *image.Gray {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	out := image.NewGray(g.Rect)
	for y := range h {
		up, mid, down := g.Pix[max(0, y-1)*g.Stride:], g.Pix[y*g.Stride:], g.Pix[min(h-1, y+1)*g.Stride:]
		row := out.Pix[y*out.Stride:]
		for x := range w {
			l, r := max(0, x-1), min(w-1, x+1)
			row[x] = median9(up[l], up[x], up[r], mid[l], mid[x], mid[r], down[l], down[x], down[r])
		}
	}
	return out
}

// median9 is the middle of nine values: three sorted triples, then the middle of their
// lows' highest, their middles' middle and their highs' lowest.
func median9(a, b, c, d, e, f, g, h, i uint8) uint8 {
	a, b, c = sort3(a, b, c)
	d, e, f = sort3(d, e, f)
	g, h, i = sort3(g, h, i)
	lo := max(a, d, g)
	_, md, _ := sort3(b, e, h)
	hi := min(c, f, i)
	_, m, _ := sort3(lo, md, hi)
	return m
}

func sort3(a, b, c uint8) (uint8, uint8, uint8) {
	if a > b {
		a, b = b, a
	}
	if b > c {
		b, c = c, b
	}
	if a > b {
		a, b = b, a
	}
	return a, b, c
}

// despeckle removes a fax's specks: blots of one or two dark pixels. A median would do it
// too, but it also eats the one- and two-pixel strokes of small type at a fax's 200 DPI.
func despeckle(g *image.Gray) *image.Gray {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	hist, n := histogram(g)
	t := otsu(hist, n)
	dark := func(x, y int) bool { return x >= 0 && y >= 0 && x < w && y < h && g.Pix[y*g.Stride+x] <= t }
	// neighbours counts a dark pixel's dark neighbours, and answers the last one found.
	neighbours := func(x, y int) (count, nx, ny int) {
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				if (dx != 0 || dy != 0) && dark(x+dx, y+dy) {
					count, nx, ny = count+1, x+dx, y+dy
				}
			}
		}
		return count, nx, ny
	}
	out := image.NewGray(g.Rect)
	copy(out.Pix, g.Pix)
	for y := range h {
		for x := range w {
			if !dark(x, y) {
				continue
			}
			c, nx, ny := neighbours(x, y)
			if c == 0 {
				out.Pix[y*out.Stride+x] = 255
			} else if c == 1 {
				if c2, _, _ := neighbours(nx, ny); c2 == 1 {
					out.Pix[y*out.Stride+x] = 255 // one of a pair
				}
			}
		}
	}
	return out
}

// rotate turns g by deg degrees clockwise about its centre with bilinear sampling, on a
// canvas large enough to keep the corners, filled by repeating the nearest edge pixel
// (white corners beside a shadowed photo would look like ink to the local threshold).
func rotate(g *image.Gray, deg float64) *image.Gray {
	a := deg * math.Pi / 180
	sin, cos := math.Sin(a), math.Cos(a)
	w, h := float64(g.Rect.Dx()), float64(g.Rect.Dy())
	nw := int(math.Ceil(math.Abs(w*cos) + math.Abs(h*sin)))
	nh := int(math.Ceil(math.Abs(w*sin) + math.Abs(h*cos)))
	out := image.NewGray(image.Rect(0, 0, nw, nh))
	cx, cy := w/2, h/2
	ncx, ncy := float64(nw)/2, float64(nh)/2
	iw, ih := g.Rect.Dx(), g.Rect.Dy()
	at := func(x, y int) float64 {
		x, y = min(iw-1, max(0, x)), min(ih-1, max(0, y))
		return float64(g.Pix[y*g.Stride+x])
	}
	for y := range nh {
		dy := float64(y) + 0.5 - ncy
		for x := range nw {
			dx := float64(x) + 0.5 - ncx
			// inverse of a clockwise turn (y points down)
			sx := cos*dx + sin*dy + cx - 0.5
			sy := -sin*dx + cos*dy + cy - 0.5
			x0, y0 := int(math.Floor(sx)), int(math.Floor(sy))
			fx, fy := sx-float64(x0), sy-float64(y0)
			v := at(x0, y0)*(1-fx)*(1-fy) + at(x0+1, y0)*fx*(1-fy) + at(x0, y0+1)*(1-fx)*fy + at(x0+1, y0+1)*fx*fy
			out.Pix[y*out.Stride+x] = uint8(math.Round(v))
		}
	}
	return out
}

// layout is what the projection profiles say about a page.
type layout struct {
	skew     float64 // degrees the text lines are turned clockwise
	vertical bool    // the lines run top to bottom (vertical writing, or a page on its side)
	lineSize float64 // height (or width, if vertical) of a text line in pixels of g; 0 if unknown
	photo    bool    // a photographed sheet (grey mid-tones), set by prepare
	oneBit   bool    // the page came in black and white alone (a fax), set by prepare
}

// analyse finds the skew and line direction by projection profiles: the ink of a page
// projected across its text lines piles into sharp peaks only at the lines' true angle.
// It searches ±10° on a reduced copy, for horizontal and vertical lines alike.
func analyse(g *image.Gray) layout {
	f := math.Min(1, 1600/float64(max(g.Rect.Dx(), g.Rect.Dy())))
	small := g
	if f < 1 {
		small = scale(g, f)
	}
	// The ink mask uses local thresholds so that a shadow across a photo is not taken for ink.
	if small == g {
		small = image.NewGray(g.Rect)
		copy(small.Pix, g.Pix)
	}
	binarize(small, true)
	clearBorder(small)
	n := small.Rect.Dx() * small.Rect.Dy()
	const t = 0
	type pt struct{ x, y float64 }
	var pts []pt
	w := small.Rect.Dx()
	for y := range small.Rect.Dy() {
		for x, v := range small.Pix[y*small.Stride : y*small.Stride+w] {
			if v <= t {
				pts = append(pts, pt{float64(x), float64(y)})
			}
		}
	}
	// Too little ink or more ink than paper: no lines to measure.
	if len(pts) < 200 || len(pts) > n/2 {
		return layout{}
	}
	if len(pts) > 150_000 { // every k-th point is enough for the profile
		k := len(pts)/150_000 + 1
		kept := pts[:0]
		for i := 0; i < len(pts); i += k {
			kept = append(kept, pts[i])
		}
		pts = kept
	}
	size := int(math.Hypot(float64(small.Rect.Dx()), float64(small.Rect.Dy()))) + 2
	bins := make([]int, 2*size)
	profile := func(deg float64, vertical bool) (score float64) {
		a := deg * math.Pi / 180
		s, c := math.Sin(a), math.Cos(a)
		clear(bins)
		for _, p := range pts {
			var v float64
			if vertical {
				v = p.x*c + p.y*s
			} else {
				v = p.y*c - p.x*s
			}
			bins[int(v)+size]++
		}
		for _, b := range bins {
			score += float64(b) * float64(b)
		}
		return score
	}
	best := layout{}
	bestScore := -1.0
	for _, vertical := range []bool{false, true} {
		for deg := -10.0; deg <= 10.0; deg += 0.5 {
			if s := profile(deg, vertical); s > bestScore {
				bestScore, best = s, layout{skew: deg, vertical: vertical}
			}
		}
	}
	for deg := best.skew - 0.4; deg <= best.skew+0.41; deg += 0.1 {
		if s := profile(deg, best.vertical); s > bestScore {
			bestScore, best.skew = s, math.Round(deg*10)/10
		}
	}
	// Line size: the median length of the runs of inked bins at the best angle.
	profile(best.skew, best.vertical)
	var lens []int
	run := 0
	// Bins under a tenth of the fullest are the specks and grain between the lines.
	floor := max(1, slices.Max(bins)/10)
	for _, b := range bins {
		if b > floor {
			run++
		} else if run > 0 {
			lens = append(lens, run)
			run = 0
		}
	}
	if len(lens) > 0 {
		slices.Sort(lens)
		best.lineSize = float64(lens[len(lens)/2]) / f
		if best.lineSize < 6 { // no text is that small: the profile saw noise
			best.lineSize = 0
		}
	}
	return best
}

// measureContrast describes the page before clean-up: its tone range, the share of
// mid-tones (grey noise, photos) and of isolated dark pixels (fax speckle).
func measureContrast(g *image.Gray) (rangeTone int, mid, speckle float64) {
	h, n := histogram(g)
	rangeTone = percentile(h, n, 0.99) - percentile(h, n, 0.01)
	lo, hi := percentile(h, n, 0.005), percentile(h, n, 0.995)
	var m int
	for v := lo + (hi-lo)/4; v < hi-(hi-lo)/4; v++ {
		m += h[v]
	}
	mid = float64(m) / float64(n)
	t := uint8(otsu(h, n))
	w, hh := g.Rect.Dx(), g.Rect.Dy()
	var ink, lone int
	for y := 1; y < hh-1; y += 2 {
		for x := 1; x < w-1; x += 2 {
			if g.Pix[y*g.Stride+x] > t {
				continue
			}
			ink++
			alone := true
			for dy := -1; dy <= 1 && alone; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if (dx != 0 || dy != 0) && g.Pix[(y+dy)*g.Stride+x+dx] <= t {
						alone = false
						break
					}
				}
			}
			if alone {
				lone++
			}
		}
	}
	if ink > 0 {
		speckle = float64(lone) / float64(ink)
	}
	return rangeTone, mid, speckle
}

// unevenLight says whether the paper's brightness varies across the page (a shadow, a
// photo's vignetting): the paper level of 8×8 tiles differs by more than a sixth.
func unevenLight(g *image.Gray) bool {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	if w < 64 || h < 64 {
		return false
	}
	lo, hi := 255, 0
	for ty := range 8 {
		for tx := range 8 {
			var th [256]int
			n := 0
			for y := ty * h / 8; y < (ty+1)*h/8; y += 2 {
				for x := tx * w / 8; x < (tx+1)*w/8; x += 2 {
					th[g.Pix[y*g.Stride+x]]++
					n++
				}
			}
			p := percentile(th, n, 0.9)
			lo, hi = min(lo, p), max(hi, p)
		}
	}
	return hi-lo > 40
}

// removeRules whitens the ruled lines of a page (table borders, the underline under the
// addressee, boxes round the total): tesseract reads a border next to text as ー, ｜ or
// noise, and it drops whole cells of a bordered table. A rule is a run of ink at least
// 1/30 of the page long and thin across it; where a character crosses a rule its strokes
// are thicker there and stay.
//
// stepped says the page came in one bit (a fax): a rule scanned askew is a staircase of
// one-pixel steps, which the deskew turns into short tilted pieces, thicker across where
// two steps overlap; kept there, those parts stood as a dashed line that hid a ledger's
// bank table from tesseract (the whole table lost). On such a page a rule's pixel is
// erased up to staircaseSlack more across. Measured on the scans too it lost fields
// (generator scanned PDF 94 → 89 %): a grey scan's rules are straight.
func removeRules(g *image.Gray, stepped bool) {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	if w == 0 || h == 0 {
		return
	}
	hist, n := histogram(g)
	t := otsu(hist, n)
	long := max(w, h)
	minRun := max(40, long/30)
	thick := max(3, long/400)
	// A rule broken into dashes (a photo, a fax) is still one: gaps up to bridge do not
	// end it, as long as three quarters of it is ink. A row of text crossed at any
	// height is mostly paper between its strokes.
	bridge := max(2, thick/2)
	dense := func(n, length int) bool { return 4*n >= 3*length }
	// The pixels to whiten are collected first: erasing while scanning would shorten
	// the runs that cross the erased ones.
	var erase []int
	ink := func(x, y int) bool { return g.Pix[y*g.Stride+x] <= t }
	// Horizontal rules, then vertical ones: the same scan with x and y swapped.
	slack := 0
	if stepped {
		slack = staircaseSlack
	}
	rules(w, h, minRun, thick, bridge, slack, dense, ink, func(x, y int) { erase = append(erase, y*g.Stride+x) })
	rules(h, w, minRun, thick, bridge, slack, dense, func(y, x int) bool { return ink(x, y) },
		func(y, x int) { erase = append(erase, y*g.Stride+x) })
	for _, i := range erase {
		g.Pix[i] = 255
	}
}

// staircaseSlack is how much thicker across than a rule a stepped rule's pixel may be and
// go with it: 2 read the generator's faxes best (all fields 80 → 86 %; 4: 83 %).
const staircaseSlack = 2

// rules finds the rules along rows of a w×h page (ink(x, y)) and calls erase for each
// of their pixels: a run of ink at least minRun long, gaps up to bridge, dense enough;
// its pixels, and those up to slack rows off it, whose ink across is at most thick+slack.
func rules(w, h, minRun, thick, bridge, slack int, dense func(n, length int) bool, ink func(x, y int) bool, erase func(x, y int)) {
	across := func(x, y int) bool {
		up, down := 0, 0
		lim := thick + slack
		for up < lim && y-up-1 >= 0 && ink(x, y-up-1) {
			up++
		}
		for down < lim && y+down+1 < h && ink(x, y+down+1) {
			down++
		}
		return up+down+1 <= lim
	}
	for y := range h {
		for x := 0; x < w; {
			if !ink(x, y) {
				x++
				continue
			}
			x0, end := x, x
			for x < w && x-end <= bridge {
				if ink(x, y) {
					end = x + 1
				}
				x++
			}
			x = end
			if x-x0 < minRun {
				continue
			}
			n := 0
			for xi := x0; xi < x; xi++ {
				if ink(xi, y) {
					n++
				}
			}
			if !dense(n, x-x0) {
				continue
			}
			for xi := x0; xi < x; xi++ {
				for dy := -slack; dy <= slack; dy++ {
					if yy := y + dy; yy >= 0 && yy < h && ink(xi, yy) && across(xi, yy) {
						erase(xi, yy)
					}
				}
			}
		}
	}
}

// clearBorder whitens the ink of a binarised page that frames it: the desk, or the
// shadow and edge of a photographed sheet. Left black, a frame reads as lines of
// vertical text to the layout analysis and as rows of ｜ and ー to tesseract. A frame is
// a connected blot of ink that reaches into the outer twentieth of the image and spans a
// quarter of its width or height; the text of a page lies inside its margins and stays.
func clearBorder(g *image.Gray) {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	if w == 0 || h == 0 {
		return
	}
	mx, my := max(1, w/20), max(1, h/20)
	seen := make([]bool, w*h)
	var comp, stack []int32
	for y := range h {
		for x := range w {
			if x >= mx && x < w-mx && y >= my && y < h-my {
				continue // only blots that reach the margin band
			}
			if seen[y*w+x] || g.Pix[y*g.Stride+x] != 0 {
				continue
			}
			comp, stack = comp[:0], append(stack[:0], int32(y*w+x))
			seen[y*w+x] = true
			x0, x1, y0, y1 := x, x, y, y
			for len(stack) > 0 {
				i := int(stack[len(stack)-1])
				stack = stack[:len(stack)-1]
				comp = append(comp, int32(i))
				cx, cy := i%w, i/w
				x0, x1, y0, y1 = min(x0, cx), max(x1, cx), min(y0, cy), max(y1, cy)
				for _, d := range [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
					nx, ny := cx+d[0], cy+d[1]
					if nx < 0 || ny < 0 || nx >= w || ny >= h || seen[ny*w+nx] || g.Pix[ny*g.Stride+nx] != 0 {
						continue
					}
					seen[ny*w+nx] = true
					stack = append(stack, int32(ny*w+nx))
				}
			}
			if x1-x0 >= w/4 || y1-y0 >= h/4 {
				for _, i := range comp {
					g.Pix[int(i)/w*g.Stride+int(i)%w] = 255
				}
			}
		}
	}
}
