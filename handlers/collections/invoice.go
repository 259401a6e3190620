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
		if f.OCRStatus != "pending" && f.OCRStatus != "running" {
			prefill(&j, f)
		}
	}
	if err := h.save(c, j); err != nil {
		return err
	}
	return h.renderInvoiceStep(c, j, nil)
}

// readField is one stored OCR field (invoiceread.Field as the OCR job keeps it).
type readField struct {
	Value any  `json:"value"`
	Found bool `json:"found"`
}

// prefill fills the empty answers from the file's reading and marks them; "read" marks
// that the reading was applied, so a field the requester emptied stays empty.
func prefill(j *journey, f store.InvoiceFile) {
	j.Prefilled = append(j.Prefilled, "read")
	var m map[string]json.RawMessage
	if f.OCRStatus != store.OCRDone || json.Unmarshal(f.OCRFields, &m) != nil {
		return
	}
	get := func(key string) (any, bool) {
		var r readField
		if json.Unmarshal(m[key], &r) != nil || !r.Found || r.Value == nil || r.Value == "" {
			return nil, false
		}
		return r.Value, true
	}
	set := func(field string, to *string, v string) {
		if *to == "" && v != "" {
			*to = v
			j.Prefilled = append(j.Prefilled, field)
		}
	}
	in := &j.Request
	if v, ok := get("addressee"); ok {
		if s, ok := v.(string); ok {
			set("customer_name", &in.CustomerName, s)
		}
	}
	if v, ok := get("total"); ok {
		if n, ok := v.(float64); ok && n > 0 {
			set("amount", &in.Amount, strconv.FormatInt(int64(n), 10))
		}
	}
	if v, ok := get("invoice_date"); ok {
		if s, ok := v.(string); ok {
			set("invoice_date", &in.InvoiceDate, s)
		}
	}
	if v, ok := get("due_date"); ok {
		if s, ok := v.(string); ok {
			set("deadline", &in.Deadline, s)
		}
	}
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
		v.FileHref, _ = h.DownloadURL(f.BuyerID, f.ID)
		v.Reading = f.OCRStatus == "pending" || f.OCRStatus == "running"
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
	_, errs := in.Check(h.Invoices.CurrentLimits(), h.Now())
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
