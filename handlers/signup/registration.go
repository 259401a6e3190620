package signup

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/postal"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/signup"
)

// verifiedSignup is the sign-up whose address this session proved with the mailed
// code. Anyone else (no sign-up, a code not entered here, a finished registration) is
// sent where they can carry on, with a notice, and the second result is that path.
// Knowing an address is not enough: re-registration puts a sign-up's id in any session
// that asks, but only the code marks it verified in that session.
func (h *Handler) verifiedSignup(c *echo.Context) (store.Signup, string, error) {
	ctx := c.Request().Context()
	id := h.Sessions.GetInt64(ctx, web.SessionSignupID)
	if id == 0 || h.Sessions.GetInt64(ctx, web.SessionSignupVerified) != id {
		if _, ok := h.SignupFromSession(c); ok {
			h.SetFlash(c, views.Flash{Color: "info", Title: "認証コードを入力してください", Text: "メールでお送りした認証コードを入力すると、利用者情報の登録に進めます。"})
			return store.Signup{}, SignupCodePath, nil
		}
		h.SetFlash(c, views.Flash{Color: "info", Title: "新規登録から手続きしてください", Text: "利用者情報の登録は、メールアドレスの確認が済んでからお進みいただけます。"})
		return store.Signup{}, SignupPage.Path, nil
	}
	su, err := h.Store.Signup(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		h.ClearSignup(c)
		h.SetFlash(c, views.Flash{Color: "info", Title: "新規登録から手続きしてください", Text: "お申し込みが見つかりませんでした。"})
		return store.Signup{}, SignupPage.Path, nil
	}
	if err != nil {
		return store.Signup{}, "", err
	}
	if su.CompletedAt != nil {
		h.SetFlash(c, views.Flash{Color: "info", Title: "この登録は既に完了しています", Text: "ご登録のメールアドレスとパスワードでログインしてください。"})
		return store.Signup{}, links.SignIn, nil
	}
	return su, "", nil
}

// registrationDraft is the answers so far, kept in the session (SPEC.md §3 local state
// "registration info"). Leaving it is clearing the sign-up (web.ClearSignup), so its
// Prefix is not given to LeaveWorkflows.
var registrationDraft = web.Wizard[account.Registration]{Workflow: web.Workflow{Prefix: RegistrationPath, SessionKey: web.SessionRegistration}}

// RegistrationPath is the registration form and where it posts.
const RegistrationPath = "/registration"

// ShowRegistrationPage asks for the business form first, then the form for it.
// ?step=business_form goes back to the first question.
func (h *Handler) ShowRegistrationPage(c *echo.Context) error {
	if _, to, err := h.verifiedSignup(c); err != nil || to != "" {
		return redirectOr(c, to, err)
	}
	r := registrationDraft.Load(h.Sessions, c)
	if c.QueryParam("step") == "business_form" || !r.BusinessForm.Valid() {
		value := ""
		if r.BusinessForm.Valid() {
			value = strconv.Itoa(int(r.BusinessForm))
		}
		return h.renderBusinessFormStep(c, value, nil)
	}
	return h.renderRegistration(c, registrationForm{form: r.BusinessForm, values: registrationValues(r)})
}

func redirectOr(c *echo.Context, to string, err error) error {
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, to)
}

func (h *Handler) renderBusinessFormStep(c *echo.Context, value string, errs pay.FieldErrors) error {
	return web.Show(h.App, c, "利用者情報の登録：事業形態の選択", errs, pages.RegistrationBusinessFormView{Value: value}, pages.RegistrationBusinessFormPage)
}

func (h *Handler) renderRegistration(c *echo.Context, rf registrationForm) error {
	return web.Show(h.App, c, "利用者情報の登録："+rf.form.Label(), rf.errs, pages.RegistrationView{
		BusinessFormLabel: rf.form.Label(), Form: rf.props(),
	}, pages.RegistrationPage)
}

// SaveRegistration takes one step of the wizard: the business form, a postal-code
// lookup, or the whole form. Only valid answers reach the session.
func (h *Handler) SaveRegistration(c *echo.Context) error {
	if _, to, err := h.verifiedSignup(c); err != nil || to != "" {
		return redirectOr(c, to, err)
	}
	r := registrationDraft.Load(h.Sessions, c)
	if c.FormValue("step") == "business_form" {
		n, _ := strconv.Atoi(c.FormValue("business_form"))
		f := pay.BusinessForm(n)
		if !f.Valid() {
			var errs pay.FieldErrors
			errs.Add("business_form", account.Registration{}.Validate(h.Now()).For("business_form"))
			return h.renderBusinessFormStep(c, "", errs)
		}
		r.BusinessForm = f
		if err := registrationDraft.Save(h.Sessions, c, r); err != nil {
			return err
		}
		return c.Redirect(http.StatusSeeOther, RegistrationPath)
	}
	if !r.BusinessForm.Valid() {
		return c.Redirect(http.StatusSeeOther, RegistrationPath)
	}
	rf := registrationForm{form: r.BusinessForm, values: map[string]string{}}
	for _, g := range registrationLayout(rf.form) {
		for _, f := range g.fields {
			rf.values[f.name] = c.FormValue(f.name)
		}
	}
	if target := c.FormValue("lookup"); target != "" {
		return h.renderRegistration(c, lookupPostalCode(rf, target))
	}

	next := account.Registration{BusinessForm: rf.form}
	for name, v := range rf.values {
		setRegistrationValue(&next, name, v)
	}
	next.Normalise()
	if rf.errs = next.Validate(h.Now()); len(rf.errs) > 0 {
		return h.renderRegistration(c, rf)
	}
	// Only the chosen form's answers are kept: the other form's are not checked.
	if err := registrationDraft.Save(h.Sessions, c, next); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, RegistrationConfirmPath)
}

// lookupPostalCode is 住所を検索 without JavaScript: the form comes back with what was
// typed, the prefecture and city filled in from the postal code, and the focus on the
// street; or with a message at the postal code. Nothing is stored either way.
func lookupPostalCode(rf registrationForm, target string) registrationForm {
	field, g, ok := layoutField(registrationLayout(rf.form), target)
	if !ok || field.kind != kindPostal {
		return rf
	}
	rule := registrationRules(rf.form)[target]
	code := rf.values[target]
	addrs, found := postal.Lookup(code)
	digits := pay.NormalizeCode(strings.TrimPrefix(strings.TrimSpace(code), "〒"))
	switch {
	case strings.TrimSpace(code) == "":
		rf.errs.Add(target, rule.Required)
	case !found && (len(digits) != 7 || strings.Trim(digits, "0123456789") != ""):
		rf.errs.Add(target, rule.Format)
	case !found || len(addrs) == 0:
		rf.errs.Add(target, pages.PostalNotFound)
	default:
		pre := g.postal.prefix
		rf.values[pre+"address_state"] = addrs[0].Prefecture
		rf.values[pre+"address_city"] = addrs[0].City
		rf.status = map[string]string{target: pages.PostalFound + addrs[0].Prefecture + addrs[0].City}
		rf.autofocus = pre + "address_street"
	}
	return rf
}
