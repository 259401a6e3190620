package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/pay"
)

func corporationForm() map[string]any {
	return map[string]any{
		"user_last_name": "山田", "user_first_name": "太郎", "phone_number": "03-1234-5678",
		"corporate_name": "テスト商事株式会社", "corporate_name_kana": "てすとしょうじ", "corporate_number": "7000012050002",
		"representative_last_name": "山田", "representative_first_name": "一郎",
		"representative_last_name_kana": "ヤマダ", "representative_first_name_kana": "イチロウ",
		"representative_birthday": "1970年4月1日", "representative_postal_code": "〒100-0001",
		"representative_address_state": "東京都", "representative_address_city": "千代田区",
		"representative_address_street": "千代田1-1", "representative_phone_number": "0312345678",
		"postal_code": "1000001", "address_state": "東京都", "address_city": "千代田区", "address_street": "千代田1-1",
		"business_category": "i",
	}
}

func soleProprietorForm() map[string]any {
	return map[string]any{
		"user_last_name": "佐藤", "user_first_name": "花子", "phone_number": "090-1234-5678",
		"business_name": "佐藤デザイン", "business_name_kana": "サトウデザイン", "business_category": "L",
		"business_postal_code": "1500001", "business_address_state": "東京都", "business_address_city": "渋谷区",
		"business_address_street": "神宮前1-1", "representative_last_name": "佐藤", "representative_first_name": "花子",
		"representative_last_name_kana": "サトウ", "representative_first_name_kana": "ハナコ",
		"representative_birthday": "1985-06-15", "home_postal_code": "1500001", "home_address_state": "東京都",
		"home_address_city": "渋谷区", "home_address_street": "神宮前2-2",
	}
}

func with(form map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range form {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// signUp runs POST users and certification, returning the verified signup_token.
func (e *env) signUp(t *testing.T, c *client, email, password string) string {
	t.Helper()
	r := c.post("/users", map[string]any{"email_address": email, "password": password, "consent": true})
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	token := r.str("signup_token")
	require.NotEmpty(t, token)
	code := e.WaitCode(t, email)
	r = c.post("/users/certification", map[string]any{"signup_token": token, "code": code})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, "verified", r.str("status"))
	return token
}

func TestSignupToCorporationRegistration(t *testing.T) {
	env := newEnv(t)
	c := env.client(t)
	const email = "new-corp@signup.example"

	r := c.post("/users", map[string]any{"email_address": "not an address", "password": "short"})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, r.String())
	errs := r.fieldErrors()
	assert.Contains(t, errs, "email_address")
	assert.Contains(t, errs, "password")
	assert.Equal(t, "利用規約とプライバシーポリシーに同意してください", errs["consent"])

	r = c.post("/users", map[string]any{"email_address": email, "password": "kakunin2026pass", "consent": true})
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	token := r.str("signup_token")
	code := env.WaitCode(t, email)

	r = c.post("/users/corporation", with(corporationForm(), "signup_token", token))
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, "no registration before the address is confirmed: %s", r)
	assert.Contains(t, r.fieldErrors(), "signup_token")

	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	r = c.post("/users/certification", map[string]any{"signup_token": token, "code": wrong})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.Equal(t, "確認コードが正しくありません。", r.fieldErrors()["code"])
	r = c.post("/users/certification", map[string]any{"signup_token": token})
	assert.Equal(t, "確認コードを入力してください", r.fieldErrors()["code"])
	r = c.post("/users/certification", map[string]any{"signup_token": token, "code": code})
	require.Equal(t, http.StatusOK, r.Status, r.String())

	bad := with(corporationForm(), "signup_token", token, "corporate_number", "1234567890123", "address_state", "東京")
	r = c.post("/users/corporation", bad)
	require.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.Equal(t, "法人番号が正しくありません。13桁の数字をご確認ください", r.fieldErrors()["corporate_number"])
	assert.Contains(t, r.fieldErrors(), "address_state")
	// The number is another company's in the registry: refused on the name, nothing made.
	r = c.post("/users/corporation", with(corporationForm(), "signup_token", token, "corporate_name", "なりすまし商事株式会社"))
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, r.String())
	assert.Equal(t, pay.MsgRegistryName, r.fieldErrors()["corporate_name"])
	_, err := webtest.Store().UserByEmail(context.Background(), email)
	assert.Error(t, err, "no account")

	// The path decides the business form.
	r = c.post("/users/corporation", with(corporationForm(), "signup_token", token, "business_form", 2))
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	user := r.Body["user"].(map[string]any)
	assert.Equal(t, float64(pay.Corporation), user["business_form"])
	assert.Equal(t, email, user["email_address"])
	assert.Equal(t, "テストショウジ", user["corporate_name_kana"], "kana is normalised")
	assert.Equal(t, "テストショウジ", user["transfer_person_name"], "the transfer name defaults to the kana name")
	assert.Equal(t, "1970-04-01", user["representative_birthday"])
	assert.Equal(t, "1000001", user["representative_postal_code"])
	assert.Equal(t, "I", user["business_category"])
	assert.Equal(t, "enabled", user["collection_mode"])
	assert.Equal(t, true, user["license_accepted"])

	r = c.post("/users/corporation", with(corporationForm(), "signup_token", token))
	require.Equal(t, http.StatusConflict, r.Status, "a sign-up registers once: %s", r)

	// The password is the sign-up's.
	r = env.client(t).post("/login", map[string]any{"email_address": email, "password": "kakunin2026pass"})
	assert.Equal(t, http.StatusOK, r.Status)
}

