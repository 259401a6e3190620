package web

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/views"
)

// Who may open a page.
const (
	Public      = "public"
	SignedIn    = "signed_in"
	Collections = "collections" // corporations that may send card-payment requests
	Operator    = "operator"    // the operator console (/ops), never a buyer
)

// Page is a screen's path and title, declared once in its area: the handler renders
// Title, routes.go routes Path, and handlers.Pages lists it for the browser tests and
// the page-weight script, which visit every page.
type Page struct {
	Path   string `json:"path"`
	Title  string `json:"title"`
	Access string `json:"access"`
	// Island names the island the page always carries (islands/<name>); pages without
	// one ship no JavaScript, which the browser tests check on every other page.
	Island string `json:"island,omitempty"`
}

// ShowPlaceholderPage serves a route whose screen a later issue builds: the honest
// 準備中 page under its real path and title.
func (a *App) ShowPlaceholderPage(p Page) echo.HandlerFunc {
	return func(c *echo.Context) error {
		b, err := a.Base(c, p.Title)
		if err != nil {
			return err
		}
		return Render(c, http.StatusOK, views.PlaceholderPage(views.PlaceholderView{Base: b, Signed: p.Access != Public}))
	}
}
