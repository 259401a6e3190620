package sandbox

import (
	"errors"
	"net/http"
	"net/url"
)

// hostedSetupFor reads a setup that can still take a card, or writes the page that says
// why not.
func (s *Server) hostedSetupFor(w http.ResponseWriter, r *http.Request) (setupRow, *url.URL, bool) {
	st, err := s.setupByID(r.Context(), r.PathValue("id"))
	if err != nil {
		if !isNoRows(err) {
			s.log.Error("setup", "error", err)
		}
		s.notFoundPage(w)
		return st, nil, false
	}
	ret, ok := s.appURL(st.ReturnURL)
	if !ok {
		s.notFoundPage(w)
		return st, nil, false
	}
	if !st.open(s.now()) {
		s.message(w, http.StatusGone, "このページの有効期限が切れました",
			"カード情報の入力画面は、開いてから30分間、1回だけ使えます。加盟店のページに戻って、もう一度お試しください。",
			withQuery(ret, "hosted_cancel", "1"), "加盟店のページに戻る")
		return st, nil, false
	}
	return st, ret, true
}

// hostedFields are the hosted page's fields, with the values to show again and the
// errors of a refused post. The card number and the security code are never shown
// again: the buyer types them anew.
func hostedFields(exp, name string, errs []fieldError) []fieldView {
	msg := map[string]string{}
	for _, e := range errs {
		if msg[e.Field] == "" {
			msg[e.Field] = e.Message
		}
	}
	return []fieldView{
		{ID: "number", Label: "カード番号", Hint: "半角数字で入力してください。スペースはあってもなくてもかまいません。", Error: msg["number"], Autocomplete: "cc-number", Numeric: true},
		{ID: "exp", Label: "有効期限（月/年）", Hint: "カードに記載の月と年を MM/YY の形で（例: 04/28）", Error: msg["exp"], Value: exp, Autocomplete: "cc-exp", Numeric: true},
		{ID: "cvc", Label: "セキュリティコード", Hint: "カード裏面の署名欄に記載の3桁の数字", Error: msg["cvc"], Autocomplete: "cc-csc", Numeric: true},
		{ID: "name", Label: "カード名義", Hint: "カードに記載のとおり半角の英字で（例: TARO YAMADA）", Error: msg["name"], Value: name, Autocomplete: "cc-name", Upper: true},
	}
}

// hostedPage is GET /hosted/{id}: the card form for buyers without JavaScript.
func (s *Server) hostedPage(w http.ResponseWriter, r *http.Request) {
	hs, ret, ok := s.hostedSetupFor(w, r)
	if !ok {
		return
	}
	s.render(w, http.StatusOK, "hosted", pageData{
		Title: "カード情報の入力", Action: "/hosted/" + hs.ID, Fields: hostedFields("", "", nil),
		CancelURL: withQuery(ret, "hosted_cancel", "1"),
	})
}

// hostedSubmit is POST /hosted/{id}: a valid card becomes a one-time token recorded on
// the setup, and the buyer goes back to the app with the setup's id; an invalid one shows the form again (422) with
// each message next to its field.
func (s *Server) hostedSubmit(w http.ResponseWriter, r *http.Request) {
	if !s.sameOrigin(r) {
		s.crossSitePage(w)
		return
	}
	hs, ret, ok := s.hostedSetupFor(w, r)
	if !ok {
		return
	}
	if err := r.ParseForm(); err != nil {
		s.notFoundPage(w)
		return
	}
	exp, name := r.PostForm.Get("exp"), r.PostForm.Get("name")
	month, year := splitExpiry(exp)
	card, errs := check(cardInput{r.PostForm.Get("number"), month, year, r.PostForm.Get("cvc"), name}, s.now())
	if len(errs) > 0 {
		s.render(w, http.StatusUnprocessableEntity, "hosted", pageData{
			Title: "カード情報の入力", Action: "/hosted/" + hs.ID, Errors: errs, Fields: hostedFields(exp, name, errs),
			CancelURL: withQuery(ret, "hosted_cancel", "1"),
		})
		return
	}
	// The setup takes one card: a second post (a double click) finds it used. The token
	// stays with the setup; the merchant's server finishes the setup by its id, so the
	// return URL carries nothing but that id.
	if _, err := s.enterCard(r.Context(), hs.ID, card); err != nil {
		if errors.Is(err, errSetupClosed) {
			s.hostedSetupFor(w, r)
			return
		}
		s.log.Error("hosted card", "error", err)
		s.message(w, http.StatusInternalServerError, "エラーが発生しました", "時間をおいて、もう一度お試しください。", "", "")
		return
	}
	http.Redirect(w, r, withQuery(ret, "setup", hs.ID), http.StatusSeeOther)
}
