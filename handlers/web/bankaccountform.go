package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v5"

	"cardpay/banks"
	"cardpay/pay"
	"cardpay/static"
	"cardpay/views"
)

// BankAccountForm describes one use of the bank-account form: the add-supplier wizard's
// bank step, a new bank account, a bank account being edited, or a new account in the
// payment journey. The screens keep no state of their own: the chosen bank and branch
// travel in the query string until the details are posted.
type BankAccountForm struct {
	Title, Heading, Lead string
	// Href is the page itself (without a query); choices link back to it with their codes.
	Href        string
	SubmitLabel string
	BackHref    string
	BackLabel   string
	// Steps is the step indicator of the wizard the form is part of (nil: none).
	Steps templ.Component
	// StepUp asks for the second factor with the details (App.StepUpFor; nil: not needed).
	StepUp *views.StepUpField
}

// ChoiceLimit is how many banks, branches or corporations one search lists.
const ChoiceLimit = 30

// BankAccountFormValues reads the form's answers from a POST.
func BankAccountFormValues(c *echo.Context) pay.AccountInput {
	return pay.AccountInput{
		BankCode:      c.FormValue("bank_code"),
		BranchCode:    c.FormValue("branch_code"),
		AccountType:   pay.AccountTypeFromForm(c.FormValue("account_type")),
		AccountNumber: c.FormValue("account_number"),
		HolderName:    c.FormValue("holder_name"),
	}
}

// WithQueryChoices applies the bank and branch chosen by following a link: a new bank
// forgets the branch of the old one.
func WithQueryChoices(c *echo.Context, in pay.AccountInput) pay.AccountInput {
	if q := c.QueryParam("bank_code"); q != "" {
		if pay.NormalizeCode(q) != in.BankCode {
			in.BranchCode = ""
		}
		in.BankCode = pay.NormalizeCode(q)
	}
	if q := c.QueryParam("branch_code"); q != "" {
		in.BranchCode = pay.NormalizeCode(q)
	}
	return in
}

func (f BankAccountForm) link(params ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(params); i += 2 {
		q.Set(params[i], params[i+1])
	}
	return f.Href + "?" + q.Encode()
}

// RenderBankAccountForm shows the screen the answers so far call for: the bank chooser,
// the branch chooser, or the bank account's details. errs come from a POST of the
// details.
func (a *App) RenderBankAccountForm(c *echo.Context, f BankAccountForm, in pay.AccountInput, errs pay.FieldErrors) error {
	b, err := a.Base(c, f.Title)
	if err != nil {
		return err
	}
	step := c.QueryParam("step")
	bank, bankOK := banks.ByCode(in.BankCode)
	branch, branchOK := banks.BranchByCode(in.BankCode, in.BranchCode)
	v := views.BankAccountFormView{Heading: f.Heading, Lead: f.Lead, BackHref: f.BackHref, BackLabel: f.BackLabel, Steps: f.Steps, StepUp: f.StepUp}
	v.Props = views.BankAccountFormProps{
		Action: f.Href, SubmitLabel: f.SubmitLabel, BankCode: in.BankCode, BranchCode: in.BranchCode,
		AccountNumber: in.AccountNumber, HolderName: in.HolderName, Errors: map[string]string{},
		IconHref: static.URL("dist/icons.svg"),
	}
	if in.AccountType.Valid() {
		v.Props.AccountType = strconv.Itoa(int(in.AccountType))
	}
	if bankOK {
		v.Props.BankName = bank.Name
	}
	if branchOK {
		v.Props.BranchName = branch.Name
	}
	for _, m := range banks.Major() {
		v.Props.Majors = append(v.Props.Majors, views.BankChoice{Code: m.Code, Name: m.Name, Kana: m.Kana})
	}
	for _, e := range errs {
		v.Props.Errors[e.Field] = e.Message
	}
	status := http.StatusOK
	switch {
	case !bankOK || step == "bank" || errs.For("bank_code") != "":
		v.Mode = "bank"
		v.Search = bankSearch(c, f)
		if msg := errs.For("bank_code"); msg != "" {
			b.Errors.Add("bank_q", msg)
		} else if in.BankCode != "" && !bankOK && step != "bank" {
			b.Errors.Add("bank_q", "金融機関コード"+in.BankCode+"は見つかりません。金融機関を選び直してください")
		}
	case !branchOK || step == "branch" || errs.For("branch_code") != "":
		v.Mode = "branch"
		v.ChosenRows = []views.ChosenRow{{Label: "金融機関", Value: bank.Name + "（" + bank.Code + "）", ChangeHref: f.link("step", "bank")}}
		v.Search = branchSearch(c, f, bank)
		if msg := errs.For("branch_code"); msg != "" {
			b.Errors.Add("branch_q", msg)
		} else if in.BranchCode != "" && !branchOK && step != "branch" {
			b.Errors.Add("branch_q", bank.Name+"に支店コード"+in.BranchCode+"の支店は見つかりません。支店を選び直してください")
		}
	default:
		v.Mode = "details"
		v.ChosenRows = []views.ChosenRow{
			{Label: "金融機関", Value: bank.Name + "（" + bank.Code + "）", ChangeHref: f.link("step", "bank")},
			{Label: "支店", Value: branch.Name + "（" + branch.Code + "）", ChangeHref: f.link("bank_code", bank.Code, "step", "branch")},
		}
		for _, e := range errs {
			b.Errors.Add(e.Field, e.Message)
		}
	}
	if len(b.Errors) > 0 {
		status = http.StatusUnprocessableEntity
	}
	v.Base = b
	return Render(c, status, views.BankAccountFormPage(v))
}

