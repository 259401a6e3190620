package account_test

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/pay"
)

func TestValidatePassword(t *testing.T) {
	const (
		required = "パスワードを入力してください"
		rule     = "パスワードは10文字以上で、英字と数字を組み合わせて入力してください"
		tooLong  = "パスワードは128文字以内で入力してください"
		chars    = "パスワードに使用できない文字が含まれています"
		email    = "パスワードにメールアドレスの一部を含めないでください"
		common   = "このパスワードはよく使われていて推測されやすいため、別のパスワードを入力してください"
	)
	tests := []struct {
		name  string
		pw    string
		email string
		want  string
	}{
		{"letters and digits, 10", "kumo7sora2", "taro@example.jp", ""},
		{"with symbols and spaces", "Blue fox 42 jumps!", "taro@example.jp", ""},
		{"128 characters", strings.Repeat("a1", 64), "taro@example.jp", ""},
		{"Japanese characters count as characters", "さくら咲く春2026年z", "taro@example.jp", ""},
		{"local part under 3 characters is not forbidden", "ab7sora2kumo", "ab@example.jp", ""},
		{"empty", "", "taro@example.jp", required},
		{"9 characters", "kumo7sora", "taro@example.jp", rule},
		{"letters only", "kumosorayama", "taro@example.jp", rule},
		{"digits only", "1234567890123", "taro@example.jp", rule},
		{"full-width digits are not digits", "kumosora７２", "taro@example.jp", rule},
		{"129 characters", strings.Repeat("a1", 64) + "b", "taro@example.jp", tooLong},
		{"control character", "kumo7sora2\x00", "taro@example.jp", chars},
		{"invalid UTF-8", "kumo7sora2\xff", "taro@example.jp", chars},
		{"contains the local part", "yamada1980abc", "yamada@example.jp", email},
		{"contains the local part, any case", "XYamadaX1980", "Yamada@example.jp", email},
		{"contains a 3-character local part", "bob7sora2kumo", "bob@example.jp", email},
		{"contains the local part in full width", "ｙａｍａｄａ1980abc", "yamada@example.jp", email},
		{"contains the whole address", "ab@example.jp2026", "ab@example.jp", email},
		{"contains the whole address in full width", "ａｂ＠ｅｘａｍｐｌｅ．ｊｐ2026x", "ab@example.jp", email},
		{"address given in full width", "yamada1980abc", " ｙａｍａｄａ＠ｅｘａｍｐｌｅ．ｊｐ ", email},
		{"common", "password123", "taro@example.jp", common},
		{"common in capitals", "Password123", "taro@example.jp", common},
		{"common keyboard walk", "1q2w3e4r5t", "taro@example.jp", common},
		{"common, from the list", "iloveyou143", "taro@example.jp", common},
		{"common, longer", "qwerty123456789", "taro@example.jp", common},
		{"common, one letter in full width", "Ｐassword123", "taro@example.jp", common},
		{"common, part in full width", "iloveｙｏｕ143", "taro@example.jp", common},
		{"common with a suffix is not common", "iloveyou143 kumo", "taro@example.jp", ""},
		{"no e-mail given", "kumo7sora2", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, account.ValidatePassword(tt.pw, tt.email))
		})
	}
}

// SPEC §3's names, plus business_category; the JSON API binds them and the
// field errors use them as HTML ids.
func TestRegistrationJSONNames(t *testing.T) {
	b, err := json.Marshal(account.Registration{})
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	var got []string
	for k := range m {
		got = append(got, k)
	}
	sort.Strings(got)
	want := []string{
		"address_building_name", "address_city", "address_state", "address_street",
		"business_address_building_name", "business_address_city", "business_address_state", "business_address_street",
		"business_category", "business_form", "business_name", "business_name_kana", "business_postal_code",
		"corporate_name", "corporate_name_kana", "corporate_number",
		"home_address_building_name", "home_address_city", "home_address_state", "home_address_street", "home_postal_code",
		"phone_number", "postal_code",
		"representative_address_building_name", "representative_address_city", "representative_address_state", "representative_address_street",
		"representative_birthday", "representative_first_name", "representative_first_name_kana",
		"representative_last_name", "representative_last_name_kana", "representative_phone_number", "representative_postal_code",
		"transfer_person_name", "user_first_name", "user_last_name",
	}
	assert.Equal(t, want, got)

	var r account.Registration
	require.NoError(t, json.Unmarshal([]byte(`{"business_form":2,"business_name_kana":"ﾃｽﾄ"}`), &r))
	assert.Equal(t, pay.SoleProprietor, r.BusinessForm)
	assert.Equal(t, "ﾃｽﾄ", r.BusinessNameKana)
}

