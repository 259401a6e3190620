package main

import (
	"maps"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
)

func TestLoadConfigRateLimits(t *testing.T) {
	c, err := LoadConfig(envOf(nil))
	require.NoError(t, err)
	assert.Equal(t, account.DefaultLimits, c.RateLimits, "without RATE_LIMITS, the defaults")

	c, err = LoadConfig(envOf(map[string]string{"RATE_LIMITS": " signin.ip=5/1m, *.target=0/1h ,signup.ip=7/2h"}))
	require.NoError(t, err)
	want := maps.Clone(account.DefaultLimits)
	for k := range want {
		if strings.HasSuffix(k, ".target") {
			want[k] = account.Limit{N: 0, Window: time.Hour}
		}
	}
	want["signin.ip"] = account.Limit{N: 5, Window: time.Minute}
	want["signup.ip"] = account.Limit{N: 7, Window: 2 * time.Hour}
	assert.Equal(t, want, c.RateLimits)
	assert.Equal(t, account.Limit{N: 100, Window: 15 * time.Minute}, account.DefaultLimits["signin.ip"], "the defaults are not changed")

	// The browser tests' form (tools/e2e.sh raises every rule).
	c, err = LoadConfig(envOf(map[string]string{"RATE_LIMITS": "*.ip=100000/1m,*.target=100000/1m"}))
	require.NoError(t, err)
	for k, l := range c.RateLimits {
		assert.Equal(t, account.Limit{N: 100000, Window: time.Minute}, l, k)
	}

	for _, bad := range []struct{ in, want string }{
		{"login.ip=1/1m", "unknown action"},
		{"signin.ip=many/1m", "N must be a whole number"},
		{"signin.ip=-3/1m", "N must be a whole number"},
		{"signin.ip=3/fortnight", "window must be a duration"},
		{"signin.ip=3/100ms", "at least 1s"},
		{"signin.ip=3", "rule=N/window"},
		{"signin.ip", "rule=N/window"},
		{"signin=3/1m", ".ip or .target"},
	} {
		_, err := LoadConfig(envOf(map[string]string{"RATE_LIMITS": bad.in}))
		require.Error(t, err, bad.in)
		assert.ErrorContains(t, err, "RATE_LIMITS", bad.in)
		assert.ErrorContains(t, err, bad.want, bad.in)
	}
}

func TestLoadConfigTrustedProxies(t *testing.T) {
	c, err := LoadConfig(envOf(nil))
	require.NoError(t, err)
	assert.Empty(t, c.TrustedProxies, "without TRUSTED_PROXIES nobody's X-Forwarded-For is believed")

	c, err = LoadConfig(envOf(map[string]string{"TRUSTED_PROXIES": " 10.0.0.1, ,192.168.0.0/16,::1,2001:db8::/32, 172.16.5.9/12 ,"}))
	require.NoError(t, err)
	got := make([]string, len(c.TrustedProxies))
	for i, n := range c.TrustedProxies {
		got[i] = n.String()
	}
	assert.Equal(t, []string{"10.0.0.1/32", "192.168.0.0/16", "::1/128", "2001:db8::/32", "172.16.0.0/12"}, got,
		"an IP is its own /32 or /128; a CIDR is kept (as its network)")

	contains := func(ip string) bool {
		for _, n := range c.TrustedProxies {
			if n.Contains(net.ParseIP(ip)) {
				return true
			}
		}
		return false
	}
	for ip, want := range map[string]bool{
		"10.0.0.1": true, "10.0.0.2": false, "192.168.200.1": true, "::1": true, "::2": false,
		"2001:db8:ffff::1": true, "2001:db9::1": false, "172.31.255.255": true, "172.32.0.0": false, "127.0.0.1": false,
	} {
		assert.Equal(t, want, contains(ip), ip)
	}

	for _, bad := range []string{"proxy.example", "10.0.0.300", "10.0.0.1/33", "10.0.0.0/", "2001:db8::/129", "10.0.0.1,not-an-ip"} {
		_, err := LoadConfig(envOf(map[string]string{"TRUSTED_PROXIES": bad}))
		require.Error(t, err, bad)
		assert.ErrorContains(t, err, "TRUSTED_PROXIES", bad)
		assert.ErrorContains(t, err, "is not an IP address or CIDR", bad)
	}
}

// An IPv4-mapped IPv6 address ("::ffff:10.0.0.1") is the IPv4 proxy it maps, and only
// that one (once appending "/32" to its IPv6 spelling made it ::/32).
func TestLoadConfigTrustedProxiesIPv4Mapped(t *testing.T) {
	c, err := LoadConfig(envOf(map[string]string{"TRUSTED_PROXIES": "::ffff:10.0.0.1"}))
	require.NoError(t, err)
	require.Len(t, c.TrustedProxies, 1)
	n := c.TrustedProxies[0]
	assert.True(t, n.Contains(net.ParseIP("10.0.0.1")), "the proxy meant is trusted")
	assert.False(t, n.Contains(net.ParseIP("::1")), "and nothing else")
	assert.False(t, n.Contains(net.ParseIP("10.0.0.2")))
}
