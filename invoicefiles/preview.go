package invoicefiles

import (
	"context"
	"errors"
	"io"
	"time"

	"cardpay/pay"
	"cardpay/store"
)

// The preview of an invoice file (issue 11): a small PNG of the first page of a PDF, or
// of the image. The buyer's file page and the operator's screening page show it; both
// serve it through web.App.ServePreview, which adds the caching and the placeholder.

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
// (ocr.Reader).
type Thumbnailer interface {
	Thumbnail(ctx context.Context, mediaType string, b []byte, maxSide int) ([]byte, error)
}

// Preview reads f's bytes and draws them, within PreviewTimeout and a free slot. It fails
// when the picture cannot be made (no pdftoppm, a file poppler cannot draw, the timeout).
func (s *Service) Preview(ctx context.Context, f store.InvoiceFile) ([]byte, error) {
	if s.Thumbnailer == nil || s.Files == nil {
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
	rc, err := s.Files.Open(ctx, f.StorageKey)
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
	return s.Thumbnailer.Thumbnail(ctx, f.MediaType, b, PreviewSide)
}
