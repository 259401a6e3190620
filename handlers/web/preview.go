package web

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/labstack/echo/v5"

	"cardpay/invoicefiles"
	"cardpay/store"
)

// The preview of an invoice file (issue 11), as HTTP: invoicefiles.Service.Preview
// draws the picture; the buyer's file page and the operator's screening page serve it
// through ServePreview.

// ServePreview serves f's preview. The PNG is cached privately for an hour under an
// ETag made from the file's SHA-256 (a stored file never changes), and If-None-Match is
// answered with 304. When the picture cannot be made (no pdftoppm, a file poppler cannot
// draw, the timeout) the answer is 404 with a neutral placeholder picture, never cached,
// so that the page around it keeps its layout.
func (a *App) ServePreview(c *echo.Context, f store.InvoiceFile) error {
	ctx := c.Request().Context()
	etag := `"preview-` + strconv.Itoa(invoicefiles.PreviewSide) + "-" + f.SHA256 + `"`
	hd := c.Response().Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	if etagMatches(c.Request().Header.Get("If-None-Match"), etag) {
		hd.Set("ETag", etag)
		hd.Set("Cache-Control", "private, max-age=3600")
		return c.NoContent(http.StatusNotModified)
	}
	img, err := a.InvoiceFiles.Preview(ctx, f)
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
	img := image.NewPaletted(image.Rect(0, 0, invoicefiles.PreviewWidth, invoicefiles.PreviewSide), pal)
	fill := func(r image.Rectangle, i uint8) {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				img.SetColorIndex(x, y, i)
			}
		}
	}
	sheet := image.Rect(32, 32, invoicefiles.PreviewWidth-32, invoicefiles.PreviewSide-32)
	fill(sheet, 2)
	fill(sheet.Inset(2), 1)
	for i, y := 0, 90; y < invoicefiles.PreviewSide-90; i, y = i+1, y+34 {
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
