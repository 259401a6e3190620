package myaccount

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/myaccount"
)

// EditPasswordPage changes the signed-in user's password.
var EditPasswordPage = web.Page{Path: "/myaccount/edit-password", Title: "パスワードの変更", Access: web.SignedIn}

// ShowEditPasswordPage asks for the current password and the new one.
func (h *Handler) ShowEditPasswordPage(c *echo.Context) error {
	return h.renderEditPassword(c, nil)
}

func (h *Handler) renderEditPassword(c *echo.Context, errs pay.FieldErrors) error {
	return web.Show(h.App, c, EditPasswordPage.Title, errs, pages.EditPasswordView{}, pages.EditPasswordPage)
}

// ChangePassword replaces the password after checking the current one. The change ends
// the user's other sessions; this one moves to the new session epoch on a renewed token
// and stays signed in.
func (h *Handler) ChangePassword(c *echo.Context) error {
	ctx := c.Request().Context()
	u := web.CurrentUser(c)
	current := c.FormValue("current_password")
	password := c.FormValue("password")

	var errs pay.FieldErrors
	if current == "" {
		errs.Add("current_password", "現在のパスワードを入力してください")
	}
	errs.Add("password", account.ValidatePassword(password, u.EmailAddress))
	errs.Add("password_confirmation", account.CheckPasswordConfirmation(password, c.FormValue("password_confirmation")))
	if len(errs) > 0 {
		return h.renderEditPassword(c, errs)
	}
	epoch, errs, err := h.Account.ChangePassword(ctx, *u, current, password)
	if err != nil && !web.Refused(c, &errs, "current_password", err) {
		return err
	}
	if len(errs) > 0 {
		return h.renderEditPassword(c, errs)
	}
	fresh, err := h.reloadUser(c)
	if err != nil {
		return err
	}
	// The epoch the change returned, not a later one: should another change have come
	// in meanwhile, that one ends this session too.
	fresh.SessionEpoch = epoch
	if err := h.RenewSession(c, fresh); err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "パスワードを変更しました", Text: "ほかの端末でのログインは終了しました。"})
	return c.Redirect(http.StatusSeeOther, MyAccountPage.Path)
}
