package account

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"cardpay/auth/commonpasswords"
	"cardpay/pay"
)

// The sign-up form's password and the registration form (the buyer's business
// details, SPEC §3) are validated here, so the server pages and the JSON API give the
// same answer with the same Japanese messages. The e-mail address is a format other
// forms type too, so pay.ValidateEmail checks it. Validation failures are values, not
// Go errors (DESIGN §2): the page re-renders with an error summary linking to each
// field.

const (
	msgPasswordRequired = "パスワードを入力してください"
	msgPasswordRule     = "パスワードは10文字以上で、英字と数字を組み合わせて入力してください"
	msgPasswordTooLong  = "パスワードは128文字以内で入力してください"
	msgPasswordChars    = "パスワードに使用できない文字が含まれています"
	msgPasswordEmail    = "パスワードにメールアドレスの一部を含めないでください"
	msgPasswordCommon   = "このパスワードはよく使われていて推測されやすいため、別のパスワードを入力してください"

	minPasswordRunes = 10
	// Long passphrases are welcome; the cap only stops megabyte "passwords"
	// from keeping the hash function busy.
	maxPasswordRunes = 128
	// A shorter local part ("ab") would forbid too many innocent passwords;
	// the whole address is forbidden whatever its length.
	minLocalPartToForbid = 3
)

// ValidatePassword checks a new password for the account with the given
// e-mail address and answers "" or what the person must change: 10 to 128
// characters, at least one ASCII letter and one digit, not containing the
// address or its local part, not on the list of common passwords
// (auth/commonpasswords). Spaces and any printable character are allowed,
// and nothing is trimmed, because the password is hashed exactly as typed;
// the address and list checks compare NFKC-normalised, lower-cased forms, so
// full-width letters typed with an IME do not slip past them.
func ValidatePassword(pw, email string) string {
	if pw == "" {
		return msgPasswordRequired
	}
	if !utf8.ValidString(pw) || strings.ContainsFunc(pw, pay.IsForbiddenRune) {
		return msgPasswordChars
	}
	n := utf8.RuneCountInString(pw)
	if n > maxPasswordRunes {
		return msgPasswordTooLong
	}
	hasLetter := strings.ContainsFunc(pw, func(r rune) bool { return r < utf8.RuneSelf && unicode.IsLetter(r) })
	hasDigit := strings.ContainsFunc(pw, func(r rune) bool { return r >= '0' && r <= '9' })
	if n < minPasswordRunes || !hasLetter || !hasDigit {
		return msgPasswordRule
	}
	folded := commonpasswords.Fold(pw)
	addr := commonpasswords.Fold(strings.TrimSpace(email))
	if i := strings.LastIndexByte(addr, '@'); i > 0 {
		local := addr[:i]
		if strings.Contains(folded, addr) ||
			(utf8.RuneCountInString(local) >= minLocalPartToForbid && strings.Contains(folded, local)) {
			return msgPasswordEmail
		}
	}
	if commonpasswords.Contains(pw) {
		return msgPasswordCommon
	}
	return ""
}

