package handlers

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
)

// sessionSupplierWizard holds the add-supplier wizard's answers (DESIGN.md §2 wizards).
const sessionSupplierWizard = "supplier_wizard"

// supplierWizard is the answers so far. Company and Account are set only once their step
// validated, so the confirm page can trust them after checking again.
type supplierWizard struct {
	Supplier    pay.SupplierInput `json:"supplier"`
	CompanyDone bool              `json:"company_done"`
	Account     pay.AccountInput  `json:"account"`
	AccountDone bool              `json:"account_done"`
}

func (a *App) supplierWizard(c *echo.Context) supplierWizard {
	var w supplierWizard
	if s := a.Sessions.GetString(c.Request().Context(), sessionSupplierWizard); s != "" {
		_ = json.Unmarshal([]byte(s), &w)
	}
	return w
}

func (a *App) saveSupplierWizard(c *echo.Context, w supplierWizard) error {
	b, err := json.Marshal(w)
	if err != nil {
		return err
	}
	a.Sessions.Put(c.Request().Context(), sessionSupplierWizard, string(b))
	return nil
}

// createWorkflows are the create workflows whose saved answers are forgotten as soon as
// the person opens a page outside them (SPEC.md §2 "Leaving a create workflow clears its
// saved in-progress data"). Each later wizard adds its own line.
var createWorkflows = []struct{ prefix, sessionKey string }{
	{"/suppliers/add/", sessionSupplierWizard},
}

// leaveWorkflows clears a create workflow's answers when a signed-in page outside it is
// opened. Only GET requests of pages count: the API and form posts never clear anything.
func (a *App) leaveWorkflows(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		r := c.Request()
		if r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/api/") {
			for _, w := range createWorkflows {
				if !strings.HasPrefix(r.URL.Path, w.prefix) && a.Sessions.Exists(r.Context(), w.sessionKey) {
					a.Sessions.Remove(r.Context(), w.sessionKey)
				}
			}
		}
		return next(c)
	}
}
