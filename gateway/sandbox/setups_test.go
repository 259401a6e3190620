package sandbox_test

import (
	"encoding/json"
	"flag"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/gateway"
	"cardpay/gateway/sandbox"
	"cardpay/gateway/sandbox/migrations"
)

// hostedURL opens a setup for the hosted page and answers the page's URL.
func (h *harness) hostedURL(t *testing.T, ret string) string {
	t.Helper()
	s, err := h.client.StartCardSetup(t.Context(), gateway.CardSetupRequest{ReturnURL: ret, Hosted: true})
	require.NoError(t, err)
	require.NotEmpty(t, s.RedirectURL)
	return s.RedirectURL
}

// fieldsSetup opens a setup for the fields page.
func (h *harness) fieldsSetup(t *testing.T) gateway.CardSetup {
	t.Helper()
	s, err := h.client.StartCardSetup(t.Context(), gateway.CardSetupRequest{ReturnURL: hostedReturn})
	require.NoError(t, err)
	require.Equal(t, h.ts.URL+"/fields/"+s.ID, s.FieldsURL)
	return s
}

// postFields posts a card to POST /fields/{id} as the fields page's script does, with
// origin as its Origin (none when empty); it answers the status and the raw JSON.
func (h *harness) postFields(t *testing.T, setupID, origin string, card any) (int, map[string]any) {
	t.Helper()
	resp, data := h.postBrowser(t, "/fields/"+setupID, origin, card)
	var out map[string]any
	require.NoError(t, json.Unmarshal(data, &out), "%s", data)
	return resp.StatusCode, out
}

func TestSetupsAPI(t *testing.T) {
	h := newHarness(t)
	status, out := h.apiCall(t, http.MethodPost, "/v1/setups", apiKey, nil, map[string]string{"return_url": hostedReturn})
	require.Equal(t, http.StatusCreated, status)
	id, _ := out["id"].(string)
	require.Regexp(t, `^setup_[a-z2-7]{20}$`, id)
	assert.Equal(t, h.ts.URL+"/fields/"+id, out["fields_url"])
	assert.Equal(t, h.ts.URL+"/hosted/"+id, out["url"])

	status, out = h.apiCall(t, http.MethodPost, "/v1/setups/"+id+"/finish", apiKey, nil, struct{}{})
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, map[string]any{"status": "open"}, out)

	for _, key := range []string{"", "sk_wrong"} {
		status, _ = h.apiCall(t, http.MethodPost, "/v1/setups", key, nil, map[string]string{"return_url": hostedReturn})
		assert.Equal(t, http.StatusUnauthorized, status)
		status, _ = h.apiCall(t, http.MethodPost, "/v1/setups/"+id+"/finish", key, nil, struct{}{})
		assert.Equal(t, http.StatusUnauthorized, status)
	}
	status, out = h.apiCall(t, http.MethodPost, "/v1/setups", apiKey, nil, map[string]string{"return_url": "https://evil.test/back"})
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "invalid_request", out["error"].(map[string]any)["code"])
	status, _ = h.apiCall(t, http.MethodPost, "/v1/setups/setup_unknown/finish", apiKey, nil, struct{}{})
	assert.Equal(t, http.StatusNotFound, status)
	_, err := h.client.FinishCardSetup(t.Context(), "setup_unknown")
	require.ErrorIs(t, err, gateway.ErrNotFound)

	// The hosted-session API is gone: setups replace it.
	status, _ = h.apiCall(t, http.MethodPost, "/v1/hosted_sessions", apiKey, nil, map[string]string{"return_url": hostedReturn})
	assert.Equal(t, http.StatusNotFound, status)

	// The client asks for one way in and gets that one.
	fields := h.fieldsSetup(t)
	assert.Empty(t, fields.RedirectURL)
	assert.Empty(t, fields.ClientSecret)
	hosted, err := h.client.StartCardSetup(t.Context(), gateway.CardSetupRequest{ReturnURL: hostedReturn, Hosted: true})
	require.NoError(t, err)
	assert.Equal(t, h.ts.URL+"/hosted/"+hosted.ID, hosted.RedirectURL)
	assert.Empty(t, hosted.FieldsURL)
}

