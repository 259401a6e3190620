package handlers

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
)

// idParam reads a numeric path parameter; anything else is the 404 page, like an id
// that does not exist or belongs to another buyer.
func idParam(c *echo.Context, name string) (int64, error) {
	id, err := strconv.ParseInt(c.Param(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, store.ErrNotFound
	}
	return id, nil
}

// supplierFromPath loads the :id supplier of the signed-in buyer.
func (a *App) supplierFromPath(c *echo.Context) (store.Supplier, error) {
	id, err := idParam(c, "id")
	if err != nil {
		return store.Supplier{}, err
	}
	return a.Store.Supplier(c.Request().Context(), currentUser(c).BuyerID, id)
}

// supplierStatusTexts explain each status in the buyer's terms.
var supplierStatusTexts = map[pay.SupplierStatus]string{
	pay.SupplierApproved:   "確認が済み、この取引先への支払いができます。",
	pay.SupplierEscalation: "当社で確認を続けています。結果はお知らせでお伝えします。",
	pay.SupplierUnapproved: "当社で取引先と振込先口座を確認しています。確認が済むまで支払いは審査でお待ちいただきます。",
	pay.SupplierRejected:   "確認の結果、この取引先へはお支払いいただけません。詳しくはお問い合わせください。",
}

func (a *App) showSupplierPage(c *echo.Context) error {
	s, err := a.supplierFromPath(c)
	if err != nil {
		return err
	}
	accts, err := a.Store.SupplierAccounts(c.Request().Context(), s.BuyerID, s.ID)
	if err != nil {
		return err
	}
	b, err := a.base(c, s.Name)
	if err != nil {
		return err
	}
	id := strconv.FormatInt(s.ID, 10)
	v := views.SupplierView{Base: b, ID: id, Name: s.Name, Status: supplierBadge(s.Status), StatusText: supplierStatusTexts[s.Status]}
	v.Rows = append(v.Rows, views.SummaryRow{Label: "事業形態", Value: s.BusinessForm.Label()})
	if s.BusinessForm == pay.Corporation {
		v.Rows = append(v.Rows, views.SummaryRow{Label: "法人番号", Value: s.CorporateNumber})
	}
	v.Rows = append(v.Rows,
		views.SummaryRow{Label: pay.SupplierFieldLabel(s.BusinessForm, "name"), Value: s.Name},
		views.SummaryRow{Label: pay.SupplierFieldLabel(s.BusinessForm, "name_kana"), Value: s.NameKana})
	if s.BusinessForm == pay.SoleProprietor {
		v.Rows = append(v.Rows, views.SummaryRow{Label: "屋号", Value: orNotEntered(s.BusinessName)})
	}
	v.Rows = append(v.Rows,
		views.SummaryRow{Label: "状態", Value: s.Status.Label()},
		views.SummaryRow{Label: "登録日", Value: pay.JapaneseDate(s.CreatedAt)})
	for _, acct := range accts {
		v.Accounts = append(v.Accounts, views.AccountItem{
			Title:    acct.BankName + "　" + acct.BranchName,
			Rows:     accountRows(acct),
			EditHref: "/suppliers/" + id + "/accounts/" + strconv.FormatInt(acct.ID, 10) + "/edit",
		})
	}
	return render(c, http.StatusOK, views.SupplierPage(v))
}

func accountRows(acct store.SupplierAccount) []views.SummaryRow {
	return []views.SummaryRow{
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