// 2026-11-22 10:00 in Tokyo.
var regNow = time.Date(2026, 11, 22, 10, 0, 0, 0, pay.Tokyo())

func validCorporation() account.Registration {
	return account.Registration{
		BusinessForm:                      pay.Corporation,
		UserLastName:                      "佐藤",
		UserFirstName:                     "花子",
		PhoneNumber:                       "0312345678",
		CorporateName:                     "株式会社サンプル商事",
		CorporateNameKana:                 "サンプルショウジ",
		CorporateNumber:                   "7010001008844",
		BusinessCategory:                  "I",
		PostalCode:                        "1000001",
		AddressState:                      "東京都",
		AddressCity:                       "千代田区",
		AddressStreet:                     "千代田1-1",
		AddressBuildingName:               "サンプルビル3階",
		RepresentativeLastName:            "山田",
		RepresentativeFirstName:           "太郎",
		RepresentativeLastNameKana:        "ヤマダ",
		RepresentativeFirstNameKana:       "タロウ",
		RepresentativeBirthday:            "1980-04-01",
		RepresentativePostalCode:          "5300001",
		RepresentativeAddressState:        "大阪府",
		RepresentativeAddressCity:         "大阪市北区",
		RepresentativeAddressStreet:       "梅田1-2-3",
		RepresentativeAddressBuildingName: "",
		RepresentativePhoneNumber:         "09012345678",
		TransferPersonName:                "サンプルショウジ",
	}
}

func validSoleProprietor() account.Registration {
	return account.Registration{
		BusinessForm:                pay.SoleProprietor,
		UserLastName:                "鈴木",
		UserFirstName:               "一郎",
		PhoneNumber:                 "0612345678",
		BusinessName:                "鈴木デザイン事務所",
		BusinessNameKana:            "スズキデザインジムショ",
		BusinessCategory:            "L",
		BusinessPostalCode:          "5300001",
		BusinessAddressState:        "大阪府",
		BusinessAddressCity:         "大阪市北区",
		BusinessAddressStreet:       "梅田2-4-9",
		BusinessAddressBuildingName: "ブリーゼタワー10階",
		RepresentativeLastName:      "鈴木",
		RepresentativeFirstName:     "一郎",
		RepresentativeLastNameKana:  "スズキ",
		RepresentativeFirstNameKana: "イチロウ",
		RepresentativeBirthday:      "1990-02-28",
		HomePostalCode:              "0600000",
		HomeAddressState:            "北海道",
		HomeAddressCity:             "札幌市中央区",
		HomeAddressStreet:           "北1条西2丁目",
	}
}

func TestRegistrationValidateAcceptsValidForms(t *testing.T) {
	assert.Empty(t, validCorporation().Validate(regNow))
	assert.Empty(t, validSoleProprietor().Validate(regNow))
	assert.NoError(t, validCorporation().Validate(regNow).Err())
}

func TestRegistrationValidateRequired(t *testing.T) {
	got := account.Registration{BusinessForm: pay.Corporation}.Validate(regNow)
	assert.Equal(t, pay.FieldErrors{
		{Field: "corporate_name", Message: "法人名を入力してください"},
		{Field: "corporate_name_kana", Message: "法人名（カナ）を入力してください"},
		{Field: "corporate_number", Message: "法人番号を入力してください"},
		{Field: "business_category", Message: "業種を選択してください"},
		{Field: "postal_code", Message: "所在地の郵便番号を入力してください"},
		{Field: "address_state", Message: "所在地の都道府県を選択してください"},
		{Field: "address_city", Message: "所在地の市区町村を入力してください"},
		{Field: "address_street", Message: "所在地の町名・番地を入力してください"},
		{Field: "representative_last_name", Message: "代表者の姓を入力してください"},
		{Field: "representative_first_name", Message: "代表者の名を入力してください"},
		{Field: "representative_last_name_kana", Message: "代表者の姓（カナ）を入力してください"},
		{Field: "representative_first_name_kana", Message: "代表者の名（カナ）を入力してください"},
		{Field: "representative_birthday", Message: "代表者の生年月日を入力してください"},
		{Field: "representative_postal_code", Message: "代表者住所の郵便番号を入力してください"},
		{Field: "representative_address_state", Message: "代表者住所の都道府県を選択してください"},
		{Field: "representative_address_city", Message: "代表者住所の市区町村を入力してください"},
		{Field: "representative_address_street", Message: "代表者住所の町名・番地を入力してください"},
		{Field: "representative_phone_number", Message: "代表者の電話番号を入力してください"},
		{Field: "user_last_name", Message: "担当者の姓を入力してください"},
		{Field: "user_first_name", Message: "担当者の名を入力してください"},
		{Field: "phone_number", Message: "担当者の電話番号を入力してください"},
	}, got, "building names and the transfer name are optional")

	got = account.Registration{BusinessForm: pay.SoleProprietor}.Validate(regNow)
	var fields []string
	for _, fe := range got {
		fields = append(fields, fe.Field)
	}
	assert.Equal(t, []string{
		"business_name", "business_name_kana", "business_category",
		"business_postal_code", "business_address_state", "business_address_city", "business_address_street",
		"representative_last_name", "representative_first_name",
		"representative_last_name_kana", "representative_first_name_kana", "representative_birthday",
		"home_postal_code", "home_address_state", "home_address_city", "home_address_street",
		"user_last_name", "user_first_name", "phone_number",
	}, fields)
	assert.Equal(t, "屋号を入力してください", got.For("business_name"))
	assert.Equal(t, "自宅の都道府県を選択してください", got.For("home_address_state"))
}

