// Package suppliers is the area of /suppliers (登録取引先, SPEC.md §2): the list, one
// supplier with its bank accounts, the add-supplier wizard (company → bank → confirm),
// adding and editing bank accounts, deleting a supplier, and its payment history.
package suppliers

import (
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	pages "cardpay/views/suppliers"
)

// Handler serves the supplier pages.
type Handler struct {
	*web.App
}

// supplierFromPath loads the :id supplier of the signed-in buyer.
func (h *Handler) supplierFromPath(c *echo.Context) (store.Supplier, error) {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return store.Supplier{}, err
	}
	return h.Store.Supplier(c.Request().Context(), web.CurrentUser(c).BuyerID, id)
}

// supplierStatusTexts explain each status in the buyer's terms.
var supplierStatusTexts = map[pay.SupplierStatus]string{
	pay.SupplierApproved:   "確認が済み、この取引先への支払いができます。",
	pay.SupplierEscalation: "当社で確認を続けています。結果はお知らせでお伝えします。",
	pay.SupplierUnapproved: "当社で取引先と振込先口座を確認しています。確認が済むまで支払いは審査でお待ちいただきます。",
	pay.SupplierRejected:   "確認の結果、この取引先へはお支払いいただけません。詳しくはお問い合わせください。",
}

// SupplierPattern is one supplier's page; SupplierPath builds it.
const SupplierPattern = "/suppliers/:id"

// SupplierPath is the page of supplier id.
func SupplierPath(id int64) string { return "/suppliers/" + strconv.FormatInt(id, 10) }

// ShowSupplierPage is one supplier: its details, status, bank accounts and upload link.
func (h *Handler) ShowSupplierPage(c *echo.Context) error {
	s, err := h.supplierFromPath(c)
	if err != nil {
		return err
	}
	return h.renderSupplier(c, s, nil, "")
}

// renderSupplier is the supplier's page, with the upload link form's errors and its
// typed address when a send was refused (422).
func (h *Handler) renderSupplier(c *echo.Context, s store.Supplier, errs pay.FieldErrors, email string) error {
	accts, err := h.Store.SupplierAccounts(c.Request().Context(), s.BuyerID, s.ID)
	if err != nil {
		return err
	}
	id := strconv.FormatInt(s.ID, 10)
	v := pages.SupplierView{ID: id, Name: s.Name, Status: supplierBadge(s.Status), StatusText: supplierStatusTexts[s.Status]}
	v.Rows = append(v.Rows, pages.SummaryRow{Label: "事業形態", Value: s.BusinessForm.Label()})
	if s.BusinessForm == pay.Corporation {
		v.Rows = append(v.Rows, pages.SummaryRow{Label: "法人番号", Value: s.CorporateNumber})
	}
	v.Rows = append(v.Rows,
		pages.SummaryRow{Label: pay.SupplierFieldLabel(s.BusinessForm, "name"), Value: s.Name},
		pages.SummaryRow{Label: pay.SupplierFieldLabel(s.BusinessForm, "name_kana"), Value: s.NameKana})
	if s.BusinessForm == pay.SoleProprietor {
		v.Rows = append(v.Rows, pages.SummaryRow{Label: "屋号", Value: orNotEntered(s.BusinessName)})
	}
	v.Rows = append(v.Rows,
		pages.SummaryRow{Label: "状態", Value: s.Status.Label()},
		pages.SummaryRow{Label: "登録日", Value: pay.JapaneseDate(s.CreatedAt)})
	for _, acct := range accts {
		v.BankAccounts = append(v.BankAccounts, pages.BankAccountItem{
			Title:    acct.BankName + "　" + acct.BranchName,
			Rows:     bankAccountRows(acct),
			EditHref: EditBankAccountPath(s.ID, acct.ID),
			Waiting:  !acct.Approved(),
		})
	}
	if v.UploadLink, err = h.uploadLinkView(c, s, email); err != nil {
		return err
	}
	return web.Show(h.App, c, s.Name, errs, v, pages.SupplierPage)
}

func bankAccountRows(acct store.SupplierAccount) []pages.SummaryRow {
	return []pages.SummaryRow{
		{Label: "金融機関", Value: acct.BankName + "（" + acct.BankCode + "）"},
		{Label: "支店", Value: acct.BranchName + "（" + acct.BranchCode + "）"},
		{Label: "口座種別", Value: acct.AccountType.Label()},
		{Label: "口座番号", Value: acct.AccountNumber},
		{Label: "口座名義", Value: acct.HolderName},
	}
}

func orNotEntered(s string) string {
	if s == "" {
		return "未入力"
	}
	return s
}
