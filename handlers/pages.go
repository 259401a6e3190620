package handlers

// PageInfo describes a page for the browser tests and the page-weight script, which
// visit every page that exists.
type PageInfo struct {
	Path  string `json:"path"`
	Title string `json:"title"`
	// Access is "public", "signed_in" or "collections" (corporations only).
	Access string `json:"access"`
}

// Pages lists every GET page without path parameters, plus one example of each
// parameterised page and of the error views.
func Pages() []PageInfo {
	ps := []PageInfo{
		{"/signin", "ログイン", "public"},
		{"/error/" + "エラー" + "/" + "処理を続けられませんでした", "エラー", "public"},
		{"/no-such-page", "ページが見つかりません", "public"},
		{"/dev/mailbox", "開発用メールボックス", "public"},
	}
	ps = append(ps, signupPages()...)
	ps = append(ps, accountPages()...)
	for _, p := range infoPages {
		ps = append(ps, PageInfo{p.path, p.title, "public"})
	}
	for _, p := range signedInPlaceholders {
		ps = append(ps, PageInfo{p.path, p.title, "signed_in"})
	}
	for _, p := range collectionPlaceholders {
		ps = append(ps, PageInfo{p.path, p.title, "collections"})
	}
	return ps
}