// Finishing twice, or many times at once, saves one card and answers it every time.
func TestSetupFinishTwice(t *testing.T) {
	h := newHarness(t)
	s := h.fieldsSetup(t)
	status, _ := h.postFields(t, s.ID, h.ts.URL, h.card(master))
	require.Equal(t, http.StatusCreated, status)

	const n = 8
	results := make([]gateway.CardSetupResult, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { results[i], errs[i] = h.client.FinishCardSetup(t.Context(), s.ID) })
	}
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i])
		assert.Equal(t, gateway.SetupSucceeded, results[i].Status)
		assert.Equal(t, results[0].Card, results[i].Card)
	}
	again, err := h.client.FinishCardSetup(t.Context(), s.ID)
	require.NoError(t, err)
	assert.Equal(t, results[0].Card, again.Card)
	assert.Equal(t, "4444", again.Card.Last4)
	assert.False(t, again.Verified)

	var cards int
	require.NoError(t, h.db.GetContext(t.Context(), &cards, `
		SELECT count(*) FROM sandbox_cards c JOIN sandbox_setups s ON s.card_id = c.id WHERE s.id = $1`, s.ID))
	assert.Equal(t, 1, cards)
	// The setup's token was spent by finishing: it saves no second card.
	var tok string
	require.NoError(t, h.db.GetContext(t.Context(), &tok, `SELECT token_id FROM sandbox_setups WHERE id = $1`, s.ID))
	_, err = h.client.SaveCard(t.Context(), tok)
	require.ErrorIs(t, err, gateway.ErrBadToken)
}

// A setup whose token was saved through /v1/cards has no card to finish with.
func TestSetupTokenUsedElsewhere(t *testing.T) {
	h := newHarness(t)
	s := h.fieldsSetup(t)
	status, out := h.postFields(t, s.ID, h.ts.URL, h.card(visa))
	require.Equal(t, http.StatusCreated, status)
	_, err := h.client.SaveCard(t.Context(), out["token"].(string))
	require.NoError(t, err)
	_, err = h.client.FinishCardSetup(t.Context(), s.ID)
	require.ErrorIs(t, err, gateway.ErrBadToken)
}

// A setup takes a card for 30 minutes; one entered in time can still be finished.
func TestSetupExpiry(t *testing.T) {
	h := newHarness(t)
	empty := h.fieldsSetup(t)
	entered := h.fieldsSetup(t)
	h.clock.Add(29 * time.Minute)
	status, _ := h.postFields(t, entered.ID, h.ts.URL, h.card(jcb))
	require.Equal(t, http.StatusCreated, status)
	h.clock.Add(2 * time.Minute)

	_, err := h.client.FinishCardSetup(t.Context(), empty.ID)
	require.ErrorIs(t, err, gateway.ErrBadToken, "expired without a card")
	got, err := h.client.FinishCardSetup(t.Context(), entered.ID)
	require.NoError(t, err)
	assert.Equal(t, gateway.SetupSucceeded, got.Status)

	// The expired setup's fields say so inside the merchant's frame, and take no card.
	resp, page := h.get(t, empty.FieldsURL)
	assert.Equal(t, http.StatusGone, resp.StatusCode)
	assert.Contains(t, page, "有効期限（30分）が切れています")
	assert.NotContains(t, page, "<form")
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "frame-ancestors "+appOrigin+";")
	assert.Empty(t, resp.Header.Get("X-Frame-Options"))
	status, out := h.postFields(t, empty.ID, h.ts.URL, h.card(visa))
	assert.Equal(t, http.StatusConflict, status)
	assert.Contains(t, fieldErrorMessages(out), "有効期限（30分）が切れています")
	resp, _ = h.get(t, h.ts.URL+"/hosted/"+empty.ID)
	assert.Equal(t, http.StatusGone, resp.StatusCode)
}

