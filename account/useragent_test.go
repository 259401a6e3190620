package account_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"cardpay/account"
)

func TestDeviceLabel(t *testing.T) {
	const (
		chromeWin     = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
		chromeMac     = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
		chromeLinux   = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
		chromeAndroid = "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"
	)
	tests := []struct {
		name, ua, want string
	}{
		{"Chrome on Windows", chromeWin, "Chrome（Windows）"},
		{"Chrome on macOS", chromeMac, "Chrome（macOS）"},
		{"Chrome on Linux", chromeLinux, "Chrome（Linux）"},
		{"Chrome on Android", chromeAndroid, "Chrome（Android）"},
		{"Chrome on iPhone", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1", "Chrome（iPhone）"},
		{"Chrome on iPad", "Mozilla/5.0 (iPad; CPU OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1", "Chrome（iPad）"},
		{"Chrome on ChromeOS", "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "Chrome（ChromeOS）"},
		{"Headless Chrome", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36", "Chrome（Linux）"},

		{"Edge on Windows", chromeWin + " Edg/131.0.0.0", "Edge（Windows）"},
		{"Edge on macOS", chromeMac + " Edg/131.0.0.0", "Edge（macOS）"},
		{"Edge on Android", chromeAndroid + " EdgA/131.0.0.0", "Edge（Android）"},
		{"Edge on iPhone", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 EdgiOS/131.2903.68 Mobile/15E148 Safari/605.1.15", "Edge（iPhone）"},
		{"legacy Edge", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/70.0.3538.102 Safari/537.36 Edge/18.19582", "Edge（Windows）"},

		{"Firefox on Windows", "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0", "Firefox（Windows）"},
		{"Firefox on macOS", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:133.0) Gecko/20100101 Firefox/133.0", "Firefox（macOS）"},
		{"Firefox on Linux", "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "Firefox（Linux）"},
		{"Firefox on Android", "Mozilla/5.0 (Android 15; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0", "Firefox（Android）"},
		{"Firefox on iPhone", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/133.0 Mobile/15E148 Safari/605.1.15", "Firefox（iPhone）"},

		{"Safari on macOS", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15", "Safari（macOS）"},
		{"Safari on iPhone", "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1", "Safari（iPhone）"},
		{"Safari on iPad", "Mozilla/5.0 (iPad; CPU OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1", "Safari（iPad）"},
		{"Safari on iPod touch", "Mozilla/5.0 (iPod touch; CPU iPhone OS 15_8 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/15.6 Mobile/15E148 Safari/604.1", "Safari（iPhone）"},

		{"Samsung Internet", "Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36", "Samsung Internet（Android）"},
		{"Opera on Windows", chromeWin + " OPR/116.0.0.0", "Opera（Windows）"},
		{"Opera on macOS", chromeMac + " OPR/116.0.0.0", "Opera（macOS）"},
		{"Opera on Android", chromeAndroid + " OPR/86.0.0.0", "Opera（Android）"},
		{"Opera on iPhone", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 OPT/5.0.0 Mobile/15E148", "Opera（iPhone）"},
		{"Opera Presto", "Opera/9.80 (Windows NT 6.1; WOW64) Presto/2.12.388 Version/12.18", "Opera（Windows）"},
		{"Internet Explorer 11", "Mozilla/5.0 (Windows NT 10.0; WOW64; Trident/7.0; rv:11.0) like Gecko", "Internet Explorer（Windows）"},

		// A system we know with a browser we do not.
		{"old Android browser", "Mozilla/5.0 (Linux; U; Android 4.0.3; ja-jp; SC-02C Build/IML74K) AppleWebKit/534.30 (KHTML, like Gecko) Version/4.0 Mobile Safari/534.30", "その他のブラウザ（Android）"},
		{"in-app browser on iPhone", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Line/14.0.0", "その他のブラウザ（iPhone）"},
		{"Windows alone", "SomeClient/1.0 (Windows NT 10.0)", "その他のブラウザ（Windows）"},
		// A browser we know on a system we do not.
		{"Chrome alone", "Chrome/131.0.0.0", "Chrome"},

		{"empty", "", "不明"},
		{"spaces", "   ", "不明"},
		{"Go client", "Go-http-client/1.1", "不明"},
		{"curl", "curl/8.5.0", "不明"},
		{"python", "python-requests/2.32.3", "不明"},
		{"tokens are case-sensitive", "chrome/131 windows", "不明"},
		{"invalid UTF-8", "\xff\xfe\xfd\x80", "不明"},
		{"invalid UTF-8 around tokens", "\xffChrome/1\xc3(Windows\xff", "Chrome（Windows）"},
		{"Japanese text", "ブラウザ（ウィンドウズ）", "不明"},
		{"markup", `<script>alert("Chrome")</script>`, "不明"},
		{"500 characters", strings.Repeat("x", 500), "不明"},
		{"500 characters ending in a token", strings.Repeat("\x00", 490) + "Firefox/1", "Firefox"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, account.DeviceLabel(tt.ua))
		})
	}
}

// TestDeviceLabelGarbage feeds random bytes: never a panic, always a label to show.
func TestDeviceLabelGarbage(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(501))
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		got := account.DeviceLabel(string(b))
		assert.True(t, utf8.ValidString(got), "%q", got)
		assert.NotEmpty(t, got)
	}
}

func FuzzDeviceLabel(f *testing.F) {
	f.Add("")
	f.Add("Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) Version/18.1 Mobile/15E148 Safari/604.1")
	f.Add("\xff\xfeEdg/\xc3")
	f.Fuzz(func(t *testing.T, ua string) {
		got := account.DeviceLabel(ua)
		if got == "" || !utf8.ValidString(got) {
			t.Fatalf("DeviceLabel(%q) = %q", ua, got)
		}
	})
}
