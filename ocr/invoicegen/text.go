package invoicegen

import (
	"bytes"
	"fmt"
	"image"
	"image/png"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// TextLine is one line of a page drawn by RenderText: the text and its size in points.
type TextLine struct {
	Text string
	Pt   float64
}

// RenderText draws lines of text in IPAex Gothic on white A4 paper at 200 dpi, one under
// the other from the top left, as a scanner sees a plain page, and answers the PNG: a
// page with exactly the wording a test needs (a label the rules do not know, say), which
// the invoice layouts do not print.
func RenderText(lines []TextLine) ([]byte, error) {
	data, err := loadFont()
	if err != nil {
		return nil, err
	}
	f, err := opentype.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("invoicegen: font: %w", err)
	}
	const dpi = 200.0
	g := image.NewGray(image.Rect(0, 0, FaxWidth, FaxHeight))
	for i := range g.Pix {
		g.Pix[i] = 255
	}
	y := 0.8 * dpi
	for _, l := range lines {
		face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: l.Pt, DPI: dpi, Hinting: font.HintingFull})
		if err != nil {
			return nil, fmt.Errorf("invoicegen: face: %w", err)
		}
		y += l.Pt / 72 * dpi * 1.9
		d := font.Drawer{Dst: g, Src: image.Black, Face: face, Dot: fixed.P(int(0.9*dpi), int(y))}
		d.DrawString(l.Text)
		face.Close()
	}
	var out bytes.Buffer
	if err := png.Encode(&out, g); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