func fieldErrorMessages(out map[string]any) string {
	var msgs []string
	list, _ := out["errors"].([]any)
	for _, e := range list {
		m, _ := e.(map[string]any)
		msg, _ := m["message"].(string)
		msgs = append(msgs, msg)
	}
	return strings.Join(msgs, "\n")
}

// POST /fields/{id} is for the fields page's own script: same origin, JSON.
func TestFieldsRefusesOtherOrigins(t *testing.T) {
	h := newHarness(t)
	s := h.fieldsSetup(t)
	for _, o := range []string{"", appOrigin, "http://evil.test", "null", strings.Replace(h.ts.URL, "127.0.0.1", "localhost", 1)} {
		status, out := h.postFields(t, s.ID, o, h.card(visa))
		assert.Equal(t, http.StatusForbidden, status, "origin %q", o)
		assert.NotContains(t, out, "token")
	}
	// A form post (what a cross-site page could send without a preflight) is refused too.
	r, err := http.NewRequestWithContext(t.Context(), http.MethodPost, h.ts.URL+"/fields/"+s.ID, strings.NewReader("number=x"))
	require.NoError(t, err)
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Origin", h.ts.URL)
	resp, err := h.browser.Do(r)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode)

	got, err := h.client.FinishCardSetup(t.Context(), s.ID)
	require.NoError(t, err)
	assert.Equal(t, gateway.SetupOpen, got.Status, "nothing was recorded")
	status, _ := h.postFields(t, "setup_unknown", h.ts.URL, h.card(visa))
	assert.Equal(t, http.StatusNotFound, status)
}

// The fields page answers a token and what may be shown of the card, nothing more; a
// setup takes one card; a refused card's errors name their fields.
func TestFieldsAnswer(t *testing.T) {
	h := newHarness(t)
	s := h.fieldsSetup(t)
	status, out := h.postFields(t, s.ID, h.ts.URL, h.card(visa))
	require.Equal(t, http.StatusCreated, status)
	keys := make([]string, 0, len(out))
	for k := range out {
		keys = append(keys, k)
	}
	assert.ElementsMatch(t, []string{"token", "brand", "last4", "exp_month", "exp_year"}, keys, "nothing beyond brand, last4 and expiry")
	assert.Regexp(t, `^tok_[a-z2-7]{20}$`, out["token"])
	assert.Equal(t, "VISA", out["brand"])
	assert.Equal(t, "1111", out["last4"])
	assert.EqualValues(t, 12, out["exp_month"])
	b, _ := json.Marshal(out)
	assert.NotContains(t, string(b), "4111111111111111")
	assert.NotContains(t, string(b), "123", "no security code")
	assert.NotContains(t, string(b), "TARO")

	status, out = h.postFields(t, s.ID, h.ts.URL, h.card(jcb))
	assert.Equal(t, http.StatusConflict, status, "a second card on one setup")
	assert.NotContains(t, out, "token")
	got, err := h.client.FinishCardSetup(t.Context(), s.ID)
	require.NoError(t, err)
	assert.Equal(t, "1111", got.Card.Last4, "the first card stays")

	s = h.fieldsSetup(t)
	bad := h.card(amex)
	bad.CVC = "12"
	status, out = h.postFields(t, s.ID, h.ts.URL, bad)
	require.Equal(t, http.StatusBadRequest, status)
	fields := map[string]string{}
	for _, e := range out["errors"].([]any) {
		m := e.(map[string]any)
		fields[m["field"].(string)] = m["message"].(string)
	}
	assert.Contains(t, fields["number"], "American Express はご利用いただけません。")
	assert.Contains(t, fields["cvc"], "3桁")
	got, err = h.client.FinishCardSetup(t.Context(), s.ID)
	require.NoError(t, err)
	assert.Equal(t, gateway.SetupOpen, got.Status, "a refused card leaves the setup open")
}

