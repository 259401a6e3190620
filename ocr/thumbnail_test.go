package ocr

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
)

// thumb makes a thumbnail, checks that it is a PNG whose long side is at most side and
// that no temporary folder is left, and returns it decoded with its size in bytes.
func thumb(t *testing.T, r *Reader, mediaType string, b []byte, side int) (image.Image, int) {
	t.Helper()
	out, err := r.Thumbnail(context.Background(), mediaType, b, side)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(out))
	require.NoError(t, err, "a PNG")
	bd := img.Bounds()
	if side <= 0 {
		side = ThumbnailSide
	}
	assert.LessOrEqual(t, max(bd.Dx(), bd.Dy()), side)
	if r.TempDir != "" {
		left, err := os.ReadDir(r.TempDir)
		require.NoError(t, err)
		assert.Empty(t, left, "the per-call temp folder must be removed")
	}
	return img, len(out)
}

// inkShare is the share of dark pixels: a page with text on it has some, a blank one none.
func inkShare(img image.Image) float64 {
	b := img.Bounds()
	dark := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y < 128 {
				dark++
			}
		}
	}
	return float64(dark) / float64(b.Dx()*b.Dy())
}

func TestThumbnailOfAPDFIsItsFirstPage(t *testing.T) {
	r := newReader(t)
	start := time.Now()
	img, n := thumb(t, r, MediaPDF, scannedPDF(t, renderInvoice(t, 100), rotate90(renderInvoice(t, 100), 1)), ThumbnailSide)
	t.Logf("scanned PDF: %v, %d bytes, %v", img.Bounds().Size(), n, time.Since(start).Round(time.Millisecond))
	// A4 portrait, the long side at 600: 424×600 (the first page, not the second, which
	// lies on its side).
	assert.Equal(t, ThumbnailSide, img.Bounds().Dy())
	assert.InDelta(t, 424, img.Bounds().Dx(), 2)
	assert.Greater(t, inkShare(img), 0.002, "the page's text is drawn")

	img, n = thumb(t, r, MediaPDF, textPDF(t), ThumbnailSide)
	t.Logf("text PDF: %v, %d bytes", img.Bounds().Size(), n)
	assert.Equal(t, ThumbnailSide, img.Bounds().Dy())
	assert.Greater(t, inkShare(img), 0.002, "the text layer is drawn")
	assert.IsType(t, &image.Gray{}, img, "a black-on-white page is stored as grey")
	assert.Less(t, n, 60_000, "a small file for slow links")

	img, _ = thumb(t, r, MediaPDF, textPDF(t), 200)
	assert.Equal(t, 200, img.Bounds().Dy(), "the size asked for")
}

func TestThumbnailOfAJPEGIsTurnedUpright(t *testing.T) {
	r := &Reader{TempDir: t.TempDir()}
	page := renderInvoice(t, 100) // 827×1169, portrait
	// A phone that held the page sideways stores it landscape with orientation 6
	// ("turn 90° clockwise to show").
	stored := rotate90(page, 3)
	require.Greater(t, stored.Rect.Dx(), stored.Rect.Dy())
	img, n := thumb(t, r, MediaJPEG, jpegWithOrientation(t, stored, 6, 85), ThumbnailSide)
	t.Logf("JPEG: %v, %d bytes", img.Bounds().Size(), n)
	assert.Equal(t, ThumbnailSide, img.Bounds().Dy(), "upright: portrait")
	assert.InDelta(t, 424, img.Bounds().Dx(), 2)
	// The title 請求書 is near the top left of the upright page: more ink in the top
	// quarter's left half than in its right half would be if it were upside down or
	// still on its side.
	top := img.(interface {
		SubImage(image.Rectangle) image.Image
	}).SubImage(image.Rect(0, 0, 424, 150))
	assert.Greater(t, inkShare(top), 0.005)
}

