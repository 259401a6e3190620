package inquiries

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/inquiries"
)

// FormPage is the inquiry form, signed out or in.
var FormPage = web.Page{Path: links.Inquiry, Title: "お問い合わせ", Access: web.Public}

// paymentChoices: the form offers the buyer's newest 50 payments; an older one is named
// in the text (its I-number).
const paymentChoices = 50

// sessionSent keeps the id of the inquiry just sent for the thanks page, so that the
// reference number is shown once, to whoever sent it.
const sessionSent = "inquiry_sent"

// ShowFormPage shows the empty form.
func (h *Handler) ShowFormPage(c *echo.Context) error {
	return h.renderForm(c, pages.FormView{}, nil)
}

func (h *Handler) renderForm(c *echo.Context, v pages.FormView, errs pay.FieldErrors) error {
	for _, cat := range pay.InquiryCategories {
		v.Categories = append(v.Categories, views.FieldOption{Value: string(cat), Label: cat.Label()})
	}
	v.MaxBody = strings.TrimPrefix(pay.Yen(pay.MaxInquiryBody), "¥") // 4,000
	if u := web.CurrentUser(c); u != nil {
		v.Account = u.DisplayName() + "（" + u.EmailAddress + "）"
		list, err := h.Store.InquiryPayments(c.Request().Context(), u.BuyerID, paymentChoices)
		if err != nil {
			return err
		}
		for _, p := range list {
			v.Payments = append(v.Payments, views.FieldOption{Value: strconv.FormatInt(p.ID, 10),
				Label: fmt.Sprintf("%s　%s　%s", pay.InvoiceNumber(p.ID), p.SupplierName, pay.Yen(p.Amount))})
		}
	}
	return web.Show(h.App, c, FormPage.Title, errs, v, pages.FormPage)
}

// Send stores the inquiry and mails its acknowledgement; bad input is shown at its
// fields and stores nothing; over the rate limit the page answers 429 at the text.
func (h *Handler) Send(c *echo.Context) error {
	f := account.InquiryForm{InquiryInput: pay.InquiryInput{Name: c.FormValue("name"), Email: c.FormValue("email_address"),
		Company: c.FormValue("company"), Category: c.FormValue("category"), Body: c.FormValue("body")},
		InvoiceID: c.FormValue("invoice_id"), User: web.CurrentUser(c)}
	id, errs, err := h.Account.SendInquiry(c.Request().Context(), f)
	if err != nil && !web.Refused(c, &errs, "body", err) {
		return err
	}
	if len(errs) > 0 {
		// What was typed is shown again, clipped: a text far over the limit is not sent
		// back whole.
		shown := func(s string, n int) string { return web.ShownValue(web.Clip(s, n)) }
		v := pages.FormView{Name: shown(f.Name, 200), Email: shown(f.Email, 300), Company: shown(f.Company, 300),
			Category: shown(f.Category, 20), InvoiceID: shown(f.InvoiceID, 20), Body: shown(f.Body, pay.MaxInquiryBody+1000)}
		return h.renderForm(c, v, errs)
	}
	h.Sessions.Put(c.Request().Context(), sessionSent, id)
	return c.Redirect(http.StatusSeeOther, ThanksPath)
}
