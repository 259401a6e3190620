package payments

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/payments"
)

// correction is the correction of a sent-back payment while the buyer moves from the
// form to its confirm page (and through a 3-D Secure challenge).
type correction struct {
	ID      int64            `json:"id"`
	Invoice pay.InvoiceInput `json:"invoice"`
	Done    bool             `json:"done"`
}

// Edit keeps the correction in the session; leaving /payments/edit/ forgets it.
var Edit = web.Wizard[correction]{Workflow: web.Workflow{Prefix: editPrefix, SessionKey: "payment_edit"}}

// The correction's two pages and its 3-D Secure return, under editPrefix; editPath
// builds them.
const (
	editPrefix             = links.PaymentEdit
	EditInvoiceInfoPattern = editPrefix + ":id/invoiceinfo"
	EditConfirmPattern     = editPrefix + ":id/confirm"
	EditReturnPattern      = editPrefix + ":id/confirm/return"
)

func editPath(id int64, page string) string { return editPrefix + idString(id) + "/" + page }

// editable loads the payment being corrected: one of the buyer's, waiting for a
// correction (else its page says why there is nothing to correct).
func (h *Handler) editable(c *echo.Context) (store.Payment, bool, error) {
	p, err := h.payment(c)
	if err != nil {
		return p, false, err
	}
	return p, pay.BuyerCanResubmit(p.State()), nil
}

func (h *Handler) notEditable(c *echo.Context, p store.Payment) error {
	h.SetFlash(c, flashError("修正できません", invoices.MsgCannotResubmit))
	return c.Redirect(http.StatusSeeOther, paymentPath(reviewListPath, p.ID))
}

func inputOf(p store.Payment) pay.InvoiceInput {
	in := pay.InvoiceInput{Amount: idString(p.Amount), InvoiceNumber: p.InvoiceNumber,
		RegistrationNumber: p.RegistrationNumber, Memo: p.Memo}
	if p.InvoiceDate != nil {
		in.InvoiceDate = pay.ISODate(*p.InvoiceDate)
	}
	if p.DueDate != nil {
		in.DueDate = pay.ISODate(*p.DueDate)
	}
	if p.TransferDate != nil {
		in.TransferDate = pay.ISODate(*p.TransferDate)
	}
	return in
}

// ShowEditPage is the correction form of a sent-back payment, filled with its answers.
func (h *Handler) ShowEditPage(c *echo.Context) error {
	p, ok, err := h.editable(c)
	if err != nil {
		return err
	}
	if !ok {
		return h.notEditable(c, p)
	}
	in := inputOf(p)
	if e := Edit.Load(h.Sessions, c); e.ID == p.ID {
		in = e.Invoice
	}
	return h.renderEdit(c, p, in, nil, nil)
}

func (h *Handler) renderEdit(c *echo.Context, p store.Payment, in pay.InvoiceInput, errs, warnings pay.FieldErrors) error {
	v := h.invoiceForm(c, in, nil, warnings)
	v.Edit, v.Action, v.SupplierName = true, editPath(p.ID, "invoiceinfo"), p.SupplierName
	v.BackHref, v.BackLabel = paymentPath(reviewListPath, p.ID), "お支払いの画面へ戻る"
	return web.Show(h.App, c, pay.InvoiceNumber(p.ID)+"の修正", errs, v, pages.InvoiceStepPage)
}

// SaveEdit checks the corrected invoice and goes on to the confirm page.
func (h *Handler) SaveEdit(c *echo.Context) error {
	p, ok, err := h.editable(c)
	if err != nil {
		return err
	}
	if !ok {
		return h.notEditable(c, p)
	}
	in := invoiceFormValues(c)
	checked, errs := in.Check(h.Payments.CurrentLimits(), h.Now())
	if len(errs) == 0 {
		// An amount the payment may not take (a request's, or once captured) is refused
		// here, next to the field, before the confirm page.
		errs = invoices.CheckCorrection(p, checked.Amount)
	}
	if len(errs) > 0 {
		return h.renderEdit(c, p, in, errs, checked.Warnings)
	}
	in.Normalise()
	if err := Edit.Save(h.Sessions, c, correction{ID: p.ID, Invoice: in, Done: true}); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, editPath(p.ID, "confirm"))
}

// correcting loads the payment being corrected and its checked correction; when either
// is missing, done is false and the buyer has been sent where to go.
func (h *Handler) correcting(c *echo.Context) (p store.Payment, e correction, done bool, err error) {
	p, ok, err := h.editable(c)
	if err != nil {
		return p, e, false, err
	}
	if !ok {
		return p, e, false, h.notEditable(c, p)
	}
	e = Edit.Load(h.Sessions, c)
	if e.ID != p.ID || !e.Done {
		return p, e, false, c.Redirect(http.StatusSeeOther, editPath(p.ID, "invoiceinfo"))
	}
	return p, e, true, nil
}

