package securitysuite_test

// CSRF, as this application defends against it (DESIGN.md §6). There are no per-form
// tokens to steal or omit: Go's http.CrossOriginProtection stands in front of every
// page, the API and the operator console (handlers/site.go) and refuses a cross-origin
// unsafe request with 403 (web.App.DenyCrossOrigin) before a session is even loaded;
// session cookies are SameSite=Lax (the console's Strict); and the API in cookie mode
// also needs the header X-Requested-With: fetch, which a cross-site page cannot send
// without a CORS preflight that is never granted (handlers/api/authn.go).
//
// So the cases become:
//   - "posted without the token": a cross-site request carrying the victim's session
//     cookies, sent to every unsafe route (POST, PUT, PATCH, DELETE) registered on the
//     echo router — pages, /api/v1 and /ops, and the API's 405 answers for methods a
//     path does not serve — in three ways: a modern browser's
//     (Sec-Fetch-Site: cross-site, Origin: http://evil.example), an older browser's
//     (Origin: http://evil.example alone, no Fetch metadata) and a sibling subdomain's
//     (Sec-Fetch-Site: same-site): a same-site page gets SameSite=Lax cookies sent, so
//     the origin check is the only lock there. The cookies are always sent here, as if
//     the browser ignored SameSite. Every one must answer the refusal page (403), and no
//     row of any table may change (every row of every table is hashed before and after:
//     nothing is left out). The one unsafe route outside the check is the PSP's webhook
//     (handlers/site.go serves it beside echo: no browser sends it, its signature
//     authenticates it); it is listed, and an unsigned cross-site post to it is refused;
//   - "with another session's token": the API's own second lock is the header, so (a)
//     the victim's cookie from our own origin but without X-Requested-With must be
//     refused (401) and change nothing (the scs session and the user_sessions row by
//     row count only: a request with the cookie may move their last-seen time); and (b) the header with a cookie of a different
//     session — the attacker's own, signed in as the attacker's buyer — may only ever act
//     as the attacker: every unsafe API call aimed at the victim's ids (suppliers, bank
//     accounts, cards, invoices, drafts, notifications, the victim's buyer id) leaves
//     every row of the victim's unchanged, while a call about oneself (the user name)
//     changes the attacker's own.

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v5"
	"github.com/lib/pq"
	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/calendar"
	"cardpay/handlers/api"
	"cardpay/handlers/webtest"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
)

// denyHeading is the refusal page's heading (web.App.DenyCrossOrigin): a 403 with it
// comes from the origin check, not from a handler's own refusal.
const denyHeading = "送信を受け付けられません"

// crossSiteWays are the ways a cross-site request arrives.
var crossSiteWays = []struct {
	name    string
	headers map[string]string
}{
	{"Sec-Fetch-Site: cross-site", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "http://evil.example"}},
	{"Origin only", map[string]string{"Origin": "http://evil.example"}},
	{"Sec-Fetch-Site: same-site", map[string]string{"Sec-Fetch-Site": "same-site", "Origin": "http://evil.localhost"}},
}

