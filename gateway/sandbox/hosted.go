package sandbox

import (
	"net/http"
	"net/url"
	"time"
)

type hostedSession struct {
	ID        string     `db:"id"`
	ReturnURL string     `db:"return_url"`
	CreatedAt time.Time  `db:"created_at"`
	ExpiresAt time.Time  `db:"expires_at"`
	UsedAt    *time.Time `db:"used_at"`
}

// HostedSession is the answer to POST /v1/hosted_sessions.
type HostedSession struct {
	ID  string `json:"id"`
	URL string `json:"url"`
}

// createHostedSession is POST /v1/hosted_sessions {"return_url"}, from the app's server:
// the buyer's browser is then sent to the session's URL.
func (s *Server) createHostedSession(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ReturnURL string `json:"return_url"`
	}
	if err := decodeJSON(r, &req); err != nil {
		apiError(w, http.StatusBadRequest, codeInvalidRequest, `{"return_url"} is expected`)
		return
	}
	if _, ok := s.appURL(req.ReturnURL); !ok {
		apiError(w, http.StatusBadRequest, codeInvalidRequest, "return_url must be an absolute URL on one of the merchant's origins")
		return
	}
	now := s.now()
	hs := hostedSession{ID: newID("hs"), ReturnURL: req.ReturnURL, CreatedAt: now, ExpiresAt: now.Add(hostedTTL)}
	if _, err := s.db.NamedExecContext(r.Context(), `
		INSERT INTO sandbox_hosted_sessions (id, return_url, created_at, expires_at)
		VALUES (:id, :return_url, :created_at, :expires_at)`, hs); err != nil {
		s.serverError(w, "hosted session", err)
		return
	}
	writeJSON(w, http.StatusCreated, HostedSession{ID: hs.ID, URL: s.public.String() + "/hosted/" + hs.ID})
}

// hostedSessionFor reads a session that can still take a card, or writes the page that
// says why not.
func (s *Server) hostedSessionFor(w http.ResponseWriter, r *http.Request) (hostedSession, *url.URL, bool) {
	var hs hostedSession
	if err := s.db.GetContext(r.Context(), &hs, `SELECT * FROM sandbox_hosted_sessions WHERE id = $1`, r.PathValue("id")); err != nil {
		if !isNoRows(err) {
			s.log.Error("hosted session", "error", err)
		}
		s.notFoundPage(w)
		return hs, nil, false
	}
	ret, ok := s.appURL(hs.ReturnURL)
	if !ok {
		s.notFoundPage(w)
		return hs, nil, false
	}
	if hs.UsedAt != nil || !hs.ExpiresAt.After(s.now()) {
		s.message(w, http.StatusGone, "このページの有効期限が切れました",
			"カード情報の入力画面は、開いてから30分間、1回だけ使えます。加盟店のページに戻って、もう一度お試しください。",
			withQuery(ret, "hosted_cancel", "1"), "加盟店のページに戻る")
		return hs, nil, false
	}
	return hs, ret, true
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
	hs, ret, ok := s.hostedSessionFor(w, r)
	if !ok {
		return
	}
	s.render(w, http.StatusOK, "hosted", pageData{
		Title: "カード情報の入力", Action: "/hosted/" + hs.ID, Fields: hostedFields("", "", nil),
		CancelURL: withQuery(ret, "hosted_cancel", "1"),
	})
}

// hostedSubmit is POST /hosted/{id}: a valid card becomes a one-time token and the
// buyer goes back to the app with it; an invalid one shows the form again (422) with
// each message next to its field.
func (s *Server) hostedSubmit(w http.ResponseWriter, r *http.Request) {
	if !s.sameOrigin(r) {
		s.crossSitePage(w)
		return
	}
	hs, ret, ok := s.hostedSessionFor(w, r)
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
	// The session is used once: a second post (a double click) finds it used.
	res, err := s.db.ExecContext(r.Context(), `UPDATE sandbox_hosted_sessions SET used_at = $2 WHERE id = $1 AND used_at IS NULL`, hs.ID, s.now())
	if err != nil {
		s.log.Error("hosted session", "error", err)
		s.message(w, http.StatusInternalServerError, "エラーが発生しました", "時間をおいて、もう一度お試しください。", "", "")
		return
	}
	if n, _ := res.RowsAffected(); n == 0 {
		s.hostedSessionFor(w, r)
		return
	}
	tok, err := s.insertToken(r.Context(), card)
	if err != nil {
		s.log.Error("hosted token", "error", err)
		s.message(w, http.StatusInternalServerError, "エラーが発生しました", "時間をおいて、もう一度お試しください。", "", "")
		return
	}
	http.Redirect(w, r, withQuery(ret, "token", tok.Token), http.StatusSeeOther)
}
