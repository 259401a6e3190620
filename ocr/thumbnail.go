package ocr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/image/draw"

	"cardpay/pay"
)

// ThumbnailSide is the long side of a preview picture in pixels: an A4 page at
// 424×600, sharp on a phone's screen at the width the pages give it, and a few tens of
// kilobytes as a PNG.
const ThumbnailSide = 600

// maxThumbnailSide bounds what a caller may ask for (pdftoppm's work grows with it).
const maxThumbnailSide = 2000

// Thumbnail returns a small PNG of a file's first page, its long side at most maxSide
// pixels (ThumbnailSide when 0 or less): a PDF's first page drawn by poppler's pdftoppm
// (a missing pdftoppm is ErrUnavailable), or a JPEG or PNG scaled down in Go and turned
// upright by its EXIF orientation. The Reader's Timeout bounds it as it bounds Read.
// A file it cannot draw is an error, never a panic.
func (r *Reader) Thumbnail(ctx context.Context, mediaType string, b []byte, maxSide int) ([]byte, error) {
	if maxSide <= 0 {
		maxSide = ThumbnailSide
	}
	maxSide = min(maxSide, maxThumbnailSide)
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	var (
		out []byte
		err error
	)
	switch mediaType {
	case MediaPDF:
		out, err = r.pdfThumbnail(ctx, b, maxSide)
	case MediaJPEG, MediaPNG:
		out, err = imageThumbnail(b, maxSide)
	default:
		return nil, fmt.Errorf("ocr: thumbnail: unsupported media type %q", mediaType)
	}
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%v)", ctxErr, err)
		}
		return nil, err
	}
	return out, nil
}

// pdfThumbnail draws page 1 with pdftoppm, its long side scaled to maxSide, and keeps
// the PNG only when it is one (a tool that wrote something else is an error).
func (r *Reader) pdfThumbnail(ctx context.Context, b []byte, maxSide int) ([]byte, error) {
	if _, err := r.tool("pdftoppm"); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(r.TempDir, "thumb-")
	if err != nil {
		return nil, fmt.Errorf("ocr: temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "in.pdf"), b, 0o600); err != nil {
		return nil, fmt.Errorf("ocr: %w", err)
	}
	if _, err := r.run(ctx, dir, nil, "pdftoppm", "-png", "-f", "1", "-l", "1", "-singlefile",
		"-scale-to", strconv.Itoa(maxSide), "in.pdf", "thumb"); err != nil {
		return nil, err
	}
	out, err := os.ReadFile(filepath.Join(dir, "thumb.png"))
	if err != nil {
		return nil, fmt.Errorf("ocr: pdftoppm wrote no first page: %w", err)
	}
	// pdftoppm writes RGB; a page without colour (most invoices) is a third of that
	// as grey. Decoding 424×600 pixels costs about a millisecond. It is decoded like an
	// upload (pay.DecodeImage): a page poppler drew is only as small as the file says.
	img, _, err := pay.DecodeImage(out)
	if err != nil {
		return nil, fmt.Errorf("ocr: pdftoppm wrote no PNG: %w", err)
	}
	if small, err := encodeThumbnail(img); err == nil && len(small) < len(out) {
		return small, nil
	}
	return out, nil
}

// imageThumbnail decodes a JPEG or PNG (decodeImage: the pixel bound first, then the
// EXIF orientation), scales it down to maxSide (never up) and encodes it as PNG.
func imageThumbnail(b []byte, maxSide int) (out []byte, err error) {
	defer func() {
		// The decoders return errors for broken data; this is for what they miss.
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("ocr: thumbnail: %v", p)
		}
	}()
	img, err := decodeImage(b)
	if err != nil {
		return nil, err
	}
	return encodeThumbnail(fit(img, maxSide))
}

// fit scales img so that its long side is at most maxSide, keeping its proportions.
// BiLinear as a kernel averages every source pixel under a target pixel, so thin lines
// of text do not break up as they do with point sampling.
func fit(img image.Image, maxSide int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if max(w, h) <= maxSide {
		return img
	}
	if w >= h {
		w, h = maxSide, max(1, h*maxSide/w)
	} else {
		w, h = max(1, w*maxSide/h), maxSide
	}
	rect := image.Rect(0, 0, w, h)
	if _, ok := img.(*image.Gray); ok {
		out := image.NewGray(rect)
		draw.BiLinear.Scale(out, rect, img, b, draw.Src, nil)
		return out
	}
	out := image.NewRGBA(rect)
	draw.BiLinear.Scale(out, rect, img, b, draw.Src, nil)
	return out
}

// encodeThumbnail writes img as PNG on white paper (a transparent PNG's clear parts
// would show as black in grey), as grey when it has no colour to speak of (a scan, a
// fax, a black-on-white PDF page) and as opaque RGB otherwise.
func encodeThumbnail(img image.Image) ([]byte, error) {
	img = onWhite(img)
	if !hasColour(img) {
		img = toGray(img)
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.DefaultCompression}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("ocr: thumbnail: %w", err)
	}
	return buf.Bytes(), nil
}

// onWhite draws an image that may be transparent over white.
func onWhite(img image.Image) image.Image {
	if o, ok := img.(interface{ Opaque() bool }); ok && o.Opaque() {
		return img
	}
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Rect, image.White, image.Point{}, draw.Src)
	draw.Draw(out, out.Rect, img, b.Min, draw.Over)
	return out
}

// hasColour says whether any pixel's channels differ by more than a little (a red seal,
// a blue logo); JPEG noise on grey paper stays below the bound.
func hasColour(img image.Image) bool {
	switch img.(type) {
	case *image.Gray, *image.Gray16:
		return false
	}
	const bound = 24 << 8 // in 16-bit channel units
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			lo, hi := min(cr, cg, cb), max(cr, cg, cb)
			if hi-lo > bound {
				return true
			}
		}
	}
	return false
}