func TestCSRFEveryUnsafeRouteRefusesCrossSiteRequests(t *testing.T) {
	env := webtest.New(t)
	v := newVictim(t, env)
	routes := unsafeRoutes(env)
	require.Greater(t, len(routes), 100, "the router lists the unsafe routes")
	// The API's 405 answers for methods a path does not serve are routes too.
	fallbacks := apiFallbacks(env)

	// The one unsafe route outside echo: the PSP's webhook, mounted beside it on the
	// ServeMux without sessions or the origin check (handlers/site.go, serverRoutes).
	// No browser sends it; its signature authenticates it. An unsigned cross-site post
	// must still be refused and store nothing.
	env.Settle(t)
	before := tableDigests(t)
	wh := v.send(t, http.MethodPost, api.WebhookPath, "application/json",
		[]byte(`{"type":"payment.captured","data":{}}`), crossSiteWays[0].headers)
	require.GreaterOrEqual(t, wh.status, 400, "an unsigned webhook is refused: %d %s", wh.status, wh.body)
	require.Less(t, wh.status, 500, wh.body)
	require.NotContains(t, wh.body, denyHeading, "the webhook is not behind the origin check, by design")

	counts := map[string]int{}
	var wrong []string
	for _, way := range crossSiteWays {
		for _, r := range append(slices.Clone(routes), fallbacks...) {
			path := fillPath(r.Path, v.ids)
			ct, body := "application/x-www-form-urlencoded", []byte(attackForm(v).Encode())
			h := map[string]string{}
			for k, val := range way.headers {
				h[k] = val
			}
			if strings.HasPrefix(r.Path, api.Prefix+"/") {
				// The API's strongest case: JSON, and the header too (the origin
				// check alone must refuse it).
				ct, body = "application/json", attackJSON(v)
				h["X-Requested-With"] = "fetch"
			}
			res := v.send(t, r.Method, path, ct, body, h)
			counts[way.name]++
			if res.status != http.StatusForbidden || !strings.Contains(res.body, denyHeading) {
				wrong = append(wrong, fmt.Sprintf("%s %s (%s): %d", r.Method, path, way.name, res.status))
			}
		}
	}
	env.Settle(t)
	after := tableDigests(t)
	changed := changedTables(before, after, nil)

	sent := 0
	for _, n := range counts {
		sent += n
	}
	fig := fmt.Sprintf("%d unsafe routes (%d pages, %d /ops, %d /api/v1) + %d API 405 fallbacks × %d ways: %d × 403 of %d, %d of %d tables changed; excluded: POST %s (outside the check, signature: %d)",
		len(routes), countPrefix(routes, ""), countPrefix(routes, "/ops"), countPrefix(routes, api.Prefix), len(fallbacks), len(crossSiteWays),
		sent-len(wrong), sent, len(changed), len(after), api.WebhookPath, wh.status)
	if len(wrong) > 0 {
		t.Errorf("not refused by the origin check (first of %d): %s", len(wrong), strings.Join(wrong[:min(10, len(wrong))], "; "))
	}
	if len(changed) > 0 {
		t.Errorf("tables changed by refused requests: %v", changed)
	}
	record(t, "CSRF", "cross-site request with the victim's cookies to every unsafe route", fig, len(wrong) == 0 && len(changed) == 0)

	// The same attack from our own origin does act: the bodies above are real ones.
	res := v.send(t, http.MethodPost, "/myaccount/company/user-name", "application/x-www-form-urlencoded",
		[]byte(attackForm(v).Encode()), map[string]string{"Origin": env.URL, "Sec-Fetch-Site": "same-origin"})
	name := webtest.ReloadUser(t, v.user).LastName
	record(t, "CSRF", "control: the same form from our own origin", fmt.Sprintf("POST /myaccount/company/user-name: %d, name now %q", res.status, name),
		res.status == http.StatusSeeOther && name == "攻撃")
}