// ShowEditConfirmPage shows the correction with the new total before resubmitting.
func (h *Handler) ShowEditConfirmPage(c *echo.Context) error {
	p, e, done, err := h.correcting(c)
	if !done {
		return err
	}
	return h.renderEditConfirm(c, p, e, nil)
}

func (h *Handler) renderEditConfirm(c *echo.Context, p store.Payment, e correction, errs pay.FieldErrors) error {
	checked, cerrs := e.Invoice.Check(h.Payments.CurrentLimits(), h.Now())
	if len(cerrs) > 0 {
		return h.renderEdit(c, p, e.Invoice, cerrs, checked.Warnings)
	}
	if cerrs := invoices.CheckCorrection(p, checked.Amount); len(cerrs) > 0 {
		return h.renderEdit(c, p, e.Invoice, cerrs, checked.Warnings)
	}
	fee := invoices.CorrectionFee(p, checked.Amount)
	rate := pay.FeeRateLabel(p.FeeBasisPoints)
	if p.InvoiceType == pay.InvoiceRequestBuyer && fee == 0 && p.FeeBasisPoints > 0 {
		rate = "依頼元が負担"
	}
	v := pages.EditConfirmView{Number: pay.InvoiceNumber(p.ID), Supplier: p.SupplierName, Action: editPath(p.ID, "confirm"),
		OldTotal: pay.Yen(p.Total()), Fee: pay.Yen(fee), FeeRate: rate, Total: pay.Yen(checked.Amount + fee),
		Reauthorise: checked.Amount+fee != p.AuthorizedAmount, BackHref: paymentPath(reviewListPath, p.ID)}
	for _, f := range checked.Fields() {
		v.Rows = append(v.Rows, views.ConfirmRow{Label: f.Label, Value: f.Value, ChangeHref: editPath(p.ID, "invoiceinfo") + "#" + f.Field})
	}
	return web.Show(h.App, c, pay.InvoiceNumber(p.ID)+"の再申請", errs, v, pages.EditConfirmPage)
}

// Resubmit sends the correction: back to 審査中, with the card authorised again first when
// the total changed.
func (h *Handler) Resubmit(c *echo.Context) error {
	p, e, done, err := h.correcting(c)
	if !done {
		return err
	}
	u := web.CurrentUser(c)
	res, err := h.Payments.Resubmit(c.Request().Context(), u.BuyerID, "buyer:"+idString(u.ID), p.ID, invoices.Correction{Invoice: e.Invoice})
	return h.resubmitted(c, p, e, res, err)
}

func (h *Handler) resubmitted(c *echo.Context, p store.Payment, e correction, res invoices.Submitted, err error) error {
	var fe pay.FieldErrors
	switch {
	case errors.As(err, &fe) && fe.For("amount") != "":
		// Refused for the amount: the form, with the message next to the field.
		return h.renderEdit(c, p, e.Invoice, fe, nil)
	case errors.As(err, &fe):
		return h.renderEditConfirm(c, p, e, fe)
	case err != nil:
		return err
	case res.ActionURL != "":
		return h.RedirectToPSP(c, res.ActionURL)
	}
	Edit.Clear(h.Sessions, c)
	h.SetFlash(c, flashSuccess(pay.InvoiceNumber(p.ID)+"を再申請しました", "修正した内容で、もう一度審査します。"))
	return c.Redirect(http.StatusSeeOther, paymentPath(reviewListPath, p.ID))
}

// EditChallengeReturned receives the buyer back from the challenge of a corrected amount.
func (h *Handler) EditChallengeReturned(c *echo.Context) error {
	p, err := h.payment(c)
	if err != nil {
		return err
	}
	// The correction waits with the payment, whichever client sent it (the pages or the
	// API); the session's copy is only for showing the page again after a refusal.
	e := Edit.Load(h.Sessions, c)
	u := web.CurrentUser(c)
	res, err := h.Payments.ResubmitReturned(c.Request().Context(), u.BuyerID, "buyer:"+idString(u.ID), p.ID,
		web.Clip(c.QueryParam("payment"), 80))
	if err != nil && (e.ID != p.ID || !e.Done) {
		var fe pay.FieldErrors
		if errors.As(err, &fe) {
			h.SetFlash(c, flashError("再申請できませんでした", fe[0].Message))
			return c.Redirect(http.StatusSeeOther, paymentPath(reviewListPath, p.ID))
		}
		return err
	}
	return h.resubmitted(c, p, e, res, err)
}
