package inquiries

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/pay"
	pages "cardpay/views/inquiries"
)

// ThanksPath is the page after sending, with the inquiry's reference number.
const ThanksPath = links.Inquiry + "/thanks"

// ShowThanksPage shows the number of the inquiry this browser just sent, once; opened
// again (a reload, a bookmark) it leads back to the form.
func (h *Handler) ShowThanksPage(c *echo.Context) error {
	id, _ := h.Sessions.Pop(c.Request().Context(), sessionSent).(int64)
	if id == 0 {
		return c.Redirect(http.StatusSeeOther, FormPage.Path)
	}
	v := pages.ThanksView{Number: pay.InquiryNumber(id)}
	if web.CurrentUser(c) != nil {
		v.Href = pay.InquiryLink(id)
	}
	return web.Show(h.App, c, "お問い合わせを受け付けました", nil, v, pages.ThanksPage)
}
