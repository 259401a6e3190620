package handlers

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/store"
	"cardpay/views"
)

const supplierInUseMessage = "この取引先への支払いが進行中のため削除できません。支払いが完了するか、キャンセルされてから削除してください。"

// showSupplierDeletePage is the confirm dialog (はい / いいえ) as a page, so it works
// without JavaScript; it already says so when the supplier cannot be deleted.
func (a *App) showSupplierDeletePage(c *echo.Context) error {
	s, err := a.supplierFromPath(c)
	if err != nil {
		return err
	}
	busy, err := a.Store.SupplierHasPaymentsInProgress(c.Request().Context(), s.BuyerID, s.ID)
	if err != nil {
		return err
	}
	blocked := ""
	if busy {
		blocked = supplierInUseMessage
	}
	return a.renderSupplierDelete(c, s, blocked, http.StatusOK)
}

func (a *App) renderSupplierDelete(c *echo.Context, s store.Supplier, blocked string, status int) error {
	b, err := a.base(c, "取引先の削除")
	if err != nil {
		return err
	}
	return render(c, status, views.SupplierDeletePage(views.SupplierDeleteView{
		Base: b, ID: strconv.FormatInt(s.ID, 10), Name: s.Name, Blocked: blocked}))
}

func (a *App) deleteSupplier(c *echo.Context) error {
	s, err := a.supplierFromPath(c)
	if err != nil {
		return err
	}
	err = a.Store.DeleteSupplier(c.Request().Context(), s.BuyerID, s.ID)
	if errors.Is(err, store.ErrSupplierInUse) {
		return a.renderSupplierDelete(c, s, supplierInUseMessage, http.StatusConflict)
	}
	if err != nil {
		return err
	}
	a.setFlash(c, views.Flash{Color: "success", Title: "取引先を削除しました", Text: "「" + s.Name + "」を登録取引先から削除しました。"})
	return c.Redirect(http.StatusSeeOther, "/suppliers?status=enable")
}