func TestThumbnailOfAPNGKeepsColourAndNeverUpscales(t *testing.T) {
	r := &Reader{}
	// A red seal on white: colour is kept.
	src := image.NewRGBA(image.Rect(0, 0, 1200, 900))
	for i := range src.Pix {
		src.Pix[i] = 255
	}
	for y := 300; y < 600; y++ {
		for x := 500; x < 800; x++ {
			src.Set(x, y, color.RGBA{R: 200, G: 30, B: 30, A: 255})
		}
	}
	img, _ := thumb(t, r, MediaPNG, pngBytes(t, src), ThumbnailSide)
	assert.Equal(t, image.Pt(600, 450), img.Bounds().Size(), "landscape: the width is the long side")
	cr, cg, _, _ := img.At(325, 225).RGBA()
	assert.Greater(t, cr>>8, uint32(150), "still red")
	assert.Less(t, cg>>8, uint32(80))

	// A small image keeps its size; a transparent one is drawn on white.
	small := image.NewNRGBA(image.Rect(0, 0, 120, 80))
	img, _ = thumb(t, r, MediaPNG, pngBytes(t, small), ThumbnailSide)
	assert.Equal(t, image.Pt(120, 80), img.Bounds().Size())
	g := color.GrayModel.Convert(img.At(10, 10)).(color.Gray).Y
	assert.Equal(t, uint8(255), g, "transparent becomes white, not black")

	// The default side.
	img, _ = thumb(t, r, MediaPNG, pngBytes(t, renderInvoice(t, 150)), 0)
	assert.Equal(t, ThumbnailSide, img.Bounds().Dy())
}

func TestThumbnailRefusesWhatItCannotDraw(t *testing.T) {
	r := &Reader{TempDir: t.TempDir(), Timeout: 30 * time.Second}
	ctx := context.Background()
	valid := pngBytes(t, renderInvoice(t, 30))
	for _, tc := range []struct {
		name, mediaType string
		b               []byte
	}{
		{"garbage as PDF", MediaPDF, []byte("%PDF-1.4 this is not a PDF at all")},
		{"empty PDF", MediaPDF, nil},
		{"garbage as JPEG", MediaJPEG, []byte{0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3}},
		{"garbage as PNG", MediaPNG, []byte("not a png")},
		{"truncated PNG", MediaPNG, valid[:len(valid)/2]},
		{"pixel bomb", MediaPNG, pngHeaderOnly(100_000, 100_000)},
		{"another type", "image/gif", []byte("GIF89a")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out []byte
			var err error
			require.NotPanics(t, func() { out, err = r.Thumbnail(ctx, tc.mediaType, tc.b, ThumbnailSide) })
			assert.Error(t, err)
			assert.Nil(t, out)
			assert.NotErrorIs(t, err, ErrUnavailable)
		})
	}
	left, err := os.ReadDir(r.TempDir)
	require.NoError(t, err)
	assert.Empty(t, left)
}

// TestEveryDecodingGoesThroughTheUploadCheck: the preview and the OCR refuse a bomb with
// the upload's own error (pay.ErrImageTooLarge), before decoding it: the file has only a
// header, so a decoder would have failed otherwise.
func TestEveryDecodingGoesThroughTheUploadCheck(t *testing.T) {
	r := &Reader{TempDir: t.TempDir(), Timeout: 30 * time.Second}
	bomb := pngHeaderOnly(20_000, 20_000)
	_, err := r.Thumbnail(context.Background(), MediaPNG, bomb, ThumbnailSide)
	assert.ErrorIs(t, err, pay.ErrImageTooLarge)
	_, err = r.Read(context.Background(), MediaPNG, bomb)
	assert.ErrorIs(t, err, pay.ErrImageTooLarge)
}

func TestThumbnailWithoutPdftoppmIsUnavailable(t *testing.T) {
	r := &Reader{ToolDir: t.TempDir(), TempDir: t.TempDir()}
	_, err := r.Thumbnail(context.Background(), MediaPDF, textPDF(t), ThumbnailSide)
	require.ErrorIs(t, err, ErrUnavailable)
	assert.Contains(t, err.Error(), "pdftoppm")
	// Images need no tool.
	_, err = r.Thumbnail(context.Background(), MediaPNG, pngBytes(t, renderInvoice(t, 30)), ThumbnailSide)
	assert.NoError(t, err)
}

func TestThumbnailStopsAtTheTimeout(t *testing.T) {
	r := newReader(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := r.Thumbnail(ctx, MediaPDF, textPDF(t), ThumbnailSide)
	assert.ErrorIs(t, err, context.Canceled)

	r.Timeout = time.Millisecond
	_, err = r.Thumbnail(context.Background(), MediaPDF, scannedPDF(t, renderInvoice(t, 300)), ThumbnailSide)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// pngHeaderOnly is the start of a PNG that claims w×h pixels: a decompression bomb's
// header, refused before any pixel is allocated.
func pngHeaderOnly(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 0 // 8-bit grey
	chunk := append([]byte("IHDR"), ihdr...)
	binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}
