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
	ps = append(ps, supplierPages()...)
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

// supplierPages are the supplier screens reachable without ids; the browser journey
// visits the others (a supplier, its accounts and history) with the ids it creates.
func supplierPages() []PageInfo {
	return []PageInfo{
		{"/suppliers?status=enable", "登録取引先", "signed_in"},
		{"/suppliers?status=disable", "登録取引先", "signed_in"},
		{"/suppliers/add/company", "取引先の追加：事業形態", "signed_in"},
	}
}