func TestRegistrationValidateBusinessForm(t *testing.T) {
	for _, form := range []pay.BusinessForm{0, 3, -1} {
		r := validCorporation()
		r.BusinessForm = form
		r.CorporateName = "" // not checked: which fields apply depends on the form
		assert.Equal(t, pay.FieldErrors{{Field: "business_form", Message: "事業形態を選択してください"}}, r.Validate(regNow))

		r.UserLastName = ""
		assert.Equal(t, pay.FieldErrors{
			{Field: "business_form", Message: "事業形態を選択してください"},
			{Field: "user_last_name", Message: "担当者の姓を入力してください"},
		}, r.Validate(regNow))
	}
}

func TestRegistrationValidateFields(t *testing.T) {
	corp := func(change func(*account.Registration)) account.Registration {
		r := validCorporation()
		change(&r)
		return r
	}
	sole := func(change func(*account.Registration)) account.Registration {
		r := validSoleProprietor()
		change(&r)
		return r
	}
	tests := []struct {
		name  string
		r     account.Registration
		field string
		msg   string // "" when the value is accepted
	}{
		// names and lengths, counted in characters
		{"name of 50 characters", corp(func(r *account.Registration) { r.CorporateName = strings.Repeat("株", 50) }), "corporate_name", ""},
		{"name of 51 characters", corp(func(r *account.Registration) { r.CorporateName = strings.Repeat("株", 51) }), "corporate_name", "法人名は50文字以内で入力してください"},
		{"representative name too long", corp(func(r *account.Registration) { r.RepresentativeFirstName = strings.Repeat("a", 51) }), "representative_first_name", "代表者の名は50文字以内で入力してください"},
		{"user name too long", corp(func(r *account.Registration) { r.UserLastName = strings.Repeat("佐", 51) }), "user_last_name", "担当者の姓は50文字以内で入力してください"},
		{"user name with markup", corp(func(r *account.Registration) { r.UserLastName = "<script>alert(1)</script>" }), "user_last_name", "担当者の姓に記号「<」「>」は使用できません"},
		{"corporate name with a full-width bracket", corp(func(r *account.Registration) { r.CorporateName = "＜株＞テスト" }), "corporate_name", "法人名に記号「<」「>」は使用できません"},
		{"address part of 100 characters", corp(func(r *account.Registration) { r.AddressStreet = strings.Repeat("丁", 100) }), "address_street", ""},
		{"address part of 101 characters", corp(func(r *account.Registration) { r.AddressStreet = strings.Repeat("丁", 101) }), "address_street", "所在地の町名・番地は100文字以内で入力してください"},
		{"building name too long", sole(func(r *account.Registration) { r.HomeAddressBuildingName = strings.Repeat("棟", 101) }), "home_address_building_name", "自宅の建物名・部屋番号は100文字以内で入力してください"},
		{"building name empty", sole(func(r *account.Registration) { r.BusinessAddressBuildingName = "" }), "business_address_building_name", ""},

		// kana
		{"kana with ・", corp(func(r *account.Registration) { r.RepresentativeFirstNameKana = "ジョン・スミス" }), "representative_first_name_kana", ""},
		{"kana with a word space", corp(func(r *account.Registration) { r.CorporateNameKana = "サンプル　ショウジ" }), "corporate_name_kana", ""},
		{"kana in hiragana (not normalised)", corp(func(r *account.Registration) { r.CorporateNameKana = "さんぷる" }), "corporate_name_kana", "法人名（カナ）は全角カタカナで入力してください"},
		{"kana with kanji", corp(func(r *account.Registration) { r.RepresentativeLastNameKana = "山田" }), "representative_last_name_kana", "代表者の姓（カナ）は全角カタカナで入力してください"},
		{"kana with Latin", sole(func(r *account.Registration) { r.BusinessNameKana = "スズキDESIGN" }), "business_name_kana", "屋号（カナ）は全角カタカナで入力してください"},
		{"kana too long", corp(func(r *account.Registration) { r.CorporateNameKana = strings.Repeat("ア", 51) }), "corporate_name_kana", "法人名（カナ）は50文字以内で入力してください"},
		{"transfer name empty", corp(func(r *account.Registration) { r.TransferPersonName = "" }), "transfer_person_name", ""},
		{"transfer name not kana", corp(func(r *account.Registration) { r.TransferPersonName = "サンプル商事" }), "transfer_person_name", "振込依頼人名（カナ）は全角カタカナで入力してください"},

		// corporate number
		{"corporate number check digit", corp(func(r *account.Registration) { r.CorporateNumber = "8010001008844" }), "corporate_number", "法人番号が正しくありません。13桁の数字をご確認ください"},
		{"corporate number 12 digits", corp(func(r *account.Registration) { r.CorporateNumber = "010001008844" }), "corporate_number", "法人番号が正しくありません。13桁の数字をご確認ください"},
		{"corporate number not normalised", corp(func(r *account.Registration) { r.CorporateNumber = "7-0100-0100-8844" }), "corporate_number", "法人番号が正しくありません。13桁の数字をご確認ください"},
		{"sole proprietor needs no corporate number", sole(func(r *account.Registration) { r.CorporateNumber = "123" }), "corporate_number", ""},

		// postal codes and prefectures
		{"postal code 6 digits", corp(func(r *account.Registration) { r.PostalCode = "100000" }), "postal_code", "所在地の郵便番号は7桁の数字で入力してください（例：100-0001）"},
		{"postal code with hyphen (not normalised)", corp(func(r *account.Registration) { r.RepresentativePostalCode = "530-0001" }), "representative_postal_code", "代表者住所の郵便番号は7桁の数字で入力してください（例：100-0001）"},
		{"postal code with letters", sole(func(r *account.Registration) { r.HomePostalCode = "06000OO" }), "home_postal_code", "自宅の郵便番号は7桁の数字で入力してください（例：100-0001）"},
		{"prefecture short form", corp(func(r *account.Registration) { r.AddressState = "東京" }), "address_state", "所在地の都道府県を選択してください"},
		{"prefecture unknown", sole(func(r *account.Registration) { r.BusinessAddressState = "Tokyo" }), "business_address_state", "事業所の都道府県を選択してください"},
		{"prefecture 京都府", corp(func(r *account.Registration) { r.AddressState = "京都府" }), "address_state", ""},

		// phones
		{"phone 11 digits", corp(func(r *account.Registration) { r.PhoneNumber = "09012345678" }), "phone_number", ""},
		{"phone 0120", corp(func(r *account.Registration) { r.PhoneNumber = "0120123456" }), "phone_number", ""},
		{"phone 9 digits", corp(func(r *account.Registration) { r.PhoneNumber = "031234567" }), "phone_number", "担当者の電話番号は0から始まる10桁または11桁の数字で入力してください（例：03-1234-5678）"},
		{"phone 12 digits", corp(func(r *account.Registration) { r.RepresentativePhoneNumber = "090123456789" }), "representative_phone_number", "代表者の電話番号は0から始まる10桁または11桁の数字で入力してください（例：03-1234-5678）"},
		{"phone not starting with 0", corp(func(r *account.Registration) { r.PhoneNumber = "8131234567" }), "phone_number", "担当者の電話番号は0から始まる10桁または11桁の数字で入力してください（例：03-1234-5678）"},
		{"phone with +81 (not normalised)", corp(func(r *account.Registration) { r.PhoneNumber = "+81312345678" }), "phone_number", "担当者の電話番号は0から始まる10桁または11桁の数字で入力してください（例：03-1234-5678）"},

		// birthday, at 2026-11-22 in Tokyo
		{"birthday not a date", corp(func(r *account.Registration) { r.RepresentativeBirthday = "1980-13-01" }), "representative_birthday", "代表者の生年月日を正しい日付で入力してください（例：1980-04-01）"},
		{"birthday 30 February", corp(func(r *account.Registration) { r.RepresentativeBirthday = "1980-02-30" }), "representative_birthday", "代表者の生年月日を正しい日付で入力してください（例：1980-04-01）"},
		{"birthday 29 February in a common year", corp(func(r *account.Registration) { r.RepresentativeBirthday = "1981-02-29" }), "representative_birthday", "代表者の生年月日を正しい日付で入力してください（例：1980-04-01）"},
		{"birthday 29 February in a leap year", corp(func(r *account.Registration) { r.RepresentativeBirthday = "1980-02-29" }), "representative_birthday", ""},
		{"birthday in slashes (not normalised)", corp(func(r *account.Registration) { r.RepresentativeBirthday = "1980/04/01" }), "representative_birthday", "代表者の生年月日を正しい日付で入力してください（例：1980-04-01）"},
		{"18 today", corp(func(r *account.Registration) { r.RepresentativeBirthday = "2008-11-22" }), "representative_birthday", ""},
		{"18 tomorrow", sole(func(r *account.Registration) { r.RepresentativeBirthday = "2008-11-23" }), "representative_birthday", "代表者の生年月日をご確認ください。代表者が18歳以上の場合のみご登録いただけます"},
		{"120", corp(func(r *account.Registration) { r.RepresentativeBirthday = "1906-01-01" }), "representative_birthday", ""},
		{"121", corp(func(r *account.Registration) { r.RepresentativeBirthday = "1905-11-22" }), "representative_birthday", "代表者の生年月日をご確認ください"},
		{"in the future", corp(func(r *account.Registration) { r.RepresentativeBirthday = "2027-01-01" }), "representative_birthday", "代表者の生年月日に未来の日付は入力できません"},
		{"today", corp(func(r *account.Registration) { r.RepresentativeBirthday = "2026-11-22" }), "representative_birthday", "代表者の生年月日をご確認ください。代表者が18歳以上の場合のみご登録いただけます"},

		// business category
		{"category unknown", corp(func(r *account.Registration) { r.BusinessCategory = "Z" }), "business_category", "業種を選択してください"},
		{"category lower-case (not normalised)", sole(func(r *account.Registration) { r.BusinessCategory = "l" }), "business_category", "業種を選択してください"},

		// characters no value may contain
		{"invalid UTF-8", corp(func(r *account.Registration) { r.CorporateName = "株式会社\xff\xfe" }), "corporate_name", "法人名に読み取れない文字が含まれています。入力し直してください"},
		{"invalid UTF-8 in an optional field", corp(func(r *account.Registration) { r.AddressBuildingName = "\xc3" }), "address_building_name", "所在地の建物名・部屋番号に読み取れない文字が含まれています。入力し直してください"},
		{"invalid UTF-8 in a number", corp(func(r *account.Registration) { r.CorporateNumber = "\xff" }), "corporate_number", "法人番号に読み取れない文字が含まれています。入力し直してください"},
		{"NUL", corp(func(r *account.Registration) { r.AddressCity = "千代田区\x00" }), "address_city", "所在地の市区町村に使用できない文字が含まれています"},
		{"bidi override", sole(func(r *account.Registration) { r.BusinessName = "abc\u202edcba" }), "business_name", "屋号に使用できない文字が含まれています"},
		{"zero-width space", corp(func(r *account.Registration) { r.UserFirstName = "花\u200b子" }), "user_first_name", "担当者の名に使用できない文字が含まれています"},
		{"private use", corp(func(r *account.Registration) { r.RepresentativeLastName = "\ue000田" }), "representative_last_name", "代表者の姓に使用できない文字が含まれています"},
		{"emoji are text", corp(func(r *account.Registration) { r.CorporateName = "株式会社🍣" }), "corporate_name", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := tt.r.Validate(regNow)
			assert.Equal(t, tt.msg, errs.For(tt.field))
			if tt.msg == "" {
				assert.Empty(t, errs)
			} else {
				assert.Len(t, errs, 1, "only the changed field: %v", errs)
			}
		})
	}
}

