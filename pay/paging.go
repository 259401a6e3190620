package pay

// PageSiblings is how many page numbers the pagination shows on each side of the
// current one (SPEC.md §9: sibling count 2).
const PageSiblings = 2

// pageBoundary is how many numbers are always shown at each end.
const pageBoundary = 1

// PageGap stands for the ellipsis between page numbers in PageItems.
const PageGap = 0

// PageItems lists what a pagination control shows for page current of total (both from
// 1): the first and last pages, current with PageSiblings on each side, and PageGap
// where numbers are left out. A gap replaces two or more numbers only, never one, so the
// control keeps the same width as current moves (the layout of MUI's usePagination,
// which the original screens used). total < 1 gives nothing.
func PageItems(current, total int) []int {
	if total < 1 {
		return nil
	}
	current = min(max(current, 1), total)
	var items []int
	for p := 1; p <= min(pageBoundary, total); p++ {
		items = append(items, p)
	}
	endStart := max(total-pageBoundary+1, pageBoundary+1)
	siblingsStart := max(min(current-PageSiblings, total-pageBoundary-PageSiblings*2-1), pageBoundary+2)
	lastBeforeEnd := total - 1
	if endStart <= total {
		lastBeforeEnd = endStart - 2
	}
	siblingsEnd := min(max(current+PageSiblings, pageBoundary+PageSiblings*2+2), lastBeforeEnd)

	switch {
	case siblingsStart > pageBoundary+2:
		items = append(items, PageGap)
	case pageBoundary+1 < total-pageBoundary:
		items = append(items, pageBoundary+1)
	}
	for p := siblingsStart; p <= siblingsEnd; p++ {
		items = append(items, p)
	}
	switch {
	case siblingsEnd < total-pageBoundary-1:
		items = append(items, PageGap)
	case total-pageBoundary > pageBoundary:
		items = append(items, total-pageBoundary)
	}
	for p := endStart; p <= total; p++ {
		items = append(items, p)
	}
	return items
}

// PageCount is how many pages of size hold n items (at least 1, so an empty list still
// has its first page).
func PageCount(n, size int) int {
	if size <= 0 || n <= 0 {
		return 1
	}
	return (n + size - 1) / size
}
