package ops

import (
	"net/url"
	"strconv"
)

// pageLinks are a console list's 前へ and 次へ: path with the list's filters (filters, the
// empty ones left out) and the page's number; "" where there is no such page.
func pageLinks(path string, filters map[string]string, page, offset, size, total int) (prev, next string) {
	href := func(p int) string {
		q := url.Values{}
		for k, val := range filters {
			if val != "" {
				q.Set(k, val)
			}
		}
		if p > 0 {
			q.Set("page", strconv.Itoa(p))
		}
		if len(q) == 0 {
			return path
		}
		return path + "?" + q.Encode()
	}
	if page > 0 {
		prev = href(page - 1)
	}
	if offset+size < total {
		next = href(page + 1)
	}
	return prev, next
}
