package ops

import (
	"errors"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	pages "cardpay/views/ops"
)

// Changes to one operator: disable at once, or propose enabling or new roles.
const (
	DisableOperatorPattern = "/ops/operators/:id/disable"
	EnableOperatorPattern  = "/ops/operators/:id/enable"
	OperatorRolesPattern   = "/ops/operators/:id/roles"
)

// DisableOperator stops an operator at once: one administrator may, since it only takes
// power away. Re-enabling is a proposal (ProposeEnable).
func (h *Handler) DisableOperator(c *echo.Context) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	me := CurrentOperator(c)
	if id == me.ID {
		return h.renderOperators(c, pages.OperatorsView{Roles: map[string]bool{}},
			pay.FieldErrors{{Field: "change", Message: "ご自身は停止できません。別の管理者に依頼してください"}})
	}
	err = h.Store.DisableOperator(c.Request().Context(), id, me.ID, h.Now())
	if errors.Is(err, store.ErrNotFound) {
		return h.renderOperators(c, pages.OperatorsView{Roles: map[string]bool{}},
			pay.FieldErrors{{Field: "change", Message: "その担当者はすでに停止されているか、見つかりません"}})
	}
	if err != nil {
		return err
	}
	return h.backToOperators(c, "担当者を停止しました", "")
}

// ProposeEnable proposes to enable a disabled operator again.
func (h *Handler) ProposeEnable(c *echo.Context) error {
	return h.proposeChange(c, store.ProposeEnable, "")
}

// ProposeRoles proposes to grant (change=grant) or remove (change=revoke) a role.
func (h *Handler) ProposeRoles(c *echo.Context) error {
	kind := map[string]string{"grant": store.ProposeGrant, "revoke": store.ProposeRevoke}[c.FormValue("change")]
	return h.proposeChange(c, kind, c.FormValue("role"))
}

func (h *Handler) proposeChange(c *echo.Context, kind, role string) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	p, err := h.Account.ProposeChange(c.Request().Context(), *CurrentOperator(c), kind, id, role)
	if refused, rerr := h.refusedOnOperators(c, err); refused {
		return rerr
	}
	if err != nil {
		return err
	}
	return h.backToOperators(c, "変更を提案しました", proposalText(p)+"（別の管理者の承認で行われます）")
}
