package info

import (
	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/views"
)

const maxErrorTextLen = 200

// ShowErrorPage renders /error/:title/:message. Both parts come from the URL, so they
// are cut to a sane length and shown as text (templ escapes them).
func (h *Handler) ShowErrorPage(c *echo.Context) error {
	title := web.Clip(web.PathParam(c, "title"), maxErrorTextLen)
	message := web.Clip(web.PathParam(c, "message"), maxErrorTextLen)
	if title == "" {
		title = "エラーが発生しました"
	}
	return web.Show(h.App, c, title, nil, views.ErrorView{Heading: title, Message: message}, views.ErrorPage)
}
