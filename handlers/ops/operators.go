package ops

import (
	"errors"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/ops"
)

// OperatorsPage is the administrator's list of operators, with the form that adds one.
var OperatorsPage = web.Page{Path: "/ops/operators", Title: "担当者", Access: web.Operator}

var allRoles = []string{pay.RoleScreening, pay.RoleTransfers, pay.RoleAdmin}

// ShowOperatorsPage lists the operators.
func (h *Handler) ShowOperatorsPage(c *echo.Context) error {
	return h.renderOperators(c, pages.OperatorsView{Roles: map[string]bool{}}, nil)
}

func (h *Handler) renderOperators(c *echo.Context, v pages.OperatorsView, errs pay.FieldErrors) error {
	list, err := h.Store.Operators(c.Request().Context())
	if err != nil {
		return err
	}
	for _, o := range list {
		labels := make([]string, len(o.Roles))
		for i, r := range o.Roles {
			labels[i] = pay.RoleLabel(r)
		}
		v.Rows = append(v.Rows, pages.OperatorRow{Name: o.Name, Email: o.EmailAddress, Roles: strings.Join(labels, "・"), Created: dateTime(o.CreatedAt)})
	}
	for _, r := range allRoles {
		v.RoleOpts = append(v.RoleOpts, views.FieldOption{Value: r, Label: pay.RoleLabel(r)})
	}
	return web.ShowOps(h.App, c, OperatorsPage.Title, errs, v, pages.OperatorsPage)
}

// CreateOperator adds an operator and shows the password and the authenticator's
// secret once, on this answer only.
func (h *Handler) CreateOperator(c *echo.Context) error {
	// A body that does not parse (a broken multipart, a bad escape) is read as far as
	// it goes: the fields it lacks are then reported missing (422), never a 500.
	form, _ := c.FormValues()
	v := pages.OperatorsView{Email: strings.TrimSpace(c.FormValue("email_address")), Name: strings.TrimSpace(c.FormValue("name")),
		Roles: map[string]bool{}}
	var roles []string
	for _, r := range form["roles"] {
		if !v.Roles[r] {
			v.Roles[r] = true
			roles = append(roles, r)
		}
	}
	password, err := auth.NewPassword()
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	created, err := h.Account.CreateOperator(ctx, account.NewOperatorInput{EmailAddress: v.Email, Name: v.Name, Password: password, Roles: roles})
	var errs pay.FieldErrors
	if errors.As(err, &errs) {
		return h.renderOperators(c, v, errs)
	}
	if err != nil {
		return err
	}
	if err := h.Store.AddAudit(ctx, nil, store.NewAudit{OperatorID: web.CurrentOperator(c).ID, ObjectType: store.AuditOperator,
		ObjectID: created.Operator.ID, Action: "create", After: map[string]any{"email_address": created.Operator.EmailAddress,
			"roles": roles}}, h.Now()); err != nil {
		return err
	}
	qr, err := auth.TOTPQRCodeDataURL(created.TOTPURL)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return h.renderOperators(c, pages.OperatorsView{Roles: map[string]bool{}, Created: &pages.NewOperatorShown{
		Email: created.Operator.EmailAddress, Password: password, Secret: created.TOTPSecret, QRCode: qr}}, nil)
}
