// Package signin is signing in and out: the sign-in form, the second factor that may
// follow it (/onetime-password) and sign-out.
package signin

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/signin"
)

// Handler serves the sign-in area.
type Handler struct{ *web.App }

// SignInPage is the sign-in form.
var SignInPage = web.Page{Path: links.SignIn, Title: "ログイン", Access: web.Public}

// ShowSignInPage shows the sign-in form. Entering it signs the visitor out (SPEC.md §2),
// after taking any notice meant for this page, such as the sign-out confirmation; a
// card-payment request's key waiting to be linked stays for the account signing in.
func (h *Handler) ShowSignInPage(c *echo.Context) error {
	flash := h.PopFlash(c)
	pending := h.PendingRequestKey(c)
	if err := h.Sessions.Destroy(c.Request().Context()); err != nil {
		return err
	}
	if pending != "" {
		h.SetPendingRequestKey(c, pending)
	}
	web.ForgetUser(c)
	b, err := h.Base(c, SignInPage.Title)
	if err != nil {
		return err
	}
	b.Flash = flash
	redirect, _ := web.SafeRedirect(c.QueryParam("redirect"))
	return web.Render(c, web.StatusFor(b), pages.SignInPage(pages.SignInView{Base: b, Redirect: redirect}))
}

const maxEmailLen = 254

// SignIn checks the e-mail address and password, renews the session token (so a
// session id planted before sign-in is useless after it) and returns the user to the
// page they wanted.
func (h *Handler) SignIn(c *echo.Context) error {
	ctx := c.Request().Context()
	email := strings.TrimSpace(c.FormValue("email_address"))
	password := c.FormValue("password")
	redirect, _ := web.SafeRedirect(c.FormValue("redirect"))

	var errs pay.FieldErrors
	switch {
	case email == "":
		errs.Add("email_address", "メールアドレスを入力してください")
	case !utf8.ValidString(email) || len(email) > maxEmailLen || !strings.Contains(email, "@"):
		errs.Add("email_address", "メールアドレスを正しい形式で入力してください（例：name@example.co.jp）")
	}
	if password == "" {
		errs.Add("password", "パスワードを入力してください")
	}
	if len(errs) == 0 {
		res, err := h.Account.SignIn(ctx, email, password, web.ClientOf(c))
		if web.Refused(c, &errs, "email_address", err) {
			// shown again below, with the address typed and never the password
		} else if err != nil {
			return err
		} else {
			if redirect == "" {
				redirect = links.TopPage
			}
			if res.SecondFactor != account.SecondFactorNone {
				return h.startSecondFactor(c, res.User, redirect)
			}
			if err := h.StartSession(c, res); err != nil {
				return err
			}
			h.SetFlash(c, views.Flash{Color: "success", Title: "ログインしました", Text: res.User.DisplayName() + " さま、ようこそ。"})
			return c.Redirect(http.StatusSeeOther, redirect)
		}
	}
	return web.Show(h.App, c, SignInPage.Title, errs, pages.SignInView{EmailAddress: email, Redirect: redirect}, pages.SignInPage)
}
