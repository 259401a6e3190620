package pay

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A bank account's holder name (口座名義) travels in the zengin transfer file
// and is compared by the receiving bank with the name it has on record; a
// mismatch returns the transfer. The file carries JIS X 0201 (half-width)
// characters only, and the 全銀協 rules allow this subset of them in a
// holder name:
//
//	カナ      ｱ–ﾝ and the sound marks ﾞ ﾟ, counted as one character each
//	英字      A–Z (upper case only)
//	数字      0–9
//	記号      ( ) . - / , ｢ ｣ and the space
//
// Small kana (ｧ ｯ ｬ …) and the long mark ｰ are not in the set: banks
// register キャッシュ as ｷﾔﾂｼﾕ and コーヒー as ｺ-ﾋ-, so those are converted.
//
// Two characters of the zengin code table are deliberately refused:
//   - ¥ (0x5C): no holder name needs it, and the byte reads as a backslash
//     or a yen sign depending on the converter, so what we check would not be
//     certain to be what the file says.
//   - ｦ (0xA6): banks register ヲ as ｵ (the practice their input guides
//     state), so we convert ヲ to ｵ as well and never send ｦ.

// HolderNameMaxLen is the width of the zengin 受取人名 field in half-width
// characters; ﾞ and ﾟ take one each, so ｶﾞ counts as two.
const HolderNameMaxLen = 30

// HolderNameError says in Japanese why a holder name cannot be converted to
// the zengin form, for showing under the field.
type HolderNameError struct {
	Message string
}

func (e *HolderNameError) Error() string { return e.Message }

const msgHolderRequired = "口座名義を入力してください"

// NormalizeHolderName converts what a person typed to the zengin form, or
// returns a *HolderNameError with a Japanese message saying why it cannot.
//
// White space is trimmed and each run becomes one space; full-width
// letters, digits and symbols become half-width and letters upper case;
// hiragana and katakana become half-width katakana, with voiced kana split
// into the letter and its mark (ガ → ｶﾞ) and small kana made large
// (ッ → ﾂ); the long mark and the dashes and waves people type for it
// become "-", the middle dot "."; ヰ ヱ ヲ become ｲ ｴ ｵ. Legal-entity
// abbreviations such as ｶ)ﾔﾏﾀﾞ are kept as they are. Anything else, such as
// kanji or emoji, is refused, naming the first such character.
func NormalizeHolderName(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", &HolderNameError{"口座名義に読み取れない文字が含まれています。入力し直してください"}
	}
	s = NormalizeSpaces(s)
	if s == "" {
		return "", &HolderNameError{msgHolderRequired}
	}
	var b strings.Builder
	b.Grow(len(s))
	// voiceable is the full-width kana just written when a following sound
	// mark may still attach to it (ｶ then ﾞ); 0 otherwise, so a mark after
	// ｱ, after a letter or after another mark is refused.
	var voiceable rune
	for _, r := range s {
		mark, isMark := soundMark(r)
		switch {
		case isMark && canTakeMark(voiceable, mark):
			b.WriteRune(mark)
			voiceable = 0
			continue
		case isMark:
			return "", unusableHolderRune(r)
		}
		voiceable = 0
		z, ok := zenginASCII(r)
		if !ok {
			k, ok := toKatakana(r)
			if !ok {
				return "", unusableHolderRune(r)
			}
			if z, ok = zenginKana[k]; !ok {
				return "", unusableHolderRune(r)
			}
			voiceable = k
		}
		b.WriteString(z)
	}
	out := b.String()
	if n := utf8.RuneCountInString(out); n > HolderNameMaxLen {
		return "", &HolderNameError{fmt.Sprintf("口座名義は半角%d文字以内で入力してください（現在%d文字）", HolderNameMaxLen, n)}
	}
	return out, nil
}