// The age is reckoned on Japan's calendar whatever zone now is in: at
// 2026-11-21 15:00 UTC it is already the 22nd in Tokyo.
func TestRegistrationValidateAgeInJapanTime(t *testing.T) {
	r := validCorporation()
	r.RepresentativeBirthday = "2008-11-22"
	assert.Empty(t, r.Validate(time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)))
	assert.NotEmpty(t, r.Validate(time.Date(2026, 11, 21, 14, 59, 59, 0, time.UTC)))

	// Born on 29 February: 18 on 1 March of a common year, not on 28 February.
	r.RepresentativeBirthday = "2008-02-29"
	assert.NotEmpty(t, r.Validate(time.Date(2026, 2, 28, 12, 0, 0, 0, pay.Tokyo())))
	assert.Empty(t, r.Validate(time.Date(2026, 3, 1, 0, 0, 0, 0, pay.Tokyo())))
}

func TestRegistrationNormalise(t *testing.T) {
	r := account.Registration{
		BusinessForm:                pay.Corporation,
		UserLastName:                "  佐藤 ",
		UserFirstName:               "花子\t",
		PhoneNumber:                 "０３－１２３４－５６７８",
		CorporateName:               "　株式会社　　サンプル商事　",
		CorporateNameKana:           "さんぷる しょうじ",
		CorporateNumber:             "７０１０ ００１０ ０８８４４",
		BusinessCategory:            "ｉ",
		PostalCode:                  "〒100-0001",
		AddressState:                " 東京都 ",
		AddressCity:                 "千代田区 ",
		AddressStreet:               "千代田１－１",
		AddressBuildingName:         "  ",
		RepresentativeLastNameKana:  "ﾔﾏﾀﾞ",
		RepresentativeFirstNameKana: "ﾀﾛｳ",
		RepresentativeBirthday:      "１９８０年４月１日",
		RepresentativePostalCode:    "530 0001",
		RepresentativePhoneNumber:   "+81 (0)90-1234-5678",
		TransferPersonName:          " ｻﾝﾌﾟﾙｼｮｳｼﾞ ",
		BusinessNameKana:            "ｽｽﾞｷ",
		BusinessPostalCode:          "５３００００１",
		HomePostalCode:              "060-0000",
		HomeAddressStreet:           " 北1条西2丁目 ",
	}
	r.Normalise()
	assert.Equal(t, account.Registration{
		BusinessForm:                pay.Corporation,
		UserLastName:                "佐藤",
		UserFirstName:               "花子",
		PhoneNumber:                 "0312345678",
		CorporateName:               "株式会社　サンプル商事",
		CorporateNameKana:           "サンプル　ショウジ",
		CorporateNumber:             "7010001008844",
		BusinessCategory:            "I",
		PostalCode:                  "1000001",
		AddressState:                "東京都",
		AddressCity:                 "千代田区",
		AddressStreet:               "千代田１－１",
		AddressBuildingName:         "",
		RepresentativeLastNameKana:  "ヤマダ",
		RepresentativeFirstNameKana: "タロウ",
		RepresentativeBirthday:      "1980-04-01",
		RepresentativePostalCode:    "5300001",
		RepresentativePhoneNumber:   "09012345678",
		TransferPersonName:          "サンプルショウジ",
		BusinessNameKana:            "スズキ",
		BusinessPostalCode:          "5300001",
		HomePostalCode:              "0600000",
		HomeAddressStreet:           "北1条西2丁目",
	}, r)
}

