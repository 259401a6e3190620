package ops

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/ops"
)

// InvitePage is the page of an invitation's mailed link (account.InvitePath + "/" +
// token): the invitee sets their own password and enrols their own authenticator.
var InvitePage = web.Page{Path: account.InvitePath + "/:token", Title: "担当者の登録", Access: web.Public}

// ShowInvitePage shows the invitation's form, or why its link no longer works.
func (h *Handler) ShowInvitePage(c *echo.Context) error {
	return h.renderInvite(c, nil)
}

func (h *Handler) renderInvite(c *echo.Context, errs pay.FieldErrors) error {
	token := c.Param("token")
	// The page holds the invitee's authenticator secret: no cache keeps it, and the link
	// (the token) leaves with no request to anywhere else.
	c.Response().Header().Set("Cache-Control", "no-store")
	c.Response().Header().Set("Referrer-Policy", "no-referrer")
	opened, err := h.Account.OpenInvite(c.Request().Context(), token)
	if r, ok := account.AsRefusal(err); ok {
		// A dead link is a page that is gone, said in words; there is no form to correct.
		v := pages.InviteView{Invalid: r.Message}
		v.SetBase(h.base(c, InvitePage.Title))
		return web.Render(c, http.StatusNotFound, pages.InvitePage(v))
	}
	if err != nil {
		return err
	}
	qr, err := auth.TOTPQRCodeDataURL(opened.TOTPURL)
	if err != nil {
		return err
	}
	inv := opened.Invite
	return show(h, c, InvitePage.Title, errs, pages.InviteView{Action: account.InvitePath + "/" + token,
		Email: inv.EmailAddress, Name: inv.Name, Roles: roleLabels(inv.Roles), Secret: opened.TOTPSecret, QRCode: qr}, pages.InvitePage)
}

// AcceptInvite makes the invited operator, who then signs in like any other.
func (h *Handler) AcceptInvite(c *echo.Context) error {
	password := c.FormValue("password")
	errs := pay.FieldErrors{}
	errs.Add("password_confirmation", account.CheckPasswordConfirmation(password, c.FormValue("password_confirmation")))
	if len(errs) == 0 {
		o, err := h.Account.AcceptInvite(c.Request().Context(), c.Param("token"), password, strings.TrimSpace(c.FormValue("code")))
		var fe pay.FieldErrors
		switch {
		case errors.As(err, &fe):
			errs = fe
		case web.Refused(c, &errs, "code", err):
			// a dead link (field token) or a limit (next to the code): shown below
		case err != nil:
			return err
		default:
			h.setFlash(c, views.Flash{Color: "success", Title: "担当者として登録しました", Text: o.EmailAddress + " でログインしてください"})
			return c.Redirect(http.StatusSeeOther, SignInPage.Path)
		}
	}
	return h.renderInvite(c, errs)
}
