package oauth

import (
	"crypto/rand"
	"net"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"cardpay/pay"
	"cardpay/store"
)

// ClientInput is a partner application as an administrator registers it.
type ClientInput struct {
	Name, LogoText string
	// RedirectURIs are one per line; each is matched exactly.
	RedirectURIs string
	Scopes       []string
	// Public: no secret (a desktop or browser application); it must use PKCE, as every
	// client must.
	Public bool
	// WebhookURL is where its payments' events are posted ("" for none): https.
	WebhookURL string
}

// ValidClientID says whether id has a client id's form (oauth_clients.id's CHECK): a
// path that carries anything else (a NUL, another script) names no client and never
// reaches the database.
func ValidClientID(id string) bool {
	if len(id) < 8 || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// MaxRedirectURIs is how many redirect URIs one application may register.
const MaxRedirectURIs = 10

// Check says what is wrong with the input (the console form's fields name, logo_text,
// redirect_uris, scopes) and answers the redirect URIs one by one. A redirect URI is an
// absolute https URL without a fragment, or http on the loopback address (a desktop
// application's listener, RFC 8252 §7.3).
func (in ClientInput) Check() (uris []string, errs pay.FieldErrors) {
	name := strings.TrimSpace(in.Name)
	switch {
	case name == "":
		errs.Add("name", "アプリケーション名を入力してください")
	case utf8.RuneCountInString(name) > 60 || strings.IndexFunc(name, pay.IsForbiddenRune) >= 0:
		errs.Add("name", "アプリケーション名は制御文字を含まない60文字以内で入力してください")
	}
	if utf8.RuneCountInString(strings.TrimSpace(in.LogoText)) > 4 || strings.IndexFunc(in.LogoText, pay.IsForbiddenRune) >= 0 {
		errs.Add("logo_text", "ロゴの文字は4文字以内で入力してください")
	}
	for line := range strings.SplitSeq(in.RedirectURIs, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			uris = append(uris, line)
		}
	}
	switch {
	case len(uris) == 0:
		errs.Add("redirect_uris", "リダイレクトURIを1行に1つ入力してください")
	case len(uris) > MaxRedirectURIs:
		errs.Add("redirect_uris", "リダイレクトURIは10個までです")
	default:
		for _, u := range uris {
			if !validRedirect(u) {
				errs.Add("redirect_uris", "「"+u+"」は使えません。https:// で始まる、# を含まない URI（パソコンのアプリは http://127.0.0.1 も可）を入力してください")
				break
			}
		}
	}
	if w := strings.TrimSpace(in.WebhookURL); w != "" {
		if u, err := url.Parse(w); err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.Fragment != "" || len(w) > 500 {
			errs.Add("webhook_url", "Webhook の URL は https:// で始まる URL を入力してください")
		}
	}
	if len(in.Scopes) == 0 {
		errs.Add("scopes", "許可する操作を1つ以上選択してください")
	}
	for _, s := range in.Scopes {
		if !Scope(s).Valid() {
			errs.Add("scopes", "許可する操作を一覧から選択してください")
			break
		}
	}
	return uris, errs
}

func validRedirect(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Fragment != "" || strings.Contains(raw, "#") || u.Host == "" || u.User != nil || len(raw) > 500 {
		return false
	}
	switch u.Scheme {
	case "https":
		return true
	case "http":
		ip := net.ParseIP(u.Hostname())
		return ip != nil && ip.IsLoopback()
	}
	return false
}

// NewClient is a checked input as the stored client, with a new random id and, for a
// confidential client, a new secret (returned to be shown once; only its bcrypt hash
// is kept).
func NewClient(in ClientInput, uris []string, operatorID int64) (c store.OAuthClient, secret string, err error) {
	c = store.OAuthClient{ID: "app-" + strings.ToLower(rand.Text()[:16]), Name: strings.TrimSpace(in.Name),
		LogoText: strings.TrimSpace(in.LogoText), RedirectURIs: uris, WebhookURL: strings.TrimSpace(in.WebhookURL), CreatedBy: &operatorID}
	for _, s := range Scopes {
		if slices.Contains(in.Scopes, string(s)) {
			c.Scopes = append(c.Scopes, string(s))
		}
	}
	if !in.Public {
		secret = rand.Text() + rand.Text()
		if c.SecretHash, err = bcrypt.GenerateFromPassword([]byte(secret), bcrypt.DefaultCost); err != nil {
			return c, "", err
		}
	}
	return c, secret, nil
}
