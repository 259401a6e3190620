package auth

import (
	"strings"
	"unicode"
)

// normalizeInput turns what a person typed or pasted into the canonical form of a code.
// Japanese IMEs often produce full-width characters (１２３４５６) and a katakana
// prolonged sound mark (ー) where a hyphen was meant, and codes pasted from a mail bring
// spaces along; none of that should cost the user an attempt. Full-width ASCII is folded
// to ASCII, white space (including the ideographic space U+3000) and every kind of dash
// are dropped. Case is kept: callers that are case-insensitive lower the result.
func normalizeInput(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		// U+FF01..U+FF5E are the full-width forms of U+0021..U+007E, at a fixed offset.
		if r >= '！' && r <= '～' {
			r -= '！' - '!'
		}
		if unicode.IsSpace(r) || isDash(r) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isDash covers the characters people type or paste for "-": hyphen-minus (also the
// fold of full-width U+FF0D), the soft hyphen (invisible when pasted), the Unicode
// hyphens and dashes U+2010..U+2015, the minus sign, the small hyphen-minus, and the
// full- and half-width katakana prolonged sound marks that a kana IME types for "-".
func isDash(r rune) bool {
	switch r {
	case '-', '\u00ad', '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015',
		'\u2212', '\ufe63', '\u30fc', '\uff70':
		return true
	}
	return false
}

// isDigits reports whether s is exactly n ASCII digits.
func isDigits(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
