package ocr

import (
	"context"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
)

// Crop is a part of a page to read again: a box on the page image that was read (the
// coordinates of Line.Box and Word.Box) and the characters the value there can hold.
type Crop struct {
	Page int
	Box  image.Rectangle
	// Chars is the only characters tesseract may answer ("" = any): digits for an
	// amount, kana for an account holder. A whole page read with every character finds
	// a 力 (kanji) for カ or a 4 for 年; the field's own set cannot.
	Chars string
	// Widen stretches the crop sideways before it is read (0 or 1: as it is). Half-width
	// katakana (ｶ)ﾔﾏﾄ, as banks print a holder) are the full-width shapes squeezed to half
	// their width, and the Japanese model reads them as letters and digits; widened ×2
	// they read as the full-width kana they stand for.
	Widen float64
	// HalfWidth redraws the crop's half-width kana as full-width ones (halfWidthKana):
	// the glyphs widened by Widen, the voiced marks set against their kana.
	HalfWidth bool
	// Block reads the crop as a block of lines (page segmentation 6), not one line: the
	// bank's block of a page whose reading lost it among a table's rules. The answer's
	// Text holds its lines apart ("\n").
	Block bool
	// Seal drops the grey of a seal stamped over the text (the issuer's 角印 over its
	// name) from the crop: a greyscale scan prints the seal's red as a mid grey, lighter
	// than the text's black, that tesseract's threshold takes for ink.
	Seal bool
}

// Character sets for Crop.Chars.
const (
	// CharsDigits holds the yen marks printed round an amount: left out, the ¥ is forced
	// into a digit or takes the word's confidence down to 0.
	CharsDigits = "0123456789,¥\\円-"
	// CharsDate holds the era too: without 令和 and R a 和暦 date (令和8年1月5日, R8.1.5),
	// two of the five forms invoices print, read as digits alone and was no date.
	CharsDate = "0123456789年月日/.-令和R"
	// CharsKana is what a zengin account holder is printed with: katakana (full width, as
	// invoices print them), the long mark, the legal-form brackets, a period and a hyphen.
	CharsKana = "アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワヲン" +
		"ガギグゲゴザジズゼゾダヂヅデドバビブベボパピプペポヴァィゥェォッャュョー()（）.-・ " +
		// The voiced marks of half-width kana stand apart from their kana (ｷﾞ): read as
		// themselves, the full-width marks or a tilde (invoiceread puts ﾞ back for
		// those), never dropped.
		"ﾞﾟ゛゜~"
)

// rereadMargin is the white border put round a crop: tesseract finds the line of a
// crop cut tight to its glyphs worse than one with paper round it.
const rereadMargin = 24

