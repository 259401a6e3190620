package web

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
	"cardpay/store"
)

// The preview of an invoice file (issue 11): a small PNG of the first page of a PDF, or
// of the image. The buyer's file page and the operator's screening page show it; both
// serve it through ServePreview.

// PreviewSide is the long side of a preview in pixels; PreviewWidth × PreviewSide is the
// box the pages give it (A4 portrait), so that nothing moves when it arrives.
const (
	PreviewSide  = 600
	PreviewWidth = 424
)

// PreviewTimeout bounds making one preview (reading the file and drawing it).
const PreviewTimeout = 10 * time.Second

// previewSlots is how many previews are drawn at once; others wait (within their
// timeout) so that a page of many previews does not start as many pdftoppm processes.
var previewSlots = make(chan struct{}, 2)

// Thumbnailer draws a file's first page as a PNG whose long side is at most maxSide
// (ocr.Reader; routes.go gives it, so that this area never imports the OCR adapter).
type Thumbnailer interface {
	Thumbnail(ctx context.Context, mediaType string, b []byte, maxSide int) ([]byte, error)
}

// ServePreview serves f's preview. The PNG is cached privately for an hour under an
// ETag made from the file's SHA-256 (a stored file never changes), and If-None-Match is
// answered with 304. When the picture cannot be made (no pdftoppm, a file poppler cannot
// draw, the timeout) the answer is 404 with a neutral placeholder picture, never cached,
// so that the page around it keeps its layout.
func (a *App) ServePreview(c *echo.Context, thumbs Thumbnailer, f store.InvoiceFile) error {
	ctx := c.Request().Context()
	etag := `"preview-` + strconv.Itoa(PreviewSide) + "-" + f.SHA256 + `"`
	hd := c.Response().Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	if etagMatches(c.Request().Header.Get("If-None-Match"), etag) {
		hd.Set("ETag", etag)
		hd.Set("Cache-Control", "private, max-age=3600")
		return c.NoContent(http.StatusNotModified)
	}
	img, err := a.preview(ctx, thumbs, f)
	if err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			return nil // the browser went away
		}
		a.Logger.Warn("web: no preview", "file", f.ID, "media_type", f.MediaType, "error", err)
		hd.Set("Cache-Control", "no-store")
		return c.Blob(http.StatusNotFound, "image/png", placeholder())
	}
	hd.Set("ETag", etag)
	hd.Set("Cache-Control", "private, max-age=3600")
	return c.Blob(http.StatusOK, "image/png", img)
}

// preview reads f's bytes and draws them, within PreviewTimeout and a free slot.
func (a *App) preview(ctx context.Context, thumbs Thumbnailer, f store.InvoiceFile) ([]byte, error) {
	if thumbs == nil || a.Files == nil {
		return nil, errors.New("no thumbnailer or no file store")
	}
	ctx, cancel := context.WithTimeout(ctx, PreviewTimeout)
	defer cancel()
	select {
	case previewSlots <- struct{}{}:
		defer func() { <-previewSlots }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	rc, err := a.Files.Open(ctx, f.StorageKey)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, pay.MaxInvoiceFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > pay.MaxInvoiceFileBytes {
		return nil, errors.New("stored file over the upload limit")
	}
	return thumbs.Thumbnail(ctx, f.MediaType, b, PreviewSide)
}

// etagMatches is If-None-Match's weak comparison (RFC 9110 §13.1.2): "*" or any listed
// tag, W/ or not, equal to etag.
func etagMatches(header, etag string) bool {
	for t := range strings.SplitSeq(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// placeholder is a blank sheet with grey lines where text would be, in the preview's
// box: what stands in for a page that cannot be drawn (a few hundred bytes).
var placeholder = sync.OnceValue(func() []byte {
	pal := color.Palette{
		color.RGBA{0xf4, 0xf6, 0xf9, 0xff}, // --c-bg
		color.White,
		color.RGBA{0xc9, 0xcf, 0xd8, 0xff}, // --c-border
	}
	img := image.NewPaletted(image.Rect(0, 0, PreviewWidth, PreviewSide), pal)
	fill := func(r image.Rectangle, i uint8) {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				img.SetColorIndex(x, y, i)
			}
		}
	}
	sheet := image.Rect(32, 32, PreviewWidth-32, PreviewSide-32)
	fill(sheet, 2)
	fill(sheet.Inset(2), 1)
	for i, y := 0, 90; y < PreviewSide-90; i, y = i+1, y+34 {
		w := 290
		if i%4 == 3 {
			w = 180
		}
		fill(image.Rect(67, y, 67+w, y+10), 2)
	}
	var buf bytes.Buffer
	_ = (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, img)
	return buf.Bytes()
})