func TestRegistrationNormaliseKeepsInvalidUTF8(t *testing.T) {
	r := account.Registration{BusinessForm: pay.Corporation, CorporateName: " 株式会社\xff ", CorporateNameKana: "\xffやまだ"}
	r.Normalise()
	assert.Equal(t, " 株式会社\xff ", r.CorporateName, "left for Validate to report")
	assert.Equal(t, "\xffやまだ", r.CorporateNameKana)
	errs := r.Validate(regNow)
	assert.Equal(t, "法人名に読み取れない文字が含まれています。入力し直してください", errs.For("corporate_name"))
	assert.Equal(t, "法人名（カナ）に読み取れない文字が含まれています。入力し直してください", errs.For("corporate_name_kana"))
}

// Whatever is typed, Normalise and Validate answer without panicking.
func TestRegistrationNeverPanics(t *testing.T) {
	inputs := []string{"", " ", "\xff", "\xe3\x81", "〒", "+81", "+810", "()", "年月日", "1980年", "0000-00-00", "9999-99-99", "ﾞﾟ", "\u3099", strings.Repeat("あ", 10000)}
	for _, in := range inputs {
		for _, form := range []pay.BusinessForm{0, pay.Corporation, pay.SoleProprietor} {
			r := account.Registration{BusinessForm: form}
			v := reflect.ValueOf(&r).Elem()
			for i := range v.NumField() {
				if f := v.Field(i); f.Kind() == reflect.String {
					f.SetString(in)
				}
			}
			assert.NotPanics(t, func() {
				r.Normalise()
				_ = r.Validate(regNow)
				_ = r.Fields()
			}, "%q", in)
		}
	}
}

