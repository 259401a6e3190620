package api_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/handlers/webtest"
	"cardpay/mail/mailtest"
	"cardpay/pay"
	"cardpay/store"
)

// registered creates a buyer through the account service, so every business field is set.
func registered(t *testing.T, env *env, form pay.BusinessForm) store.User {
	t.Helper()
	c := env.client(t)
	email := "reg-" + time.Now().Format("150405.000000000") + "@user.example"
	token := env.signUp(t, c, email, webtest.Password)
	body, path := with(corporationForm(), "signup_token", token, "representative_address_building_name", "千代田ビル3F"), "/users/corporation"
	if form == pay.SoleProprietor {
		body, path = with(soleProprietorForm(), "signup_token", token), "/users/sole_proprietor"
	}
	r := c.post(path, body)
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	u, err := webtest.Store().UserByEmail(context.Background(), email)
	require.NoError(t, err)
	return u
}

func TestInformationHasEveryFieldOfTheBusinessForm(t *testing.T) {
	env := newEnv(t)
	corp := registered(t, env, pay.Corporation)
	c := env.client(t)
	c.login(corp.EmailAddress)
	r := c.get("/users/information")
	require.Equal(t, http.StatusOK, r.Status)
	want := map[string]any{
		"user_id": float64(corp.ID), "buyer_id": float64(corp.BuyerID), "email_address": corp.EmailAddress,
		"user_last_name": "山田", "user_first_name": "太郎", "phone_number": "0312345678", "business_form": float64(1),
		"corporate_name": "テスト商事株式会社", "corporate_name_kana": "テストショウジ", "corporate_number": "7000012050002",
		"representative_last_name": "山田", "representative_first_name": "一郎",
		"representative_last_name_kana": "ヤマダ", "representative_first_name_kana": "イチロウ",
		"representative_birthday": "1970-04-01", "representative_postal_code": "1000001",
		"representative_address_state": "東京都", "representative_address_city": "千代田区",
		"representative_address_street": "千代田1-1", "representative_address_building_name": "千代田ビル3F",
		"representative_phone_number": "0312345678", "postal_code": "1000001", "address_state": "東京都",
		"address_city": "千代田区", "address_street": "千代田1-1", "address_building_name": "",
		"transfer_person_name": "テストショウジ", "business_category": "I",
		"external_integration_client_ids": []any{}, "collection_mode": "enabled", "two_factor_method": "",
		"terms_version": float64(account.TermsVersion), "current_terms_version": float64(account.TermsVersion), "license_accepted": true,
	}
	for k, v := range want {
		assert.Equal(t, v, r.Body[k], k)
	}

	sole := registered(t, env, pay.SoleProprietor)
	c.login(sole.EmailAddress)
	r = c.get("/users/information")
	for k, v := range map[string]any{
		"business_form": float64(2), "business_name": "佐藤デザイン", "business_name_kana": "サトウデザイン",
		"business_postal_code": "1500001", "business_address_city": "渋谷区", "home_address_street": "神宮前2-2",
		"representative_birthday": "1985-06-15", "corporate_name": "", "collection_mode": "buyerOnly",
		"user_last_name": "佐藤", "phone_number": "09012345678",
	} {
		assert.Equal(t, v, r.Body[k], k)
	}
}

func TestCollectionModeHonoursTheExclusionList(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	_, err := webtest.Store().DB.Exec(`UPDATE buyers SET corporate_number = '2000012010019' WHERE id = $1`, u.BuyerID)
	require.NoError(t, err)
	c := env.client(t)
	c.login(u.EmailAddress)
	assert.Equal(t, "buyerOnly", c.get("/users/information").str("collection_mode"))
	st := c.get("/users/stats")
	assert.Equal(t, "buyerOnly", st.str("collection_mode"))
	assert.Equal(t, "", st.str("collection_landing"))
}

