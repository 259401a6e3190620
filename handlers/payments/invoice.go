package payments

import (
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	pages "cardpay/views/payments"
)

const invoiceStepTitle = "支払申請：請求書の内容と振込日"

// ShowInvoiceStep asks for the invoice's details and the transfer date, on a calendar of
// bank business days with the deadline plan.
func (h *Handler) ShowInvoiceStep(c *echo.Context) error {
	j, missing := h.load(c, InvoiceStepPath)
	if missing != "" {
		return c.Redirect(http.StatusSeeOther, missing)
	}
	var errs pay.FieldErrors
	// Say at once when the due date read from the invoice can no longer be met.
	if t, ok := pay.ParseDate(j.Invoice.DueDate); ok && pay.DueDateUnmet(t, h.Now()) {
		errs.Add("due_date", pay.DueDateUnmetMessage(t, h.Now()))
	}
	return h.renderInvoiceStep(c, j, errs, nil)
}

func (h *Handler) renderInvoiceStep(c *echo.Context, j journey, errs, warnings pay.FieldErrors) error {
	v := h.invoiceForm(c, j.Invoice, j.Prefilled, warnings)
	m, ok, err := h.fileOffer(c.Request().Context(), web.CurrentUser(c).BuyerID, j)
	if err != nil {
		return err
	}
	if ok {
		v.Sources = invoiceBadges(m, j.Prefilled)
	}
	v.Steps, v.Action = journeySteps(2), InvoiceStepPath
	v.SupplierName = h.supplierName(c.Request().Context(), web.CurrentUser(c).BuyerID, j)
	v.BackHref, v.BackLabel = AccountStepPath, "振込先口座へ戻る"
	if j.IsNewAccount || j.IsNewSupplier {
		v.BackHref = NewAccountPath
	}
	return web.Show(h.App, c, invoiceStepTitle, errs, v, pages.InvoiceStepPage)
}

// invoiceForm is the invoice form with in's values, its calendar and the deadline plan of
// the chosen date (the journey's invoice step and the correction of a sent-back payment).
func (h *Handler) invoiceForm(c *echo.Context, in pay.InvoiceInput, prefilled []string, warnings pay.FieldErrors) pages.InvoiceStepView {
	now := h.Now()
	v := pages.InvoiceStepView{Values: in, Warnings: warnings, Prefilled: map[string]bool{}, Limits: h.Payments.CurrentLimits()}
	for _, f := range prefilled {
		v.Prefilled[f] = true
	}
	var due *time.Time
	if t, ok := pay.ParseDate(in.DueDate); ok {
		due = &t
	}
	chosen, _ := pay.ParseDate(in.TransferDate)
	v.Calendar = pages.BankCalendar(now, due, chosen)
	v.Earliest = pay.JapaneseDate(pay.EarliestTransferDate(now))
	v.EarliestSubmitBy = pay.JapaneseDateTime(submitByForToday(now))
	if !chosen.IsZero() {
		plan := pay.PlanFor(chosen, h.defaultCardCycle(c))
		v.Plan = &plan
	}
	return v
}

// submitByForToday is the cut-off that keeps the earliest date: 15:00 today on a bank
// business day.
func submitByForToday(now time.Time) time.Time {
	return pay.SubmitDeadline(pay.EarliestTransferDate(now))
}

// defaultCardCycle is the billing cycle of the buyer's default card, for the plan before
// a card is chosen.
func (h *Handler) defaultCardCycle(c *echo.Context) *pay.CardCycle {
	list, err := h.Store.Cards(c.Request().Context(), web.CurrentUser(c).BuyerID)
	if err != nil {
		return nil
	}
	for _, card := range list {
		if card.IsDefault {
			return card.Cycle()
		}
	}
	return nil
}

func invoiceFormValues(c *echo.Context) pay.InvoiceInput {
	return pay.InvoiceInput{
		Amount: c.FormValue("amount"), InvoiceNumber: c.FormValue("invoice_number"), InvoiceDate: c.FormValue("invoice_date"),
		DueDate: c.FormValue("due_date"), RegistrationNumber: c.FormValue("registration_number"), Memo: c.FormValue("memo"),
		TransferDate: c.FormValue("transfer_date"),
	}
}

// SaveInvoiceStep checks the invoice and the transfer date and goes on to the confirm
// page. A registration number whose check digit does not verify is shown as a warning on
// the confirm page, not refused.
func (h *Handler) SaveInvoiceStep(c *echo.Context) error {
	j, missing := h.load(c, InvoiceStepPath)
	if missing != "" {
		return c.Redirect(http.StatusSeeOther, missing)
	}
	in := invoiceFormValues(c)
	// A field the buyer changed is no longer "read from the invoice".
	j.Prefilled = slices.DeleteFunc(j.Prefilled, func(f string) bool { return prefilledValue(j.Invoice, f) != prefilledValue(in, f) })
	j.Invoice = in
	if wantsDraft(c) {
		return h.saveDraft(c, j, InvoiceStepPath)
	}
	checked, errs := in.Check(h.Payments.CurrentLimits(), h.Now())
	if len(errs) > 0 {
		j.InvoiceDone = false
		if err := h.save(c, j); err != nil {
			return err
		}
		return h.renderInvoiceStep(c, j, errs, checked.Warnings)
	}
	j.Invoice.Normalise()
	j.InvoiceDone = true
	if err := h.save(c, j); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, ConfirmPath)
}

func prefilledValue(in pay.InvoiceInput, field string) string {
	in.Normalise()
	switch field {
	case "amount":
		return in.Amount
	case "invoice_date":
		return in.InvoiceDate
	case "due_date":
		return in.DueDate
	case "registration_number":
		return in.RegistrationNumber
	}
	return ""
}
