package invoiceread

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestKanjiNumberRead(t *testing.T) {
	cases := []struct{ in, want string }{
		{"〇一八", "〇一八"},
		{"一O八", "一〇八"}, // the letter O
		{"〇一人", "〇一八"}, // 八 as 人
		{"ー〇八", "一〇八"}, // 一 as the long mark
		{"O人八", ""},    // one numeral read of three: no number
		{"渋谷", ""},     // a name
		{"大人一", ""},    // 大 is no numeral nor a slip
		{"〇一八九", ""},   // ゆうちょ's are three
	}
	for _, c := range cases {
		assert.Equal(t, c.want, kanjiNumberRead(c.in), c.in)
	}
}

// fixDigits: letters OCR reads for digits inside numbers, and the rules and brackets
// that are not.
func TestFixDigits(t *testing.T) {
	cases := []struct{ in, want string }{
		{"1,86O", "1,860"},
		{"],868", "1,868"},
		{"l2,000", "12,000"},
		{"TOKYO Vol", "TOKYO Vol"},
		{"| 2026/11/1", "| 2026/11/1"},   // a rule before a value
		{"¥55,000| 消費税", "¥55,000| 消費税"}, // a rule after a whole group of thousands
		{"¥1,200] ", "¥1,200] "},         // a bracket closing the cell
		{"¥1,20|", "¥1,201"},             // the group not whole yet: a 1
		{"5500|", "55001"},               // no group to go by
	}
	for _, c := range cases {
		assert.Equal(t, c.want, fixDigits(c.in), c.in)
	}
}
