package handlers

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/views"
)

// showPlaceholderPage serves a route whose screen a later issue builds.
func (a *App) showPlaceholderPage(title string, signed bool) echo.HandlerFunc {
	return func(c *echo.Context) error {
		b, err := a.base(c, title)
		if err != nil {
			return err
		}
		return render(c, http.StatusOK, views.PlaceholderPage(views.PlaceholderView{Base: b, Signed: signed}))
	}
}
