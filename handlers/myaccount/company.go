package myaccount

import (
	"fmt"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/myaccount"
)

// maxCompanyNameRunes is the registration form's limit on names (account.Registration).
const maxCompanyNameRunes = 50

// companyForm is what the two small forms of 会社情報 submitted, to show back.
type companyForm struct {
	last, first, transfer string
}

// CompanyPage is 会社情報.
var CompanyPage = web.Page{Path: "/myaccount/company", Title: "会社情報", Access: web.SignedIn}

// ShowCompanyPage is 会社情報: the signed-in user's own buyer, loaded by the session's
// buyer id only, so no request can name another buyer.
func (h *Handler) ShowCompanyPage(c *echo.Context) error {
	return h.renderCompany(c, nil, nil)
}

func (h *Handler) renderCompany(c *echo.Context, form *companyForm, errs pay.FieldErrors) error {
	u := web.CurrentUser(c)
	buyer, err := h.Store.Buyer(c.Request().Context(), u.BuyerID)
	if err != nil {
		return err
	}
	v := pages.CompanyView{
		Rows:         companyRows(*u, buyer),
		UserLastName: u.LastName, UserFirstName: u.FirstName, TransferPersonName: buyer.TransferPersonName,
	}
	if form != nil {
		// Only the form that was sent shows its own values back.
		if errs.For("user_last_name") != "" || errs.For("user_first_name") != "" {
			v.UserLastName, v.UserFirstName = form.last, form.first
		}
		if errs.For("transfer_person_name") != "" {
			v.TransferPersonName = form.transfer
		}
	}
	return web.Show(h.App, c, CompanyPage.Title, errs, v, pages.CompanyPage)
}

// companyRows lists the buyer's details as the registration's check-answers page does
// (account.Registration.Fields: 〒123-4567, 1980年4月1日, the business form and category by
// name), without the two rows this page edits.
func companyRows(u store.User, b store.Buyer) []pages.CompanyRow {
	d := b.BuyerDetails
	birthday := ""
	if d.RepresentativeBirthday != nil {
		birthday = d.RepresentativeBirthday.In(pay.Tokyo()).Format("2006-01-02")
	}
	r := account.Registration{
		BusinessForm: d.BusinessForm, PhoneNumber: u.PhoneNumber,
		CorporateName: d.CorporateName, CorporateNameKana: d.CorporateNameKana, CorporateNumber: d.CorporateNumber,
		RepresentativePostalCode: d.RepresentativePostalCode, RepresentativeAddressState: d.RepresentativeAddressState,
		RepresentativeAddressCity: d.RepresentativeAddressCity, RepresentativeAddressStreet: d.RepresentativeAddressStreet,
		RepresentativeAddressBuildingName: d.RepresentativeAddressBuildingName, RepresentativePhoneNumber: d.RepresentativePhoneNumber,
		PostalCode: d.PostalCode, AddressState: d.AddressState, AddressCity: d.AddressCity, AddressStreet: d.AddressStreet,
		AddressBuildingName: d.AddressBuildingName,
		BusinessName:        d.BusinessName, BusinessNameKana: d.BusinessNameKana, BusinessPostalCode: d.BusinessPostalCode,
		BusinessAddressState: d.BusinessAddressState, BusinessAddressCity: d.BusinessAddressCity,
		BusinessAddressStreet: d.BusinessAddressStreet, BusinessAddressBuildingName: d.BusinessAddressBuildingName,
		HomePostalCode: d.HomePostalCode, HomeAddressState: d.HomeAddressState, HomeAddressCity: d.HomeAddressCity,
		HomeAddressStreet: d.HomeAddressStreet, HomeAddressBuildingName: d.HomeAddressBuildingName,
		RepresentativeLastName: d.RepresentativeLastName, RepresentativeFirstName: d.RepresentativeFirstName,
		RepresentativeLastNameKana: d.RepresentativeLastNameKana, RepresentativeFirstNameKana: d.RepresentativeFirstNameKana,
		RepresentativeBirthday: birthday, BusinessCategory: d.BusinessCategory,
	}
	var rows []pages.CompanyRow
	for _, f := range r.Fields() {
		if f.Field == "user_last_name" || f.Field == "transfer_person_name" {
			continue
		}
		value := strings.TrimSpace(f.Value)
		if value == "" {
			value = "未登録"
		}
		rows = append(rows, pages.CompanyRow{Label: f.Label, Value: value})
	}
	return rows
}

