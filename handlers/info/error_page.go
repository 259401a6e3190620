package info

import (
	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/views"
)

// errorText is one title and message the error page may show.
type errorText struct{ Title, Message string }

// genericError is what /error/… shows for any text not in errorTexts.
var genericError = errorText{"エラーが発生しました", "処理を続けられませんでした。時間をおいてもう一度お試しください。"}

// errorTexts are the only texts /error/:title/:message shows (issue 24): the service's
// own, each as a pair. Both parts come from the URL, so without this list anyone could
// send a link that puts their words ("口座が変わりました。こちらへお振込みください…")
// on a page of ours, under our name and address bar. Nothing in the service links to
// /error/… today (failures render their page in place); a caller that needs a text adds
// it here.
var errorTexts = []errorText{
	{"エラー", "処理を続けられませんでした"}, // Pages()'s example
	genericError,
	{web.ErrNotFound.Heading, web.ErrNotFound.Message},
}

// ErrorPattern is the error view's route: the title and message are in the path.
const ErrorPattern = "/error/:title/:message"

// ShowErrorPage renders /error/:title/:message: a known pair as it is, anything else as
// the generic error, so the URL's text never reaches the page.
func (h *Handler) ShowErrorPage(c *echo.Context) error {
	text := genericError
	title, message := web.PathParam(c, "title"), web.PathParam(c, "message")
	for _, t := range errorTexts {
		if t.Title == title && t.Message == message {
			text = t
			break
		}
	}
	return web.Show(h.App, c, text.Title, nil, views.ErrorView{Heading: text.Title, Message: text.Message}, views.ErrorPage)
}
