package invoicegen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/signintech/gopdf"

	"cardpay/ocr/internal/geom"
)

// Kind is what a buyer uploads: the supplier's PDF, or what became of the paper.
type Kind string

const (
	KindTextPDF    Kind = "text-pdf"    // the PDF as accounting software writes it
	KindScannedPDF Kind = "scanned-pdf" // a scanner's PDF: one grey JPEG per page, no text layer
	KindImage      Kind = "image"       // a clean PNG at 300 dpi (a screenshot or export)
	KindFax        Kind = "fax"         // 200 dpi, black and white, speckles, slightly skewed
	KindPhoto      Kind = "photo"       // a phone photo: perspective, uneven light, JPEG 70, tilted
)

// Kinds lists every kind, in the order a report shows them.
var Kinds = []Kind{KindTextPDF, KindScannedPDF, KindImage, KindFax, KindPhoto}

// Sizes of the image kinds in pixels: gopdf's A4 (595×842 pt) at 300 and 200 dpi, rounded
// up as pdftoppm does, and the phone photo's frame.
const (
	ImageWidth, ImageHeight = 2480, 3509
	FaxWidth, FaxHeight     = 1653, 2339
	PhotoWidth, PhotoHeight = 1800, 2400
)

// Doc is one generated upload.
type Doc struct {
	Kind          Kind
	MediaType     string // application/pdf, image/png or image/jpeg
	Ext           string // .pdf, .png, .jpg
	Bytes         []byte
	Width, Height int // images only
}

// Render makes the invoice as the given kind. The degradations (skew, noise, the
// photo's angle and light) are drawn from the generator, so they follow from the seed.
func (g *Generator) Render(ctx context.Context, t Truth, layout Layout, kind Kind) (Doc, error) {
	pdf, err := RenderPDF(t, layout)
	if err != nil {
		return Doc{}, err
	}
	rng := rand.New(rand.NewPCG(g.rng.Uint64(), g.rng.Uint64()))
	if g.holdout {
		return renderHoldout(ctx, pdf, kind, rng)
	}
	switch kind {
	case KindTextPDF:
		return Doc{Kind: kind, MediaType: "application/pdf", Ext: ".pdf", Bytes: pdf}, nil
	case KindImage:
		img, err := Rasterize(ctx, pdf, 300)
		if err != nil {
			return Doc{}, err
		}
		return encodePNG(kind, img)
	case KindScannedPDF:
		img, err := Rasterize(ctx, pdf, 200)
		if err != nil {
			return Doc{}, err
		}
		scan := toGray(rotate(img, (rng.Float64()-0.5)*1.6, color.RGBA{250, 250, 250, 255}))
		addNoise(scan, rng, 8)
		return scannedPDF(kind, scan)
	case KindFax:
		img, err := Rasterize(ctx, pdf, 200)
		if err != nil {
			return Doc{}, err
		}
		return encodePNG(kind, fax(img, rng))
	case KindPhoto:
		img, err := Rasterize(ctx, pdf, 200)
		if err != nil {
			return Doc{}, err
		}
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, photo(img, rng), &jpeg.Options{Quality: 70}); err != nil {
			return Doc{}, err
		}
		return Doc{Kind: kind, MediaType: "image/jpeg", Ext: ".jpg", Bytes: buf.Bytes(), Width: PhotoWidth, Height: PhotoHeight}, nil
	}
	return Doc{}, fmt.Errorf("invoicegen: unknown kind %q", kind)
}

// Rasterize renders the first page of pdf at dpi with pdftoppm (Debian poppler-utils,
// installed by task ocr-tools).
func Rasterize(ctx context.Context, pdf []byte, dpi int) (*image.RGBA, error) {
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		return nil, errors.New("invoicegen: pdftoppm is missing; install Debian poppler-utils (task ocr-tools)")
	}
	dir, err := os.MkdirTemp("", "invoicegen-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(in, pdf, 0o600); err != nil {
		return nil, err
	}
	out := filepath.Join(dir, "page")
	cmd := exec.CommandContext(ctx, "pdftoppm", "-r", fmt.Sprint(dpi), "-png", "-singlefile", "-f", "1", "-l", "1", in, out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("invoicegen: pdftoppm: %v: %s", err, msg)
	}
	f, err := os.Open(out + ".png")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("invoicegen: pdftoppm's PNG: %w", err)
	}
	rgba := image.NewRGBA(src.Bounds())
	draw.Draw(rgba, rgba.Bounds(), src, src.Bounds().Min, draw.Src)
	return rgba, nil
}