// Registration is the buyer's registration form (SPEC §3): the person
// signing up, their business form and the business details of either a
// corporation or a sole proprietor. JSON names are SPEC §3's, so the JSON
// API binds it directly, and every field error uses them too. Text comes
// from people: call Normalise before Validate, and store what Normalise
// produced. The e-mail address and password belong to the sign-up form and
// are checked by pay.ValidateEmail and ValidatePassword.
type Registration struct {
	BusinessForm pay.BusinessForm `json:"business_form"`

	UserLastName  string `json:"user_last_name"`
	UserFirstName string `json:"user_first_name"`
	PhoneNumber   string `json:"phone_number"`

	// Corporation (business_form 1).
	CorporateName                     string `json:"corporate_name"`
	CorporateNameKana                 string `json:"corporate_name_kana"`
	CorporateNumber                   string `json:"corporate_number"`
	RepresentativePostalCode          string `json:"representative_postal_code"`
	RepresentativeAddressState        string `json:"representative_address_state"`
	RepresentativeAddressCity         string `json:"representative_address_city"`
	RepresentativeAddressStreet       string `json:"representative_address_street"`
	RepresentativeAddressBuildingName string `json:"representative_address_building_name"`
	RepresentativePhoneNumber         string `json:"representative_phone_number"`
	PostalCode                        string `json:"postal_code"`
	AddressState                      string `json:"address_state"`
	AddressCity                       string `json:"address_city"`
	AddressStreet                     string `json:"address_street"`
	AddressBuildingName               string `json:"address_building_name"`

	// Sole proprietor (business_form 2).
	BusinessName                string `json:"business_name"`
	BusinessNameKana            string `json:"business_name_kana"`
	BusinessPostalCode          string `json:"business_postal_code"`
	BusinessAddressState        string `json:"business_address_state"`
	BusinessAddressCity         string `json:"business_address_city"`
	BusinessAddressStreet       string `json:"business_address_street"`
	BusinessAddressBuildingName string `json:"business_address_building_name"`
	HomePostalCode              string `json:"home_postal_code"`
	HomeAddressState            string `json:"home_address_state"`
	HomeAddressCity             string `json:"home_address_city"`
	HomeAddressStreet           string `json:"home_address_street"`
	HomeAddressBuildingName     string `json:"home_address_building_name"`

	// Both forms: the representative (for a sole proprietor, the owner).
	RepresentativeLastName      string `json:"representative_last_name"`
	RepresentativeFirstName     string `json:"representative_first_name"`
	RepresentativeLastNameKana  string `json:"representative_last_name_kana"`
	RepresentativeFirstNameKana string `json:"representative_first_name_kana"`
	// RepresentativeBirthday is "YYYY-MM-DD" as the form sends it, in Japan's
	// calendar; Normalise also accepts 1980/4/1 and 1980年4月1日.
	RepresentativeBirthday string `json:"representative_birthday"`

	// TransferPersonName is the 振込依頼人名: the name, in katakana, under which
	// the supplier sees our transfer, so they recognise who paid. It is
	// optional (empty means the handler's default, the business's kana name)
	// and can be changed later (PUT /api/v1/users/transfer_person_name). The
	// zengin file converts it to half-width kana at the file boundary.
	TransferPersonName string `json:"transfer_person_name"`
	// BusinessCategory is a BusinessCategories code ("A"–"T").
	BusinessCategory string `json:"business_category"`
}

// fieldKind says how a text field is normalised and checked.
type fieldKind int

const (
	kindName            fieldKind = iota // names: at most maxNameRunes
	kindKana                             // full-width katakana, at most maxNameRunes
	kindAddress                          // one address part: at most maxAddressRunes
	kindPrefecture                       // a full prefecture name, chosen from a list
	kindPostalCode                       // seven digits
	kindPhone                            // a domestic number: 0 and 9 or 10 more digits
	kindCorporateNumber                  // 13 digits with the check digit
	kindBirthday                         // YYYY-MM-DD, 18 to 120 years ago
	kindCategory                         // a BusinessCategories code, chosen from a list
)

const (
	maxNameRunes    = 50
	maxAddressRunes = 100
	minAge          = 18 // the age of majority since the 2022 Civil Code reform: who may contract alone
	maxAge          = 120
)

type fieldRule struct {
	name     string // JSON name and HTML id
	label    string // how messages name the field
	kind     fieldKind
	optional bool
}

const optionalField = true

// The rules list each form's fields in the order the form and the
// check-answers page show them, which is the order errors are reported in.
var (
	representativeRules = []fieldRule{
		{"representative_last_name", "代表者の姓", kindName, false},
		{"representative_first_name", "代表者の名", kindName, false},
		{"representative_last_name_kana", "代表者の姓（カナ）", kindKana, false},
		{"representative_first_name_kana", "代表者の名（カナ）", kindKana, false},
		{"representative_birthday", "代表者の生年月日", kindBirthday, false},
	}
	contactRules = []fieldRule{
		{"user_last_name", "担当者の姓", kindName, false},
		{"user_first_name", "担当者の名", kindName, false},
		{"phone_number", "担当者の電話番号", kindPhone, false},
		{"transfer_person_name", "振込依頼人名（カナ）", kindKana, optionalField},
	}
	corporationRules = concat(
		[]fieldRule{
			{"corporate_name", "法人名", kindName, false},
			{"corporate_name_kana", "法人名（カナ）", kindKana, false},
			{"corporate_number", "法人番号", kindCorporateNumber, false},
			{"business_category", "業種", kindCategory, false},
		},
		addressRules("", "所在地の"),
		representativeRules,
		addressRules("representative_", "代表者住所の"),
		[]fieldRule{{"representative_phone_number", "代表者の電話番号", kindPhone, false}},
		contactRules,
	)
	soleProprietorRules = concat(
		[]fieldRule{
			{"business_name", "屋号", kindName, false},
			{"business_name_kana", "屋号（カナ）", kindKana, false},
			{"business_category", "業種", kindCategory, false},
		},
		addressRules("business_", "事業所の"),
		representativeRules,
		addressRules("home_", "自宅の"),
		contactRules,
	)
	// ruleByName serves Normalise, which treats every field alike whatever
	// the business form.
	ruleByName = func() map[string]fieldRule {
		m := map[string]fieldRule{}
		for _, r := range concat(corporationRules, soleProprietorRules) {
			m[r.name] = r
		}
		return m
	}()
)

