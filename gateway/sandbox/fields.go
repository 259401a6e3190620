package sandbox

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"errors"
	"mime"
	"net/http"
	"path"
	"strings"

	"cardpay/pay"
)

// The card-fields page: the sandbox's own page for an iframe on the merchant's page, so
// that the card number and the security code are typed into the PSP's document and sent
// from the PSP's origin. The merchant's page (and its script) gets only what postMessage
// hands it: the setup's id, the token, brand, last 4 digits and expiry.

// The fields page's script and style, embedded so the sandbox is one binary. The tests
// (rules.test.js) live beside them and are not embedded.
//
//go:embed assets/fields.js assets/rules.js assets/fields.css
var assetFS embed.FS

// assetVersion names the assets' current contents in their URL (/assets/<version>/…), so
// they can be cached for a year: a change makes a new URL, and fields.js's relative
// import of ./rules.js stays within the one version.
var assetVersion = func() string {
	h := sha256.New()
	for _, name := range []string{"fields.js", "rules.js", "fields.css"} {
		b, err := assetFS.ReadFile("assets/" + name)
		if err != nil {
			panic(err)
		}
		h.Write([]byte(name + "\x00"))
		h.Write(b)
	}
	return b32.EncodeToString(h.Sum(nil))[:12]
}()

// asset is GET /assets/{version}/{name}. Another version is a 404, not the current
// files: a year-long cache must never hold other contents under an old URL.
func (s *Server) asset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	b, err := assetFS.ReadFile("assets/" + name)
	if err != nil || r.PathValue("version") != assetVersion || strings.HasSuffix(name, ".test.js") {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	switch path.Ext(name) {
	case ".js":
		// Module scripts need a JavaScript MIME type (nosniff is on).
		h.Set("Content-Type", "text/javascript; charset=utf-8")
	case ".css":
		h.Set("Content-Type", "text/css; charset=utf-8")
	}
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	_, _ = w.Write(b)
}

// fieldsData is the fields page's template data.
type fieldsData struct {
	Title     string
	AssetBase string // /assets/<version>
	SetupID   string
	// Origin is the setup's merchant origin, the script's only postMessage target.
	Origin string
	Fields []fieldView
	// Accepted names the brands taken, for the hint ("JCB、VISA、Mastercard"), and
	// AcceptedCodes lists their codes for the script ("JCB,VISA,MASTER").
	Accepted, AcceptedCodes string
	// Closed says why the setup takes no card any more (then no form is shown).
	Closed string
}

const (
	fieldsTitle      = "カード情報の入力"
	msgFieldsClosed  = "このカード入力欄は使用済みか、有効期限（30分）が切れています。ページを再読み込みして、もう一度お試しください。"
	msgFieldsUnknown = "このカード入力欄は見つかりません。ページを再読み込みして、もう一度お試しください。"
	msgFieldsServer  = "カード情報を送信できませんでした。時間をおいて、もう一度お試しください。"
	msgFieldsOrigin  = "他のサイトからの送信は受け付けられません。"
)

// accepted answers pay.AcceptedBrands' labels and codes.
func accepted() (labels, codes string) {
	var l, c []string
	for _, b := range pay.AcceptedBrands {
		l, c = append(l, b.Label()), append(c, string(b))
	}
	return strings.Join(l, "、"), strings.Join(c, ",")
}