func TestCSRFAPICookieModeNeedsTheHeaderAndActsOnlyAsItsOwnSession(t *testing.T) {
	env := webtest.New(t)
	v := newVictim(t, env)
	var apiRoutes []echo.RouteInfo
	for _, r := range unsafeRoutes(env) {
		if strings.HasPrefix(r.Path, api.Prefix+"/") && (signedInAPI(r) || r.Path == api.Prefix+"/logout") {
			apiRoutes = append(apiRoutes, r)
		}
	}
	// Logout last: it would end the session the other calls use.
	sort.SliceStable(apiRoutes, func(i, j int) bool {
		return !strings.HasSuffix(apiRoutes[i].Path, "/logout") && strings.HasSuffix(apiRoutes[j].Path, "/logout")
	})
	require.Greater(t, len(apiRoutes), 30)

	// (a) The victim's own cookie from our own origin, without X-Requested-With. The
	// victim's session row and scs session are compared by count only: a request with
	// the cookie may move the session's last-seen time (at most once a minute).
	require.True(t, v.c.SignedIn())
	env.Settle(t)
	before := tableDigests(t)
	sameOrigin := map[string]string{"Origin": env.URL, "Sec-Fetch-Site": "same-origin"}
	var wrong []string
	for _, r := range apiRoutes {
		path := fillPath(r.Path, v.ids)
		res := v.send(t, r.Method, path, "application/json", attackJSON(v), sameOrigin)
		if res.status != http.StatusUnauthorized && res.status != http.StatusForbidden {
			wrong = append(wrong, fmt.Sprintf("%s %s: %d", r.Method, path, res.status))
		}
	}
	env.Settle(t)
	changed := changedTables(before, tableDigests(t), []string{"sessions", "user_sessions"})
	if len(wrong) > 0 {
		t.Errorf("cookie mode without the header was not refused: %s", strings.Join(wrong, "; "))
	}
	record(t, "CSRF", "API cookie mode without X-Requested-With (victim's cookie, same origin)",
		fmt.Sprintf("%d signed-in unsafe API routes: %d × 401/403, %d of %d tables changed (sessions, user_sessions by row count)", len(apiRoutes), len(apiRoutes)-len(wrong), len(changed), len(before)),
		len(wrong) == 0 && len(changed) == 0)
	require.True(t, v.c.SignedIn(), "the victim is still signed in")

	// (b) The header with another session's cookie: the attacker's own sign-in.
	attackerUser := webtest.NewBuyer(t, pay.Corporation, "")
	attacker := &victim{user: attackerUser, c: env.Client(t), ids: v.ids}
	attacker.c.SignIn(attackerUser.EmailAddress)
	env.Settle(t)
	victimBefore := buyerDigests(t, v.user.BuyerID)
	statuses := map[int]int{}
	for _, r := range apiRoutes {
		h := map[string]string{"Origin": env.URL, "Sec-Fetch-Site": "same-origin", "X-Requested-With": "fetch"}
		res := attacker.send(t, r.Method, fillPath(r.Path, v.ids), "application/json", attackJSON(v), h)
		statuses[res.status]++
		if res.status >= 500 {
			t.Errorf("%s %s as the attacker: %d %s", r.Method, r.Path, res.status, res.body)
		}
	}
	env.Settle(t)
	victimChanged := changedTables(victimBefore, buyerDigests(t, v.user.BuyerID), nil)
	own := webtest.ReloadUser(t, attackerUser).LastName
	victimName := webtest.ReloadUser(t, v.user).LastName
	var codes []string
	for _, s := range slices.Sorted(maps.Keys(statuses)) {
		codes = append(codes, fmt.Sprintf("%d×%d", statuses[s], s))
	}
	record(t, "CSRF", "API cookie mode with the header but the attacker's own session, aimed at the victim's ids",
		fmt.Sprintf("%d calls (%s): victim's rows changed in %d of %d tables; PUT users/user_name renamed the attacker (%q), not the victim (%q)",
			len(apiRoutes), strings.Join(codes, ", "), len(victimChanged), len(victimBefore), own, victimName),
		len(victimChanged) == 0 && own == "攻撃" && victimName != "攻撃")
	if len(victimChanged) > 0 {
		t.Errorf("the victim's rows changed: %v", victimChanged)
	}
}

// victim is a signed-in buyer with data of every kind, whose browser is also signed in
// to the operator console (all roles), so that every unsafe route has a session and an
// id worth attacking.
type victim struct {
	user store.User
	c    *webtest.Client
	// ids fill path parameters: card, supplier, account, invoice, notification, draft,
	// request_draft, buyer, session.
	ids map[string]string
}

var opSeq atomic.Int64

// opSecret is the test operators' authenticator secret.
const (
	opSecret   = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
	opPassword = "operator password 2026"
)

