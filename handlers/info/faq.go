package info

import (
	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/handlers/web"
	pages "cardpay/views/info"
)

// FAQPage is よくあるご質問: the questions of account.FAQ, with the figures this
// installation is configured with, searchable with ?q= (a GET form: no JavaScript).
var FAQPage = web.Page{Path: FAQPath, Title: "よくあるご質問", Access: web.Public}

// ShowFAQPage shows every question, or those holding every word of q.
func (h *Handler) ShowFAQPage(c *echo.Context) error {
	facts := account.FAQFacts{Payment: h.Payments.CurrentLimits(), Rate: h.Account.Limits}
	all := account.FAQ(facts)
	q := account.CleanFAQQuery(c.QueryParam("q"))
	v := pages.FAQView{Query: q, Searched: q != ""}
	for _, g := range all {
		v.Contents = append(v.Contents, pages.FAQLink{ID: g.ID, Label: g.Heading})
	}
	found, n := account.SearchFAQ(all, q)
	v.Count = n
	for _, g := range found {
		fg := pages.FAQGroup{ID: g.ID, Heading: g.Heading}
		for _, it := range g.Items {
			fg.Items = append(fg.Items, pages.FAQItem{ID: it.ID, Question: it.Question, Answer: it.Answer})
		}
		v.Groups = append(v.Groups, fg)
	}
	return web.Show(h.App, c, FAQPage.Title, nil, v, pages.FAQPage)
}
