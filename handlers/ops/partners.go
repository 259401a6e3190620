package ops

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/oauth"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/ops"
)

// PartnersPage is the administrators' page of partner applications (issue 30): the
// registered ones, registering one (its secret shown once), stopping one. Every change
// has its audit row.
var PartnersPage = web.Page{Path: "/ops/partners", Title: "連携アプリ", Access: web.Operator}

// DisablePartnerPattern stops a partner application.
const DisablePartnerPattern = "/ops/partners/:id/disable"

// ShowPartnersPage lists the applications and the registration form.
func (h *Handler) ShowPartnersPage(c *echo.Context) error {
	return h.renderPartners(c, pages.PartnersView{Scopes: map[string]bool{}}, nil)
}

func (h *Handler) renderPartners(c *echo.Context, v pages.PartnersView, errs pay.FieldErrors) error {
	list, err := h.Store.OAuthClients(c.Request().Context())
	if err != nil {
		return err
	}
	for _, k := range list {
		r := pages.PartnerRow{ID: k.ID, Name: k.Name, Kind: "機密", RedirectURIs: k.RedirectURIs, Created: dateTime(k.CreatedAt),
			Disabled: k.DisabledAt != nil, DisableAction: "/ops/partners/" + url.PathEscape(k.ID) + "/disable"}
		if k.Public() {
			r.Kind = "公開"
		}
		var texts []string
		for _, s := range k.Scopes {
			texts = append(texts, oauth.Scope(s).Text())
		}
		r.Scopes = strings.Join(texts, "／")
		v.Rows = append(v.Rows, r)
	}
	for _, s := range oauth.Scopes {
		v.ScopeOpts = append(v.ScopeOpts, views.FieldOption{Value: string(s), Label: s.Text()})
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return show(h, c, PartnersPage.Title, errs, v, pages.PartnersPage)
}

// RegisterPartner registers an application and shows its id and secret on this answer
// only (no redirect: the secret is in no session, cache or log).
func (h *Handler) RegisterPartner(c *echo.Context) error {
	form, _ := c.FormValues()
	in := oauth.ClientInput{Name: web.Clip(c.FormValue("name"), 200), LogoText: web.Clip(c.FormValue("logo_text"), 20),
		RedirectURIs: web.Clip(c.FormValue("redirect_uris"), 6000), Scopes: form["scopes"], Public: c.FormValue("public") == "1",
		WebhookURL: web.Clip(c.FormValue("webhook_url"), 600)}
	v := pages.PartnersView{Name: in.Name, LogoText: in.LogoText, RedirectURIs: in.RedirectURIs, Public: in.Public, Scopes: map[string]bool{},
		WebhookURL: in.WebhookURL}
	for _, s := range in.Scopes {
		v.Scopes[s] = true
	}
	uris, errs := in.Check()
	if len(errs) > 0 {
		return h.renderPartners(c, v, errs)
	}
	me := CurrentOperator(c)
	client, secret, err := oauth.NewClient(in, uris, me.ID)
	if err != nil {
		return err
	}
	after := map[string]any{"client_id": client.ID, "name": client.Name, "redirect_uris": uris, "scopes": client.Scopes, "public": in.Public,
		"webhook_url": client.WebhookURL}
	if err := h.Store.RegisterOAuthClient(c.Request().Context(), client,
		store.NewAudit{OperatorID: me.ID, ObjectType: store.AuditPartner, Action: "register", After: after}, h.Now()); err != nil {
		return err
	}
	done := pages.PartnersView{Scopes: map[string]bool{}, NewID: client.ID, Secret: secret}
	if client.WebhookURL != "" {
		done.WebhookKey = oauth.WebhookKey(h.SecretKey, client.ID)
	}
	return h.renderPartners(c, done, nil)
}

// DisablePartner stops an application: its tokens stop at once and no buyer can
// connect it again.
func (h *Handler) DisablePartner(c *echo.Context) error {
	id := c.Param("id")
	if !oauth.ValidClientID(id) {
		return web.ErrNotFound
	}
	me := CurrentOperator(c)
	err := h.Store.DisableOAuthClient(c.Request().Context(), id,
		store.NewAudit{OperatorID: me.ID, ObjectType: store.AuditPartner, Action: "disable", Before: map[string]string{"client_id": id}}, h.Now())
	if errors.Is(err, store.ErrNotFound) {
		return web.ErrNotFound
	}
	if err != nil {
		return err
	}
	h.setFlash(c, views.Flash{Color: "success", Title: "連携アプリを停止しました", Text: "このアプリケーションのトークンは、すべて使えなくなりました。"})
	return c.Redirect(http.StatusSeeOther, PartnersPage.Path)
}
