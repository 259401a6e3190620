package pay

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// An e-mail address is a format like a postal code: the buyer's sign-up, the
// my-account change of address and a collection request's customer all type one, so
// the rule that reads it lives here with the other formats, and every form gives the
// same answer with the same Japanese messages.

const (
	msgEmailRequired = "メールアドレスを入力してください"
	msgEmailFormat   = "メールアドレスを正しい形式で入力してください（例：name@example.co.jp）"

	maxEmailBytes     = 254 // RFC 5321's limit on a forward path, less the angle brackets
	maxEmailLocalPart = 64
)

// ValidateEmail checks an e-mail address typed into a form. It answers the
// address to store and "" when it is acceptable, or a message for the
// person (and the trimmed input, to show back) when it is not.
//
// The address is trimmed, full-width letters and symbols typed with a
// Japanese IME (ｎａｍｅ＠ｅｘａｍｐｌｅ．ｊｐ) become ASCII and the domain is
// lower-cased; the local part keeps its case, which its mail server may
// honour. The check is deliberately loose: one @, a dot in the domain, no
// spaces, control characters or the symbols that break mail headers. Dots
// in the local part are not policed, because Japanese mobile carriers
// issued addresses such as "taro..yamada.@docomo.ne.jp" that mail servers
// still accept. Whether the address exists is proved by the mailed code.
func ValidateEmail(s string) (normalised string, msg string) {
	s = strings.TrimSpace(s)
	if !utf8.ValidString(s) {
		return strings.ToValidUTF8(s, "\uFFFD"), msgEmailFormat
	}
	if s == "" {
		return "", msgEmailRequired
	}
	s = fullWidthASCIIToHalf(s)
	if len(s) > maxEmailBytes || strings.Count(s, "@") != 1 {
		return s, msgEmailFormat
	}
	local, domain, _ := strings.Cut(s, "@")
	if local == "" || len(local) > maxEmailLocalPart || !validDomain(domain) {
		return s, msgEmailFormat
	}
	for _, r := range s {
		if unicode.IsSpace(r) || IsForbiddenRune(r) || strings.ContainsRune(`"(),:;<>[\]`, r) {
			return s, msgEmailFormat
		}
	}
	return local + "@" + strings.ToLower(domain), ""
}

// validDomain wants at least two non-empty labels: "example.co.jp", not
// "localhost", ".jp" or "example..jp".
func validDomain(domain string) bool {
	labels := strings.Split(domain, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" {
			return false
		}
	}
	return true
}

// fullWidthASCIIToHalf turns full-width letters, digits and symbols (as a
// Japanese IME types them) into ASCII and the full-width space into a space.
func fullWidthASCIIToHalf(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= '！' && r <= '～':
			return r - ('！' - '!')
		case r == ideographicSpace:
			return ' '
		}
		return r
	}, s)
}