// addressRules are the five parts of an address whose JSON names start with
// prefix ("home_" gives home_postal_code, home_address_state, …). Only the
// building name is optional (SPEC §3).
func addressRules(prefix, label string) []fieldRule {
	return []fieldRule{
		{prefix + "postal_code", label + "郵便番号", kindPostalCode, false},
		{prefix + "address_state", label + "都道府県", kindPrefecture, false},
		{prefix + "address_city", label + "市区町村", kindAddress, false},
		{prefix + "address_street", label + "町名・番地", kindAddress, false},
		{prefix + "address_building_name", label + "建物名・部屋番号", kindAddress, optionalField},
	}
}

func concat(lists ...[]fieldRule) []fieldRule {
	var all []fieldRule
	for _, l := range lists {
		all = append(all, l...)
	}
	return all
}

// textFields maps each string field's JSON name to the field.
func (r *Registration) textFields() map[string]*string {
	return map[string]*string{
		"user_last_name":                       &r.UserLastName,
		"user_first_name":                      &r.UserFirstName,
		"phone_number":                         &r.PhoneNumber,
		"corporate_name":                       &r.CorporateName,
		"corporate_name_kana":                  &r.CorporateNameKana,
		"corporate_number":                     &r.CorporateNumber,
		"representative_postal_code":           &r.RepresentativePostalCode,
		"representative_address_state":         &r.RepresentativeAddressState,
		"representative_address_city":          &r.RepresentativeAddressCity,
		"representative_address_street":        &r.RepresentativeAddressStreet,
		"representative_address_building_name": &r.RepresentativeAddressBuildingName,
		"representative_phone_number":          &r.RepresentativePhoneNumber,
		"postal_code":                          &r.PostalCode,
		"address_state":                        &r.AddressState,
		"address_city":                         &r.AddressCity,
		"address_street":                       &r.AddressStreet,
		"address_building_name":                &r.AddressBuildingName,
		"business_name":                        &r.BusinessName,
		"business_name_kana":                   &r.BusinessNameKana,
		"business_postal_code":                 &r.BusinessPostalCode,
		"business_address_state":               &r.BusinessAddressState,
		"business_address_city":                &r.BusinessAddressCity,
		"business_address_street":              &r.BusinessAddressStreet,
		"business_address_building_name":       &r.BusinessAddressBuildingName,
		"home_postal_code":                     &r.HomePostalCode,
		"home_address_state":                   &r.HomeAddressState,
		"home_address_city":                    &r.HomeAddressCity,
		"home_address_street":                  &r.HomeAddressStreet,
		"home_address_building_name":           &r.HomeAddressBuildingName,
		"representative_last_name":             &r.RepresentativeLastName,
		"representative_first_name":            &r.RepresentativeFirstName,
		"representative_last_name_kana":        &r.RepresentativeLastNameKana,
		"representative_first_name_kana":       &r.RepresentativeFirstNameKana,
		"representative_birthday":              &r.RepresentativeBirthday,
		"transfer_person_name":                 &r.TransferPersonName,
		"business_category":                    &r.BusinessCategory,
	}
}