var update = flag.Bool("update", false, "rewrite assets/testdata/fields.golden.html")

// The fields page: framed by the setup's merchant origin alone, script and style from
// the sandbox's own origin, fields as the hosted page has them but without names.
func TestFieldsPage(t *testing.T) {
	h := newHarness(t)
	s := h.fieldsSetup(t)
	resp, page := h.get(t, s.FieldsURL)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	hd := resp.Header
	assert.Empty(t, hd.Get("X-Frame-Options"), "the merchant frames this page")
	csp := hd.Get("Content-Security-Policy")
	for _, d := range []string{"default-src 'none'", "script-src 'self'", "connect-src 'self'", "style-src 'self'",
		"form-action 'none'", "frame-ancestors " + appOrigin + ";", "base-uri 'none'"} {
		assert.Contains(t, csp, d)
	}
	assert.Equal(t, 1, strings.Count(csp, "frame-ancestors"))
	assert.NotContains(t, csp, "*")
	assert.NotContains(t, csp, "unsafe-")
	assert.Equal(t, "text/html; charset=utf-8", hd.Get("Content-Type"))
	assert.Equal(t, "no-store", hd.Get("Cache-Control"))

	assert.Contains(t, page, `<html lang="ja">`)
	assert.Contains(t, page, `data-origin="`+appOrigin+`"`)
	assert.Contains(t, page, `data-setup="`+s.ID+`"`)
	assert.Contains(t, page, `<button type="submit" id="card-submit">カードを登録する</button>`)
	assert.Contains(t, page, `id="number-brand" role="status" aria-live="polite"`)
	assert.NotContains(t, page, "<script>", "no inline script")
	assert.NotContains(t, page, "<style", "no inline style")
	for id, ac := range map[string]string{"number": "cc-number", "exp": "cc-exp", "cvc": "cc-csc", "name": "cc-name"} {
		tag := input(t, page, id)
		assert.Contains(t, tag, `autocomplete="`+ac+`"`)
		assert.Contains(t, tag, `aria-describedby="`+id+`-hint"`)
		assert.NotContains(t, tag, "name=", "no input can be submitted")
		assert.Contains(t, page, `<label for="`+id+`">`)
	}

	// Script and style: from here, as modules, cached for a year under a versioned path.
	m := regexp.MustCompile(`<script type="module" src="(/assets/[a-z2-7]+/fields\.js)"></script>`).FindStringSubmatch(page)
	require.NotNil(t, m)
	base := strings.TrimSuffix(m[1], "fields.js")
	for name, ct := range map[string]string{"fields.js": "text/javascript; charset=utf-8", "rules.js": "text/javascript; charset=utf-8", "fields.css": "text/css; charset=utf-8"} {
		resp, body := h.get(t, h.ts.URL+base+name)
		require.Equal(t, http.StatusOK, resp.StatusCode, name)
		assert.Equal(t, ct, resp.Header.Get("Content-Type"), name)
		assert.Equal(t, "public, max-age=31536000, immutable", resp.Header.Get("Cache-Control"), name)
		assert.NotEmpty(t, body)
	}
	assert.Contains(t, page, `<link rel="stylesheet" href="`+base+`fields.css">`)
	for _, p := range []string{base + "rules.test.js", "/assets/old/fields.js", base + "missing.js"} {
		resp, _ := h.get(t, h.ts.URL+p)
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, p)
	}
	_, js := h.get(t, h.ts.URL+base+"fields.js")
	assert.Contains(t, js, `from "./rules.js"`)
	assert.Equal(t, 1, strings.Count(js, "postMessage("), "one place posts to the parent")
	assert.Contains(t, js, "parent.postMessage({ source: SOURCE, ...msg }, origin)", "to the setup's merchant origin, never to any window")

	// Every other page keeps DENY.
	for _, p := range []string{"/", "/hosted/" + s.ID, "/fields/setup_unknown"} {
		resp, _ := h.get(t, h.ts.URL+p)
		assert.Equal(t, "DENY", resp.Header.Get("X-Frame-Options"), p)
		assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'", p)
	}

	// The page as rendered, for rules.test.js's sibling fields.test.js (jsdom and axe):
	// the setup id and the assets' version replaced, so the file changes only with the
	// template. go test -run TestFieldsPage -update rewrites it.
	golden := strings.ReplaceAll(page, s.ID, "setup_test")
	golden = strings.ReplaceAll(golden, base, "/assets/VERSION/")
	const goldenPath = "assets/testdata/fields.golden.html"
	if *update {
		require.NoError(t, os.WriteFile(goldenPath, []byte(golden), 0o644))
	}
	want, err := os.ReadFile(goldenPath)
	require.NoError(t, err)
	assert.Equal(t, string(want), golden, "the fields page changed: go test ./gateway/sandbox -run TestFieldsPage -update")
}

