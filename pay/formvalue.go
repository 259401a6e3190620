package pay

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// What every form of the product shares, whichever package holds the form's own
// rules: the characters no value may contain, the length message, and the rows of a
// check-answers page.

// IsForbiddenRune reports characters no form value may contain: control
// characters (Cc), invisible format characters such as zero-width spaces
// and bidi overrides that make a stored name read differently from how it
// looks (Cf), and private-use characters (Co) that other systems cannot
// show. White space is handled by trimming instead.
func IsForbiddenRune(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co)
}

// CheckLength is the message for a value longer than max characters (counted as a
// person counts them, one per rune, not per byte), or "" when it fits. Every form
// says the same sentence, so the limit reads alike wherever it is hit.
func CheckLength(label, v string, max int) string {
	if utf8.RuneCountInString(v) > max {
		return fmt.Sprintf("%sは%d文字以内で入力してください", label, max)
	}
	return ""
}

// LabeledValue is one row of the check-answers page: Label and Value to
// show, and Field, the JSON name and HTML id of the input its 変更 link
// goes back to ("#"+Field).
type LabeledValue struct {
	Field string
	Label string
	Value string
}

// NotEntered stands in for an optional value that was left empty, so a row
// never looks as if it failed to load.
const NotEntered = "未入力"