func TestChangeNames(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.client(t)
	c.login(u.EmailAddress)

	r := c.put("/users/user_name", map[string]any{"user_last_name": "  鈴木 ", "user_first_name": "一郎"})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, "鈴木", r.str("user_last_name"))
	assert.Equal(t, "一郎", r.str("user_first_name"))

	r = c.put("/users/user_name", map[string]any{"user_last_name": "", "user_first_name": strings.Repeat("あ", 51)})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, r.String())
	assert.Equal(t, "担当者の姓を入力してください", r.fieldErrors()["user_last_name"])
	assert.NotEmpty(t, r.fieldErrors()["user_first_name"])
	assert.Len(t, r.fieldErrors(), 2, "only the two fields are checked")
	r = c.put("/users/user_name", map[string]any{"user_last_name": "鈴\u200b木", "user_first_name": "一郎"})
	assert.Equal(t, "担当者の姓に使用できない文字が含まれています", r.fieldErrors()["user_last_name"])

	r = c.put("/users/transfer_person_name", map[string]any{"transfer_person_name": "すずきしょうじ"})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, "スズキショウジ", r.str("transfer_person_name"))
	r = c.put("/users/transfer_person_name", map[string]any{"transfer_person_name": "Suzuki"})
	assert.Equal(t, "振込依頼人名（カナ）は全角カタカナで入力してください", r.fieldErrors()["transfer_person_name"])
	r = c.put("/users/transfer_person_name", map[string]any{"transfer_person_name": " "})
	assert.Equal(t, "振込依頼人名（カナ）を入力してください", r.fieldErrors()["transfer_person_name"])

	got, err := webtest.Store().User(context.Background(), u.BuyerID, u.ID)
	require.NoError(t, err)
	assert.Equal(t, "鈴木", got.LastName)
}

func TestAcceptLicense(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	require.NoError(t, webtest.Store().AcceptTerms(context.Background(), u.BuyerID, u.ID, 0, time.Now()))
	c := env.client(t)
	c.login(u.EmailAddress)
	assert.Equal(t, false, c.get("/users/information").Body["license_accepted"])

	r := c.put("/users/license", map[string]any{})
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status)
	r = c.put("/users/license", map[string]any{"terms_version": account.TermsVersion + 1})
	assert.Equal(t, http.StatusConflict, r.Status)
	assert.Equal(t, "terms_outdated", r.str("status"))
	r = c.put("/users/license", map[string]any{"terms_version": account.TermsVersion})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, true, r.Body["license_accepted"])
	assert.Equal(t, true, c.get("/users/information").Body["license_accepted"])
}

func TestStats(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	for range 3 {
		_, err := webtest.Store().CreateNotification(context.Background(), u.BuyerID, "お知らせ", "本文")
		require.NoError(t, err)
	}
	c := env.client(t)
	c.login(u.EmailAddress)
	r := c.get("/users/stats")
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, float64(3), r.num("notification_unread_count"))
	assert.Equal(t, "/payments/create", r.str("payment_landing"))
	assert.Equal(t, "/collections/history", r.str("collection_landing"))
	assert.Equal(t, map[string]any{"action_required": 0.0, "review": 0.0, "reserved": 0.0, "history": 0.0, "draft": 0.0, "waiting": 0.0}, r.Body["payments"])
}

func TestChangePasswordEndsOtherSignInsOnly(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c, other, browser := env.client(t), env.client(t), env.client(t)
	c.login(u.EmailAddress)
	other.login(u.EmailAddress)
	browser.cookieSignIn(u)
	browser.headers["X-Requested-With"] = "fetch"
	require.Equal(t, http.StatusOK, browser.get("/users/information").Status)

	r := c.put("/users/password", map[string]any{"current_password": "wrong password 9", "password": "newpassword2026"})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.Equal(t, "現在のパスワードが正しくありません", r.fieldErrors()["current_password"])
	r = c.put("/users/password", map[string]any{"password": "short"})
	assert.Len(t, r.fieldErrors(), 2)
	r = c.put("/users/password", map[string]any{"current_password": webtest.Password, "password": "short"})
	assert.Contains(t, r.fieldErrors(), "password")
	r = c.put("/users/password", map[string]any{"current_password": webtest.Password, "password": "Ｑwerty123456789"})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.Equal(t, map[string]string{"password": "このパスワードはよく使われていて推測されやすいため、別のパスワードを入力してください"}, r.fieldErrors())
	r = c.put("/users/password", map[string]any{"current_password": webtest.Password, "password": "my " + u.EmailAddress + " 1"})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.Equal(t, map[string]string{"password": "パスワードにメールアドレスの一部を含めないでください"}, r.fieldErrors())
	assert.Equal(t, u.PasswordHash, webtest.ReloadUser(t, u).PasswordHash, "refused changes store nothing")

	r = c.put("/users/password", map[string]any{"current_password": webtest.Password, "password": "newpassword2026"})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	env.Mail.WaitFor(t, u.EmailAddress, 10*time.Second)

	assert.Equal(t, http.StatusOK, c.get("/users/information").Status, "the caller stays signed in")
	assert.Equal(t, "unauthorized", other.get("/users/information").str("status"), "other API sign-ins end")
	r = env.client(t).post("/users/token", map[string]any{"refresh_token": other.tokens.RefreshToken})
	assert.Equal(t, "invalid_refresh_token", r.str("status"), "and cannot refresh")
	assert.Equal(t, http.StatusUnauthorized, browser.get("/users/information").Status, "the browser session ends too")
	r = env.client(t).post("/users/token", map[string]any{"refresh_token": c.tokens.RefreshToken})
	assert.Equal(t, http.StatusOK, r.Status, "the caller can still refresh: %s", r)

	r = env.client(t).post("/login", map[string]any{"email_address": u.EmailAddress, "password": "newpassword2026"})
	assert.Equal(t, http.StatusOK, r.Status)
}