// Reread reads one crop of a page as a single line of text (page segmentation 7), or as
// a block of lines when asked, with only the crop's characters. The answer's boxes are
// on the page image, as Read's are. A page that was not read by tesseract (a PDF's text
// layer) has nothing to crop.
func (rd *Reading) Reread(ctx context.Context, c Crop) (Line, error) {
	if rd.r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, rd.r.Timeout)
		defer cancel()
	}
	g, greyIm, err := rd.pageImage(c.Page)
	if err != nil {
		return Line{}, err
	}
	if !c.Block {
		// A line's crop of a photo reads the thresholded page: the holder's half-width
		// kana widened from the grey read worse (ﾔﾏﾄｾｲｺｳ as ﾔﾏﾄﾓｲｺｳ).
		greyIm = nil
	}
	crop, box, err := cropImage(g, greyIm, c)
	if err != nil {
		return Line{}, err
	}
	file := filepath.Join(rd.dir, "crop.png")
	if err := writePNG(file, crop); err != nil {
		return Line{}, err
	}

	psm, sep := "7", " "
	if c.Block {
		psm, sep = "6", "\n"
	}
	var grey []string
	if greyIm != nil {
		// A photo's grey, thresholded by tesseract round each pixel (Sauvola): one
		// threshold for the crop blackens a table's shaded header cells, and a block of a
		// ruled table reads as columns of variable sizes (psm 4), where psm 6 read only
		// its heading.
		grey = []string{"-c", "thresholding_method=2"}
		if c.Block {
			psm = "4"
		}
	}
	args := append([]string{file, "stdout", "--dpi", "300", "-l", "jpn", "--psm", psm}, grey...)
	if c.Chars != "" {
		args = append(args, "-c", "tessedit_char_whitelist="+c.Chars)
	}
	out, err := rd.r.run(ctx, rd.dir, nil, "tesseract", append(args, "tsv")...)
	if err != nil {
		return Line{}, err
	}
	lines, _ := parseTSV(out.stdout, c.Page, false)
	// One line was asked for: what came back as more (a bracket standing high) is one.
	// A block's lines stay lines.
	var l Line
	var texts []string
	var conf float64
	dx, dy := box.Min.X-rereadMargin, box.Min.Y-rereadMargin
	for _, got := range lines {
		texts = append(texts, got.Text)
		conf += got.Confidence
		for _, w := range got.Words {
			if c.Widen > 1 {
				w.Box.Min.X, w.Box.Max.X = int(float64(w.Box.Min.X)/c.Widen), int(float64(w.Box.Max.X)/c.Widen)
			}
			w.Box = w.Box.Add(image.Pt(dx, dy))
			l.Words = append(l.Words, w)
			l.Box = l.Box.Union(w.Box)
		}
	}
	if len(lines) > 0 {
		l.Confidence = conf / float64(len(lines))
	}
	l.Text, l.Page = strings.Join(texts, sep), c.Page
	return l, nil
}

// cropImage cuts c's box out of page g for tesseract, with paper round it (and widened
// when c asks); box is the part of the page it shows, rereadMargin in. A photo's block
// crop is placed on g and cut from its grey (non-nil), which tesseract then thresholds;
// its seal's red was dropped with the colour (toGray).
func cropImage(g, grey *image.Gray, c Crop) (*image.Gray, image.Rectangle, error) {
	// Half the box's height above and below: a crop cut through the tops of the glyphs
	// (a word's box can miss a raised bracket) reads worse. Not to the sides: the box's
	// left is often the end of the field's label, and a stroke of it reads as a bracket.
	pad := max(c.Box.Dy()/2, 4)
	box := image.Rect(c.Box.Min.X, c.Box.Min.Y-pad, c.Box.Max.X+pad, c.Box.Max.Y+pad).Intersect(g.Rect)
	ink := uint8(128)
	if c.Seal {
		ink = sealInk
	}
	box.Min.X = blankNear(g, box, box.Min.X, c.Box.Dy(), ink)
	// The rows above and below are the neighbouring lines' (a number's feet over a
	// holder's name read as marks): the crop ends at the first blank row out from the box.
	box.Min.Y, box.Max.Y = blankRow(g, box, c.Box.Min.Y, -1, ink), blankRow(g, box, c.Box.Max.Y-1, +1, ink)+1
	if box.Dx() < 4 || box.Dy() < 4 {
		return nil, image.Rectangle{}, fmt.Errorf("ocr: crop %v outside page %d", c.Box, c.Page)
	}
	crop := image.NewGray(image.Rect(0, 0, box.Dx()+2*rereadMargin, box.Dy()+2*rereadMargin))
	for i := range crop.Pix {
		crop.Pix[i] = 0xff
	}
	src := g
	if grey != nil {
		src = grey
	}
	for y := box.Min.Y; y < box.Max.Y; y++ {
		row := src.Pix[src.PixOffset(box.Min.X, y):src.PixOffset(box.Max.X, y)]
		copy(crop.Pix[crop.PixOffset(rereadMargin, y-box.Min.Y+rereadMargin):], row)
	}
	if c.Seal && grey == nil {
		dropSeal(crop)
	}
	if c.HalfWidth && c.Widen > 1 {
		crop = halfWidthKana(crop, c.Widen)
	} else if c.Widen > 1 {
		crop = resize(crop, int(float64(crop.Rect.Dx())*c.Widen), crop.Rect.Dy(), catmullRom)
	}
	return crop, box, nil
}

