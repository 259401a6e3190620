package collections

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	pages "cardpay/views/collections"
)

const invoiceStepTitle = "カード払い依頼：請求書情報の入力"

// ShowInvoiceStep asks for the customer and the invoice. ?new=1 starts a journey afresh.
// An uploaded invoice that has been read fills the empty fields once, each marked as read.
func (h *Handler) ShowInvoiceStep(c *echo.Context) error {
	j, _ := h.load(c, InvoiceStepPath)
	if c.QueryParam("new") == "1" {
		j = journey{}
	}
	if j.FileID != 0 && !slices.Contains(j.Prefilled, "read") {
		f, err := h.Store.InvoiceFile(c.Request().Context(), web.CurrentUser(c).BuyerID, j.FileID)
		if err != nil {
			return err
		}
		if !reading(f) {
			prefill(&j, f)
		}
	}
	if err := h.save(c, j); err != nil {
		return err
	}
	return h.renderInvoiceStep(c, j, nil)
}

// readFields are the stored OCR fields the request uses (invoiceread.Fields as the OCR
// job keeps them in invoice_files.ocr_fields).
type readFields struct {
	Addressee   readField[string] `json:"addressee"`
	Total       readField[int64]  `json:"total"`
	InvoiceDate readField[string] `json:"invoice_date"`
	DueDate     readField[string] `json:"due_date"`
}

type readField[T any] struct {
	Value T    `json:"value"`
	Found bool `json:"found"`
}

// prefill fills the empty answers from the file's reading and marks them; "read" marks
// that the reading was applied, so a field the requester emptied stays empty.
func prefill(j *journey, f store.InvoiceFile) {
	j.Prefilled = append(j.Prefilled, "read")
	var r readFields
	if f.OCRStatus != store.OCRDone || json.Unmarshal(f.OCRFields, &r) != nil {
		return
	}
	set := func(field string, to *string, v string) {
		if *to == "" && v != "" {
			*to = v
			j.Prefilled = append(j.Prefilled, field)
		}
	}
	in := &j.Request
	if r.Addressee.Found {
		set("customer_name", &in.CustomerName, r.Addressee.Value)
	}
	if r.Total.Found && r.Total.Value > 0 {
		set("amount", &in.Amount, strconv.FormatInt(r.Total.Value, 10))
	}
	if r.InvoiceDate.Found {
		set("invoice_date", &in.InvoiceDate, r.InvoiceDate.Value)
	}
	if r.DueDate.Found {
		set("deadline", &in.Deadline, r.DueDate.Value)
	}
}

// reading says whether the OCR job has yet to read f.
func reading(f store.InvoiceFile) bool {
	return f.OCRStatus == store.OCRPending || f.OCRStatus == store.OCRRunning
}

func (h *Handler) renderInvoiceStep(c *echo.Context, j journey, errs pay.FieldErrors) error {
	in := j.Request
	v := pages.InvoiceStepView{Action: InvoiceStepPath, Values: map[string]string{
		"customer_name": in.CustomerName, "customer_contact_name": in.CustomerContactName, "customer_email": in.CustomerEmail,
		"customer_corporate_number": in.CustomerCorporateNumber, "amount": in.Amount, "invoice_number": in.InvoiceNumber,
		"invoice_date": in.InvoiceDate, "deadline": in.Deadline, "message": in.Message,
	}, Prefilled: map[string]bool{}}
	for _, f := range j.Prefilled {
		v.Prefilled[f] = true
	}
	if j.FileID != 0 {
		f, err := h.Store.InvoiceFile(c.Request().Context(), web.CurrentUser(c).BuyerID, j.FileID)
		if err != nil {
			return err
		}
		v.FileName = web.FileName(f.OriginalName)
		v.FileHref, _ = h.InvoiceFiles.DownloadURL(f.BuyerID, f.ID)
		v.Reading = reading(f)
		v.Unread = f.OCRStatus == store.OCRFailed || f.OCRStatus == store.OCRUnavailable
		v.ReadingHref = InvoiceStepPath
	}
	return web.Show(h.App, c, invoiceStepTitle, errs, v, pages.InvoiceStepPage)
}

// requestForm reads the step's fields.
func requestForm(c *echo.Context) pay.RequestInput {
	return pay.RequestInput{
		CustomerName: web.Clip(c.FormValue("customer_name"), 200), CustomerContactName: web.Clip(c.FormValue("customer_contact_name"), 200),
		CustomerEmail: web.Clip(c.FormValue("customer_email"), 300), CustomerCorporateNumber: web.Clip(c.FormValue("customer_corporate_number"), 40),
		Amount: web.Clip(c.FormValue("amount"), 40), InvoiceNumber: web.Clip(c.FormValue("invoice_number"), 200),
		InvoiceDate: web.Clip(c.FormValue("invoice_date"), 40), Deadline: web.Clip(c.FormValue("deadline"), 40),
		Message: web.Clip(c.FormValue("message"), 2000),
	}
}

// SaveInvoiceStep checks the customer and the invoice and goes on to the account.
func (h *Handler) SaveInvoiceStep(c *echo.Context) error {
	j, _ := h.load(c, InvoiceStepPath)
	in := requestForm(c)
	// A field changed from what was read is no longer "read from the invoice".
	prev := j.Request
	j.Prefilled = slices.DeleteFunc(j.Prefilled, func(f string) bool {
		switch f {
		case "customer_name":
			return in.CustomerName != prev.CustomerName
		case "amount":
			return in.Amount != prev.Amount
		case "invoice_date":
			return in.InvoiceDate != prev.InvoiceDate
		case "deadline":
			return in.Deadline != prev.Deadline
		}
		return false
	})
	j.Request = in
	if wantsDraft(c) {
		return h.saveDraft(c, j, InvoiceStepPath)
	}
	_, errs := in.Check(h.Payments.CurrentLimits(), h.Now())
	if n := in.CustomerCorporateNumber; n != "" && errs.For("customer_corporate_number") == "" {
		if pay.NormalizeCode(n) == web.CurrentUser(c).CorporateNumber {
			errs.Add("customer_corporate_number", "ご自身の会社にカード払いを依頼することはできません")
		}
	}
	if len(errs) > 0 {
		j.RequestDone = false
		if err := h.save(c, j); err != nil {
			return err
		}
		return h.renderInvoiceStep(c, j, errs)
	}
	j.Request.Normalise()
	j.RequestDone = true
	if err := h.save(c, j); err != nil {
		return err
	}
	if j.BankDone {
		return c.Redirect(http.StatusSeeOther, ConfirmPath)
	}
	return c.Redirect(http.StatusSeeOther, BankStepPath)
}
