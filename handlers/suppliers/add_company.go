package suppliers

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/suppliers"
)

// AddCompanyPage is the add-supplier wizard's first step. It asks the business form
// under this title, then the supplier's details under companyTitle.
var AddCompanyPage = web.Page{Path: "/suppliers/add/company", Title: "取引先の追加：事業形態", Access: web.SignedIn}

const companyTitle = "取引先の追加：取引先情報"

// ShowAddCompanyPage asks the business form first (or again with ?step=business_form),
// then the supplier's details. A corporation can be searched by name or number
// (?corp_q=) and a result chosen (?corporate_number=) to fill the form.
func (h *Handler) ShowAddCompanyPage(c *echo.Context) error {
	w := AddWizard.Load(h.Sessions, c)
	if c.QueryParam("step") == "business_form" || !w.Supplier.BusinessForm.Valid() {
		return h.renderBusinessForm(c, w.Supplier.BusinessForm, nil)
	}
	in := w.Supplier
	var errs pay.FieldErrors
	if n := c.QueryParam("corporate_number"); n != "" && in.BusinessForm == pay.Corporation {
		n = pay.NormalizeCode(n)
		list, err := h.Store.Corporations(c.Request().Context(), n, 1)
		if err != nil {
			return err
		}
		if len(list) == 1 && list[0].CorporateNumber == n {
			in.CorporateNumber, in.Name, in.NameKana = n, list[0].Name, pay.ToFullWidthKatakana(list[0].NameKana)
		}
	}
	return h.renderCompany(c, in, errs)
}

func (h *Handler) renderBusinessForm(c *echo.Context, f pay.BusinessForm, errs pay.FieldErrors) error {
	b, err := h.Base(c, AddCompanyPage.Title)
	if err != nil {
		return err
	}
	for _, e := range errs {
		b.Errors.Add(e.Field, e.Message)
	}
	v := pages.BusinessFormView{Base: b}
	if f.Valid() {
		v.Value = strconv.Itoa(int(f))
	}
	return web.Render(c, web.StatusFor(b), pages.BusinessFormPage(v))
}

func (h *Handler) renderCompany(c *echo.Context, in pay.SupplierInput, errs pay.FieldErrors) error {
	b, err := h.Base(c, companyTitle)
	if err != nil {
		return err
	}
	for _, e := range errs {
		b.Errors.Add(e.Field, e.Message)
	}
	v := pages.CompanyView{
		Base: b, Corporation: in.BusinessForm == pay.Corporation, FormLabel: in.BusinessForm.Label(),
		Values: map[string]string{"name": in.Name, "name_kana": in.NameKana, "corporate_number": in.CorporateNumber, "business_name": in.BusinessName},
		Labels: map[string]string{},
	}
	for _, f := range []string{"name", "name_kana", "corporate_number", "business_name"} {
		v.Labels[f] = pay.SupplierFieldLabel(in.BusinessForm, f)
	}
	if v.Corporation {
		v.Search, err = h.corporationSearch(c)
		if err != nil {
			return err
		}
		if msg := v.Search.Status; msg != "" && v.Search.Choices == nil && v.Search.EmptyLabel == "" {
			v.Base.Errors.Add("corp_q", msg)
			v.Search.Status = ""
		}
	}
	return web.Render(c, web.StatusFor(v.Base), pages.CompanyPage(v))
}

// corporationSearch runs ?corp_q= against the corporations the service knows (and the
// NTA when configured). A 13-digit query with a wrong check digit is answered with the
// problem instead of a search; corporationSearch then leaves Choices nil and EmptyLabel
// empty with the message in Status.
func (h *Handler) corporationSearch(c *echo.Context) (views.ChoiceSearch, error) {
	q := web.Clip(c.QueryParam("corp_q"), 100)
	s := views.ChoiceSearch{
		Action: AddCompanyPage.Path, QueryName: "corp_q", Query: q, Label: "法人名または法人番号",
		Hint: "法人名の一部、または13桁の法人番号（例：山田商事、1180301018771）", ListLabel: "検索結果",
	}
	if q == "" {
		return s, nil
	}
	// The page refuses only a full number with a wrong check digit; a longer one simply
	// finds nothing.
	if n, msg, ok := pay.CorporateNumberQuery(q); ok && len(n) == 13 && msg != "" {
		s.Status = msg
		return s, nil
	}
	list, err := h.Corporations.Search(c.Request().Context(), q, web.ChoiceLimit)
	if err != nil {
		return s, err
	}
	s.Status = web.SearchStatus(len(list), "法人")
	s.Choices = []views.ChoiceLink{}
	s.EmptyLabel = "「" + q + "」に当てはまる法人は見つかりませんでした。下の欄に直接入力してください。"
	for _, co := range list {
		s.Choices = append(s.Choices, views.ChoiceLink{
			Href:  "/suppliers/add/company?corporate_number=" + co.CorporateNumber,
			Label: co.Name, Hint: "法人番号 " + co.CorporateNumber + "　" + co.Address,
		})
	}
	return s, nil
}

// SaveAddCompany takes the business form, or the supplier's details.
func (h *Handler) SaveAddCompany(c *echo.Context) error {
	w := AddWizard.Load(h.Sessions, c)
	if c.FormValue("step") == "business_form" {
		n, _ := strconv.Atoi(c.FormValue("business_form"))
		f := pay.BusinessForm(n)
		if !f.Valid() {
			return h.renderBusinessForm(c, 0, pay.FieldErrors{{Field: "business_form", Message: "取引先の事業形態を選択してください"}})
		}
		if f != w.Supplier.BusinessForm {
			w.Supplier = pay.SupplierInput{BusinessForm: f}
			w.CompanyDone = false
		}
		if err := AddWizard.Save(h.Sessions, c, w); err != nil {
			return err
		}
		return c.Redirect(http.StatusSeeOther, "/suppliers/add/company")
	}
	if !w.Supplier.BusinessForm.Valid() {
		return c.Redirect(http.StatusSeeOther, "/suppliers/add/company")
	}
	in := pay.SupplierInput{
		BusinessForm: w.Supplier.BusinessForm, Name: c.FormValue("name"), NameKana: c.FormValue("name_kana"),
		CorporateNumber: c.FormValue("corporate_number"), BusinessName: c.FormValue("business_name"),
	}
	in.Normalise()
	if errs := in.Validate(); len(errs) > 0 {
		return h.renderCompany(c, in, errs)
	}
	w.Supplier, w.CompanyDone = in, true
	if err := AddWizard.Save(h.Sessions, c, w); err != nil {
		return err
	}
	if w.BankAccountDone {
		return c.Redirect(http.StatusSeeOther, "/suppliers/add/confirm")
	}
	return c.Redirect(http.StatusSeeOther, "/suppliers/add/bank")
}
