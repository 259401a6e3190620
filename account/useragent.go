package account

import "strings"

// UnknownDevice is the label of a user agent that names no browser or system we know.
const UnknownDevice = "不明"

// DeviceLabel names the browser and system of a user agent for the security page's
// list of sessions: "Chrome（Windows）", "Safari（iPhone）". A known system with an
// unknown browser is "その他のブラウザ（Android）", a known browser on an unknown system
// is the browser alone, and anything else (empty, a script, garbage) is UnknownDevice.
// It only looks for fixed tokens, so any bytes at all are safe, and the label is always
// one of a fixed set of strings: nothing the client sent is shown back.
func DeviceLabel(userAgent string) string {
	browser, system := browserOf(userAgent), systemOf(userAgent)
	switch {
	case browser == "" && system == "":
		return UnknownDevice
	case browser == "":
		return "その他のブラウザ（" + system + "）"
	case system == "":
		return browser
	default:
		return browser + "（" + system + "）"
	}
}

// browserOf looks for the browsers' own tokens before the ones they copy: Edge, Opera
// and Samsung Internet also say Chrome and Safari, and every browser on iOS says Safari.
func browserOf(ua string) string {
	has := func(tokens ...string) bool {
		for _, t := range tokens {
			if strings.Contains(ua, t) {
				return true
			}
		}
		return false
	}
	switch {
	case has("SamsungBrowser/"):
		return "Samsung Internet"
	case has("OPR/", "OPT/", "OPiOS/", "Opera"):
		return "Opera"
	case has("Edg/", "EdgA/", "EdgiOS/", "Edge/"):
		return "Edge"
	case has("Firefox/", "FxiOS/"):
		return "Firefox"
	case has("Trident/", "MSIE "):
		return "Internet Explorer"
	case has("Chrome/", "CriOS/", "Chromium/"):
		return "Chrome"
	// Safari says Version/; the old Android browser said it too, and is not Safari.
	case has("Safari/") && has("Version/") && !has("Android"):
		return "Safari"
	}
	return ""
}

// systemOf finds the system; the iPhone and iPad say "like Mac OS X", and Android
// says Linux, so those come first.
func systemOf(ua string) string {
	switch {
	case strings.Contains(ua, "iPhone"), strings.Contains(ua, "iPod"):
		return "iPhone"
	case strings.Contains(ua, "iPad"):
		return "iPad"
	case strings.Contains(ua, "Android"):
		return "Android"
	case strings.Contains(ua, "Windows"):
		return "Windows"
	case strings.Contains(ua, "Macintosh"), strings.Contains(ua, "Mac OS X"):
		return "macOS"
	case strings.Contains(ua, "CrOS"):
		return "ChromeOS"
	case strings.Contains(ua, "Linux"), strings.Contains(ua, "X11"):
		return "Linux"
	}
	return ""
}
