package receivedinvoices

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/receivedinvoices"
)

// UploadPage is 受け取った請求書の登録: the buyer's own upload of a supplier's invoice.
var UploadPage = web.Page{Path: "/receipt-invoices/upload", Title: "受け取った請求書の登録", Access: web.SignedIn}

// ShowUploadPage is the upload form.
func (h *Handler) ShowUploadPage(c *echo.Context) error {
	return h.renderUpload(c, "")
}

func (h *Handler) renderUpload(c *echo.Context, refusal string) error {
	var errs pay.FieldErrors
	if refusal != "" {
		errs.Add(pages.UploadField, refusal)
	}
	return web.Show(h.App, c, UploadPage.Title, errs, pages.UploadView{Action: UploadPage.Path}, pages.UploadPage)
}

// Upload stores the file as a received invoice (its reading queued) and opens its page:
// 303 there, or the form again with 422 and why nothing was stored.
func (h *Handler) Upload(c *echo.Context) error {
	u := web.CurrentUser(c)
	release, busy := h.UploadSlot(c, u.BuyerID)
	defer release()
	if busy != "" {
		return h.renderUpload(c, busy)
	}
	up, problem := web.ReadUpload(c, pages.UploadField)
	if problem != "" {
		return h.renderUpload(c, problem)
	}
	id, problem, err := h.InvoiceFiles.Receive(c.Request().Context(), u.BuyerID, up,
		store.NewReceivedInvoice{Source: store.ReceivedByUpload, Sender: u.DisplayName(), UserID: u.ID, Actor: u.Signature()})
	if err != nil {
		return err
	}
	if problem != "" {
		return h.renderUpload(c, problem)
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "請求書を登録しました", Text: "内容の読み取りが終わると、金額や支払期日が表示されます。"})
	return c.Redirect(http.StatusSeeOther, invoicePath(id))
}