// A setup's fields belong to its merchant origin: a setup for another of the app's
// origins names that one.
func TestFieldsFrameAncestorIsTheSetupsOrigin(t *testing.T) {
	const other = "https://shop.example:8443"
	h := newHarness(t, func(c *sandbox.Config) { c.AppOrigins = append(c.AppOrigins, other) })
	s, err := h.client.StartCardSetup(t.Context(), gateway.CardSetupRequest{ReturnURL: other + "/cards/return"})
	require.NoError(t, err)
	resp, page := h.get(t, s.FieldsURL)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "frame-ancestors "+other+";")
	assert.NotContains(t, resp.Header.Get("Content-Security-Policy"), appOrigin)
	assert.Contains(t, page, `data-origin="`+other+`"`)
}

// The hosted page's setup is the same setup: a card entered there is finished by id.
func TestHostedSetupFinish(t *testing.T) {
	h := newHarness(t)
	s, err := h.client.StartCardSetup(t.Context(), gateway.CardSetupRequest{ReturnURL: hostedReturn, Hosted: true})
	require.NoError(t, err)
	resp, _ := h.post(t, s.RedirectURL, url.Values{"number": {visa}, "exp": {"12/39"}, "cvc": {"123"}, "name": {"TARO YAMADA"}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	assert.Equal(t, hostedReturn+"?setup="+s.ID, resp.Header.Get("Location"))
	// The fields of the same setup take no second card.
	status, _ := h.postFields(t, s.ID, h.ts.URL, h.card(jcb))
	assert.Equal(t, http.StatusConflict, status)
	got, err := h.client.FinishCardSetup(t.Context(), s.ID)
	require.NoError(t, err)
	assert.Equal(t, "1111", got.Card.Last4)
}

// Migration 00002 goes down and up again: the setups are the hosted sessions again, and
// back; a setup open across the round trip keeps its merchant origin.
func TestMigrationSetupsDownAndUp(t *testing.T) {
	h := newHarness(t)
	s := h.fieldsSetup(t)
	p, err := goose.NewProvider(goose.DialectPostgres, h.db.DB, migrations.FS,
		goose.WithTableName(sandbox.VersionTable), goose.WithDisableGlobalRegistry(true))
	require.NoError(t, err)
	exists := func(table string) bool {
		var ok bool
		require.NoError(t, h.db.GetContext(t.Context(), &ok, `SELECT to_regclass($1) IS NOT NULL`, table))
		return ok
	}
	_, err = p.DownTo(t.Context(), 1)
	require.NoError(t, err)
	assert.True(t, exists("sandbox_hosted_sessions"))
	assert.False(t, exists("sandbox_setups"))
	_, err = p.Up(t.Context())
	require.NoError(t, err)
	assert.True(t, exists("sandbox_setups"))
	var o string
	require.NoError(t, h.db.GetContext(t.Context(), &o, `SELECT origin FROM sandbox_setups WHERE id = $1`, s.ID))
	assert.Equal(t, appOrigin, o)
	status, _ := h.postFields(t, s.ID, h.ts.URL, h.card(visa))
	assert.Equal(t, http.StatusCreated, status)
}
