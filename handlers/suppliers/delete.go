package suppliers

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/suppliers"
)

const supplierInUseMessage = "この取引先への支払いが進行中のため削除できません。支払いが完了するか、キャンセルされてから削除してください。"

// DeletePattern is a supplier's delete question and where it posts.
const DeletePattern = "/suppliers/:id/delete"

// ShowDeletePage is the confirm dialog (はい / いいえ) as a page, so it works without
// JavaScript; it already says so when the supplier cannot be deleted.
func (h *Handler) ShowDeletePage(c *echo.Context) error {
	s, err := h.supplierFromPath(c)
	if err != nil {
		return err
	}
	busy, err := h.Store.SupplierHasPaymentsInProgress(c.Request().Context(), s.BuyerID, s.ID)
	if err != nil {
		return err
	}
	blocked := ""
	if busy {
		blocked = supplierInUseMessage
	}
	return h.renderDelete(c, s, blocked, http.StatusOK)
}

func (h *Handler) renderDelete(c *echo.Context, s store.Supplier, blocked string, status int) error {
	b, err := h.Base(c, "取引先の削除")
	if err != nil {
		return err
	}
	return web.Render(c, status, pages.DeletePage(pages.DeleteView{
		Base: b, ID: strconv.FormatInt(s.ID, 10), Name: s.Name, Blocked: blocked}))
}

// DeleteSupplier removes the supplier from the list, unless a payment to it is in
// progress.
func (h *Handler) DeleteSupplier(c *echo.Context) error {
	s, err := h.supplierFromPath(c)
	if err != nil {
		return err
	}
	err = h.Store.DeleteSupplier(c.Request().Context(), s.BuyerID, s.ID)
	if errors.Is(err, store.ErrSupplierInUse) {
		return h.renderDelete(c, s, supplierInUseMessage, http.StatusConflict)
	}
	if err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "取引先を削除しました", Text: "「" + s.Name + "」を登録取引先から削除しました。"})
	return c.Redirect(http.StatusSeeOther, ListPage.Path+"?status=enable")
}