func TestChangePasswordInCookieModeKeepsTheSession(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.SoleProprietor, "")
	browser := env.client(t)
	browser.cookieSignIn(u)
	browser.headers["X-Requested-With"] = "fetch"
	r := browser.put("/users/password", map[string]any{"current_password": webtest.Password, "password": "newpassword2026"})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, http.StatusOK, browser.get("/users/information").Status)
}

func TestSecuritySettings(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.client(t)
	c.login(u.EmailAddress)
	r := c.get("/users/security_settings")
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, "", r.str("two_factor_method"))
	history := r.Body["recent_sign_ins"].([]any)
	require.NotEmpty(t, history)
	assert.Equal(t, true, history[0].(map[string]any)["succeeded"])

	// Mail two-factor: the password, then the mailed code.
	r = c.put("/users/security_settings", map[string]any{"two_factor_method": "email"})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, r.String())
	assert.Equal(t, "現在のパスワードを入力してください", r.fieldErrors()["current_password"])
	r = c.put("/users/security_settings", map[string]any{"two_factor_method": "email", "current_password": "wrong password 9"})
	assert.Equal(t, "現在のパスワードが正しくありません", r.fieldErrors()["current_password"])
	r = c.put("/users/security_settings", map[string]any{"two_factor_method": "email", "current_password": webtest.Password})
	require.Equal(t, http.StatusAccepted, r.Status, r.String())
	assert.Equal(t, "code_sent", r.str("status"))
	code := env.WaitCode(t, u.EmailAddress)
	assert.Equal(t, "", c.get("/users/security_settings").str("two_factor_method"), "not on before the code")
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	r = c.put("/users/security_settings", map[string]any{"two_factor_method": "email", "code": wrong})
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.Contains(t, r.fieldErrors(), "code")
	r = c.put("/users/security_settings", map[string]any{"two_factor_method": "email", "code": code})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, "email", r.str("two_factor_method"))
	env.Mail.WaitFor(t, u.EmailAddress, 10*time.Second) // the change is confirmed by mail
	r = c.put("/users/security_settings", map[string]any{"two_factor_method": "email"})
	assert.Equal(t, http.StatusOK, r.Status, "already on: nothing to do")

	r = c.put("/users/security_settings", map[string]any{"two_factor_method": "totp"})
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.Contains(t, r.fieldErrors()["two_factor_method"], "セキュリティ設定画面")
	r = c.put("/users/security_settings", map[string]any{"two_factor_method": "sms"})
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status)
	r = c.put("/users/security_settings", map[string]any{})
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status)

	// Turning it off needs the password.
	r = c.put("/users/security_settings", map[string]any{"two_factor_method": ""})
	assert.Contains(t, r.fieldErrors(), "current_password")
	r = c.put("/users/security_settings", map[string]any{"two_factor_method": "", "current_password": "wrong password 9"})
	assert.Equal(t, "現在のパスワードが正しくありません", r.fieldErrors()["current_password"])
	got, err := webtest.Store().User(context.Background(), u.BuyerID, u.ID)
	require.NoError(t, err)
	assert.Equal(t, "email", got.TwoFactorMethod, "nothing changed")
	r = c.put("/users/security_settings", map[string]any{"two_factor_method": "", "current_password": webtest.Password})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, "", r.str("two_factor_method"))
}