// Normalise prepares typed values for checking and storing: text is
// trimmed with runs of spaces collapsed; kana fields become full-width
// katakana (ひらがな and ﾊﾝｶｸ are accepted); postal codes, phone numbers and
// the corporate number keep only their ASCII digits (full-width digits,
// hyphens, spaces, 〒 and a phone number's brackets or +81 go); birthdays
// become YYYY-MM-DD; the business category is upper-cased. A field that is
// not valid UTF-8 is left exactly as it is, for Validate to report: cleaning
// it would silently store something the person never typed.
func (r *Registration) Normalise() {
	for name, p := range r.textFields() {
		if utf8.ValidString(*p) {
			*p = normaliseAs(ruleByName[name].kind, *p)
		}
	}
}

func normaliseAs(kind fieldKind, v string) string {
	switch kind {
	case kindKana:
		return pay.ToFullWidthKatakana(v)
	case kindPostalCode:
		return pay.NormalizeCode(strings.TrimPrefix(strings.TrimSpace(v), "〒"))
	case kindPhone:
		return normalisePhone(v)
	case kindCorporateNumber, kindCategory:
		return pay.NormalizeCode(v)
	case kindBirthday:
		return normaliseDate(v)
	}
	return pay.NormalizeSpaces(v)
}

// normalisePhone accepts the ways Japanese numbers are written: 03-1234-5678,
// 03(1234)5678, ０３－１２３４－５６７８, +81 3 1234 5678 and +81(0)3….
func normalisePhone(v string) string {
	s := strings.NewReplacer("(", "", ")", "").Replace(pay.NormalizeCode(v))
	switch {
	case strings.HasPrefix(s, "+810"):
		return s[3:]
	case strings.HasPrefix(s, "+81"):
		return "0" + s[3:]
	}
	return s
}

// normaliseDate turns 1980/4/1, 1980-4-1, 1980.4.1, 1980年4月1日 and
// 19800401 (in ASCII or full-width digits) into 1980-04-01. Anything else is
// only trimmed, for Validate to reject.
func normaliseDate(v string) string {
	v = strings.TrimSpace(v)
	var digits strings.Builder
	for _, r := range v {
		if r >= '０' && r <= '９' {
			r -= '０' - '0'
		}
		digits.WriteRune(r)
	}
	parts := strings.FieldsFunc(digits.String(), func(r rune) bool { return r < '0' || r > '9' })
	if len(parts) == 1 && len(parts[0]) == 8 {
		p := parts[0]
		parts = []string{p[:4], p[4:6], p[6:]}
	}
	if len(parts) != 3 || len(parts[0]) != 4 || len(parts[1]) > 2 || len(parts[2]) > 2 {
		return v
	}
	pad := func(p string) string { return strings.Repeat("0", 2-len(p)) + p }
	return parts[0] + "-" + pad(parts[1]) + "-" + pad(parts[2])
}

const msgBusinessForm = "事業形態を選択してください"

// Validate checks a normalised registration against the rules of its
// business form, at now (birthdays are reckoned in Japan time). Fields of
// the other form are not checked; the store writes only the chosen form's
// columns. With no valid business form, only the form choice and the
// contact fields are checked, since the rest depends on the choice.
//
// Every problem is reported, one per field, in the order of the form.
// Values are checked as they are, so a value Normalise would have fixed is
// still reported.
func (r Registration) Validate(now time.Time) pay.FieldErrors {
	var errs pay.FieldErrors
	var rules []fieldRule
	switch r.BusinessForm {
	case pay.Corporation:
		rules = corporationRules
	case pay.SoleProprietor:
		rules = soleProprietorRules
	default:
		errs.Add("business_form", msgBusinessForm)
		rules = contactRules
	}
	fields := r.textFields()
	for _, rule := range rules {
		errs.Add(rule.name, rule.check(*fields[rule.name], now))
	}
	return errs
}

