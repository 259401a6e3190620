package sandbox

import (
	"bytes"
	"crypto/rand"
	"embed"
	"encoding/base64"
	"html/template"
	"net/http"
	"strings"

	"cardpay/gateway"
)

//go:embed templates/*.html
var templateFS embed.FS

// pages are the sandbox's HTML pages, each the base layout with its own content.
var pages = func() map[string]*template.Template {
	m := map[string]*template.Template{}
	for _, name := range []string{"hosted", "challenge", "message", "index"} {
		m[name] = template.Must(template.ParseFS(templateFS, "templates/base.html", "templates/"+name+".html"))
	}
	return m
}()

// fieldsPageTemplate is the card-fields page: a lean layout of its own (no header or
// footer, its own style sheet), sized for an iframe 360 px wide.
var fieldsPageTemplate = template.Must(template.ParseFS(templateFS, "templates/fields.html"))

// fieldView is one form field: its label, hint and error are tied to the input by
// for and aria-describedby.
type fieldView struct {
	ID, Label, Hint, Error, Value, Autocomplete string
	Numeric, Upper                              bool
}

// DescribedBy lists the hint and the error, in reading order.
func (f fieldView) DescribedBy() string {
	var ids []string
	if f.Hint != "" {
		ids = append(ids, f.ID+"-hint")
	}
	if f.Error != "" {
		ids = append(ids, f.ID+"-error")
	}
	return strings.Join(ids, " ")
}

type pageData struct {
	Title  string
	Nonce  string
	Wide   bool
	Errors []fieldError
	Fields []fieldView
	Action string
	// hosted page
	CancelURL string
	// challenge
	AmountText, CardText, Passcode string
	// message page
	Message, LinkURL, LinkText string
	// index
	Cards []TestCard
}

// render writes an HTML page with a CSP that allows its one style element and forms
// that post here and go on to the app.
func (s *Server) render(w http.ResponseWriter, status int, name string, d pageData) {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	d.Nonce = base64.RawURLEncoding.EncodeToString(b)
	var buf bytes.Buffer
	if err := pages[name].ExecuteTemplate(&buf, "base", d); err != nil {
		s.log.Error("page", "page", name, "error", err)
		http.Error(w, "システムエラーが発生しました。", http.StatusInternalServerError)
		return
	}
	// A form's redirect after posting counts against form-action: the app's origins
	// are where the hosted page and the challenge send the buyer back.
	formAction := "'self'"
	for o := range s.origins {
		formAction += " " + o
	}
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'nonce-"+d.Nonce+"'; img-src 'self'; "+
		"form-action "+formAction+"; frame-ancestors 'none'; base-uri 'none'")
	h.Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func (s *Server) message(w http.ResponseWriter, status int, title, msg, linkURL, linkText string) {
	s.render(w, status, "message", pageData{Title: title, Message: msg, LinkURL: linkURL, LinkText: linkText})
}

func (s *Server) notFoundPage(w http.ResponseWriter) {
	s.message(w, http.StatusNotFound, "ページが見つかりません",
		"URL が正しくないか、このページはもうありません。加盟店のページからやり直してください。", "", "")
}

func (s *Server) crossSitePage(w http.ResponseWriter) {
	s.message(w, http.StatusForbidden, "送信を受け付けられません",
		"他のサイトから送信されたため、処理を中止しました。加盟店のページからやり直してください。", "", "")
}

// index lists the test cards for developers.
func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	s.render(w, http.StatusOK, "index", pageData{Title: "サンドボックス決済代行", Wide: true, Cards: TestCards})
}

// Japanese says what the card does, for the index page.
func (c TestCard) Japanese() string {
	switch c.Scenario {
	case ScenarioApproved:
		return "承認（本人認証なし）"
	case ScenarioChallenge:
		return "3-Dセキュアの本人認証あり。表示されるワンタイムパスワードで承認"
	case ScenarioChallengeFails:
		return "3-Dセキュアの本人認証あり。何を入力しても認証失敗（" + string(c.Code) + "）"
	case ScenarioDecline:
		return "拒否（" + string(c.Code) + "）: " + gateway.ResultMessage(c.Code)
	case ScenarioTimeout:
		return "承認後、応答が遅れてタイムアウト。照会すると承認済み。同じ決済IDで再度与信しても二重に請求されない"
	case ScenarioRefused:
		return "取り扱いのないブランドのため、送信前に拒否（" + string(c.Code) + "）"
	}
	return ""
}