func TestChangeEmailAddress(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	taken := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.client(t)
	c.login(u.EmailAddress)
	newAddress := "changed-" + u.EmailAddress

	r := c.put("/users/email_address", map[string]any{"email_address": newAddress})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, r.String())
	assert.Contains(t, r.fieldErrors(), "current_password")
	r = c.put("/users/email_address", map[string]any{"email_address": "broken", "current_password": webtest.Password})
	assert.Contains(t, r.fieldErrors(), "email_address")
	// An address in use is answered like a free one; its owner is told, without a code.
	r = c.put("/users/email_address", map[string]any{"email_address": taken.EmailAddress, "current_password": webtest.Password})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, "code_sent", r.str("status"))
	inUse := env.Mail.WaitFor(t, taken.EmailAddress, 10*time.Second)
	assert.Contains(t, inUse.Subject, "メールアドレス変更のお申し込みについて")
	assert.Empty(t, mailtest.Code(inUse.Text))

	r = c.put("/users/email_address", map[string]any{"email_address": newAddress, "current_password": webtest.Password})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, "code_sent", r.str("status"))
	code := env.WaitCode(t, newAddress)
	assert.Equal(t, u.EmailAddress, c.get("/users/information").str("email_address"), "nothing changes before the code")

	r = c.post("/users/verify_email_auth_code", map[string]any{})
	assert.Equal(t, "確認コードを入力してください", r.fieldErrors()["code"])
	r = c.post("/users/verify_email_auth_code", map[string]any{"code": code})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, newAddress, r.str("email_address"))
	env.Mail.WaitFor(t, u.EmailAddress, 10*time.Second) // the old address is told
	r = c.post("/users/verify_email_auth_code", map[string]any{"code": code})
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status, "a code works once")

	r = env.client(t).post("/login", map[string]any{"email_address": newAddress, "password": webtest.Password})
	assert.Equal(t, http.StatusOK, r.Status, "the new address signs in")
}

func TestTwoBuyersSeeOnlyTheirOwnData(t *testing.T) {
	env := newEnv(t)
	ctx := context.Background()
	a, b := webtest.NewBuyer(t, pay.Corporation, ""), webtest.NewBuyer(t, pay.SoleProprietor, "")
	na, err := webtest.Store().CreateNotification(ctx, a.BuyerID, "Aさんへ", "Aの本文")
	require.NoError(t, err)
	nb, err := webtest.Store().CreateNotification(ctx, b.BuyerID, "Bさんへ", "Bの本文")
	require.NoError(t, err)
	ca, cb := env.client(t), env.client(t)
	ca.login(a.EmailAddress)
	cb.login(b.EmailAddress)

	assert.Equal(t, a.EmailAddress, ca.get("/users/information").str("email_address"))
	assert.Equal(t, b.EmailAddress, cb.get("/users/information").str("email_address"))

	la := ca.get("/users/notifications")
	require.Equal(t, http.StatusOK, la.Status)
	assert.Equal(t, float64(1), la.num("count_all"))
	assert.Equal(t, "Aさんへ", la.Body["notifications"].([]any)[0].(map[string]any)["title"])

	r := cb.get("/users/notices/" + itoa(na))
	assert.Equal(t, http.StatusNotFound, r.Status, "B cannot read A's notification")
	assert.Equal(t, "not_found", r.str("status"))
	r = cb.post("/users/notifications/"+itoa(na)+"/confirmation", nil)
	assert.Equal(t, http.StatusNotFound, r.Status, "nor mark it read")
	n, err := webtest.Store().NotificationOf(ctx, a.BuyerID, na)
	require.NoError(t, err)
	assert.Nil(t, n.ReadAt)
	assert.Equal(t, http.StatusOK, cb.get("/users/notices/"+itoa(nb)).Status)

	// Changing one's name never touches the other buyer.
	require.Equal(t, http.StatusOK, cb.put("/users/user_name", map[string]any{"user_last_name": "別人", "user_first_name": "花子"}).Status)
	assert.Equal(t, "山田", ca.get("/users/information").str("user_last_name"))
}

