package handlers_test

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
)

// The rate limiter keys on the client IP: X-Forwarded-For names it only when the
// connection comes from a configured proxy. Each request below asks for a password
// reset mail, which password_reset.ip allows once an hour.

// ipEnvs counts the environments made, so that each gets days of its own.
var ipEnvs atomic.Int64

// ipEnv is the site with one reset mail per IP and hour, trusting proxies, on a clock
// stopped on a day of its own in the past: no window ends between two requests, and
// each environment's windows are its own although the package's tests (and -count
// runs) share the counters' table.
func ipEnv(t *testing.T, proxies ...string) *webtest.Env {
	t.Helper()
	var trusted []*net.IPNet
	for _, p := range proxies {
		_, n, err := net.ParseCIDR(p)
		require.NoError(t, err)
		trusted = append(trusted, n)
	}
	clock := webtest.NewClock(time.Now().Add(-time.Duration(ipEnvs.Add(1)) * 24 * time.Hour))
	return webtest.New(t, func(d *web.Deps) {
		d.Account.Limits = account.Limits{"password_reset.ip": {N: 1, Window: time.Hour}}
		d.TrustedProxies = trusted
		d.Clock = clock.Now
	})
}

// resetFrom posts the reset form from 127.0.0.1 with xff as X-Forwarded-For ("" for
// none).
func resetFrom(t *testing.T, env *webtest.Env, xff string) webtest.Response {
	t.Helper()
	c := env.Client(t)
	form := url.Values{"email_address": {"someone@site-ip.example"}}
	req, err := http.NewRequest(http.MethodPost, c.Base+"/password/sendemail", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", c.Base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	return c.Do(req)
}

func assertLimited(t *testing.T, res webtest.Response, msgAndArgs ...any) {
	t.Helper()
	assert.Equal(t, http.StatusTooManyRequests, res.StatusCode, msgAndArgs...)
	assert.NotEmpty(t, res.Header.Get("Retry-After"), msgAndArgs...)
	assert.Contains(t, res.Body, "以降にもう一度お試しください", msgAndArgs...)
}

func TestForwardedForIgnoredWithoutTrustedProxies(t *testing.T) {
	env := ipEnv(t)
	assert.Equal(t, http.StatusSeeOther, resetFrom(t, env, "203.0.113.9").StatusCode)
	// Another X-Forwarded-For is the same client: 127.0.0.1.
	assertLimited(t, resetFrom(t, env, "203.0.113.10"), "a header anyone can send does not choose the key")
	assertLimited(t, resetFrom(t, env, ""), "no header: 127.0.0.1 again")
}

func TestForwardedForFromTrustedProxy(t *testing.T) {
	env := ipEnv(t, "127.0.0.1/32")
	assert.Equal(t, http.StatusSeeOther, resetFrom(t, env, "203.0.113.20").StatusCode)
	assert.Equal(t, http.StatusSeeOther, resetFrom(t, env, "203.0.113.21").StatusCode, "another client behind the proxy")
	assertLimited(t, resetFrom(t, env, "203.0.113.20"), "the same client again")

	// The proxy appends the address it saw: what a client put before it does not
	// change the key (the rightmost untrusted address is the client).
	assert.Equal(t, http.StatusSeeOther, resetFrom(t, env, "198.51.100.1, 203.0.113.22").StatusCode)
	assertLimited(t, resetFrom(t, env, "198.51.100.2, 203.0.113.22"), "a forged left part picks no new key")

	// Private addresses are not proxies unless configured: 10.9.8.7 behind the proxy is
	// the client, whatever it puts before itself.
	assert.Equal(t, http.StatusSeeOther, resetFrom(t, env, "10.9.8.7").StatusCode)
	assertLimited(t, resetFrom(t, env, "198.51.100.3, 10.9.8.7"), "10.9.8.7 is not trusted")

	// Without the header the client is the proxy itself.
	assert.Equal(t, http.StatusSeeOther, resetFrom(t, env, "").StatusCode)
	assertLimited(t, resetFrom(t, env, ""))
}

func TestForwardedForFromAnotherProxy(t *testing.T) {
	// A proxy is trusted, but the request comes from 127.0.0.1, which is not it.
	env := ipEnv(t, "192.0.2.1/32")
	assert.Equal(t, http.StatusSeeOther, resetFrom(t, env, "203.0.113.30").StatusCode)
	assertLimited(t, resetFrom(t, env, "203.0.113.31"), "only the configured proxies are believed")
}
