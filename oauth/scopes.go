// Package oauth is the authorisation server for partner applications (issue 30):
// accounting software a buyer connects, which may then read and create drafts through
// the JSON API on the buyer's behalf. It is ory/fosite (authorisation code with PKCE
// S256 only, rotating refresh tokens with reuse detection, revocation, introspection)
// over the store's tables; the consent page, the token endpoints and the API's check of
// a partner's token use it.
package oauth

import "slices"

// Scope is what a partner application may do.
type Scope string

// The scopes, each in plain Japanese for the consent page.
const (
	ScopePaymentsRead  Scope = "payments:read"
	ScopePaymentsDraft Scope = "payments:draft"
	ScopeRequestsDraft Scope = "requests:draft"
	ScopeSuppliersRead Scope = "suppliers:read"
	ScopeBooksRead     Scope = "books:read"
)

// Scopes are every scope, in the order the consent page lists them.
var Scopes = []Scope{ScopePaymentsRead, ScopePaymentsDraft, ScopeRequestsDraft, ScopeSuppliersRead, ScopeBooksRead}

var scopeTexts = map[Scope]string{
	ScopePaymentsRead:  "お支払いの一覧と内容を見る",
	ScopePaymentsDraft: "お支払いの下書きを作る（申請とカードでの支払いは、あなたがログインして行います）",
	ScopeRequestsDraft: "カード払い依頼の下書きを作る（送信はあなたがログインして行います）",
	ScopeSuppliersRead: "登録取引先の一覧と内容を見る",
	ScopeBooksRead:     "会計ソフト用のデータ（支払一覧・仕訳）を読む",
}

// Text says what the scope allows, for the consent page and the security settings.
func (s Scope) Text() string { return scopeTexts[s] }

// Valid reports whether s is one of Scopes.
func (s Scope) Valid() bool { return slices.Contains(Scopes, s) }
