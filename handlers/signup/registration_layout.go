package signup

import (
	"reflect"
	"strings"
	"sync"
	"time"

	"cardpay/account"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/static"
	"cardpay/views"
	pages "cardpay/views/signup"
)

// The registration form's layout: which fields of account.Registration each business form
// asks for, in which fieldsets, as which controls. pay decides what is valid; this
// decides how it is asked. The order is Validate's, so the error summary reads in the
// order of the page.

// Field kinds, as the island's checks know them (pages.FieldRule.Kind).
const (
	kindName            = "name"
	kindKana            = "kana"
	kindAddress         = "address"
	kindPostal          = "postal"
	kindPhone           = "phone"
	kindCorporateNumber = "corporate_number"
	kindBirthday        = "birthday"
	kindPrefecture      = "prefecture"
	kindCategory        = "category"
)

type regField struct {
	name, label, kind, autocomplete, hint string
}

type regGroup struct {
	id, legend, hint string
	fields           []regField
	// postal is set on address groups: the label the 住所を検索 button adds, and the
	// JSON-name prefix of the five address fields.
	postal *regPostal
}

type regPostal struct {
	label, prefix string
}

const (
	hintKana  = "全角カタカナで入力してください（ひらがなで入力しても登録時にカタカナになります）"
	hintPhone = "ハイフンなしでも入力できます（例：03-1234-5678）"
)

func addressGroup(id, legend, prefix, section, label string) regGroup {
	ac := func(token string) string { return "section-" + section + " " + token }
	return regGroup{
		id: id, legend: legend, postal: &regPostal{label: label, prefix: prefix},
		fields: []regField{
			{prefix + "postal_code", "郵便番号", kindPostal, ac("postal-code"), "7桁の数字（例：100-0001）。「住所を検索」で都道府県と市区町村を入力できます"},
			{prefix + "address_state", "都道府県", kindPrefecture, ac("address-level1"), ""},
			{prefix + "address_city", "市区町村", kindAddress, ac("address-level2"), "例：千代田区"},
			{prefix + "address_street", "町名・番地", kindAddress, ac("address-line1"), "例：千代田1-1"},
			{prefix + "address_building_name", "建物名・部屋番号", kindAddress, ac("address-line2"), "例：〇〇ビル 5階"},
		},
	}
}

func representativeGroup(legend, hint string) regGroup {
	return regGroup{id: "group-representative", legend: legend, hint: hint, fields: []regField{
		{"representative_last_name", "姓", kindName, "", ""},
		{"representative_first_name", "名", kindName, "", ""},
		{"representative_last_name_kana", "姓（カナ）", kindKana, "", hintKana},
		{"representative_first_name_kana", "名（カナ）", kindKana, "", hintKana},
		{"representative_birthday", "生年月日", kindBirthday, "", "例：1980-04-01"},
	}}
}

var contactGroups = []regGroup{
	{id: "group-contact", legend: "ご担当者", hint: "このサービスを操作するご担当者の方です。", fields: []regField{
		{"user_last_name", "姓", kindName, "family-name", ""},
		{"user_first_name", "名", kindName, "given-name", ""},
		{"phone_number", "電話番号", kindPhone, "tel", hintPhone},
	}},
	{id: "group-transfer", legend: "振込依頼人名", fields: []regField{
		{"transfer_person_name", "振込依頼人名（カナ）", kindKana, "",
			"お支払い先の口座に振込人として表示される名前です。空欄の場合は、法人名または屋号のカナで振り込みます。全角カタカナで入力してください"},
	}},
}

