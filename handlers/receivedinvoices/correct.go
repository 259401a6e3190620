package receivedinvoices

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/receivedinvoices"
)

// Correct stores the buyer's corrections of an invoice's values (a blank field gives
// the reading's value back), the earlier ones kept in its history. 303 back to its page,
// or the page with 422 and each field's problem; nothing is written then, nor when the
// invoice was corrected meanwhile (the page says so).
func (h *Handler) Correct(c *echo.Context) error {
	u := web.CurrentUser(c)
	ctx := c.Request().Context()
	r, err := h.fromPath(c)
	if err != nil {
		return err
	}
	id := r.ID
	in := pages.CorrectForm{
		Date: web.Clip(c.FormValue("date"), 20), DueDate: web.Clip(c.FormValue("due_date"), 20),
		Amount: web.Clip(c.FormValue("amount"), 30), Counterparty: web.Clip(c.FormValue("counterparty"), 400),
		RegistrationNumber: web.Clip(c.FormValue("registration_number"), 40), InvoiceNumber: web.Clip(c.FormValue("invoice_number"), 200),
	}
	to, errs := checkKeys(in)
	if len(errs) > 0 {
		return h.renderInvoice(c, errs, &invoiceForm{correct: &in})
	}
	var saw store.ReceivedKeys
	if err := json.Unmarshal([]byte(web.Clip(c.FormValue("saw"), 2000)), &saw); err != nil {
		var stale pay.FieldErrors
		stale.Add("date", "画面を開き直してから、もう一度訂正してください。")
		return h.renderInvoice(c, stale, &invoiceForm{correct: &in})
	}
	err = h.Store.CorrectReceivedInvoice(ctx, u.BuyerID, id, saw, to, u.ID, u.Signature())
	if errors.Is(err, store.ErrReceivedChanged) {
		var stale pay.FieldErrors
		stale.Add("date", "この請求書は、ほかの画面で訂正されたため、保存しませんでした。最新の内容をご確認ください。")
		return h.renderInvoice(c, stale, nil)
	}
	if err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "訂正を保存しました", Text: "訂正前の値は履歴に残っています。"})
	return c.Redirect(http.StatusSeeOther, invoicePath(id))
}

// checkKeys reads the correction form: each field blank (the reading's value) or
// valid, with a Japanese message next to each one that is not.
func checkKeys(in pages.CorrectForm) (store.ReceivedKeys, pay.FieldErrors) {
	var k store.ReceivedKeys
	var errs pay.FieldErrors
	for _, d := range []struct {
		field, raw string
		to         **time.Time
	}{{"date", in.Date, &k.TransactionDate}, {"due_date", in.DueDate, &k.DueDate}} {
		if strings.TrimSpace(d.raw) == "" {
			continue
		}
		t, ok := pay.ParseDate(d.raw)
		if !ok || t.Year() < 2000 || t.Year() > 2099 {
			errs.Add(d.field, "日付を正しく入力してください（例：2026-12-25）")
			continue
		}
		t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		*d.to = &t
	}
	if strings.TrimSpace(in.Amount) != "" {
		n, ok := pay.ParseYen(in.Amount)
		if !ok || n <= 0 || n > pay.MaxReceivedAmount {
			errs.Add("amount", "金額は1円以上の半角数字で入力してください（例：110000）")
		} else {
			k.Amount = &n
		}
	}
	k.Counterparty = strings.TrimSpace(in.Counterparty)
	if len([]rune(k.Counterparty)) > 200 {
		errs.Add("counterparty", "取引先は200文字以内で入力してください")
	}
	if reg := strings.TrimSpace(in.RegistrationNumber); reg != "" {
		norm := pay.NormalizeCode(reg)
		if !strings.HasPrefix(norm, "T") {
			norm = "T" + norm
		}
		if !pay.ValidRegistrationNumber(norm) {
			errs.Add("registration_number", "登録番号は T と13桁の数字で入力してください（例：T1234567890123）")
		} else {
			k.RegistrationNumber = norm
		}
	}
	k.InvoiceNumber = strings.TrimSpace(in.InvoiceNumber)
	if len([]rune(k.InvoiceNumber)) > 100 {
		errs.Add("invoice_number", "請求書番号は100文字以内で入力してください")
	}
	return k, errs
}