// pageImage is page n's prepared image and its grey (nil: none, Result.greys), decoded
// once for the crops of that page.
func (rd *Reading) pageImage(n int) (g, grey *image.Gray, err error) {
	if rd.pageIm != nil && rd.page == n {
		return rd.pageIm, rd.greyIm, nil
	}
	file, ok := rd.images[n]
	if !ok {
		return nil, nil, fmt.Errorf("ocr: page %d was not read from an image", n)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, fmt.Errorf("ocr: page %d: %w", n, err)
	}
	img, err := decodeImage(b)
	if err != nil {
		return nil, nil, fmt.Errorf("ocr: page %d: %w", n, err)
	}
	g = toGray(img)
	if file, ok := rd.greys[n]; ok {
		pix, err := os.ReadFile(file)
		if err != nil {
			return nil, nil, fmt.Errorf("ocr: page %d: %w", n, err)
		}
		w, h := g.Rect.Dx(), g.Rect.Dy()
		if len(pix) != w*h {
			return nil, nil, fmt.Errorf("ocr: page %d: %d grey pixels for %d×%d", n, len(pix), w, h)
		}
		grey = &image.Gray{Pix: pix, Stride: w, Rect: g.Rect}
	}
	rd.page, rd.pageIm, rd.greyIm = n, g, grey
	return g, grey, nil
}

// blankNear moves a crop's left edge x to the middle of the widest run of blank columns
// of the crop's band within reach of it. The edge a caller gives is the end of a label's
// last word, and tesseract's boxes of Japanese glyphs are loose: a box can end inside the
// next character, or short of the label's last stroke. The gap a person leaves between
// a label and its value is where the cut belongs.
func blankNear(g *image.Gray, band image.Rectangle, x, reach int, ink uint8) int {
	from, to := max(x-reach, g.Rect.Min.X), min(x+reach, band.Max.X-1)
	bestStart, bestLen, start := x, 0, -1
	for cx := from; cx <= to+1; cx++ {
		blank := cx <= to
		if blank {
			for y := band.Min.Y; y < band.Max.Y; y++ {
				if g.Pix[g.PixOffset(cx, y)] < ink {
					blank = false
					break
				}
			}
		}
		switch {
		case blank && start < 0:
			start = cx
		case !blank && start >= 0:
			if cx-start > bestLen {
				bestStart, bestLen = start, cx-start
			}
			start = -1
		}
	}
	if bestLen == 0 {
		return x
	}
	return bestStart + bestLen/2
}

// blankRow is the first row from y out in direction dir (-1 up, +1 down) with no ink
// across the crop's columns, or the crop's edge.
func blankRow(g *image.Gray, crop image.Rectangle, y, dir int, ink uint8) int {
	for ; y >= crop.Min.Y && y < crop.Max.Y; y += dir {
		blank := true
		for x := crop.Min.X; x < crop.Max.X; x++ {
			if g.Pix[g.PixOffset(x, y)] < ink {
				blank = false
				break
			}
		}
		if blank {
			return y
		}
	}
	return min(max(y, crop.Min.Y), crop.Max.Y-1)
}

// dropSeal whitens what is lighter than the text's ink in a crop (sealInk).
func dropSeal(g *image.Gray) {
	for i, p := range g.Pix {
		if p >= sealInk {
			g.Pix[i] = 0xff
		}
	}
}

// sealInk is the grey from which a seal's crop takes a pixel for paper. On the prepared
// page (its tones stretched to 0–255) text is black and a red seal scanned in grey is
// about 100–130; measured on the generator's scans, the issuer's name under its seal read
// right at 72–96 and wrong at 128 (the seal kept) and at 56 (the text's strokes broken).
const sealInk = 80