func TestSignupAsSoleProprietor(t *testing.T) {
	env := newEnv(t)
	c := env.client(t)
	token := env.signUp(t, c, "new-sole@signup.example", "kakunin2026pass")
	r := c.post("/users/sole_proprietor", with(soleProprietorForm(), "signup_token", token))
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	user := r.Body["user"].(map[string]any)
	assert.Equal(t, float64(pay.SoleProprietor), user["business_form"])
	assert.Equal(t, "buyerOnly", user["collection_mode"])
	assert.Equal(t, "サトウデザイン", user["transfer_person_name"])
	assert.Equal(t, "", user["corporate_name"])
}

func TestSignupDoesNotTellWhichAddressesExist(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.client(t)

	taken := c.post("/users", map[string]any{"email_address": u.EmailAddress, "password": "another2026pass", "consent": true})
	free := c.post("/users", map[string]any{"email_address": "free@signup.example", "password": "another2026pass", "consent": true})
	require.Equal(t, http.StatusCreated, taken.Status)
	assert.Equal(t, free.Status, taken.Status)
	assert.Equal(t, free.str("message"), taken.str("message"))
	m := env.Mail.WaitFor(t, u.EmailAddress, 10*time.Second)
	assert.Contains(t, m.Text, "既に登録されている", "the owner is told instead of getting a code")
	r := c.post("/users/certification", map[string]any{"signup_token": taken.str("signup_token"), "code": "123456"})
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status)

	// Re-registration answers the same with or without an open sign-up, and a made-up
	// token fails like a wrong code.
	open := c.post("/users/resignup", map[string]any{"email_address": "free@signup.example"})
	none := c.post("/users/resignup", map[string]any{"email_address": "nobody@signup.example"})
	require.Equal(t, http.StatusOK, open.Status, open.String())
	assert.Equal(t, open.Status, none.Status)
	assert.Equal(t, open.str("message"), none.str("message"))
	assert.Len(t, none.str("signup_token"), len(open.str("signup_token")))
	wrongOpen := c.post("/users/certification", map[string]any{"signup_token": open.str("signup_token"), "code": "000001"})
	wrongNone := c.post("/users/certification", map[string]any{"signup_token": none.str("signup_token"), "code": "000001"})
	if env.WaitCode(t, "free@signup.example") != "000001" {
		assert.Equal(t, wrongOpen.Raw, wrongNone.Raw)
	}
	regNone := c.post("/users/corporation", with(corporationForm(), "signup_token", none.str("signup_token")))
	regOpen := c.post("/users/corporation", with(corporationForm(), "signup_token", open.str("signup_token")))
	assert.Equal(t, regOpen.Raw, regNone.Raw, "unconfirmed and made-up tokens look alike")

	r = c.post("/users/resignup", map[string]any{"email_address": "bad"})
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status)
}