// unusableHolderRune names the offending character so the person knows
// what to change. Invisible characters (zero-width spaces, controls,
// combining accents) would show as an empty 「」, so they are named by code
// point instead.
func unusableHolderRune(r rune) error {
	if !unicode.IsGraphic(r) || unicode.Is(unicode.Mn, r) {
		return &HolderNameError{fmt.Sprintf("口座名義に目に見えない文字（U+%04X）が含まれています。削除してから入力し直してください", r)}
	}
	return &HolderNameError{fmt.Sprintf("口座名義に「%c」は使えません。カタカナ・英数字で入力してください", r)}
}

// zenginASCII converts spaces, Latin letters, digits and symbols, in ASCII
// or full-width, to their zengin form; false for anything else.
func zenginASCII(r rune) (string, bool) {
	if r >= '！' && r <= '～' {
		// The full-width ASCII block sits at a fixed offset from ASCII.
		r -= '！' - '!'
	}
	switch {
	case unicode.IsSpace(r):
		return " ", true
	case r >= 'a' && r <= 'z':
		return string(r - 'a' + 'A'), true
	case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return string(r), true
	case isHyphenLike(r), r == '~', r == '〜':
		// ～ and 〜 are typed for the long mark (ラーメン as ラ～メン).
		return "-", true
	case r == '・', r == '･':
		// Banks write the middle dot of ジョン・スミス as a full stop.
		return ".", true
	case r == '「', r == '｢':
		return "｢", true
	case r == '」', r == '｣':
		return "｣", true
	case strings.ContainsRune("().,/", r):
		return string(r), true
	}
	return "", false
}

// toKatakana maps hiragana and half-width katakana to full-width katakana,
// keeps katakana, and answers false for anything else. Sound marks are
// handled by the caller.
func toKatakana(r rune) (rune, bool) {
	switch {
	case r >= 'ぁ' && r <= 'ゖ':
		return r + ('ァ' - 'ぁ'), true
	case r >= 'ｦ' && r <= 'ﾝ':
		return halfWidthKana[r-0xFF61], true
	case r >= 'ァ' && r <= 'ヺ':
		return r, true
	}
	return 0, false
}

// soundMark reports whether r is a dakuten or handakuten in any of its
// forms (half-width ﾞ ﾟ, spacing ゛ ゜, combining U+3099 U+309A) and
// answers the zengin ﾞ or ﾟ.
func soundMark(r rune) (rune, bool) {
	switch r {
	case 'ﾞ', '゛', '\u3099':
		return 'ﾞ', true
	case 'ﾟ', '゜', '\u309A':
		return 'ﾟ', true
	}
	return 0, false
}

// canTakeMark reports whether kana followed by mark spells a letter we
// accept (ｶ + ﾞ, ﾊ + ﾟ, ｳ + ﾞ), using the full-width tables of kana.go.
func canTakeMark(kana, mark rune) bool {
	table := semiVoiced
	if mark == 'ﾞ' {
		table = voiced
	}
	composed, ok := table[kana]
	if !ok {
		return false
	}
	_, ok = zenginKana[composed]
	return ok
}

// zenginKana maps each full-width katakana to its zengin spelling.
var zenginKana = buildZenginKana()

func buildZenginKana() map[rune]string {
	m := make(map[rune]string, 100)
	// The plain letters ｱ–ﾝ, read back from the half-width table.
	for i, full := range halfWidthKana {
		half := rune(0xFF61 + i)
		if half >= 'ｱ' && half <= 'ﾝ' {
			m[full] = string(half)
		}
	}
	// Small kana are written large, and the letters that fell out of use
	// are written as they are read today.
	for small, large := range pairs("ァアィイゥウェエォオャヤュユョヨッツヮワヵカヶケヰイヱエヲオ") {
		m[small] = m[large]
	}
	// Voiced letters are the plain letter and its mark (ヴ → ｳﾞ). The
	// obsolete ヷ ヸ ヹ ヺ are left out: written ﾜﾞ ｲﾞ ｴﾞ ｵﾞ they would
	// not read back as the same letters, and no registered name uses them.
	for base, v := range voiced {
		if plain, ok := m[base]; ok && !strings.ContainsRune("ヷヸヹヺ", v) {
			m[v] = plain + "ﾞ"
		}
	}
	for base, p := range semiVoiced {
		m[p] = m[base] + "ﾟ"
	}
	return m
}
