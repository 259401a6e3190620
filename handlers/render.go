package handlers

import (
	"bytes"
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v5"

	"cardpay/views"
)

// render writes a page into a buffer first, so that a failing render becomes a clean
// 500 page rather than half a page.
func render(c *echo.Context, status int, page templ.Component) error {
	var buf bytes.Buffer
	if err := page.Render(c.Request().Context(), &buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// base fills what every page shares. It reads the stats only for signed-in pages,
// because only the signed-in header shows them.
func (a *App) base(c *echo.Context, title string) (views.Base, error) {
	b := views.Base{
		ServiceName: a.ServiceName,
		Title:       title,
		Nonce:       nonceFrom(c.Request().Context()),
		CurrentPath: c.Request().URL.Path,
		Links:       a.Links,
		Flash:       a.popFlash(c),
	}
	if u := currentUser(c); u != nil {
		st, err := a.Store.Stats(c.Request().Context(), u.BuyerID)
		if err != nil {
			return b, err
		}
		b.Stats = st
		b.User = &views.User{
			DisplayName:        u.DisplayName(),
			EmailAddress:       u.EmailAddress,
			BusinessForm:       u.BusinessForm,
			CollectionsEnabled: a.collectionsEnabled(u),
		}
	}
	return b, nil
}

// statusFor picks 422 for a page re-shown with validation errors.
func statusFor(b views.Base) int {
	if len(b.Errors) > 0 {
		return http.StatusUnprocessableEntity
	}
	return http.StatusOK
}