func TestResignupTokenOfAnotherVisitorCannotRegister(t *testing.T) {
	env := newEnv(t)
	owner, other := env.client(t), env.client(t)
	const email = "owner@signup.example"
	r := owner.post("/users", map[string]any{"email_address": email, "password": "kakunin2026pass", "consent": true})
	ownerToken := r.str("signup_token")
	code := env.WaitCode(t, email)
	require.Equal(t, http.StatusOK, owner.post("/users/certification", map[string]any{"signup_token": ownerToken, "code": code}).Status)

	// Someone who knows the address asks for a new code: their token is for the same
	// sign-up but was never confirmed by them.
	r = other.post("/users/resignup", map[string]any{"email_address": email})
	require.Equal(t, http.StatusOK, r.Status)
	env.WaitCode(t, email)
	r = other.post("/users/corporation", with(corporationForm(), "signup_token", r.str("signup_token")))
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status, r.String())
	assert.Contains(t, r.fieldErrors(), "signup_token")

	r = owner.post("/users/corporation", with(corporationForm(), "signup_token", ownerToken))
	assert.Equal(t, http.StatusCreated, r.Status, r.String())
}

func TestRegistrationValidationSavesNothing(t *testing.T) {
	env := newEnv(t)
	c := env.client(t)
	r := c.post("/users/validation", with(corporationForm(), "business_form", 1))
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, true, r.Body["valid"])
	assert.Empty(t, r.Body["errors"])
	reg := r.Body["registration"].(map[string]any)
	assert.Equal(t, "テストショウジ", reg["corporate_name_kana"])
	assert.Equal(t, "1970-04-01", reg["representative_birthday"])

	r = c.post("/users/validation", with(soleProprietorForm(), "business_form", 2, "home_postal_code", "12", "business_name_kana", "abc"))
	require.Equal(t, http.StatusOK, r.Status)
	assert.Equal(t, false, r.Body["valid"])
	errs := r.fieldErrors()
	assert.Equal(t, "自宅の郵便番号は7桁の数字で入力してください（例：100-0001）", errs["home_postal_code"])
	assert.Equal(t, "屋号（カナ）は全角カタカナで入力してください", errs["business_name_kana"])

	r = c.post("/users/validation", map[string]any{})
	assert.Equal(t, "事業形態を選択してください", r.fieldErrors()["business_form"])

	var n int
	require.NoError(t, webtest.Store().DB.GetContext(context.Background(), &n, `SELECT count(*) FROM buyers WHERE corporate_name = 'テスト商事株式会社' AND corporate_name_kana = 'テストショウジ' AND representative_birthday IS NULL`))
	assert.Zero(t, n)
}

func TestSimpleCheck(t *testing.T) {
	c := newEnv(t).client(t)
	r := c.post("/user_simple_check", map[string]any{"email_address": " ＴＡＲＯ＠Ｅｘａｍｐｌｅ．ｊｐ "})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, true, r.Body["valid"])
	assert.Equal(t, "TARO@example.jp", r.str("email_address"))

	r = c.post("/user_simple_check", map[string]any{"email_address": "taro@example.jp", "password": "taro12345678"})
	assert.Equal(t, false, r.Body["valid"])
	assert.Equal(t, "パスワードにメールアドレスの一部を含めないでください", r.fieldErrors()["password"])

	r = c.post("/user_simple_check", map[string]any{"password": "password123"})
	assert.Contains(t, r.fieldErrors()["password"], "よく使われて")
	r = c.post("/user_simple_check", map[string]any{"email_address": "x@"})
	assert.Contains(t, r.fieldErrors(), "email_address")
	assert.Empty(t, r.str("email_address"))

	r = c.post("/user_simple_check", map[string]any{})
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status)
}

func TestBusinessCategories(t *testing.T) {
	r := newEnv(t).client(t).get("/business_categories")
	require.Equal(t, http.StatusOK, r.Status)
	list := r.Body["business_categories"].([]any)
	require.Len(t, list, 20)
	assert.Equal(t, map[string]any{"code": "A", "name": "農業，林業"}, list[0])
}
