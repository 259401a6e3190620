package pay_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"cardpay/pay"
)

// With 9 or more pages the control always holds 9 items, whichever page is current.
func TestPageItems(t *testing.T) {
	const gap = pay.PageGap
	for _, tc := range []struct {
		current, total int
		want           []int
	}{
		{1, 0, nil},
		{1, 1, []int{1}},
		{1, 2, []int{1, 2}},
		{2, 5, []int{1, 2, 3, 4, 5}},
		{4, 7, []int{1, 2, 3, 4, 5, 6, 7}},
		{1, 10, []int{1, 2, 3, 4, 5, 6, 7, gap, 10}},
		{4, 10, []int{1, 2, 3, 4, 5, 6, 7, gap, 10}},
		{5, 10, []int{1, 2, 3, 4, 5, 6, 7, gap, 10}},
		{6, 10, []int{1, gap, 4, 5, 6, 7, 8, 9, 10}},
		{7, 10, []int{1, gap, 4, 5, 6, 7, 8, 9, 10}},
		{10, 10, []int{1, gap, 4, 5, 6, 7, 8, 9, 10}},
		{30, 100, []int{1, gap, 28, 29, 30, 31, 32, gap, 100}},
		{50, 100, []int{1, gap, 48, 49, 50, 51, 52, gap, 100}},
		{0, 3, []int{1, 2, 3}},                // below range: the first page
		{99, 3, []int{1, 2, 3}},               // beyond range: the last page
		{3, 8, []int{1, 2, 3, 4, 5, 6, 7, 8}}, // a gap never hides a single page
	} {
		assert.Equal(t, tc.want, pay.PageItems(tc.current, tc.total), "page %d of %d", tc.current, tc.total)
	}
}

func TestPageCount(t *testing.T) {
	for _, tc := range []struct{ n, size, want int }{
		{0, 20, 1}, {1, 20, 1}, {20, 20, 1}, {21, 20, 2}, {100, 20, 5}, {5, 0, 1},
	} {
		assert.Equal(t, tc.want, pay.PageCount(tc.n, tc.size), "%d items of %d", tc.n, tc.size)
	}
}
