package ops

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/ops"
)

// ShowSignInPage is the console's sign-in; a signed-in operator goes to the queue.
func (h *Handler) ShowSignInPage(c *echo.Context) error {
	if CurrentOperator(c) != nil {
		return c.Redirect(http.StatusSeeOther, h.home(CurrentOperator(c)))
	}
	redirect, _ := opsRedirect(c.QueryParam("redirect"))
	return show(h, c, SignInPage.Title, nil, pages.SignInView{Redirect: redirect}, pages.SignInPage)
}

// SignIn checks the address, the password and the code together.
func (h *Handler) SignIn(c *echo.Context) error {
	email := strings.TrimSpace(c.FormValue("email_address"))
	password, code := c.FormValue("password"), c.FormValue("code")
	redirect, _ := opsRedirect(c.FormValue("redirect"))
	var errs pay.FieldErrors
	if email == "" {
		errs.Add("email_address", "メールアドレスを入力してください")
	}
	if password == "" {
		errs.Add("password", "パスワードを入力してください")
	}
	if strings.TrimSpace(code) == "" {
		errs.Add("code", "確認コードを入力してください")
	}
	if len(errs) == 0 {
		o, err := h.Account.SignInOperator(c.Request().Context(), email, password, code)
		if web.Refused(c, &errs, "email_address", err) {
			// shown again below, with the address typed and never the password
		} else if err != nil {
			return err
		} else {
			return h.signedIn(c, o, redirect)
		}
	}
	return show(h, c, SignInPage.Title, errs, pages.SignInView{EmailAddress: email, Redirect: redirect}, pages.SignInPage)
}

func (h *Handler) signedIn(c *echo.Context, o store.Operator, redirect string) error {
	if err := h.startSession(c, o); err != nil {
		return err
	}
	if err := h.Store.AddAudit(c.Request().Context(), nil, store.NewAudit{OperatorID: o.ID, ObjectType: store.AuditSignIn,
		ObjectID: o.ID, Action: "sign_in", After: map[string]string{"ip": c.RealIP()}}, h.Now()); err != nil {
		return err
	}
	h.setFlash(c, views.Flash{Color: "success", Title: "ログインしました", Text: o.Name + " さん"})
	if redirect == "" {
		redirect = h.home(&o)
	}
	return c.Redirect(http.StatusSeeOther, redirect)
}

// SignOutPath is where the console's sign-out form posts.
const SignOutPath = "/ops/signout"

// SignOut ends the operator's session.
func (h *Handler) SignOut(c *echo.Context) error {
	if err := h.endSession(c); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, SignInPage.Path)
}

// HomePath is the console itself, which sends an operator on to their first section.
const HomePath = Prefix

// ShowHome sends the operator to the first section their roles open.
func (h *Handler) ShowHome(c *echo.Context) error {
	return c.Redirect(http.StatusSeeOther, h.home(CurrentOperator(c)))
}

func (h *Handler) home(o *store.Operator) string {
	switch {
	case o.Has(pay.RoleScreening):
		return QueuePage.Path
	case o.Has(pay.RoleTransfers):
		return TransfersPage.Path
	}
	return AuditPage.Path
}

// opsRedirect accepts only console paths after sign-in.
func opsRedirect(target string) (string, bool) {
	t, ok := web.SafeRedirect(target)
	if !ok || !IsConsolePath(strings.SplitN(t, "?", 2)[0]) || strings.HasPrefix(t, SignInPage.Path) {
		return "", false
	}
	return t, true
}
