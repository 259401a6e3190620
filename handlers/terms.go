package handlers

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/static"
	"cardpay/views"
)

// showTermsPage shows the terms of service, with the form to accept them when the
// user accepted only an older version.
func (a *App) showTermsPage(c *echo.Context) error {
	u := currentUser(c)
	b, err := a.base(c, "利用規約")
	if err != nil {
		return err
	}
	v := views.TermsView{
		Base: b, Version: "第" + strconv.Itoa(account.TermsVersion) + "版", EffectiveDate: account.TermsEffectiveDate,
		NeedsAccept: account.NeedsTerms(*u), Revised: u.TermsVersion > 0,
	}
	if r, ok := safeRedirect(c.QueryParam("redirect")); ok && !isTermsPath(r) {
		v.Redirect = r
	}
	for _, t := range account.Terms {
		v.Articles = append(v.Articles, views.TermsArticle{Heading: t.Heading, Paragraphs: t.Paragraphs})
	}
	return render(c, http.StatusOK, views.TermsPage(v))
}

// acceptTerms records the acceptance (PUT users/license) and returns the user to the
// page requireCurrentTerms sent them away from.
func (a *App) acceptTerms(c *echo.Context) error {
	u := currentUser(c)
	next, ok := safeRedirect(c.FormValue("redirect"))
	if !ok || isTermsPath(next) {
		next = "/toppage"
	}
	if account.NeedsTerms(*u) {
		if err := a.Account.AcceptTerms(c.Request().Context(), *u); err != nil {
			return err
		}
		a.setFlash(c, views.Flash{Color: "success", Title: "利用規約に同意しました"})
	}
	return c.Redirect(http.StatusSeeOther, next)
}

func isTermsPath(target string) bool {
	p, _, _ := strings.Cut(target, "?")
	return p == "/termsofservice"
}

// requireCurrentTerms sends a signed-in user who accepted only an older version of the
// terms to /termsofservice (remembering the page they wanted) until they accept the
// current one. The terms page itself, signing out and static files stay reachable.
func (a *App) requireCurrentTerms(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		u := currentUser(c)
		if u == nil || !account.NeedsTerms(*u) {
			return next(c)
		}
		p := c.Request().URL.Path
		if p == "/termsofservice" || p == "/signout" || strings.HasPrefix(p, static.Prefix) {
			return next(c)
		}
		target := "/termsofservice"
		if c.Request().Method == http.MethodGet {
			if r, ok := safeRedirect(c.Request().URL.RequestURI()); ok {
				target += "?redirect=" + url.QueryEscape(r)
			}
		}
		return c.Redirect(http.StatusSeeOther, target)
	}
}
