package handlers

import (
	"net/http"
	"net/url"
	"unicode/utf8"

	"github.com/labstack/echo/v5"

	"cardpay/views"
)

const maxErrorTextLen = 200

// showErrorPage renders /error/:title/:message. Both parts come from the URL, so they
// are cut to a sane length and shown as text (templ escapes them).
func (a *App) showErrorPage(c *echo.Context) error {
	title := clip(pathParam(c, "title"), maxErrorTextLen)
	message := clip(pathParam(c, "message"), maxErrorTextLen)
	if title == "" {
		title = "エラーが発生しました"
	}
	b, err := a.base(c, title)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.ErrorPage(views.ErrorView{Base: b, Heading: title, Message: message}))
}

// pathParam is a path parameter percent-decoded (echo leaves it escaped); a malformed
// escape is shown as it came.
func pathParam(c *echo.Context, name string) string {
	raw := c.Param(name)
	if s, err := url.PathUnescape(raw); err == nil {
		return s
	}
	return raw
}

// clip drops invalid UTF-8 and keeps at most n characters.
func clip(s string, n int) string {
	if !utf8.ValidString(s) {
		s = string([]rune(s))
	}
	r := []rune(s)
	if len(r) > n {
		r = r[:n]
	}
	return string(r)
}
