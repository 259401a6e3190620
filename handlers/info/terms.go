package info

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/static"
	"cardpay/views"
	pages "cardpay/views/info"
)

// TermsPage is 利用規約: the terms of service, and where a user accepts them.
var TermsPage = web.Page{Path: "/termsofservice", Title: "利用規約", Access: web.SignedIn}

// termsText is the terms in force, from account (the one source both pages show).
func termsText() pages.TermsText {
	t := pages.TermsText{Version: versionLabel(account.TermsVersion), EffectiveDate: account.TermsEffectiveDate}
	for _, a := range account.Terms {
		t.Articles = append(t.Articles, pages.TermsArticle{Heading: a.Heading, Paragraphs: a.Paragraphs, Items: a.Items})
	}
	for _, r := range account.TermsRevisions {
		t.Revisions = append(t.Revisions, pages.TermsRevision{Version: versionLabel(r.Version), Date: r.Date, Summary: r.Summary})
	}
	return t
}

// versionLabel is a version of the terms as people read it: 第2版.
func versionLabel(v int) string { return "第" + strconv.Itoa(v) + "版" }

// ShowPublicTermsPage is /terms, for anyone: the full text of the terms in force, the
// same the sign-up form asks to accept and /termsofservice shows (issue 31: a business
// reads the terms before it enters a card).
func (h *Handler) ShowPublicTermsPage(c *echo.Context) error {
	b, err := h.Base(c, "利用規約")
	if err != nil {
		return err
	}
	return web.Render(c, http.StatusOK, pages.PublicTermsPage(pages.PublicTermsView{Base: b, Text: termsText()}))
}

// ShowTermsPage shows the terms of service, with the form to accept them when the
// user accepted only an older version.
func (h *Handler) ShowTermsPage(c *echo.Context) error {
	u := web.CurrentUser(c)
	v := pages.TermsView{Text: termsText(), NeedsAccept: account.NeedsTerms(*u), Revised: u.TermsVersion > 0}
	if r, ok := web.SafeRedirect(c.QueryParam("redirect")); ok && !isTermsPath(r) {
		v.Redirect = r
	}
	return web.Show(h.App, c, TermsPage.Title, nil, v, pages.TermsPage)
}

// AcceptTerms records the acceptance (PUT users/license) and returns the user to the
// page RequireCurrentTerms sent them away from.
func (h *Handler) AcceptTerms(c *echo.Context) error {
	u := web.CurrentUser(c)
	next, ok := web.SafeRedirect(c.FormValue("redirect"))
	if !ok || isTermsPath(next) {
		next = TopPagePath
	}
	if account.NeedsTerms(*u) {
		if err := h.Account.AcceptTerms(c.Request().Context(), *u); err != nil {
			return err
		}
		h.SetFlash(c, views.Flash{Color: "success", Title: "利用規約に同意しました"})
	}
	return c.Redirect(http.StatusSeeOther, next)
}

func isTermsPath(target string) bool {
	p, _, _ := strings.Cut(target, "?")
	return p == TermsPage.Path
}

// RequireCurrentTerms sends a signed-in user who accepted only an older version of the
// terms to /termsofservice (remembering the page they wanted) until they accept the
// current one. The terms page itself, signing out and static files stay reachable.
func (h *Handler) RequireCurrentTerms(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		u := web.CurrentUser(c)
		if u == nil || !account.NeedsTerms(*u) {
			return next(c)
		}
		p := c.Request().URL.Path
		if p == TermsPage.Path || p == links.SignOut || strings.HasPrefix(p, static.Prefix) {
			return next(c)
		}
		target := TermsPage.Path
		if c.Request().Method == http.MethodGet {
			if r, ok := web.SafeRedirect(c.Request().URL.RequestURI()); ok {
				target += "?redirect=" + url.QueryEscape(r)
			}
		}
		return c.Redirect(http.StatusSeeOther, target)
	}
}