// checkCompanyName checks one part of the user's name as the registration does.
func checkCompanyName(label, v string) string {
	switch {
	case !utf8.ValidString(v):
		return label + "に読み取れない文字が含まれています。入力し直してください"
	case strings.ContainsFunc(v, func(r rune) bool { return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co) }):
		return label + "に使用できない文字が含まれています"
	case v == "":
		return label + "を入力してください"
	case utf8.RuneCountInString(v) > maxCompanyNameRunes:
		return fmt.Sprintf("%sは%d文字以内で入力してください", label, maxCompanyNameRunes)
	}
	return account.CheckNoMarkup(label, v)
}

// UserNamePath and TransferPersonNamePath are where the company page's two forms post.
const (
	UserNamePath           = "/myaccount/company/user-name"
	TransferPersonNamePath = "/myaccount/company/transfer-person-name"
)

// ChangeUserName changes the signed-in user's own name (PUT users/user_name).
func (h *Handler) ChangeUserName(c *echo.Context) error {
	u := web.CurrentUser(c)
	last, first := c.FormValue("user_last_name"), c.FormValue("user_first_name")
	if utf8.ValidString(last) {
		last = pay.NormalizeSpaces(last)
	}
	if utf8.ValidString(first) {
		first = pay.NormalizeSpaces(first)
	}
	var errs pay.FieldErrors
	if msg := checkCompanyName("担当者の姓", last); msg != "" {
		errs.Add("user_last_name", msg)
	}
	if msg := checkCompanyName("担当者の名", first); msg != "" {
		errs.Add("user_first_name", msg)
	}
	if len(errs) > 0 {
		return h.renderCompany(c, &companyForm{last: web.ShownValue(strings.TrimSpace(last)), first: web.ShownValue(strings.TrimSpace(first))}, errs)
	}
	if err := h.Store.SetUserName(c.Request().Context(), u.BuyerID, u.ID, last, first); err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "担当者氏名を変更しました"})
	return c.Redirect(http.StatusSeeOther, CompanyPage.Path)
}

// ChangeTransferPersonName changes the name transfers are sent under (PUT
// users/transfer_person_name): full-width katakana, converted from hiragana and
// half-width kana as the registration does.
func (h *Handler) ChangeTransferPersonName(c *echo.Context) error {
	u := web.CurrentUser(c)
	const label = "振込依頼人名（カナ）"
	raw := c.FormValue("transfer_person_name")
	name := ""
	var msg string
	switch {
	case !utf8.ValidString(raw):
		msg = label + "に読み取れない文字が含まれています。入力し直してください"
	default:
		name = pay.ToFullWidthKatakana(raw)
		switch {
		case name == "":
			msg = label + "を入力してください"
		case utf8.RuneCountInString(name) > maxCompanyNameRunes:
			msg = fmt.Sprintf("%sは%d文字以内で入力してください", label, maxCompanyNameRunes)
		case !pay.IsFullWidthKatakana(name):
			msg = label + "は全角カタカナで入力してください"
		}
	}
	if msg != "" {
		var errs pay.FieldErrors
		errs.Add("transfer_person_name", msg)
		shown := name
		if shown == "" {
			shown = raw
		}
		return h.renderCompany(c, &companyForm{transfer: web.ShownValue(strings.TrimSpace(shown))}, errs)
	}
	if err := h.Store.SetTransferPersonName(c.Request().Context(), u.BuyerID, name); err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "振込依頼人名を変更しました", Text: name})
	return c.Redirect(http.StatusSeeOther, CompanyPage.Path)
}
