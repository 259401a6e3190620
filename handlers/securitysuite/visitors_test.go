package securitysuite_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
)

// The lockout, limits and enumeration tests play many clients at once. The app trusts
// 127.0.0.1 as its reverse proxy here (TRUSTED_PROXIES), so each simulated client comes
// from an address of its own through X-Forwarded-For, as it would behind a load
// balancer; the limiter keys on that address.

// attackEnv starts the app with limits (account.DefaultLimits unless a test needs other
// figures) and 127.0.0.1 as a trusted proxy.
func attackEnv(t *testing.T, limits account.Limits, mutate ...func(*web.Deps)) *webtest.Env {
	t.Helper()
	_, loopback, err := net.ParseCIDR("127.0.0.1/32")
	require.NoError(t, err)
	return webtest.New(t, append([]func(*web.Deps){func(d *web.Deps) {
		d.Account.Limits = limits
		d.TrustedProxies = []*net.IPNet{loopback}
	}}, mutate...)...)
}

var ipSeq atomic.Int64

// newIP is an address no other client of this run used (TEST-NET-2 and -3 and onwards).
func newIP() string {
	n := ipSeq.Add(1)
	return fmt.Sprintf("10.%d.%d.%d", (n>>16)&255, (n>>8)&255, n&255)
}

// visitor is one client: a browser (cookie jar) at an IP, and its API tokens once it
// logged in through the API.
type visitor struct {
	t   *testing.T
	c   *webtest.Client
	IP  string
	api map[string]string
	// accountID is the receiving account a requester registered (limits_test.go).
	accountID int64
}

func newVisitor(t *testing.T, env *webtest.Env) *visitor {
	return &visitor{t: t, c: env.Client(t), IP: newIP(), api: map[string]string{}}
}

// form posts a same-origin form from the visitor's IP.
func (v *visitor) form(path string, vals url.Values) webtest.Response {
	v.t.Helper()
	req, err := http.NewRequest(http.MethodPost, v.c.Base+path, strings.NewReader(vals.Encode()))
	require.NoError(v.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", v.c.Base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("X-Forwarded-For", v.IP)
	req.Header.Set("User-Agent", "securitysuite/1.0 (Windows NT 10.0) Chrome/140.0")
	return v.c.Do(req)
}

// get opens a page from the visitor's IP.
func (v *visitor) get(path string) webtest.Response {
	v.t.Helper()
	req, err := http.NewRequest(http.MethodGet, v.c.Base+path, nil)
	require.NoError(v.t, err)
	req.Header.Set("X-Forwarded-For", v.IP)
	return v.c.Do(req)
}

// call sends a JSON API call (/api/v1 + path) with the visitor's tokens, if any.
func (v *visitor) call(method, path string, body any) webtest.Response {
	v.t.Helper()
	var r *bytes.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(v.t, err)
		r = bytes.NewReader(b)
	} else {
		r = bytes.NewReader(nil)
	}
	req, err := http.NewRequest(method, v.c.Base+"/api/v1"+path, r)
	require.NoError(v.t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", v.IP)
	for k, val := range v.api {
		req.Header.Set(k, val)
	}
	return v.c.Do(req)
}

// signIn signs the visitor's browser in (with its device cookie, if it has one).
func (v *visitor) signIn(email string) {
	v.t.Helper()
	res := v.form("/signin", url.Values{"email_address": {email}, "password": {webtest.Password}})
	require.Equal(v.t, http.StatusSeeOther, res.StatusCode, res.Body)
}

// login logs the visitor in through the API and keeps the tokens for later calls;
// it answers the device token.
func (v *visitor) login(email, deviceToken string) string {
	v.t.Helper()
	res := v.call(http.MethodPost, "/login", map[string]any{"email_address": email, "password": webtest.Password, "device_token": deviceToken})
	require.Equal(v.t, http.StatusOK, res.StatusCode, res.Body)
	var ts struct {
		AccessToken string `json:"access_token"`
		IDToken     string `json:"id_token"`
		DeviceToken string `json:"device_token"`
	}
	require.NoError(v.t, json.Unmarshal([]byte(res.Body), &ts))
	v.api["Authorization"] = "Bearer " + ts.IDToken
	v.api["X-Access-Token"] = ts.AccessToken
	return ts.DeviceToken
}

var (
	nonceAttr  = regexp.MustCompile(`nonce="[^"]*"`)
	hiddenKeys = regexp.MustCompile(`name="submit_key" value="[^"]*"`)
)

// sameShape is body with what differs by nature between two requests taken out: the
// CSP nonce and the typed address (replaced by a placeholder), so that two answers can
// be compared byte for byte.
func sameShape(body string, addresses ...string) string {
	body = nonceAttr.ReplaceAllString(body, `nonce="…"`)
	body = hiddenKeys.ReplaceAllString(body, `name="submit_key" value="…"`)
	for _, a := range addresses {
		if a != "" {
			body = strings.ReplaceAll(body, a, "<address>")
			body = strings.ReplaceAll(body, url.QueryEscape(a), "<address>")
		}
	}
	return body
}

// percentiles are the median and the 95th percentile of ds, in milliseconds.
func percentiles(ds []time.Duration) (p50, p95 float64) {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	at := func(q float64) float64 {
		i := int(q*float64(len(s)-1) + 0.5)
		return float64(s[i]) / float64(time.Millisecond)
	}
	return at(0.50), at(0.95)
}