func TestNotifications(t *testing.T) {
	env := newEnv(t)
	ctx := context.Background()
	u := webtest.NewBuyer(t, pay.Corporation, "")
	var ids []int64
	for i := range 5 {
		id, err := webtest.Store().CreateNotification(ctx, u.BuyerID, "お知らせ"+itoa(int64(i)), "本文")
		require.NoError(t, err)
		ids = append(ids, id)
	}
	c := env.client(t)
	c.login(u.EmailAddress)

	r := c.get("/users/notifications?page=0&size=1")
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, float64(5), r.num("count_all"))
	assert.Equal(t, float64(5), r.num("count_unread"))
	list := r.Body["notifications"].([]any)
	require.Len(t, list, 1)
	assert.Equal(t, float64(ids[4]), list[0].(map[string]any)["id"], "newest first")

	r = c.get("/users/notifications?page=1&size=2")
	list = r.Body["notifications"].([]any)
	require.Len(t, list, 2)
	assert.Equal(t, float64(ids[2]), list[0].(map[string]any)["id"])
	r = c.get("/users/notifications?page=9&size=2")
	assert.Empty(t, r.Body["notifications"])
	assert.Equal(t, float64(20), c.get("/users/notifications").num("size"))

	for _, q := range []string{"page=-1", "size=0", "size=101", "page=x", "size=1.5", "page=99999999999999999999"} {
		r = c.get("/users/notifications?" + q)
		assert.Equal(t, http.StatusUnprocessableEntity, r.Status, q)
	}

	r = c.get("/users/notices/" + itoa(ids[0]))
	require.Equal(t, http.StatusOK, r.Status)
	assert.Equal(t, "お知らせ0", r.str("title"))
	assert.Equal(t, false, r.Body["read"], "reading the detail does not mark it read")

	r = c.post("/users/notifications/"+itoa(ids[0])+"/confirmation", nil)
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, true, r.Body["read"])
	first := r.str("read_at")
	env.clock.Add(10 * time.Minute)
	r = c.post("/users/notifications/"+itoa(ids[0])+"/confirmation", nil)
	assert.Equal(t, first, r.str("read_at"), "confirming again keeps the first time")
	assert.Equal(t, float64(4), c.get("/users/notifications").num("count_unread"))
	assert.Equal(t, float64(4), c.get("/users/stats").num("notification_unread_count"))

	for _, id := range []string{"0", "-1", "abc", "99999999999999999999", "1.5"} {
		assert.Equal(t, http.StatusNotFound, c.get("/users/notices/"+id).Status, id)
	}
}

func TestPasswordResetThroughTheAPI(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	signedIn := env.client(t)
	signedIn.login(u.EmailAddress)
	c := env.client(t)

	known := c.post("/users/send_password_reset_code", map[string]any{"email_address": u.EmailAddress})
	unknown := c.post("/users/send_password_reset_code", map[string]any{"email_address": "nobody@reset.example"})
	require.Equal(t, http.StatusOK, known.Status, known.String())
	assert.Equal(t, known.Raw, unknown.Raw, "the same answer whether or not the address has an account")
	r := c.post("/users/send_password_reset_code", map[string]any{"email_address": "broken"})
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status)
	code := env.WaitCode(t, u.EmailAddress)

	wrongCode := c.put("/users/password_reset", map[string]any{"email_address": u.EmailAddress, "code": "000000", "password": "brandnew2026pass"})
	noAccount := c.put("/users/password_reset", map[string]any{"email_address": "nobody@reset.example", "code": "000000", "password": "brandnew2026pass"})
	if code != "000000" {
		assert.Equal(t, http.StatusUnprocessableEntity, wrongCode.Status)
		assert.Equal(t, wrongCode.Raw, noAccount.Raw, "an unknown address fails like a wrong code")
	}
	r = c.put("/users/password_reset", map[string]any{"email_address": u.EmailAddress, "code": code, "password": "short"})
	assert.Contains(t, r.fieldErrors(), "password")
	r = c.put("/users/password_reset", map[string]any{"email_address": u.EmailAddress, "code": code, "password": "brandnew2026pass"})
	require.Equal(t, http.StatusOK, r.Status, r.String())

	assert.Equal(t, "unauthorized", signedIn.get("/users/information").str("status"), "a reset ends every API sign-in")
	r = env.client(t).post("/login", map[string]any{"email_address": u.EmailAddress, "password": "brandnew2026pass"})
	assert.Equal(t, http.StatusOK, r.Status)
	r = c.put("/users/password_reset", map[string]any{"email_address": u.EmailAddress, "code": code, "password": "another2026pass"})
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status, "a code works once")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