func TestRegistrationFieldsCorporation(t *testing.T) {
	assert.Equal(t, []pay.LabeledValue{
		{Field: "business_form", Label: "事業形態", Value: "法人"},
		{Field: "corporate_name", Label: "法人名", Value: "株式会社サンプル商事"},
		{Field: "corporate_name_kana", Label: "法人名（カナ）", Value: "サンプルショウジ"},
		{Field: "corporate_number", Label: "法人番号", Value: "7010001008844"},
		{Field: "business_category", Label: "業種", Value: "卸売業，小売業"},
		{Field: "postal_code", Label: "所在地", Value: "〒100-0001 東京都千代田区千代田1-1 サンプルビル3階"},
		{Field: "representative_last_name", Label: "代表者氏名", Value: "山田　太郎"},
		{Field: "representative_last_name_kana", Label: "代表者氏名（カナ）", Value: "ヤマダ　タロウ"},
		{Field: "representative_birthday", Label: "代表者生年月日", Value: "1980年4月1日"},
		{Field: "representative_postal_code", Label: "代表者住所", Value: "〒530-0001 大阪府大阪市北区梅田1-2-3"},
		{Field: "representative_phone_number", Label: "代表者電話番号", Value: "09012345678"},
		{Field: "user_last_name", Label: "担当者氏名", Value: "佐藤　花子"},
		{Field: "phone_number", Label: "担当者電話番号", Value: "0312345678"},
		{Field: "transfer_person_name", Label: "振込依頼人名（カナ）", Value: "サンプルショウジ"},
	}, validCorporation().Fields())
}