var (
	corporationLayout = concatGroups([]regGroup{
		{id: "group-business", legend: "法人情報", fields: []regField{
			{"corporate_name", "法人名", kindName, "organization", "例：株式会社サンプル商事"},
			{"corporate_name_kana", "法人名（カナ）", kindKana, "", "法人格（カブシキガイシャなど）も含めて" + hintKana},
			{"corporate_number", "法人番号", kindCorporateNumber, "", "13桁の数字。国税庁法人番号公表サイトで確認できます"},
			{"business_category", "業種", kindCategory, "", ""},
		}},
		addressGroup("group-address", "所在地（本店）", "", "corporation", "所在地"),
		representativeGroup("代表者", "登記上の代表者の方です。"),
		withField(addressGroup("group-representative-address", "代表者の住所・電話番号", "representative_", "representative", "代表者の住所"),
			regField{"representative_phone_number", "代表者の電話番号", kindPhone, "", hintPhone}),
	}, contactGroups)
	soleProprietorLayout = concatGroups([]regGroup{
		{id: "group-business", legend: "事業者情報", fields: []regField{
			{"business_name", "屋号", kindName, "organization", "屋号がない場合は、事業主の氏名を入力してください"},
			{"business_name_kana", "屋号（カナ）", kindKana, "", hintKana},
			{"business_category", "業種", kindCategory, "", ""},
		}},
		addressGroup("group-address", "事業所所在地", "business_", "business", "事業所所在地"),
		representativeGroup("事業主（代表者）", "事業を営むご本人です。"),
		addressGroup("group-home-address", "自宅住所", "home_", "home", "自宅住所"),
	}, contactGroups)
)

func withField(g regGroup, f regField) regGroup {
	g.fields = append(append([]regField(nil), g.fields...), f)
	return g
}

func concatGroups(lists ...[]regGroup) []regGroup {
	var all []regGroup
	for _, l := range lists {
		all = append(all, l...)
	}
	return all
}

func registrationLayout(f pay.BusinessForm) []regGroup {
	if f == pay.SoleProprietor {
		return soleProprietorLayout
	}
	return corporationLayout
}

func layoutField(layout []regGroup, name string) (regField, regGroup, bool) {
	for _, g := range layout {
		for _, f := range g.fields {
			if f.name == name {
				return f, g, true
			}
		}
	}
	return regField{}, regGroup{}, false
}

// registrationFieldIndex maps the JSON names of account.Registration's text fields to the
// struct fields, so the handlers read and set them by the names the form uses. (A JSON
// round trip would not do: it replaces invalid UTF-8, which Validate must see.)
var registrationFieldIndex = func() map[string]int {
	t := reflect.TypeOf(account.Registration{})
	m := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type.Kind() == reflect.String {
			m[strings.Split(f.Tag.Get("json"), ",")[0]] = i
		}
	}
	return m
}()

func registrationValue(r *account.Registration, name string) string {
	i, ok := registrationFieldIndex[name]
	if !ok {
		return ""
	}
	return reflect.ValueOf(r).Elem().Field(i).String()
}

func setRegistrationValue(r *account.Registration, name, v string) {
	if i, ok := registrationFieldIndex[name]; ok {
		reflect.ValueOf(r).Elem().Field(i).SetString(v)
	}
}

// Length limits of pay's rules; TestRegistrationRulesMatchPay checks them against
// Validate.
const (
	maxNameRunes    = 50
	maxAddressRunes = 100
)

var (
	rulesOnce sync.Once
	rulesBy   map[pay.BusinessForm]map[string]pages.FieldRule
)

// registrationRules are the island's checks for each field of a business form, with
// pay's own messages: Validate is asked with an empty form (the "required" messages),
// with every field too long or of the wrong shape, and with kanji in the kana fields.
func registrationRules(f pay.BusinessForm) map[string]pages.FieldRule {
	rulesOnce.Do(func() {
		rulesBy = map[pay.BusinessForm]map[string]pages.FieldRule{}
		for _, form := range []pay.BusinessForm{pay.Corporation, pay.SoleProprietor} {
			rulesBy[form] = deriveRules(form, registrationLayout(form))
		}
	})
	return rulesBy[f]
}