func newVictim(t *testing.T, env *webtest.Env) *victim {
	t.Helper()
	ctx := context.Background()
	st := webtest.Store()
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	ids := map[string]string{"buyer": strconv.FormatInt(u.BuyerID, 10)}
	put := func(k string, id int64) { ids[k] = strconv.FormatInt(id, 10) }

	sup, err := st.CreateSupplier(ctx, u.BuyerID, pay.SupplierInput{BusinessForm: pay.Corporation,
		Name: "株式会社山田商事", NameKana: "カブシキガイシャヤマダショウジ", CorporateNumber: "1180301018771"},
		&store.AccountFields{BankCode: "0001", BankName: "みずほ", BranchCode: "001", BranchName: "東京営業部",
			AccountType: pay.AccountOrdinary, AccountNumber: "1234567", HolderName: "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ"})
	require.NoError(t, err)
	put("supplier", sup.ID)
	accts, err := st.SupplierAccounts(ctx, u.BuyerID, sup.ID)
	require.NoError(t, err)
	put("account", accts[0].ID)

	res := env.PSP.AddCard(t, c, "4111111111111111")
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	cards, err := st.Cards(ctx, u.BuyerID)
	require.NoError(t, err)
	require.NotEmpty(t, cards)
	put("card", cards[0].ID)

	d := pay.EarliestTransferDate(time.Now()).AddDate(0, 0, 10)
	for calendar.IsBankHoliday(d) {
		d = d.AddDate(0, 0, 1)
	}
	sub, err := env.App.Payments.Submit(ctx, u.BuyerID, invoices.Submission{SubmitKey: fmt.Sprintf("suite-key-%d-%d", u.ID, time.Now().UnixNano()),
		UserID: u.ID, SupplierID: sup.ID, AccountID: accts[0].ID, CardID: cards[0].ID,
		Invoice: pay.InvoiceInput{Amount: "100000", DueDate: pay.ISODate(d.AddDate(0, 0, 5)), TransferDate: pay.ISODate(d), InvoiceNumber: "INV-77"}})
	require.NoError(t, err)
	put("invoice", sub.Payment.ID)

	n, err := st.CreateNotification(ctx, u.BuyerID, "お知らせ", "本文")
	require.NoError(t, err)
	put("notification", n)
	draft, err := st.SaveDraft(ctx, u.BuyerID, store.PaymentDraft, 0, []byte(`{"invoice":{"memo":"下書き"}}`), store.DraftSummary{Step: "/payments/add/invoice"}, time.Now())
	require.NoError(t, err)
	put("draft", draft)
	rdraft, err := st.SaveDraft(ctx, u.BuyerID, store.RequestDraft, 0, []byte(`{}`), store.DraftSummary{Step: "/collections/add/invoice"}, time.Now())
	require.NoError(t, err)
	put("request_draft", rdraft)
	_, err = st.CreateBuyerAccount(ctx, u.BuyerID, store.AccountFields{BankCode: "0001", BankName: "みずほ", BranchCode: "001",
		BranchName: "東京営業部", AccountType: pay.AccountOrdinary, AccountNumber: "7654321", HolderName: "ﾃｽﾄｼﾖｳｼﾞ"})
	require.NoError(t, err)
	var sid int64
	require.NoError(t, st.DB.GetContext(ctx, &sid, `SELECT max(id) FROM user_sessions WHERE user_id = $1`, u.ID))
	put("session", sid)

	// The same browser signed in to the console as an operator with every role.
	op := newOperator(t, env)
	res = c.Post("/ops/signin", url.Values{"email_address": {op.EmailAddress}, "password": {opPassword}, "code": {opCode(t)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.NotEmpty(t, c.Cookie("cardpay_session"))
	return &victim{user: u, c: c, ids: ids}
}

// newOperator creates an operator with every role.
func newOperator(t *testing.T, env *webtest.Env) store.Operator {
	t.Helper()
	n := opSeq.Add(1)
	created, err := env.App.Account.CreateOperator(context.Background(), account.NewOperatorInput{
		EmailAddress: fmt.Sprintf("suite-op-%d-%d@ops.test.example", n, time.Now().UnixNano()%1e6), Name: fmt.Sprintf("担当 %d", n),
		Password: opPassword, Roles: []string{pay.RoleScreening, pay.RoleTransfers, pay.RoleAdmin}, TOTPSecret: opSecret})
	require.NoError(t, err)
	return created.Operator
}

func opCode(t *testing.T) string {
	t.Helper()
	c, err := totp.GenerateCode(opSecret, time.Now())
	require.NoError(t, err)
	return c
}

// attackForm is what a forged form would post: plausible values for the fields of the
// site's forms, so that the same request from our own origin would act.
func attackForm(v *victim) url.Values {
	return url.Values{
		"user_last_name": {"攻撃"}, "user_first_name": {"者"}, "transfer_person_name": {"コウゲキシャ"},
		"current_password": {webtest.Password}, "password": {"attacker chosen 2026 pass"}, "password_confirmation": {"attacker chosen 2026 pass"},
		"email_address": {"attacker@evil.example"}, "two_factor_method": {"none"},
		"drafts": {v.ids["draft"]}, "ids": {v.ids["draft"]}, "card_id": {v.ids["card"]}, "supplier_id": {v.ids["supplier"]},
		"account_id": {v.ids["account"]}, "confirm": {"1"}, "agree": {"1"}, "reason": {"攻撃"}, "decision": {"approve"},
	}
}

// attackJSON is the API's equivalent: the victim's ids wherever a body names one.
func attackJSON(v *victim) []byte {
	id := func(k string) int64 { n, _ := strconv.ParseInt(v.ids[k], 10, 64); return n }
	b, _ := json.Marshal(map[string]any{
		"user_last_name": "攻撃", "user_first_name": "者", "transfer_person_name": "コウゲキシャ",
		"current_password": webtest.Password, "password": "attacker chosen 2026 pass", "password_confirmation": "attacker chosen 2026 pass",
		"email_address": "attacker@evil.example", "two_factor_method": "none",
		"drafts": []int64{id("draft")}, "invoice_request_drafts": []int64{id("request_draft")},
		"card_id": id("card"), "supplier_id": id("supplier"), "account_id": id("account"),
		"bank_code": "0005", "branch_code": "001", "account_type": 2, "account_number": "1111111", "holder_name": "ｺｳｹﾞｷｼﾔ",
		"invoice": map[string]any{"amount": "5000", "memo": "攻撃"}, "step": "/payments/add/invoice",
	})
	return b
}

type answer struct {
	status   int
	body     string
	location string
}

// send sends one request with v's cookies and the given headers; a transport error fails
// the test.
func (v *victim) send(t *testing.T, method, path, contentType string, body []byte, headers map[string]string) answer {
	t.Helper()
	a, err := sendRaw(v.c, method, path, contentType, body, headers)
	require.NoError(t, err, "%s %s", method, path)
	return a
}

// sendRaw is send without testing.T, for worker goroutines.
func sendRaw(c *webtest.Client, method, path, contentType string, body []byte, headers map[string]string) (answer, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, c.Base+path, rd)
	if err != nil {
		return answer{}, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, val := range headers {
		req.Header.Set(k, val)
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return answer{res.StatusCode, string(b), res.Header.Get("Location")}, err
}

// unsafeRoutes are the POST, PUT, PATCH and DELETE routes registered on the echo router,
// without the API's 405 fallbacks (api.FallbackRouteName: they answer for methods a path
// does not serve, and run no handler; apiFallbacks lists them).
func unsafeRoutes(env *webtest.Env) []echo.RouteInfo {
	var out []echo.RouteInfo
	for _, r := range env.Site.Echo.Router().Routes() {
		switch r.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		default:
			continue
		}
		if r.Name == api.FallbackRouteName {
			continue
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path+out[i].Method < out[j].Path+out[j].Method })
	return out
}

// apiFallbacks are the API's unsafe 405 routes (api.FallbackRouteName).
func apiFallbacks(env *webtest.Env) []echo.RouteInfo {
	var out []echo.RouteInfo
	for _, r := range env.Site.Echo.Router().Routes() {
		switch r.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
			if r.Name == api.FallbackRouteName {
				out = append(out, r)
			}
		}
	}
	return out
}

func countPrefix(routes []echo.RouteInfo, prefix string) int {
	n := 0
	for _, r := range routes {
		isAPI, isOps := strings.HasPrefix(r.Path, api.Prefix+"/"), strings.HasPrefix(r.Path, "/ops")
		switch {
		case prefix == "" && !isAPI && !isOps, prefix == api.Prefix && isAPI, prefix == "/ops" && isOps:
			n++
		}
	}
	return n
}

// openAPIDoc is handlers/api/openapi.json, parsed.
var openAPIDoc = func() map[string]any {
	var d map[string]any
	if err := json.Unmarshal(api.OpenAPI, &d); err != nil {
		panic(err)
	}
	return d
}()

var echoParam = regexp.MustCompile(`:([A-Za-z_][A-Za-z0-9_]*)`)

// apiOperation is the OpenAPI operation of an /api/v1 route, or nil.
func apiOperation(r echo.RouteInfo) map[string]any {
	p := echoParam.ReplaceAllString(strings.TrimPrefix(r.Path, api.Prefix), "{$1}")
	item, _ := openAPIDoc["paths"].(map[string]any)[p].(map[string]any)
	op, _ := item[strings.ToLower(r.Method)].(map[string]any)
	return op
}

// signedInAPI says whether the API documents the route as needing a sign-in.
func signedInAPI(r echo.RouteInfo) bool {
	sec, _ := apiOperation(r)["security"].([]any)
	return len(sec) > 0
}

// fillPath replaces each :param of an echo path with the id of the victim's thing the
// segment before it names, or "1".
func fillPath(path string, ids map[string]string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if !strings.HasPrefix(s, ":") {
			continue
		}
		prev := ""
		if i > 0 {
			prev = segs[i-1]
		}
		key := "invoice"
		switch {
		case s == ":token":
			segs[i] = "not-a-token"
			continue
		case prev == "creditcards" || prev == "credit_cards":
			key = "card"
		case prev == "suppliers":
			key = "supplier"
		case prev == "accounts":
			key = "account"
		case prev == "notifications" || prev == "notices":
			key = "notification"
		case prev == "drafts" && strings.Contains(path, "invoice_request_drafts"):
			key = "request_draft"
		case prev == "invoice_request_drafts":
			key = "request_draft"
		case prev == "drafts" || prev == "draft":
			key = "draft"
		case prev == "buyers":
			key = "buyer"
		case prev == "sessions":
			key = "session"
		case prev == "files":
			segs[i] = "1"
			continue
		}
		if id, ok := ids[key]; ok {
			segs[i] = id
		} else {
			segs[i] = "1"
		}
	}
	return strings.Join(segs, "/")
}

// digest is a table's row count and a hash of all its rows.
type digest struct {
	rows int
	hash string
}

// tableDigests hashes every row of every table of the database (the app's and the
// sandbox PSP's), so that an update shows as well as an insert or a delete.
func tableDigests(t *testing.T) map[string]digest {
	t.Helper()
	out := map[string]digest{}
	for _, name := range baseTables(t) {
		out[name] = digestOf(t, `SELECT t::text FROM `+quoteTable(name)+` t`)
	}
	return out
}

// buyerDigests hashes the rows of one buyer: those of every table with a buyer_id
// column, and the buyer's own row.
func buyerDigests(t *testing.T, buyerID int64) map[string]digest {
	t.Helper()
	var tables []string
	require.NoError(t, webtest.Store().DB.SelectContext(context.Background(), &tables, `
		SELECT c.table_schema || '.' || c.table_name FROM information_schema.columns c
		JOIN information_schema.tables t USING (table_schema, table_name)
		WHERE t.table_type = 'BASE TABLE' AND c.column_name = 'buyer_id'
		  AND c.table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`))
	out := map[string]digest{}
	for _, name := range tables {
		out[name] = digestOf(t, `SELECT t::text FROM `+quoteTable(name)+` t WHERE buyer_id = $1`, buyerID)
	}
	out["public.buyers"] = digestOf(t, `SELECT t::text FROM buyers t WHERE id = $1`, buyerID)
	return out
}

func digestOf(t *testing.T, query string, args ...any) digest {
	t.Helper()
	var rows []string
	require.NoError(t, webtest.Store().DB.SelectContext(context.Background(), &rows, query, args...), query)
	sort.Strings(rows)
	h := md5.New()
	for _, r := range rows {
		h.Write([]byte(r))
		h.Write([]byte{0})
	}
	return digest{len(rows), hex.EncodeToString(h.Sum(nil))}
}

func baseTables(t *testing.T) []string {
	t.Helper()
	var tables []string
	require.NoError(t, webtest.Store().DB.SelectContext(context.Background(), &tables, `
		SELECT table_schema || '.' || table_name FROM information_schema.tables
		WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')
		ORDER BY 1`))
	return tables
}

func quoteTable(name string) string {
	schema, table, _ := strings.Cut(name, ".")
	return pq.QuoteIdentifier(schema) + "." + pq.QuoteIdentifier(table)
}

// changedTables names the tables whose rows differ; those in countOnly (by table name)
// are compared by their number of rows only.
func changedTables(before, after map[string]digest, countOnly []string) []string {
	var out []string
	for name, a := range after {
		b, ok := before[name]
		_, table, _ := strings.Cut(name, ".")
		switch {
		case !ok:
			out = append(out, name+" (new)")
		case b.rows != a.rows:
			out = append(out, fmt.Sprintf("%s (%d → %d rows)", name, b.rows, a.rows))
		case b.hash != a.hash && !slices.Contains(countOnly, table):
			out = append(out, name+" (rows updated)")
		}
	}
	sort.Strings(out)
	return out
}
