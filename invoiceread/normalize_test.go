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