func TestRegistrationFieldsSoleProprietor(t *testing.T) {
	r := validSoleProprietor()
	assert.Equal(t, []pay.LabeledValue{
		{Field: "business_form", Label: "事業形態", Value: "個人事業主"},
		{Field: "business_name", Label: "屋号", Value: "鈴木デザイン事務所"},
		{Field: "business_name_kana", Label: "屋号（カナ）", Value: "スズキデザインジムショ"},
		{Field: "business_category", Label: "業種", Value: "学術研究，専門・技術サービス業"},
		{Field: "business_postal_code", Label: "事業所所在地", Value: "〒530-0001 大阪府大阪市北区梅田2-4-9 ブリーゼタワー10階"},
		{Field: "representative_last_name", Label: "代表者氏名", Value: "鈴木　一郎"},
		{Field: "representative_last_name_kana", Label: "代表者氏名（カナ）", Value: "スズキ　イチロウ"},
		{Field: "representative_birthday", Label: "代表者生年月日", Value: "1990年2月28日"},
		{Field: "home_postal_code", Label: "自宅住所", Value: "〒060-0000 北海道札幌市中央区北1条西2丁目"},
		{Field: "user_last_name", Label: "担当者氏名", Value: "鈴木　一郎"},
		{Field: "phone_number", Label: "担当者電話番号", Value: "0612345678"},
		{Field: "transfer_person_name", Label: "振込依頼人名（カナ）", Value: "未入力"},
	}, r.Fields())
}

// Fields of a half-filled or invalid registration still render something
// sensible: raw values rather than blanks or panics.
func TestRegistrationFieldsPartial(t *testing.T) {
	r := account.Registration{
		BusinessForm: pay.Corporation, CorporateName: "株式会社テスト", BusinessCategory: "Z",
		PostalCode: "12", AddressState: "東京都", RepresentativeLastName: "山田",
		RepresentativeBirthday: "1980-02-30",
	}
	byField := map[string]string{}
	for _, row := range r.Fields() {
		byField[row.Field] = row.Value
	}
	assert.Equal(t, "Z", byField["business_category"])
	assert.Equal(t, "12 東京都", byField["postal_code"])
	assert.Equal(t, "山田", byField["representative_last_name"])
	assert.Equal(t, "1980-02-30", byField["representative_birthday"])
	assert.Equal(t, "", byField["representative_postal_code"])

	unknown := account.Registration{UserLastName: "佐藤", UserFirstName: "花子"}.Fields()
	assert.Equal(t, []pay.LabeledValue{
		{Field: "business_form", Label: "事業形態", Value: "不明"},
		{Field: "user_last_name", Label: "担当者氏名", Value: "佐藤　花子"},
		{Field: "phone_number", Label: "担当者電話番号", Value: ""},
		{Field: "transfer_person_name", Label: "振込依頼人名（カナ）", Value: "未入力"},
	}, unknown)
}

