package pay

import (
	"strings"
	"unicode/utf8"
)

// SupplierInput is the company step of the add-supplier wizard and the body of
// POST /api/v1/suppliers/{corporation,sole_proprietor}. Name is the corporate name
// (法人名) or, for a sole proprietor, the person's name (氏名); BusinessName is a sole
// proprietor's trade name (屋号), which many do not have.
type SupplierInput struct {
	BusinessForm    BusinessForm `json:"business_form"`
	Name            string       `json:"name"`
	NameKana        string       `json:"name_kana"`
	CorporateNumber string       `json:"corporate_number"`
	BusinessName    string       `json:"business_name"`
}

// supplierNameMax bounds the names: the longest registered corporate names are about
// 80 characters, and the database and pages must never take an unbounded string.
const supplierNameMax = 100

// SupplierFieldLabel is how the form and its messages name a field for business form f.
func SupplierFieldLabel(f BusinessForm, field string) string {
	switch field {
	case "business_form":
		return "取引先の事業形態"
	case "name":
		if f == SoleProprietor {
			return "氏名"
		}
		return "法人名"
	case "name_kana":
		if f == SoleProprietor {
			return "氏名（カナ）"
		}
		return "法人名（カナ）"
	case "corporate_number":
		return "法人番号"
	case "business_name":
		return "屋号"
	}
	return field
}

// Normalise tidies what a person typed, as registration does: spaces collapsed, kana
// converted to full-width katakana, the corporate number to 13 plain digits. A sole
// proprietor has no corporate number and a corporation no trade name, so the other
// form's value is dropped rather than stored unchecked.
func (in *SupplierInput) Normalise() {
	in.Name = NormalizeSpaces(in.Name)
	in.NameKana = ToFullWidthKatakana(in.NameKana)
	in.CorporateNumber = NormalizeCode(in.CorporateNumber)
	in.BusinessName = NormalizeSpaces(in.BusinessName)
	switch in.BusinessForm {
	case Corporation:
		in.BusinessName = ""
	case SoleProprietor:
		in.CorporateNumber = ""
	}
}

// Validate answers the problems of a normalised input, in form order.
func (in SupplierInput) Validate() FieldErrors {
	var errs FieldErrors
	if !in.BusinessForm.Valid() {
		errs.Add("business_form", "取引先の事業形態を選択してください")
		return errs
	}
	label := func(field string) string { return SupplierFieldLabel(in.BusinessForm, field) }
	if in.BusinessForm == Corporation {
		switch {
		case in.CorporateNumber == "":
			errs.Add("corporate_number", "法人番号を入力してください")
		case !ValidCorporateNumber(in.CorporateNumber):
			errs.Add("corporate_number", "法人番号が正しくありません。13桁の数字をご確認ください")
		}
	}
	errs.Add("name", checkText(label("name"), in.Name, true))
	errs.Add("name_kana", checkText(label("name_kana"), in.NameKana, true))
	if in.NameKana != "" && errs.For("name_kana") == "" && !IsFullWidthKatakana(in.NameKana) {
		errs.Add("name_kana", label("name_kana")+"は全角カタカナで入力してください")
	}
	if in.BusinessForm == SoleProprietor {
		errs.Add("business_name", checkText(label("business_name"), in.BusinessName, false))
	}
	return errs
}

// checkText is the shared check for a free-text name: readable, no invisible or
// control characters, present when required, at most supplierNameMax characters.
func checkText(label, v string, required bool) string {
	switch {
	case !utf8.ValidString(v):
		return label + "に読み取れない文字が含まれています。入力し直してください"
	case strings.ContainsFunc(v, IsForbiddenRune):
		return label + "に使用できない文字が含まれています"
	case v == "" && required:
		return label + "を入力してください"
	}
	return CheckLength(label, v, supplierNameMax)
}

// Fields lists the input for the check-answers page, in form order.
func (in SupplierInput) Fields() []LabeledValue {
	rows := []LabeledValue{{"business_form", "取引先の事業形態", in.BusinessForm.Label()}}
	label := func(field string) string { return SupplierFieldLabel(in.BusinessForm, field) }
	if in.BusinessForm == Corporation {
		rows = append(rows, LabeledValue{"corporate_number", label("corporate_number"), in.CorporateNumber})
	}
	rows = append(rows,
		LabeledValue{"name", label("name"), in.Name},
		LabeledValue{"name_kana", label("name_kana"), in.NameKana})
	if in.BusinessForm == SoleProprietor {
		v := in.BusinessName
		if v == "" {
			v = NotEntered
		}
		rows = append(rows, LabeledValue{"business_name", label("business_name"), v})
	}
	return rows
}