func bankSearch(c *echo.Context, f BankAccountForm) views.ChoiceSearch {
	q := Clip(c.QueryParam("bank_q"), 50)
	s := views.ChoiceSearch{
		Action: f.Href, QueryName: "bank_q", Query: q, Label: "金融機関を検索",
		Hint: "金融機関名・カナ・金融機関コードの一部（例：みずほ、ミズホ、0001）",
	}
	list := banks.Major()
	s.ListLabel = "主な金融機関"
	if q != "" {
		list = banks.SearchBanks(q, ChoiceLimit)
		s.ListLabel = "検索結果"
		s.Status = SearchStatus(len(list), "金融機関")
		s.EmptyLabel = "「" + q + "」に当てはまる金融機関はありません。名前の一部やカナ、4桁のコードでお試しください。"
	}
	for _, bk := range list {
		s.Choices = append(s.Choices, views.ChoiceLink{Href: f.link("bank_code", bk.Code), Label: bk.Name, Hint: bk.Kana + "　" + bk.Code})
	}
	return s
}

func branchSearch(c *echo.Context, f BankAccountForm, bank banks.Bank) views.ChoiceSearch {
	q := Clip(c.QueryParam("branch_q"), 50)
	s := views.ChoiceSearch{
		Action: f.Href, Hidden: []views.HiddenField{{Name: "bank_code", Value: bank.Code}, {Name: "step", Value: "branch"}}, QueryName: "branch_q", Query: q,
		Label: bank.Name + "の支店を検索", Hint: "支店名・カナ・3桁の支店コードの一部（例：渋谷、シブヤ、001）",
		ListLabel: "支店（コード順）",
	}
	list := banks.SearchBranches(bank.Code, q, ChoiceLimit)
	if q != "" {
		s.ListLabel = "検索結果"
		s.Status = SearchStatus(len(list), "支店")
		s.EmptyLabel = "「" + q + "」に当てはまる支店はありません。支店名の一部やカナ、3桁のコードでお試しください。"
	}
	for _, br := range list {
		s.Choices = append(s.Choices, views.ChoiceLink{Href: f.link("bank_code", bank.Code, "branch_code", br.Code), Label: br.Name, Hint: br.Kana + "　" + br.Code})
	}
	return s
}

// SearchStatus says how many of what a search found, for the live region under its field.
func SearchStatus(n int, what string) string {
	switch {
	case n == 0:
		return what + "が見つかりませんでした"
	case n >= ChoiceLimit:
		return what + "が" + strconv.Itoa(n) + "件以上見つかりました。絞り込むには詳しく入力してください"
	}
	return what + "が" + strconv.Itoa(n) + "件見つかりました"
}
