package invoicegen

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math/rand/v2"
)

// renderHoldout degrades the holdout set's pages in other ways than the generator's:
//
//   - image: a screenshot of a JPEG: washed-out contrast and JPEG artefacts (quality
//     35–60), kept as PNG;
//   - scanned PDF: turned 0.8–2.5° (the generator turns up to 0.8°), a soft focus, low
//     contrast and JPEG quality 40–65 inside the PDF;
//   - fax: turned 1.5–3.5°, in the standard resolution (200 × 100 dpi: every other line
//     repeated), a lighter or darker threshold;
//   - photo: turned 4–8° (the generator turns up to 4°), out of focus, dimmer, JPEG
//     quality 45–65.
//
// Every choice is drawn from rng, so the pages follow from the seed.
func renderHoldout(ctx context.Context, pdf []byte, kind Kind, rng *rand.Rand) (Doc, error) {
	switch kind {
	case KindTextPDF:
		return Doc{Kind: kind, MediaType: "application/pdf", Ext: ".pdf", Bytes: pdf}, nil
	case KindImage:
		img, err := Rasterize(ctx, pdf, 300)
		if err != nil {
			return Doc{}, err
		}
		lowContrastRGBA(img, 40+rng.Float64()*40, 225+rng.Float64()*20)
		jpg, err := jpegRoundTrip(img, 35+rng.IntN(26))
		if err != nil {
			return Doc{}, err
		}
		return encodePNG(kind, jpg)
	case KindScannedPDF:
		img, err := Rasterize(ctx, pdf, 200)
		if err != nil {
			return Doc{}, err
		}
		scan := toGray(rotate(img, signedBetween(rng, 0.8, 2.5), color.RGBA{245, 245, 242, 255}))
		blurGray(scan, 1)
		lowContrastGray(scan, 50+rng.Float64()*40, 215+rng.Float64()*25)
		addNoise(scan, rng, 6)
		return scannedPDFQuality(kind, scan, 40+rng.IntN(26))
	case KindFax:
		img, err := Rasterize(ctx, pdf, 200)
		if err != nil {
			return Doc{}, err
		}
		g := toGray(rotate(img, signedBetween(rng, 1.5, 3.5), color.RGBA{255, 255, 255, 255}))
		standardResolution(g)
		addNoise(g, rng, 20)
		oneBit(g, uint8(120+rng.IntN(90)))
		b := g.Bounds()
		for range b.Dx() * b.Dy() / 1200 {
			g.Pix[rng.IntN(b.Dy())*g.Stride+rng.IntN(b.Dx())] = 0
		}
		return encodePNG(kind, g)
	case KindPhoto:
		img, err := Rasterize(ctx, pdf, 200)
		if err != nil {
			return Doc{}, err
		}
		ph := photoTurned(img, rng, signedBetween(rng, 4, 8))
		for range 1 + rng.IntN(2) {
			blurRGBA(ph)
		}
		lowContrastRGBA(ph, 25+rng.Float64()*30, 200+rng.Float64()*30)
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, ph, &jpeg.Options{Quality: 45 + rng.IntN(21)}); err != nil {
			return Doc{}, err
		}
		return Doc{Kind: kind, MediaType: "image/jpeg", Ext: ".jpg", Bytes: buf.Bytes(), Width: PhotoWidth, Height: PhotoHeight}, nil
	}
	return Doc{}, fmt.Errorf("invoicegen: unknown kind %q", kind)
}

// signedBetween draws an angle of lo to hi degrees, either way.
func signedBetween(rng *rand.Rand, lo, hi float64) float64 {
	v := lo + rng.Float64()*(hi-lo)
	if rng.IntN(2) == 0 {
		return -v
	}
	return v
}

// lowContrastGray maps black to lo and white to hi: faded toner, grey paper.
func lowContrastGray(g *image.Gray, lo, hi float64) {
	for i, v := range g.Pix {
		g.Pix[i] = clamp(lo + float64(v)*(hi-lo)/255)
	}
}

func lowContrastRGBA(img *image.RGBA, lo, hi float64) {
	for i, v := range img.Pix {
		if i%4 == 3 {
			continue
		}
		img.Pix[i] = clamp(lo + float64(v)*(hi-lo)/255)
	}
}

// jpegRoundTrip gives img the artefacts of a JPEG of the quality.
func jpegRoundTrip(img image.Image, quality int) (*image.RGBA, error) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		return nil, err
	}
	dec, err := jpeg.Decode(&buf)
	if err != nil {
		return nil, err
	}
	out := image.NewRGBA(dec.Bounds())
	draw.Draw(out, out.Bounds(), dec, dec.Bounds().Min, draw.Src)
	return out, nil
}

// blurGray is a 3×3 box blur, passes times (a scanner slightly out of focus).
func blurGray(g *image.Gray, passes int) {
	b := g.Bounds()
	w, h := b.Dx(), b.Dy()
	tmp := make([]uint8, len(g.Pix))
	for range passes {
		for y := range h {
			for x := range w {
				sum, n := 0, 0
				for dx := -1; dx <= 1; dx++ {
					if xx := x + dx; xx >= 0 && xx < w {
						sum += int(g.Pix[y*g.Stride+xx])
						n++
					}
				}
				tmp[y*g.Stride+x] = uint8(sum / n)
			}
		}
		for y := range h {
			for x := range w {
				sum, n := 0, 0
				for dy := -1; dy <= 1; dy++ {
					if yy := y + dy; yy >= 0 && yy < h {
						sum += int(tmp[yy*g.Stride+x])
						n++
					}
				}
				g.Pix[y*g.Stride+x] = uint8(sum / n)
			}
		}
	}
}

// blurRGBA is one pass of a 3×3 box blur on each colour.
func blurRGBA(img *image.RGBA) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	tmp := make([]uint8, len(img.Pix))
	copy(tmp, img.Pix)
	for y := range h {
		for x := range w {
			for c := range 3 {
				sum, n := 0, 0
				for dx := -1; dx <= 1; dx++ {
					if xx := x + dx; xx >= 0 && xx < w {
						sum += int(img.Pix[y*img.Stride+xx*4+c])
						n++
					}
				}
				tmp[y*img.Stride+x*4+c] = uint8(sum / n)
			}
		}
	}
	for y := range h {
		for x := range w {
			for c := range 3 {
				sum, n := 0, 0
				for dy := -1; dy <= 1; dy++ {
					if yy := y + dy; yy >= 0 && yy < h {
						sum += int(tmp[yy*img.Stride+x*4+c])
						n++
					}
				}
				img.Pix[y*img.Stride+x*4+c] = uint8(sum / n)
			}
		}
	}
}

// standardResolution keeps every other line and repeats it, as a fax sent in standard
// mode (100 lines an inch) prints at 200.
func standardResolution(g *image.Gray) {
	h := g.Bounds().Dy()
	for y := 1; y < h; y += 2 {
		copy(g.Pix[y*g.Stride:(y+1)*g.Stride], g.Pix[(y-1)*g.Stride:y*g.Stride])
	}
}
