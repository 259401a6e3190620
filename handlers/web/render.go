package web

import (
	"bytes"
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v5"

	"cardpay/pay"
	"cardpay/views"
	"cardpay/views/ui"
)

// Render writes a page into a buffer first, so that a failing render becomes a clean
// 500 page rather than half a page.
func Render(c *echo.Context, status int, page templ.Component) error {
	var buf bytes.Buffer
	if err := page.Render(ui.WithIslands(c.Request().Context()), &buf); err != nil {
		return err
	}
	if limited, ok := c.Get(contextLimited).(bool); ok && limited {
		status = http.StatusTooManyRequests
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// Base fills what every page shares. It reads the stats only for signed-in pages,
// because only the signed-in header shows them. A failure to read them is only logged
// (SPEC.md §8): the page is still the page, with no counts (b.StatsUnknown).
func (a *App) Base(c *echo.Context, title string) (views.Base, error) {
	b := a.BaseWith(c, title, a.PopFlash(c))
	b.TagManagerID = a.pageTags(c)
	if u := CurrentUser(c); u != nil {
		st, err := a.Store.Stats(c.Request().Context(), u.BuyerID)
		if err != nil {
			a.Logger.ErrorContext(c.Request().Context(), "web: the stats could not be read; the page is shown without counts",
				"route", c.Path(), "error", err)
			b.StatsUnknown = true
		}
		b.Stats = st
		b.User = &views.User{
			DisplayName:        u.DisplayName(),
			EmailAddress:       u.EmailAddress,
			BusinessForm:       u.BusinessForm,
			CollectionsEnabled: a.CollectionsEnabled(u),
			Review:             u.ReviewStatus,
		}
	}
	return b, nil
}

// StatusFor picks 422 for a page re-shown with validation errors.
func StatusFor(b views.Base) int {
	if len(b.Errors) > 0 {
		return http.StatusUnprocessableEntity
	}
	return http.StatusOK
}

// Show renders the page of title: Base goes into v (any view embedding views.Base), and
// page(v) is written with 200, or 422 when errs has the form's problems to show again. A
// handler that needs another status, or to change Base itself, calls Base and Render.
func Show[V any, PV interface {
	*V
	SetBase(views.Base)
}](a *App, c *echo.Context, title string, errs pay.FieldErrors, v V, page func(V) templ.Component) error {
	b, err := a.Base(c, title)
	if err != nil {
		return err
	}
	b.Errors = errs
	PV(&v).SetBase(b)
	return Render(c, StatusFor(b), page(v))
}

// BaseWith is what every page's Base starts from, the buyers' (Base) and the
// operators' (handlers/ops), with the notice taken from the page's own session.
func (a *App) BaseWith(c *echo.Context, title string, flash *views.Flash) views.Base {
	return views.Base{
		ServiceName: a.ServiceName,
		Title:       title,
		Nonce:       nonceFrom(c.Request().Context()),
		CurrentPath: c.Request().URL.Path,
		Links:       a.Links,
		Flash:       flash,
	}
}
