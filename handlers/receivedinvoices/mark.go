package receivedinvoices

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
)

// Mark records what the buyer decided about an invoice not paid here: paid elsewhere,
// not to be paid (with its reason), or new again. 303 back to its page, or the page with
// 422 and the problem; a change made meanwhile (another tab, a payment submitted) writes
// nothing and says so.
func (h *Handler) Mark(c *echo.Context) error {
	u := web.CurrentUser(c)
	ctx := c.Request().Context()
	r, err := h.fromPath(c)
	if err != nil {
		return err
	}
	id := r.ID
	to := pay.Disposition(web.Clip(c.FormValue("disposition"), 20))
	typed := &invoiceForm{mark: &markInput{choice: string(to), reason: web.Clip(c.FormValue("reason"), 1000)}}
	reason, errs := pay.CheckDisposition(to, typed.mark.reason, r.ByPayment)
	if len(errs) > 0 {
		return h.renderInvoice(c, errs, typed)
	}
	from := pay.Disposition(web.Clip(c.FormValue("from"), 20))
	err = h.Store.MarkReceivedInvoice(ctx, u.BuyerID, id, from, to, reason, u.ID, u.Signature())
	if errors.Is(err, store.ErrReceivedChanged) {
		var changed pay.FieldErrors
		changed.Add("disposition", "この請求書は、ほかの画面で処理されたか支払が始まったため、記録しませんでした。最新の状態をご確認ください。")
		return h.renderInvoice(c, changed, typed)
	}
	if err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "「" + to.Label() + "」を記録しました"})
	return c.Redirect(http.StatusSeeOther, invoicePath(id))
}
