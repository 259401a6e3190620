package ops

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
)

// The screening actions: each posts to /ops/screening/:id/<action>, changes the payment
// through invoices.Screening and comes back to the payment's page with a notice, or shows
// the page again with the refusal next to the action.

// screenAction runs do for the payment of the path and answers.
func (h *Handler) screenAction(c *echo.Context, done string, form screeningForm, do func(op store.Operator, id int64) error) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	op := CurrentOperator(c)
	err = do(*op, id)
	var errs pay.FieldErrors
	if errors.As(err, &errs) {
		return h.renderScreening(c, id, errs, form)
	}
	if err != nil {
		return err
	}
	h.setFlash(c, views.Flash{Color: "success", Title: done, Text: pay.InvoiceNumber(id)})
	return c.Redirect(http.StatusSeeOther, fmt.Sprintf("%s/%d", QueuePage.Path, id))
}

// CheckPayment is 確認済.
func (h *Handler) CheckPayment(c *echo.Context) error {
	return h.screenAction(c, "確認済にしました", screeningForm{}, func(op store.Operator, id int64) error {
		_, err := h.Screening.CheckPayment(c.Request().Context(), op, id)
		return err
	})
}

// CompleteScreening is 審査完了 (a second operator; the card is captured).
func (h *Handler) CompleteScreening(c *echo.Context) error {
	return h.screenAction(c, "審査を完了しました", screeningForm{}, func(op store.Operator, id int64) error {
		_, err := h.Screening.CompleteScreening(c.Request().Context(), op, id)
		return err
	})
}

// SendBack is 差し戻し with a reason from the fixed list and a message.
func (h *Handler) SendBack(c *echo.Context) error {
	f := screeningForm{Reason: c.FormValue("reason"), Message: c.FormValue("message")}
	return h.screenAction(c, "差し戻しました", f, func(op store.Operator, id int64) error {
		_, err := h.Screening.SendBack(c.Request().Context(), op, id, pay.SendBackReason(f.Reason), f.Message)
		return err
	})
}

// CancelPayment is キャンセル with a reason: the authorisation is voided (or refunded).
func (h *Handler) CancelPayment(c *echo.Context) error {
	f := screeningForm{CancelReason: c.FormValue("cancel_reason")}
	return h.screenAction(c, "キャンセルしました", f, func(op store.Operator, id int64) error {
		_, err := h.Screening.CancelByOperator(c.Request().Context(), op, id, f.CancelReason)
		var errs pay.FieldErrors
		if errors.As(err, &errs) {
			for i := range errs {
				if errs[i].Field == "reason" {
					errs[i].Field = "cancel_reason"
				}
			}
			return errs
		}
		return err
	})
}

// ApproveAccount approves the payment's bank account (one that came with a card-payment
// request), so that transfer files take it.
func (h *Handler) ApproveAccount(c *echo.Context) error {
	return h.screenAction(c, "振込先口座を承認しました", screeningForm{}, func(op store.Operator, id int64) error {
		return h.Screening.ApproveAccount(c.Request().Context(), op, id)
	})
}

// The screening page's file, its preview and the screener's actions.
const (
	ScreeningFilePattern    = "/ops/screening/:id/file"
	ScreeningPreviewPattern = "/ops/screening/:id/preview"
	CheckPattern            = "/ops/screening/:id/check"
	CompletePattern         = "/ops/screening/:id/complete"
	SendBackPattern         = "/ops/screening/:id/send-back"
	CancelPattern           = "/ops/screening/:id/cancel"
	ApproveAccountPattern   = "/ops/screening/:id/approve-account"
)

// DownloadFile serves the payment's invoice file to the operator, as a download.
func (h *Handler) DownloadFile(c *echo.Context) error {
	f, err := h.paymentFile(c)
	if err != nil {
		return err
	}
	return h.ServeInvoiceFile(c, f)
}

// paymentFile is the invoice file of the payment of the path (any buyer's: operators
// only); a payment typed by hand has none.
func (h *Handler) paymentFile(c *echo.Context) (store.InvoiceFile, error) {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return store.InvoiceFile{}, err
	}
	ctx := c.Request().Context()
	p, err := h.Store.ScreeningPayment(ctx, id)
	if err != nil {
		return store.InvoiceFile{}, err
	}
	owner, fileID := p.EvidenceFile()
	if fileID == nil {
		return store.InvoiceFile{}, web.ErrNotFound
	}
	return h.Store.InvoiceFile(ctx, owner, *fileID)
}

// ShowPreview serves the picture of the payment's invoice file (web.ServePreview).
func (h *Handler) ShowPreview(c *echo.Context) error {
	f, err := h.paymentFile(c)
	if err != nil {
		return err
	}
	return h.ServePreview(c, f)
}