// fieldsPage is GET /fields/{id}: the card fields of a setup, framed by the setup's
// merchant origin only.
func (s *Server) fieldsPage(w http.ResponseWriter, r *http.Request) {
	st, err := s.setupByID(r.Context(), r.PathValue("id"))
	if err != nil {
		if !isNoRows(err) {
			s.log.Error("setup", "error", err)
		}
		// No setup, no merchant origin to allow as a frame-ancestor: the ordinary page,
		// which no one may frame.
		s.notFoundPage(w)
		return
	}
	d := fieldsData{
		Title: fieldsTitle, AssetBase: "/assets/" + assetVersion, SetupID: st.ID, Origin: st.Origin,
		Fields: hostedFields("", "", nil),
	}
	d.Accepted, d.AcceptedCodes = accepted()
	status := http.StatusOK
	if !st.open(s.now()) {
		// Inside the merchant's frame, so the buyer reads why and what to do.
		d.Closed, status = msgFieldsClosed, http.StatusGone
	}
	var buf bytes.Buffer
	if err := fieldsPageTemplate.ExecuteTemplate(&buf, "fields", d); err != nil {
		s.log.Error("page", "page", "fields", "error", err)
		http.Error(w, "システムエラーが発生しました。", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	// ServeHTTP's DENY would keep the page out of every frame, the merchant's too; the
	// CSP's frame-ancestors names the one origin that may frame it (modern browsers
	// prefer it over X-Frame-Options, which cannot name an origin).
	h.Del("X-Frame-Options")
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; "+
		"img-src 'self'; form-action 'none'; frame-ancestors "+st.Origin+"; base-uri 'none'")
	h.Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// fieldsToken is the fields page's answer to a card: the token and what may be shown of
// the card. Never the number or the security code, and not the holder's name either: the
// merchant's page needs no more than this.
type fieldsToken struct {
	Token    string `json:"token"`
	Brand    string `json:"brand"`
	Last4    string `json:"last4"`
	ExpMonth int    `json:"exp_month"`
	ExpYear  int    `json:"exp_year"`
}

// fieldsErrors is a refused card: each message with its field ("" for one that belongs
// to no field), shown in the frame.
type fieldsErrors struct {
	Errors []fieldError `json:"errors"`
}

func fieldsFail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, fieldsErrors{Errors: []fieldError{{Message: msg}}})
}

// fieldsSubmit is POST /fields/{id} (JSON), from the fields page's own script only: the
// card becomes a token recorded on the setup.
func (s *Server) fieldsSubmit(w http.ResponseWriter, r *http.Request) {
	// The page's fetch always sends its Origin; a post without one, or from any other
	// origin (the merchant's page included), is refused before the body is read.
	mine, _ := origin(s.public.String())
	if got, err := origin(r.Header.Get("Origin")); err != nil || got != mine {
		fieldsFail(w, http.StatusForbidden, msgFieldsOrigin)
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		fieldsFail(w, http.StatusUnsupportedMediaType, msgFieldsServer)
		return
	}
	st, err := s.setupByID(r.Context(), r.PathValue("id"))
	switch {
	case isNoRows(err):
		fieldsFail(w, http.StatusNotFound, msgFieldsUnknown)
		return
	case err != nil:
		s.log.Error("setup", "error", err)
		fieldsFail(w, http.StatusInternalServerError, msgFieldsServer)
		return
	case !st.open(s.now()):
		fieldsFail(w, http.StatusConflict, msgFieldsClosed)
		return
	}
	var req tokenRequest
	if err := decodeJSON(r, &req); err != nil {
		fieldsFail(w, http.StatusBadRequest, msgFieldsServer)
		return
	}
	card, errs := check(cardInput{req.Number, string(req.ExpMonth), string(req.ExpYear), req.CVC, req.Name}, s.now())
	if len(errs) > 0 {
		writeJSON(w, http.StatusBadRequest, fieldsErrors{Errors: errs})
		return
	}
	tok, err := s.enterCard(r.Context(), st.ID, card)
	switch {
	case errors.Is(err, errSetupClosed):
		// Another submit took the setup meanwhile.
		fieldsFail(w, http.StatusConflict, msgFieldsClosed)
		return
	case err != nil:
		s.log.Error("fields card", "error", err)
		fieldsFail(w, http.StatusInternalServerError, msgFieldsServer)
		return
	}
	writeJSON(w, http.StatusCreated, fieldsToken{tok.Token, tok.Brand, tok.Last4, tok.ExpMonth, tok.ExpYear})
}
