package web

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
)

// The HTTP side of the drafts lists (下書き of payments and of requests): which page of
// the buyer's drafts a request asks for, and deleting the drafts its form ticked. What a
// row shows, and where a draft resumes, is the area's.

// DraftList is one page of the signed-in buyer's drafts of a kind, the latest saved first.
type DraftList struct {
	Drafts     []store.Draft
	Total      int
	Pagination views.Pagination
}

// DraftList answers the page of the signed-in buyer's drafts of kind that ?page= asks
// for, size a page, its page links going to the list at list.
func (a *App) DraftList(c *echo.Context, kind store.DraftKind, size int, list string) (DraftList, error) {
	page := PageParam(c) - 1
	drafts, total, err := a.Store.Drafts(c.Request().Context(), CurrentUser(c).BuyerID, kind, page, size)
	if err != nil {
		return DraftList{}, err
	}
	n := pay.PageCount(total, size)
	return DraftList{Drafts: drafts, Total: total, Pagination: views.Pagination{Current: page + 1, Total: n,
		Items: pay.PageItems(page+1, n), Href: func(p int) string { return list + "?page=" + strconv.Itoa(p) }}}, nil
}

// maxTickedDrafts bounds the ids one delete reads: a list page shows 20.
const maxTickedDrafts = 100

// DeleteTickedDrafts deletes the drafts a drafts list's form ticked (its "draft" boxes)
// that are the signed-in buyer's drafts of kind, once asked: like every delete (SPEC.md
// §8) it first shows a question naming them, はい / いいえ, a page that works without
// JavaScript, whose はい posts the same drafts again with confirmed=1; then it goes back
// to the list at list with a flash saying how many went. When nothing was ticked it
// writes nothing and answers the list's error, for the area to show the list again.
func (a *App) DeleteTickedDrafts(c *echo.Context, kind store.DraftKind, list string) (pay.FieldErrors, error) {
	if err := c.Request().ParseForm(); err != nil {
		return nil, ErrNotFound
	}
	var ids []int64
	for _, s := range c.Request().PostForm["draft"] {
		if id, err := strconv.ParseInt(s, 10, 64); err == nil && id > 0 && !slices.Contains(ids, id) && len(ids) < maxTickedDrafts {
			ids = append(ids, id)
		}
	}
	none := pay.FieldErrors{{Field: "draft", Message: "削除する下書きを選んでください"}}
	if len(ids) == 0 {
		return none, nil
	}
	ctx := c.Request().Context()
	if c.Request().PostForm.Get("confirmed") != "1" {
		drafts, err := a.Store.DraftsByID(ctx, CurrentUser(c).BuyerID, kind, ids)
		if err != nil {
			return nil, err
		}
		if len(drafts) == 0 {
			// Ticked, but gone since (deleted in another tab) or never the buyer's: the
			// list as it is now, nothing to ask.
			return nil, c.Redirect(http.StatusSeeOther, list)
		}
		b, err := a.Base(c, "下書きの削除")
		if err != nil {
			return nil, err
		}
		v := views.DeleteDraftsView{Base: b, Action: c.Request().URL.Path, BackHref: list}
		for _, d := range drafts {
			v.IDs = append(v.IDs, strconv.FormatInt(d.ID, 10))
			v.Items = append(v.Items, draftItem(kind, d))
		}
		return nil, Render(c, http.StatusOK, views.DeleteDraftsPage(v))
	}
	n, err := a.Store.DeleteDrafts(ctx, CurrentUser(c).BuyerID, kind, ids)
	if err != nil {
		return nil, err
	}
	a.SetFlash(c, views.Flash{Color: "success", Title: "下書きを" + strconv.Itoa(n) + "件削除しました"})
	return nil, c.Redirect(http.StatusSeeOther, list)
}

// draftItem names a draft in the delete question as its list's row does: who, how much,
// when it was saved.
func draftItem(kind store.DraftKind, d store.Draft) string {
	who := d.Counterparty
	if who == "" {
		who = "取引先未入力"
		if kind == store.RequestDraft {
			who = "お客さま未入力"
		}
	}
	s := who + "（"
	if d.Amount != nil {
		s += pay.Yen(*d.Amount) + "、"
	}
	return s + "保存 " + pay.JapaneseDateTime(d.UpdatedAt) + "）"
}
