package handlers

import (
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v5"

	"cardpay/auth"
	"cardpay/store"
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
		u, err := a.Store.UserByEmail(ctx, email)
		switch {
		case errors.Is(err, store.ErrNotFound):
			auth.CheckNothing(password)
			errs.Add("email_address", "メールアドレスまたはパスワードが正しくありません")
		case err != nil:
			return err
		case auth.CheckPassword(u.PasswordHash, password) != nil:
			errs.Add("email_address", "メールアドレスまたはパスワードが正しくありません")
		default:
			if err := a.startSession(c, u); err != nil {
				return err
			}
			a.setFlash(c, views.Flash{Color: "success", Title: "ログインしました", Text: u.DisplayName() + " さま、ようこそ。"})
			if redirect == "" {
				redirect = "/toppage"
			}
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
