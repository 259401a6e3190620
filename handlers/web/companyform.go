package web

import (
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
	"cardpay/views"
)

// CompanyForm places the supplier's business-form question and details form in a wizard:
// the add-supplier wizard, or a new supplier in the payment journey. Each wizard keeps its
// own answers; these render the screens and read the posts.
type CompanyForm struct {
	// BusinessTitle is the question's page title, Title the details page's.
	BusinessTitle, Title string
	views.CompanyFormLinks
}

// RenderBusinessForm asks whether the supplier is a corporation or a sole proprietor.
func (a *App) RenderBusinessForm(c *echo.Context, f CompanyForm, form pay.BusinessForm, errs pay.FieldErrors) error {
	v := views.BusinessFormView{CompanyFormLinks: f.CompanyFormLinks}
	if form.Valid() {
		v.Value = strconv.Itoa(int(form))
	}
	return Show(a, c, f.BusinessTitle, errs, v, views.BusinessFormPage)
}

// CorporationChosen fills in a corporation chosen from the search (?corporate_number=):
// its number, name and kana from the registry the service knows.
func (a *App) CorporationChosen(c *echo.Context, in pay.SupplierInput) (pay.SupplierInput, error) {
	n := c.QueryParam("corporate_number")
	if n == "" || in.BusinessForm != pay.Corporation {
		return in, nil
	}
	n = pay.NormalizeCode(n)
	list, err := a.Store.Corporations(c.Request().Context(), n, 1)
	if err != nil {
		return in, err
	}
	if len(list) == 1 && list[0].CorporateNumber == n {
		in.CorporateNumber, in.Name, in.NameKana = n, list[0].Name, pay.ToFullWidthKatakana(list[0].NameKana)
	}
	return in, nil
}

// RenderCompanyForm shows the supplier's details for its business form; a corporation can
// be searched by name or number first (?corp_q=).
func (a *App) RenderCompanyForm(c *echo.Context, f CompanyForm, in pay.SupplierInput, errs pay.FieldErrors) error {
	b, err := a.Base(c, f.Title)
	if err != nil {
		return err
	}
	for _, e := range errs {
		b.Errors.Add(e.Field, e.Message)
	}
	v := views.CompanyView{
		CompanyFormLinks: f.CompanyFormLinks, Corporation: in.BusinessForm == pay.Corporation, FormLabel: in.BusinessForm.Label(),
		Values: map[string]string{"name": in.Name, "name_kana": in.NameKana, "corporate_number": in.CorporateNumber, "business_name": in.BusinessName},
		Labels: map[string]string{},
	}
	for _, field := range []string{"name", "name_kana", "corporate_number", "business_name"} {
		v.Labels[field] = pay.SupplierFieldLabel(in.BusinessForm, field)
	}
	if v.Corporation {
		v.Search, err = a.corporationSearch(c, f.Href)
		if err != nil {
			return err
		}
		if msg := v.Search.Status; msg != "" && v.Search.Choices == nil && v.Search.EmptyLabel == "" {
			b.Errors.Add("corp_q", msg)
			v.Search.Status = ""
		}
	}
	v.Base = b
	return Render(c, StatusFor(v.Base), views.CompanyPage(v))
}

// corporationSearch runs ?corp_q= against the corporations the service knows (and the
// NTA when configured). A 13-digit query with a wrong check digit is answered with the
// problem instead of a search; it then leaves Choices nil and EmptyLabel empty with the
// message in Status.
func (a *App) corporationSearch(c *echo.Context, href string) (views.ChoiceSearch, error) {
	q := Clip(c.QueryParam("corp_q"), 100)
	s := views.ChoiceSearch{
		Action: href, QueryName: "corp_q", Query: q, Label: "法人名または法人番号",
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
	list, err := a.Corporations.Search(c.Request().Context(), q, ChoiceLimit)
	if err != nil {
		return s, err
	}
	s.Status = SearchStatus(len(list), "法人")
	s.Choices = []views.ChoiceLink{}
	s.EmptyLabel = "「" + q + "」に当てはまる法人は見つかりませんでした。下の欄に直接入力してください。"
	for _, co := range list {
		s.Choices = append(s.Choices, views.ChoiceLink{
			Href:  href + "?corporate_number=" + co.CorporateNumber,
			Label: co.Name, Hint: "法人番号 " + co.CorporateNumber + "　" + co.Address,
		})
	}
	return s, nil
}

// BusinessFormChoice reads the business-form question's post; ok is false with the
// message to show when none was chosen.
func BusinessFormChoice(c *echo.Context) (pay.BusinessForm, pay.FieldErrors) {
	n, _ := strconv.Atoi(c.FormValue("business_form"))
	f := pay.BusinessForm(n)
	if !f.Valid() {
		return 0, pay.FieldErrors{{Field: "business_form", Message: "取引先の事業形態を選択してください"}}
	}
	return f, nil
}

// CompanyFormValues reads the details form's post for a supplier of business form form,
// normalised.
func CompanyFormValues(c *echo.Context, form pay.BusinessForm) pay.SupplierInput {
	in := pay.SupplierInput{
		BusinessForm: form, Name: c.FormValue("name"), NameKana: c.FormValue("name_kana"),
		CorporateNumber: c.FormValue("corporate_number"), BusinessName: c.FormValue("business_name"),
	}
	in.Normalise()
	return in
}
