package ops

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/ops"
)

// OperatorsPage is the administrators' page: the proposals waiting for a second
// administrator, the operators with what may be done to them, and the form that
// proposes an invitation. No administrator creates an operator or ever sees another's
// password or authenticator secret (account/operator_invites.go).
var OperatorsPage = web.Page{Path: "/ops/operators", Title: "担当者", Access: web.Operator}

var allRoles = []string{pay.RoleScreening, pay.RoleTransfers, pay.RoleAdmin}

// ShowOperatorsPage lists the proposals and the operators.
func (h *Handler) ShowOperatorsPage(c *echo.Context) error {
	return h.renderOperators(c, pages.OperatorsView{Roles: map[string]bool{}}, nil)
}

func roleLabels(roles []string) string {
	labels := make([]string, len(roles))
	for i, r := range roles {
		labels[i] = pay.RoleLabel(r)
	}
	return strings.Join(labels, "・")
}

// proposalText says what a proposal would do, as the administrators read it.
func proposalText(p store.Proposal) string {
	name := ""
	if p.OperatorName != nil {
		name = *p.OperatorName
	}
	switch p.Kind {
	case store.ProposeInvite:
		return fmt.Sprintf("招待：%s（%s）権限：%s", p.Name, p.EmailAddress, roleLabels(p.Roles))
	case store.ProposeGrant:
		return fmt.Sprintf("権限の追加：%s に「%s」", name, roleLabels(p.Roles))
	case store.ProposeRevoke:
		return fmt.Sprintf("権限の削除：%s から「%s」", name, roleLabels(p.Roles))
	case store.ProposeEnable:
		return fmt.Sprintf("再開：%s", name)
	}
	return p.Kind
}

func (h *Handler) renderOperators(c *echo.Context, v pages.OperatorsView, errs pay.FieldErrors) error {
	ctx := c.Request().Context()
	me := CurrentOperator(c)
	pending, err := h.Store.PendingProposals(ctx)
	if err != nil {
		return err
	}
	for _, p := range pending {
		v.Pending = append(v.Pending, pages.ProposalRow{ID: p.ID, What: proposalText(p), Proposer: p.ProposerName,
			At: dateTime(p.ProposedAt), Own: p.ProposedBy == me.ID})
	}
	list, err := h.Store.Operators(ctx)
	if err != nil {
		return err
	}
	for _, o := range list {
		v.Rows = append(v.Rows, pages.OperatorRow{ID: o.ID, Name: o.Name, Email: o.EmailAddress, Roles: roleLabels(o.Roles),
			Created: dateTime(o.CreatedAt), Disabled: o.DisabledAt != nil, Self: o.ID == me.ID})
	}
	for _, r := range allRoles {
		v.RoleOpts = append(v.RoleOpts, views.FieldOption{Value: r, Label: pay.RoleLabel(r)})
	}
	return show(h, c, OperatorsPage.Title, errs, v, pages.OperatorsPage)
}

// backToOperators answers a done change with a notice on the operators' page.
func (h *Handler) backToOperators(c *echo.Context, title, text string) error {
	h.setFlash(c, views.Flash{Color: "success", Title: title, Text: text})
	return c.Redirect(http.StatusSeeOther, OperatorsPage.Path)
}

// refusedOnOperators shows the operators' page again with a refusal, or says false.
func (h *Handler) refusedOnOperators(c *echo.Context, err error) (bool, error) {
	var errs pay.FieldErrors
	if web.Refused(c, &errs, "change", err) {
		return true, h.renderOperators(c, pages.OperatorsView{Roles: map[string]bool{}}, errs)
	}
	return false, nil
}

// ProposeInvite proposes to invite an operator; the mail goes once another
// administrator approves.
func (h *Handler) ProposeInvite(c *echo.Context) error {
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
	p, err := h.Account.ProposeInvite(c.Request().Context(), *CurrentOperator(c),
		account.InviteInput{EmailAddress: v.Email, Name: v.Name, Roles: roles})
	var errs pay.FieldErrors
	if errors.As(err, &errs) {
		return h.renderOperators(c, v, errs)
	}
	if err != nil {
		return err
	}
	return h.backToOperators(c, "招待を提案しました", p.EmailAddress+" への招待メールは、別の管理者が承認したときに送られます")
}
