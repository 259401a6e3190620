package handlers

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/views"
)

// showSignInPage shows the sign-in form. Entering it signs the visitor out (SPEC.md §2),
// after taking any notice meant for this page, such as the sign-out confirmation.
func (a *App) showSignInPage(c *echo.Context) error {
	flash := a.popFlash(c)
	if err := a.Sessions.Destroy(c.Request().Context()); err != nil {
		return err
	}
	c.Set(contextUser, nil)
	b, err := a.base(c, "ログイン")
	if err != nil {
		return err
	}
	b.Flash = flash
	redirect, _ := safeRedirect(c.QueryParam("redirect"))
	return render(c, http.StatusOK, views.SignInPage(views.SignInView{Base: b, Redirect: redirect}))
}

const maxEmailLen = 254

// signIn checks the e-mail address and password, renews the session token (so a
// session id planted before sign-in is useless after it) and returns the user to the
// page they wanted.
func (a *App) signIn(c *echo.Context) error {
	ctx := c.Request().Context()
	email := strings.TrimSpace(c.FormValue("email_address"))
	password := c.FormValue("password")
	redirect, _ := safeRedirect(c.FormValue("redirect"))

	var errs views.FieldErrors
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
		req := c.Request()
		res, err := a.Account.SignIn(ctx, email, password, c.RealIP(), req.UserAgent())
		if r, ok := account.AsRefusal(err); ok {
			errs.Add(r.Field, r.Message)
		} else if err != nil {
			return err
		} else {
			if redirect == "" {
				redirect = "/toppage"
			}
			if res.SecondFactor != account.SecondFactorNone {
				return a.startSecondFactor(c, res.User, redirect)
			}
			if err := a.startSession(c, res.User); err != nil {
				return err
			}
			a.setFlash(c, views.Flash{Color: "success", Title: "ログインしました", Text: res.User.DisplayName() + " さま、ようこそ。"})
			return c.Redirect(http.StatusSeeOther, redirect)
		}
	}
	b, err := a.base(c, "ログイン")
	if err != nil {
		return err
	}
	b.Errors = errs
	return render(c, statusFor(b), views.SignInPage(views.SignInView{Base: b, EmailAddress: email, Redirect: redirect}))
}