// Every field the check-answers page links to is one the form has, so each
// 変更 link finds its input.
func TestRegistrationFieldsLinkToJSONNames(t *testing.T) {
	b, err := json.Marshal(account.Registration{})
	require.NoError(t, err)
	var names map[string]any
	require.NoError(t, json.Unmarshal(b, &names))
	for _, r := range []account.Registration{validCorporation(), validSoleProprietor()} {
		for _, row := range r.Fields() {
			assert.Contains(t, names, row.Field)
		}
	}
}

func TestRegistrationNormaliseFormats(t *testing.T) {
	birthday := func(r *account.Registration) *string { return &r.RepresentativeBirthday }
	phone := func(r *account.Registration) *string { return &r.PhoneNumber }
	postal := func(r *account.Registration) *string { return &r.HomePostalCode }
	kana := func(r *account.Registration) *string { return &r.CorporateNameKana }
	tests := []struct {
		name  string
		field func(*account.Registration) *string
		in    string
		want  string
	}{
		{"date as sent by a date input", birthday, "1980-04-01", "1980-04-01"},
		{"date without zeros", birthday, "1980-4-1", "1980-04-01"},
		{"date with slashes", birthday, "1980/4/1", "1980-04-01"},
		{"date with dots", birthday, "1980.04.01", "1980-04-01"},
		{"date in kanji", birthday, "1980年4月1日", "1980-04-01"},
		{"date in full-width digits", birthday, "１９８０／０４／０１", "1980-04-01"},
		{"date as 8 digits", birthday, "19800401", "1980-04-01"},
		{"date that does not exist is kept for Validate", birthday, "1980-02-30", "1980-02-30"},
		{"two-digit year is not guessed", birthday, "80/4/1", "80/4/1"},
		{"era year is not guessed", birthday, "昭和55年4月1日", "昭和55年4月1日"},
		{"three-digit month kept", birthday, "1980-004-01", "1980-004-01"},
		{"date trimmed", birthday, " 1980-04-01 ", "1980-04-01"},
		{"phone with hyphens", phone, "03-1234-5678", "0312345678"},
		{"phone with brackets", phone, "03(1234)5678", "0312345678"},
		{"phone with full-width brackets", phone, "０３（１２３４）５６７８", "0312345678"},
		{"phone with spaces", phone, "090 1234 5678", "09012345678"},
		{"phone +81", phone, "+81-90-1234-5678", "09012345678"},
		{"phone +81 (0)", phone, "+81 (0)3 1234 5678", "0312345678"},
		{"phone full-width +", phone, "＋８１３１２３４５６７８", "0312345678"},
		{"phone letters kept for Validate", phone, "03-1234-567A", "031234567A"},
		{"postal with 〒 and space", postal, "〒 060-0000", "0600000"},
		{"postal with long mark (IME)", postal, "０６０ー００００", "0600000"},
		{"kana stays kana", kana, "サンプル", "サンプル"},
		{"kana from hiragana", kana, "さんぷる", "サンプル"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r account.Registration
			*tt.field(&r) = tt.in
			r.Normalise()
			assert.Equal(t, tt.want, *tt.field(&r))
		})
	}
}

func TestMatchRegistry(t *testing.T) {
	const name, address = "トヨタ自動車株式会社", "愛知県豊田市トヨタ町１番地"
	for _, tc := range []struct {
		label         string
		typed, state  string
		name, address string
		want          map[string]string
	}{
		{"agrees", "トヨタ自動車（株）", "愛知県", name, address, nil},
		{"wrong name", "テスト商事株式会社", "愛知県", name, address, map[string]string{"corporate_name": pay.MsgRegistryName}},
		{"wrong prefecture", "トヨタ自動車株式会社", "東京都", name, address, map[string]string{"address_state": pay.MsgRegistryPrefecture}},
		{"both wrong", "他社", "東京都", name, address, map[string]string{"corporate_name": pay.MsgRegistryName, "address_state": pay.MsgRegistryPrefecture}},
		{"no address in the registry", "トヨタ自動車株式会社", "東京都", name, "", nil},
		{"head office abroad", "トヨタ自動車株式会社", "東京都", name, "アメリカ合衆国", nil},
	} {
		t.Run(tc.label, func(t *testing.T) {
			errs := account.MatchRegistry(account.Registration{BusinessForm: pay.Corporation, CorporateName: tc.typed, AddressState: tc.state}, tc.name, tc.address)
			got := map[string]string{}
			for _, e := range errs {
				got[e.Field] = e.Message
			}
			if tc.want == nil {
				assert.Empty(t, got)
				return
			}
			assert.Equal(t, tc.want, got)
		})
	}
}