func encodePNG(kind Kind, img image.Image) (Doc, error) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return Doc{}, err
	}
	b := img.Bounds()
	return Doc{Kind: kind, MediaType: "image/png", Ext: ".png", Bytes: buf.Bytes(), Width: b.Dx(), Height: b.Dy()}, nil
}

// scannedPDF puts the page image back into an A4 PDF, as scanners do: no text layer.
func scannedPDF(kind Kind, img *image.Gray) (Doc, error) { return scannedPDFQuality(kind, img, 80) }

// scannedPDFQuality is scannedPDF with the scanner's JPEG quality given.
func scannedPDFQuality(kind Kind, img *image.Gray, quality int) (Doc, error) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		return Doc{}, err
	}
	pdf := &gopdf.GoPdf{}
	pdf.Start(gopdf.Config{PageSize: *gopdf.PageSizeA4, Unit: gopdf.UnitMM})
	pdf.AddPage()
	h, err := gopdf.ImageHolderByBytes(buf.Bytes())
	if err != nil {
		return Doc{}, err
	}
	if err := pdf.ImageByHolder(h, 0, 0, &gopdf.Rect{W: pageW, H: pageH}); err != nil {
		return Doc{}, err
	}
	b, err := pdf.GetBytesPdfReturnErr()
	if err != nil {
		return Doc{}, err
	}
	return Doc{Kind: kind, MediaType: "application/pdf", Ext: ".pdf", Bytes: b}, nil
}

// oneBit makes g black and white at threshold, as a fax machine sends a page.
func oneBit(g *image.Gray, threshold uint8) {
	for i, v := range g.Pix {
		if v < threshold {
			g.Pix[i] = 0
		} else {
			g.Pix[i] = 255
		}
	}
}

// fax: a slight skew, then a hard threshold (faxes are 1 bit), speckles and the odd
// streak where the line dropped.
func fax(img *image.RGBA, rng *rand.Rand) *image.Gray {
	g := toGray(rotate(img, (rng.Float64()-0.5)*3, color.RGBA{255, 255, 255, 255}))
	addNoise(g, rng, 25)
	oneBit(g, uint8(150+rng.IntN(40)))
	b := g.Bounds()
	for range b.Dx() * b.Dy() / 800 { // speckles
		x, y := rng.IntN(b.Dx()), rng.IntN(b.Dy())
		g.Pix[y*g.Stride+x] = 0
	}
	for range rng.IntN(4) { // streaks
		y := rng.IntN(b.Dy())
		for x := 0; x < b.Dx(); x++ {
			if rng.IntN(3) > 0 {
				g.Pix[y*g.Stride+x] = 0
			}
		}
	}
	return g
}

// photo: the page lies on a desk, seen from a little off the vertical (perspective),
// turned a few degrees, lit from one side, with sensor noise.
func photo(page *image.RGBA, rng *rand.Rand) *image.RGBA {
	return photoWith(page, rng, func() float64 { return (rng.Float64()*2 - 1) * 4 })
}

// photoTurned is photo turned by deg degrees.
func photoTurned(page *image.RGBA, rng *rand.Rand, deg float64) *image.RGBA {
	return photoWith(page, rng, func() float64 { return deg })
}