func deriveRules(form pay.BusinessForm, layout []regGroup) map[string]pages.FieldRule {
	now := time.Now()
	empty := account.Registration{BusinessForm: form}
	long := account.Registration{BusinessForm: form}
	kanji := account.Registration{BusinessForm: form}
	for _, g := range layout {
		for _, f := range g.fields {
			setRegistrationValue(&long, f.name, strings.Repeat("ア", maxAddressRunes+1))
			setRegistrationValue(&kanji, f.name, "漢字")
		}
	}
	required, tooLong, notKana := empty.Validate(now), long.Validate(now), kanji.Validate(now)
	rules := map[string]pages.FieldRule{}
	for _, g := range layout {
		for _, f := range g.fields {
			r := pages.FieldRule{Kind: f.kind, Required: required.For(f.name)}
			switch f.kind {
			case kindName:
				r.MaxLength, r.TooLong = maxNameRunes, tooLong.For(f.name)
			case kindKana:
				r.MaxLength, r.TooLong, r.Format = maxNameRunes, tooLong.For(f.name), notKana.For(f.name)
			case kindAddress:
				r.MaxLength, r.TooLong = maxAddressRunes, tooLong.For(f.name)
			case kindPostal, kindPhone, kindCorporateNumber:
				r.Format = tooLong.For(f.name)
			}
			rules[f.name] = r
		}
	}
	return rules
}

var registrationChoices = func() map[string][]views.FieldOption {
	prefs := make([]views.FieldOption, len(pay.Prefectures))
	for i, p := range pay.Prefectures {
		prefs[i] = views.FieldOption{Value: p.Name, Label: p.Name}
	}
	cats := make([]views.FieldOption, len(pay.BusinessCategories))
	for i, c := range pay.BusinessCategories {
		cats[i] = views.FieldOption{Value: c.Code, Label: c.Name}
	}
	return map[string][]views.FieldOption{"prefectures": prefs, "categories": cats}
}()

// registrationForm is the form as the page shows it: values as typed (or as stored),
// errors, lookup outcomes by field, and the field to focus after a lookup.
type registrationForm struct {
	form      pay.BusinessForm
	values    map[string]string
	errs      pay.FieldErrors
	status    map[string]string
	autofocus string
}

const postalAPIPath = "/api/v1/postal_codes/"

// props builds the island's props, from which the server renders the fallback too.
func (rf registrationForm) props() pages.RegistrationProps {
	rules := registrationRules(rf.form)
	p := pages.RegistrationProps{
		Action: RegistrationPath, PostalAPI: postalAPIPath, IconHref: static.URL("dist/icons.svg"),
		Choices: registrationChoices, SubmitLabel: "確認画面へ進む",
		PostalFound: pages.PostalFound, PostalNotFound: pages.PostalNotFound,
	}
	for _, g := range registrationLayout(rf.form) {
		vg := pages.RegistrationGroup{ID: g.id, Legend: g.legend, Hint: g.hint}
		for _, f := range g.fields {
			rule := rules[f.name]
			vf := pages.RegistrationField{
				ID: f.name, Label: f.label, Control: "text", Value: web.ShownValue(rf.values[f.name]), Hint: f.hint,
				Error: rf.errs.For(f.name), Status: rf.status[f.name], Autocomplete: f.autocomplete,
				Required: rule.Required != "", Autofocus: rf.autofocus == f.name && len(rf.errs) == 0, Rule: rule,
			}
			switch f.kind {
			case kindPrefecture:
				vf.Control, vf.Choices, vf.Width = "select", "prefectures", "medium"
			case kindCategory:
				vf.Control, vf.Choices = "select", "categories"
			case kindPhone:
				vf.Control, vf.Width = "tel", "medium"
			case kindBirthday:
				vf.Control, vf.Width = "date", "medium"
			case kindPostal:
				vf.InputMode, vf.Width = "numeric", "short"
				pre := g.postal.prefix
				vf.Lookup = &pages.PostalLookup{Label: g.postal.label, StateField: pre + "address_state",
					CityField: pre + "address_city", StreetField: pre + "address_street"}
			case kindCorporateNumber:
				vf.InputMode, vf.Width = "numeric", "medium"
			case kindName, kindKana:
				if !strings.HasPrefix(f.name, "corporate") && !strings.HasPrefix(f.name, "business") && f.name != "transfer_person_name" {
					vf.Width = "medium"
				}
			}
			vg.Fields = append(vg.Fields, vf)
		}
		p.Groups = append(p.Groups, vg)
	}
	return p
}

// registrationValues are a stored registration's answers for the fields of its form.
func registrationValues(r account.Registration) map[string]string {
	values := map[string]string{}
	for _, g := range registrationLayout(r.BusinessForm) {
		for _, f := range g.fields {
			values[f.name] = registrationValue(&r, f.name)
		}
	}
	return values
}