// check answers the message for v, or "" when it is acceptable.
func (rule fieldRule) check(v string, now time.Time) string {
	label := rule.label
	switch {
	case !utf8.ValidString(v):
		return label + "に読み取れない文字が含まれています。入力し直してください"
	case strings.ContainsFunc(v, pay.IsForbiddenRune):
		return label + "に使用できない文字が含まれています"
	case v == "" && rule.optional:
		return ""
	case v == "" && (rule.kind == kindPrefecture || rule.kind == kindCategory):
		return label + "を選択してください"
	case v == "":
		return label + "を入力してください"
	}
	switch rule.kind {
	case kindName:
		if msg := pay.CheckLength(label, v, maxNameRunes); msg != "" {
			return msg
		}
		return CheckNoMarkup(label, v)
	case kindKana:
		if msg := pay.CheckLength(label, v, maxNameRunes); msg != "" {
			return msg
		}
		if !pay.IsFullWidthKatakana(v) {
			return label + "は全角カタカナで入力してください"
		}
	case kindAddress:
		return pay.CheckLength(label, v, maxAddressRunes)
	case kindPrefecture:
		if _, ok := pay.PrefectureByName(v); !ok {
			return label + "を選択してください"
		}
	case kindPostalCode:
		if len(v) != 7 || !pay.AllDigits(v) {
			return label + "は7桁の数字で入力してください（例：100-0001）"
		}
	case kindPhone:
		if len(v) < 10 || len(v) > 11 || v[0] != '0' || !pay.AllDigits(v) {
			return label + "は0から始まる10桁または11桁の数字で入力してください（例：03-1234-5678）"
		}
	case kindCorporateNumber:
		if !pay.ValidCorporateNumber(v) {
			return "法人番号が正しくありません。13桁の数字をご確認ください"
		}
	case kindBirthday:
		return checkBirthday(label, v, now)
	case kindCategory:
		if _, ok := pay.BusinessCategoryByCode(v); !ok {
			return label + "を選択してください"
		}
	}
	return ""
}

func checkBirthday(label, v string, now time.Time) string {
	birth, err := time.ParseInLocation(time.DateOnly, v, pay.Tokyo())
	if err != nil {
		// Also catches dates that do not exist, such as 2023-02-29.
		return label + "を正しい日付で入力してください（例：1980-04-01）"
	}
	switch age := ageOn(birth, now.In(pay.Tokyo())); {
	case age < 0:
		return label + "に未来の日付は入力できません"
	case age < minAge:
		return label + "をご確認ください。代表者が18歳以上の場合のみご登録いただけます"
	case age > maxAge:
		return label + "をご確認ください"
	}
	return ""
}

// ageOn is the age in whole years on the calendar day of today. Someone
// born on 29 February comes of age on 1 March in common years, as 年齢計算
// ニ関スル法律 has it (the age rises at the end of the day before the
// birthday).
func ageOn(birth, today time.Time) int {
	by, bm, bd := birth.Date()
	ty, tm, td := today.Date()
	age := ty - by
	if tm < bm || (tm == bm && td < bd) {
		age--
	}
	return age
}

// Fields lists the registration for the check-answers page, in the order
// of the form: names joined (山田　太郎), the birthday as 1980年4月1日,
// addresses on one line with the postal code (〒100-0001 東京都千代田区…),
// the category by name. Rows for the other business form are left out.
func (r Registration) Fields() []pay.LabeledValue {
	rows := []pay.LabeledValue{{Field: "business_form", Label: "事業形態", Value: r.BusinessForm.Label()}}
	switch r.BusinessForm {
	case pay.Corporation:
		rows = append(rows,
			pay.LabeledValue{Field: "corporate_name", Label: "法人名", Value: r.CorporateName},
			pay.LabeledValue{Field: "corporate_name_kana", Label: "法人名（カナ）", Value: r.CorporateNameKana},
			pay.LabeledValue{Field: "corporate_number", Label: "法人番号", Value: r.CorporateNumber},
			pay.LabeledValue{Field: "business_category", Label: "業種", Value: categoryName(r.BusinessCategory)},
			pay.LabeledValue{Field: "postal_code", Label: "所在地", Value: oneLineAddress(r.PostalCode, r.AddressState, r.AddressCity, r.AddressStreet, r.AddressBuildingName)},
		)
		rows = append(rows, r.representativeRows()...)
		rows = append(rows,
			pay.LabeledValue{Field: "representative_postal_code", Label: "代表者住所", Value: oneLineAddress(r.RepresentativePostalCode, r.RepresentativeAddressState, r.RepresentativeAddressCity, r.RepresentativeAddressStreet, r.RepresentativeAddressBuildingName)},
			pay.LabeledValue{Field: "representative_phone_number", Label: "代表者電話番号", Value: r.RepresentativePhoneNumber},
		)
	case pay.SoleProprietor:
		rows = append(rows,
			pay.LabeledValue{Field: "business_name", Label: "屋号", Value: r.BusinessName},
			pay.LabeledValue{Field: "business_name_kana", Label: "屋号（カナ）", Value: r.BusinessNameKana},
			pay.LabeledValue{Field: "business_category", Label: "業種", Value: categoryName(r.BusinessCategory)},
			pay.LabeledValue{Field: "business_postal_code", Label: "事業所所在地", Value: oneLineAddress(r.BusinessPostalCode, r.BusinessAddressState, r.BusinessAddressCity, r.BusinessAddressStreet, r.BusinessAddressBuildingName)},
		)
		rows = append(rows, r.representativeRows()...)
		rows = append(rows,
			pay.LabeledValue{Field: "home_postal_code", Label: "自宅住所", Value: oneLineAddress(r.HomePostalCode, r.HomeAddressState, r.HomeAddressCity, r.HomeAddressStreet, r.HomeAddressBuildingName)},
		)
	}
	transfer := r.TransferPersonName
	if transfer == "" {
		transfer = pay.NotEntered
	}
	return append(rows,
		pay.LabeledValue{Field: "user_last_name", Label: "担当者氏名", Value: fullName(r.UserLastName, r.UserFirstName)},
		pay.LabeledValue{Field: "phone_number", Label: "担当者電話番号", Value: r.PhoneNumber},
		pay.LabeledValue{Field: "transfer_person_name", Label: "振込依頼人名（カナ）", Value: transfer},
	)
}