// photoWith draws the photo with the turn from angle (in degrees), called where photo
// has always drawn it, so the generator's photos stay as they were.
func photoWith(page *image.RGBA, rng *rand.Rand, angle func() float64) *image.RGBA {
	W, H := float64(PhotoWidth), float64(PhotoHeight)
	jit := func(v, r float64) float64 { return v + (rng.Float64()*2-1)*r }
	// Page corners in the photo: margins of 4–9 %, each corner moved on its own.
	mx, my := W*0.065, H*0.05
	quad := [4][2]float64{
		{jit(mx, W*0.025), jit(my, H*0.02)}, {jit(W-mx, W*0.025), jit(my, H*0.02)},
		{jit(W-mx, W*0.025), jit(H-my, H*0.02)}, {jit(mx, W*0.025), jit(H-my, H*0.02)},
	}
	// Turn the quad about the centre (photo: by up to ±4°).
	s, c := math.Sincos(angle() * math.Pi / 180)
	for i, p := range quad {
		dx, dy := p[0]-W/2, p[1]-H/2
		quad[i] = [2]float64{W/2 + c*dx - s*dy, H/2 + s*dx + c*dy}
	}
	pb := page.Bounds()
	pw, ph := float64(pb.Dx()), float64(pb.Dy())
	src := [4][2]float64{{0, 0}, {pw, 0}, {pw, ph}, {0, ph}}
	hm := geom.Homography(quad, src) // photo → page
	out := image.NewRGBA(image.Rect(0, 0, PhotoWidth, PhotoHeight))
	lx, ly := rng.Float64()*W, rng.Float64()*H // where the light is
	desk := [3]float64{90 + rng.Float64()*60, 75 + rng.Float64()*50, 60 + rng.Float64()*40}
	for y := 0; y < PhotoHeight; y++ {
		for x := 0; x < PhotoWidth; x++ {
			fx, fy := float64(x)+0.5, float64(y)+0.5
			w := hm[6]*fx + hm[7]*fy + 1
			sx, sy := (hm[0]*fx+hm[1]*fy+hm[2])/w, (hm[3]*fx+hm[4]*fy+hm[5])/w
			var r, gg, b float64
			if sx >= 0 && sy >= 0 && sx < pw-1 && sy < ph-1 {
				r, gg, b = bilinear(page, sx, sy)
			} else {
				r, gg, b = desk[0], desk[1], desk[2]
			}
			d := math.Hypot(fx-lx, fy-ly) / math.Hypot(W, H)
			light := 1.02 - 0.38*d
			n := rng.NormFloat64() * 5
			o := out.PixOffset(x, y)
			out.Pix[o] = clamp(r*light*0.97 + n)
			out.Pix[o+1] = clamp(gg*light*0.95 + n)
			out.Pix[o+2] = clamp(b*light*0.88 + n) // warm indoor light
			out.Pix[o+3] = 255
		}
	}
	return out
}

func bilinear(img *image.RGBA, x, y float64) (r, g, b float64) {
	x0, y0 := int(x), int(y)
	fx, fy := x-float64(x0), y-float64(y0)
	var c [4][3]float64
	for i, p := range [4][2]int{{x0, y0}, {x0 + 1, y0}, {x0, y0 + 1}, {x0 + 1, y0 + 1}} {
		o := img.PixOffset(p[0], p[1])
		c[i] = [3]float64{float64(img.Pix[o]), float64(img.Pix[o+1]), float64(img.Pix[o+2])}
	}
	mix := func(k int) float64 {
		top := c[0][k]*(1-fx) + c[1][k]*fx
		bot := c[2][k]*(1-fx) + c[3][k]*fx
		return top*(1-fy) + bot*fy
	}
	return mix(0), mix(1), mix(2)
}

// rotate turns img by deg degrees about its centre, keeping its size, filling with bg.
func rotate(img *image.RGBA, deg float64, bg color.RGBA) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(b)
	s, c := math.Sincos(deg * math.Pi / 180)
	cx, cy := float64(b.Dx())/2, float64(b.Dy())/2
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			dx, dy := float64(x)+0.5-cx, float64(y)+0.5-cy
			sx, sy := c*dx+s*dy+cx, -s*dx+c*dy+cy
			o := out.PixOffset(x, y)
			if sx < 0 || sy < 0 || sx >= float64(b.Dx()-1) || sy >= float64(b.Dy()-1) {
				out.Pix[o], out.Pix[o+1], out.Pix[o+2], out.Pix[o+3] = bg.R, bg.G, bg.B, 255
				continue
			}
			r, g, bl := bilinear(img, sx, sy)
			out.Pix[o], out.Pix[o+1], out.Pix[o+2], out.Pix[o+3] = clamp(r), clamp(g), clamp(bl), 255
		}
	}
	return out
}

func toGray(img *image.RGBA) *image.Gray {
	g := image.NewGray(img.Bounds())
	draw.Draw(g, g.Bounds(), img, img.Bounds().Min, draw.Src)
	return g
}

func addNoise(g *image.Gray, rng *rand.Rand, sigma float64) {
	for i, v := range g.Pix {
		g.Pix[i] = clamp(float64(v) + rng.NormFloat64()*sigma)
	}
}

func clamp(v float64) uint8 {
	switch {
	case v < 0:
		return 0
	case v > 255:
		return 255
	}
	return uint8(v + 0.5)
}
