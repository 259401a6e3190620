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

// RenderText draws lines of text on white A4 paper at 200 dpi (DrawText) and answers the
// PNG: a page with exactly the wording a test needs (a label the rules do not know, say),
// which the invoice layouts do not print.
func RenderText(lines []TextLine) ([]byte, error) {
	g, err := DrawText(lines, 200)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := png.Encode(&out, g); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// DrawText draws lines of text in IPAex Gothic on white A4 paper at dpi, one under the
// other from the top left, as a scanner sees a plain page.
func DrawText(lines []TextLine, dpi float64) (*image.Gray, error) {
	data, err := loadFont()
	if err != nil {
		return nil, err
	}
	f, err := opentype.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("invoicegen: font: %w", err)
	}
	g := image.NewGray(image.Rect(0, 0, int(8.27*dpi), int(11.69*dpi)))
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
	return g, nil
}
