package invoicefiles

import (
	"context"
	"image"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/invoiceread"
	"cardpay/ocr"
	"cardpay/ocr/invoicegen"
)

// A fax's seal is as black as the name under it: its crop, which drops a seal's grey,
// is not read there (one tesseract run a page saved); any other crop of the page is.
func TestAFaxsSealIsNotCropped(t *testing.T) {
	if err := ocr.Available(); err != nil {
		t.Fatalf("the OCR tools are missing (task ocr-tools): %v", err)
	}
	ctx := context.Background()
	g := invoicegen.SetGenerator.New(1)
	doc, err := g.Render(ctx, g.Invoice(), invoicegen.LayoutClassic, invoicegen.KindFax)
	require.NoError(t, err)
	rd, err := (&ocr.Reader{}).Open(ctx, doc.MediaType, doc.Bytes)
	require.NoError(t, err)
	t.Cleanup(func() { rd.Close() })
	require.True(t, rd.PageStats[0].OneBit)

	box := image.Rect(100, 100, 900, 300)
	var f invoiceread.Fields
	assert.Equal(t, 0, reread(ctx, rd, &f, []invoiceread.Reread{{Field: "issuer_name", Page: 1, Box: box, Block: true, Seal: true}}))
	assert.Equal(t, 1, reread(ctx, rd, &f, []invoiceread.Reread{{Field: "issuer_name", Page: 1, Box: box, Block: true}}))
}
