package pay

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// A corporation's registration is checked against the 法人番号 registry (issue 24):
// anyone can type another company's public number, and the check digit alone proves
// nothing. The name (and, when the registry has an address, the prefecture) must be the
// registry's; a number the registry cannot confirm, or one an active buyer already
// holds, makes the account wait for an operator (BuyerHeld) instead of being trusted.

// BuyerReview is a buyer's review state (buyers.review_status).
type BuyerReview string

const (
	// BuyerActive is every buyer the registry confirmed, every sole proprietor, and a
	// held buyer an operator approved.
	BuyerActive BuyerReview = "active"
	// BuyerHeld can sign in and look around, but pays nothing and requests nothing
	// until an operator decides.
	BuyerHeld BuyerReview = "held"
	// BuyerRejected stays as held for good: the operators refused the claim.
	BuyerRejected BuyerReview = "rejected"
)

// Why a buyer is held (buyers.review_reason).
const (
	HoldRegistryUnknown     = "registry_unknown"     // the registry has no such open corporation
	HoldRegistryUnavailable = "registry_unavailable" // the registry did not answer
	HoldNumberTaken         = "number_taken"         // an active buyer already holds the number
)

// Label is the state as the console shows it.
func (r BuyerReview) Label() string {
	switch r {
	case BuyerActive:
		return "利用中"
	case BuyerHeld:
		return "確認待ち"
	case BuyerRejected:
		return "否認"
	}
	return string(r)
}

// HoldReasonLabel says in Japanese why a buyer waits for the operators.
func HoldReasonLabel(reason string) string {
	switch reason {
	case HoldRegistryUnknown:
		return "法人番号が登記に見つからない"
	case HoldRegistryUnavailable:
		return "法人番号の照会に失敗した"
	case HoldNumberTaken:
		return "同じ法人番号の利用中のアカウントがある"
	}
	return reason
}

// MsgBuyerHeld refuses what a held buyer may not do yet (pay, request, take a request).
const MsgBuyerHeld = "アカウントの確認が終わるまで、この操作はご利用いただけません。確認の結果はメールでお知らせします"

// Messages of a registration the registry contradicts.
const (
	MsgRegistryName       = "法人名が法人番号の登記と一致しません。登記されている商号（例：株式会社〇〇）と法人番号をご確認ください"
	MsgRegistryPrefecture = "所在地の都道府県が法人番号の登記（本店所在地）と一致しません。本店の所在地を入力してください"
)

// legalForms are the company types written before or after a name, with the
// abbreviations people and invoices use for them (（株） and ㈱ fold to (株) under NFKC).
var legalForms = []struct{ long, short string }{
	{"株式会社", "(株)"}, {"有限会社", "(有)"}, {"合同会社", "(同)"}, {"合名会社", "(名)"}, {"合資会社", "(資)"},
}

// foldName is a name as the comparison sees it: NFKC (full-width letters and digits and
// half-width kana to their usual forms, ㈱ to (株)), lower case, no spaces.
func foldName(s string) string {
	s = strings.ToLower(norm.NFKC.String(s))
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// splitLegalForm takes one company type off either end of a folded name: the name
// itself and the type's long form ("" when there is none).
func splitLegalForm(s string) (core, form string) {
	for _, f := range legalForms {
		for _, w := range []string{f.long, f.short} {
			if rest, ok := strings.CutPrefix(s, w); ok && rest != "" {
				return rest, f.long
			}
			if rest, ok := strings.CutSuffix(s, w); ok && rest != "" {
				return rest, f.long
			}
		}
	}
	return s, ""
}

// SameCorporateName reports whether typed names the corporation registered as
// registered, allowing the ways the same name is written: 株式会社, （株） or ㈱ (and
// the other company types) before or after the name or left out, full- or half-width
// letters, digits and kana, upper or lower case, spaces. Two different company types
// (株式会社 against 合同会社) do not match.
func SameCorporateName(registered, typed string) bool {
	rc, rf := splitLegalForm(foldName(registered))
	tc, tf := splitLegalForm(foldName(typed))
	if rc == "" || rc != tc {
		return false
	}
	return rf == "" || tf == "" || rf == tf
}

// PrefectureOf is the prefecture an address starts with ("東京都千代田区…" gives
// 東京都), or "" for an address without one (a head office abroad).
func PrefectureOf(address string) string {
	address = strings.TrimSpace(norm.NFKC.String(address))
	for _, p := range Prefectures {
		if strings.HasPrefix(address, p.Name) {
			return p.Name
		}
	}
	return ""
}
