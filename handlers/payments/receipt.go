package payments

import (
	"errors"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/receipts"
)

// ReceiptPath is a transferred payment's receipt: /payments/receipts/:id/<kind>.
const ReceiptPath = "/payments/receipts/"

// ReceiptPattern is a transferred payment's receipt of one kind.
const ReceiptPattern = ReceiptPath + ":id/:kind"

// DownloadReceipt sends one receipt PDF of the buyer's transferred payment; another
// buyer's payment, or one not transferred yet, is not found.
func (h *Handler) DownloadReceipt(c *echo.Context) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	name, b, err := h.Receipts.PDF(c.Request().Context(), web.CurrentUser(c).BuyerID, id, c.Param("kind"))
	if errors.Is(err, receipts.ErrNoReceipt) {
		return web.ErrNotFound
	}
	if err != nil {
		return err
	}
	return web.ServePDF(c, name, b)
}
