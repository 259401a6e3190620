package pay

import (
	"strings"
	"unicode"
)

// Kana names (法人名（カナ）, 代表者の姓（カナ） …) are stored in full-width
// katakana, the form banks, the NTA and card companies use. People type them
// in hiragana, in half-width katakana (ﾊﾝｶｸ, still common in accounting
// software) or in katakana, so forms accept all three and convert before
// checking.

const ideographicSpace = '　' // U+3000, the space between words in Japanese text

// IsFullWidthKatakana reports whether s is one or more words of full-width
// katakana (the Unicode block U+30A0–U+30FF, which includes the long mark ー,
// small kana such as ッ, ヴ and the middle dot ・) separated by single
// full-width spaces. Leading, trailing or doubled spaces, hiragana,
// half-width katakana, kanji, Latin letters and digits are rejected, and so
// is the empty string: whether a field may be empty is the caller's rule.
//
// The middle dot ・ is allowed on purpose: the readings of corporate names
// (ビー・エム・ダブリュー) and the names of representatives of foreign
// nationality (ジョン・スミス) are written with it.
func IsFullWidthKatakana(s string) bool {
	if s == "" {
		return false
	}
	prevSpace := true // a space may not come first
	for _, r := range s {
		switch {
		case r >= 0x30A0 && r <= 0x30FF:
			prevSpace = false
		case r == ideographicSpace && !prevSpace:
			prevSpace = true
		default:
			return false
		}
	}
	return !prevSpace
}

// ToFullWidthKatakana converts what a person typed into a kana field to the
// stored form: hiragana become katakana, half-width katakana become
// full-width (a following ﾞ or ﾟ is combined, so ｶﾞ → ガ and ﾊﾟ → パ), any
// run of spaces becomes one full-width space, and the ends are trimmed.
// Everything else is kept, so IsFullWidthKatakana still rejects kanji or
// Latin letters and the person sees what they typed. Invalid UTF-8 bytes
// become U+FFFD, which the check rejects too.
func ToFullWidthKatakana(s string) string {
	s = NormalizeSpaces(s)
	out := make([]rune, 0, len(s))
	for _, r := range s {
		switch {
		case r == ' ':
			r = ideographicSpace
		case r >= 'ぁ' && r <= 'ゖ', r == 'ゝ', r == 'ゞ':
			// Hiragana and katakana sit at a fixed distance in Unicode.
			r += 'ァ' - 'ぁ'
		case r >= 0xFF61 && r <= 0xFF9F:
			r = halfWidthKana[r-0xFF61]
		}
		if n := len(out); n > 0 && isSoundMark(r) {
			if composed, ok := withSoundMark(out[n-1], r); ok {
				out[n-1] = composed
				continue
			}
		}
		out = append(out, r)
	}
	return string(out)
}

// NormalizeSpaces trims white space (including the full-width space U+3000,
// tabs and line breaks) from both ends of s and collapses every run of white
// space inside it to a single space: a full-width space when the run
// contained one, otherwise an ASCII space. Keeping the kind of space the
// person chose leaves "山田　太郎" and "ABC Trading" as they were typed,
// while a pasted double space or tab does not make two values differ.
func NormalizeSpaces(s string) string {
	s = strings.TrimFunc(s, unicode.IsSpace)
	if !strings.ContainsFunc(s, unicode.IsSpace) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	inRun, fullWidth := false, false
	for _, r := range s {
		if unicode.IsSpace(r) {
			inRun = true
			fullWidth = fullWidth || r == ideographicSpace
			continue
		}
		if inRun {
			if fullWidth {
				b.WriteRune(ideographicSpace)
			} else {
				b.WriteByte(' ')
			}
			inRun, fullWidth = false, false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// halfWidthKana maps U+FF61 (｡) … U+FF9F (ﾟ) to their full-width forms, in
// code-point order. The sound marks become the spacing ゛ and ゜, which
// ToFullWidthKatakana then combines with the kana before them.
var halfWidthKana = []rune("。「」、・ヲァィゥェォャュョッーアイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワン゛゜")

// isSoundMark reports whether r is a dakuten or handakuten, spacing (゛ ゜,
// what half-width input becomes) or combining (U+3099, U+309A, as decomposed
// text from some systems carries them).
func isSoundMark(r rune) bool {
	switch r {
	case '゛', '゜', '\u3099', '\u309A':
		return true
	}
	return false
}

// withSoundMark combines a katakana with a following sound mark, or answers
// false when no such letter exists (ア + ゛), leaving the mark in place for
// IsFullWidthKatakana to reject.
func withSoundMark(base, mark rune) (rune, bool) {
	var r rune
	var ok bool
	if mark == '゛' || mark == '\u3099' {
		r, ok = voiced[base]
	} else {
		r, ok = semiVoiced[base]
	}
	return r, ok
}

var voiced, semiVoiced = pairs("カガキギクグケゲコゴサザシジスズセゼソゾタダチヂツヅテデトドハバヒビフブヘベホボウヴワヷヰヸヱヹヲヺヽヾ"),
	pairs("ハパヒピフプヘペホポ")

// pairs reads "AaBb…" as the map A→a, B→b.
func pairs(s string) map[rune]rune {
	rs := []rune(s)
	m := make(map[rune]rune, len(rs)/2)
	for i := 0; i+1 < len(rs); i += 2 {
		m[rs[i]] = rs[i+1]
	}
	return m
}
