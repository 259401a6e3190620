package payments

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/payments"
)

// InvoiceInfoPage is the journey's first step, 支払先の選択: one of the buyer's registered
// suppliers, or a new one. ?file=<id> starts a journey from an uploaded invoice (its
// reading fills what it can); ?new=1 starts an empty one.
var InvoiceInfoPage = web.Page{Path: InvoiceInfoPath, Title: "支払申請：支払先の選択", Access: web.SignedIn}

// ShowInvoiceInfoPage asks for the supplier.
func (h *Handler) ShowInvoiceInfoPage(c *echo.Context) error {
	u := web.CurrentUser(c)
	switch {
	case c.QueryParam("file") != "":
		id, err := strconv.ParseInt(c.QueryParam("file"), 10, 64)
		if err != nil || id <= 0 {
			return web.ErrNotFound
		}
		cur := Journey.Load(h.Sessions, c)
		if cur.FileID != id {
			j, err := h.journeyFromFile(c, u.BuyerID, id)
			if err != nil {
				return err
			}
			if err := h.save(c, j); err != nil {
				return err
			}
		}
		return c.Redirect(http.StatusSeeOther, InvoiceInfoPath)
	case c.QueryParam("new") != "":
		Journey.Clear(h.Sessions, c)
		return c.Redirect(http.StatusSeeOther, InvoiceInfoPath)
	}
	return h.renderSupplierStep(c, Journey.Load(h.Sessions, c), nil)
}

func (h *Handler) renderSupplierStep(c *echo.Context, j journey, errs pay.FieldErrors) error {
	u := web.CurrentUser(c)
	list, _, err := h.Store.Suppliers(c.Request().Context(), store.SupplierFilter{BuyerID: u.BuyerID, Group: pay.SupplierEnable, Size: maxSuppliersToShow})
	if err != nil {
		return err
	}
	v := pages.SupplierStepView{Steps: journeySteps(0), Action: InvoiceInfoPath}
	if j.IsNewSupplier {
		v.Value = supplierChoiceNew
	} else if j.SupplierID != 0 {
		v.Value = idString(j.SupplierID)
	}
	for _, s := range list {
		hint := s.Status.Label()
		if s.CorporateNumber != "" {
			hint = "法人番号 " + s.CorporateNumber + "　" + hint
		}
		v.Options = append(v.Options, views.FieldOption{Value: idString(s.ID), Label: s.Name, Hint: hint})
	}
	v.Options = append(v.Options, views.FieldOption{Value: supplierChoiceNew, Label: "新しい取引先を追加する",
		Hint: "取引先と振込先口座を入力し、このお支払いと一緒に登録します"})
	if j.FileID != 0 {
		v.FileNote = "アップロードした請求書の内容を読み取り、入力欄にあらかじめ入れています。内容を必ずご確認ください。"
		v.FileHref = FilePath + idString(j.FileID)
	}
	return web.Show(h.App, c, InvoiceInfoPage.Title, errs, v, pages.SupplierStepPage)
}

// ChooseSupplier takes the supplier: a registered one goes on to its accounts, a new one
// to the supplier's details.
func (h *Handler) ChooseSupplier(c *echo.Context) error {
	j := Journey.Load(h.Sessions, c)
	choice := c.FormValue("supplier")
	if wantsDraft(c) {
		h.applySupplierChoice(c, &j, choice)
		return h.saveDraft(c, j, InvoiceInfoPath)
	}
	if choice == "" {
		return h.renderSupplierStep(c, j, pay.FieldErrors{{Field: "supplier", Message: "支払先の取引先を選んでください"}})
	}
	if !h.applySupplierChoice(c, &j, choice) {
		return h.renderSupplierStep(c, j, pay.FieldErrors{{Field: "supplier", Message: "選んだ取引先が見つかりません。一覧から選び直してください"}})
	}
	if err := h.save(c, j); err != nil {
		return err
	}
	if j.IsNewSupplier {
		return c.Redirect(http.StatusSeeOther, NewSupplierPath)
	}
	return c.Redirect(http.StatusSeeOther, AccountStepPath)
}

// applySupplierChoice records the choice; a supplier that is not one of the buyer's
// enabled suppliers is refused (false). Choosing another supplier forgets the account.
func (h *Handler) applySupplierChoice(c *echo.Context, j *journey, choice string) bool {
	if choice == supplierChoiceNew {
		if !j.IsNewSupplier {
			j.SupplierID, j.AccountID, j.IsNewAccount = 0, 0, true
		}
		j.IsNewSupplier, j.IsNewAccount = true, true
		return true
	}
	id, err := strconv.ParseInt(choice, 10, 64)
	if err != nil || id <= 0 {
		return false
	}
	s, err := h.Store.Supplier(c.Request().Context(), web.CurrentUser(c).BuyerID, id)
	if err != nil || !slices.Contains(pay.SupplierStatusesIn(pay.SupplierEnable), s.Status) {
		return false
	}
	if j.SupplierID != id {
		j.AccountID, j.IsNewAccount, j.NewAccountDone = 0, false, false
	}
	j.SupplierID, j.IsNewSupplier = id, false
	return true
}