func (r Registration) representativeRows() []pay.LabeledValue {
	return []pay.LabeledValue{
		{Field: "representative_last_name", Label: "代表者氏名", Value: fullName(r.RepresentativeLastName, r.RepresentativeFirstName)},
		{Field: "representative_last_name_kana", Label: "代表者氏名（カナ）", Value: fullName(r.RepresentativeLastNameKana, r.RepresentativeFirstNameKana)},
		{Field: "representative_birthday", Label: "代表者生年月日", Value: birthdayLabel(r.RepresentativeBirthday)},
	}
}

// fullName writes family name first with a full-width space, as Japanese
// forms print names.
func fullName(last, first string) string {
	if last == "" || first == "" {
		return last + first
	}
	return last + "\u3000" + first
}

func birthdayLabel(v string) string {
	d, err := time.ParseInLocation(time.DateOnly, v, pay.Tokyo())
	if err != nil {
		return v
	}
	return pay.JapaneseDate(d)
}

func categoryName(code string) string {
	if c, ok := pay.BusinessCategoryByCode(code); ok {
		return c.Name
	}
	return code
}

// oneLineAddress is "〒100-0001 東京都千代田区千代田1-1 皇居ビル": the
// prefecture, city and street run together as Japanese addresses are
// written, the building after a space.
func oneLineAddress(postal, state, city, street, building string) string {
	parts := make([]string, 0, 3)
	if pc := pay.PostalCode(postal); pc != "" {
		parts = append(parts, pc)
	} else if postal != "" {
		parts = append(parts, postal)
	}
	if a := state + city + street; a != "" {
		parts = append(parts, a)
	}
	if building != "" {
		parts = append(parts, building)
	}
	return strings.Join(parts, " ")
}

// CheckNoMarkup refuses "<" and ">" in a name: no person's or business's name needs
// them, and a name that carries markup is an attack on whoever shows it without
// escaping (a mail client, a spreadsheet of an export), even though our pages escape it.
func CheckNoMarkup(label, v string) string {
	if strings.ContainsAny(v, "<>＜＞") {
		return label + "に記号「<」「>」は使用できません"
	}
	return ""
}

// MatchRegistry compares a normalised corporation registration with the registry's
// record of its number: the name (corporate_name) and, when the record's address names
// a prefecture, the head office's prefecture (address_state). None means they agree.
func MatchRegistry(r Registration, name, address string) pay.FieldErrors {
	var errs pay.FieldErrors
	if !pay.SameCorporateName(name, r.CorporateName) {
		errs.Add("corporate_name", pay.MsgRegistryName)
	}
	if p := pay.PrefectureOf(address); p != "" && p != strings.TrimSpace(r.AddressState) {
		errs.Add("address_state", pay.MsgRegistryPrefecture)
	}
	return errs
}
