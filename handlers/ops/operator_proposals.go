package ops

import (
	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	pages "cardpay/views/ops"
)

// ApproveProposalPattern and RejectProposalPattern decide another admin's proposal.
const (
	ApproveProposalPattern = "/ops/operators/proposals/:id/approve"
	RejectProposalPattern  = "/ops/operators/proposals/:id/reject"
)

// DecideProposal approves (approve) or rejects a proposal of another administrator.
func (h *Handler) DecideProposal(approve bool) echo.HandlerFunc {
	return func(c *echo.Context) error {
		id, err := web.IDParam(c, "id")
		if err != nil {
			return err
		}
		p, err := h.Account.DecideProposal(c.Request().Context(), *CurrentOperator(c), id, approve)
		var errs pay.FieldErrors
		if web.Refused(c, &errs, "proposal", err) {
			return h.renderOperators(c, pages.OperatorsView{Roles: map[string]bool{}}, errs)
		}
		if err != nil {
			return err
		}
		if !approve {
			return h.backToOperators(c, "提案を却下しました", proposalText(p))
		}
		return h.backToOperators(c, "提案を承認しました", proposalText(p))
	}
}
