package inquiries

import (
	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	pages "cardpay/views/inquiries"
)

// DetailPattern is one of the buyer's inquiries with the operators' answers; another
// buyer's is not found.
const DetailPattern = "/inquiries/:id"

// ShowDetailPage shows the inquiry, the payment it names and its answers.
func (h *Handler) ShowDetailPage(c *echo.Context) error {
	u := web.CurrentUser(c)
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	q, err := h.Store.Inquiry(c.Request().Context(), u.BuyerID, id)
	if err != nil {
		return err
	}
	v := pages.DetailView{Number: pay.InquiryNumber(q.ID), Category: q.Category.Label(), Status: q.Status.Label(),
		At: dateTime(q.CreatedAt), Body: q.Body}
	if q.InvoiceID != nil {
		v.Payment = pay.InvoiceNumber(*q.InvoiceID)
		if q.SupplierName != nil && q.PaymentAmount != nil {
			v.Payment += "　" + *q.SupplierName + "　" + pay.Yen(*q.PaymentAmount)
		}
	}
	for _, a := range q.Answers {
		v.Answers = append(v.Answers, pages.Answer{At: dateTime(a.CreatedAt), Body: a.Body})
	}
	return web.Show(h.App, c, "お問い合わせ "+v.Number, nil, v, pages.DetailPage)
}
