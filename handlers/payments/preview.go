package payments

import (
	"fmt"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/invoicefiles"
	"cardpay/pay"
	pages "cardpay/views/payments"
)

// PreviewPattern is the route of a file's preview picture; PreviewPath builds it.
const PreviewPattern = FilePath + ":id/preview"

// PreviewPath is the preview of file id, at /payments/create/files/:id/preview, shown on
// the file's page and by the upload island while the file is read.
func PreviewPath(id int64) string { return FilePath + strconv.FormatInt(id, 10) + "/preview" }

// filePreview is the file page's preview picture: the first page of a PDF, the image.
func filePreview(id int64, mediaType string, pageCount int) pages.FilePreview {
	p := pages.FilePreview{URL: PreviewPath(id), Alt: "請求書のプレビュー", Width: invoicefiles.PreviewWidth, Height: invoicefiles.PreviewSide}
	if mediaType == pay.FileTypePDF {
		p.Alt = "請求書の1ページ目のプレビュー"
		if pageCount > 1 {
			p.Caption = fmt.Sprintf("1ページ目（全%dページ）", pageCount)
		}
	}
	return p
}

// ShowPreview serves the owner's preview of a file (web.ServePreview): another buyer's
// file is the 404 page.
func (h *Handler) ShowPreview(c *echo.Context) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	f, err := h.Store.InvoiceFile(c.Request().Context(), web.CurrentUser(c).BuyerID, id)
	if err != nil {
		return err
	}
	return h.ServePreview(c, f)
}
