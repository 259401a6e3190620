package pay

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// お問い合わせ (issue 31): what a person may ask the operators, signed in or not. The
// signed-out form asks who is asking (name and address, the company if any) because
// the answer goes back by mail; a signed-in buyer is known, and may name one of their
// payments (the store checks that it is theirs).

// InquiryCategory is what an inquiry is about; the console sorts nothing by it, but an
// operator reads it first, and the buyer chooses it instead of describing it.
type InquiryCategory string

// The categories, in the form's order.
const (
	InquiryPaymentTransfer InquiryCategory = "payment"   // お支払い・振込
	InquiryCard            InquiryCategory = "card"      // カード
	InquiryScreening       InquiryCategory = "screening" // 審査・差し戻し
	InquiryReceipt         InquiryCategory = "receipt"   // 領収書・インボイス
	InquiryRequest         InquiryCategory = "request"   // カード払い依頼
	InquiryAccount         InquiryCategory = "account"   // アカウント・ログイン
	InquiryReceiving       InquiryCategory = "receiving" // 請求書の受け取り
	InquiryOther           InquiryCategory = "other"     // その他
)

// InquiryCategories are the categories in the form's order.
var InquiryCategories = []InquiryCategory{InquiryPaymentTransfer, InquiryCard, InquiryScreening, InquiryReceipt,
	InquiryRequest, InquiryAccount, InquiryReceiving, InquiryOther}

var inquiryCategoryLabels = map[InquiryCategory]string{
	InquiryPaymentTransfer: "お支払い・振込",
	InquiryCard:            "カード",
	InquiryScreening:       "審査・差し戻し",
	InquiryReceipt:         "領収書・インボイス",
	InquiryRequest:         "カード払い依頼",
	InquiryAccount:         "アカウント・ログイン",
	InquiryReceiving:       "請求書の受け取り",
	InquiryOther:           "その他",
}

// Valid reports whether c is one of InquiryCategories.
func (c InquiryCategory) Valid() bool { _, ok := inquiryCategoryLabels[c]; return ok }

// Label is the category in Japanese ("" for an unknown one).
func (c InquiryCategory) Label() string { return inquiryCategoryLabels[c] }

// InquiryStatus is where an inquiry is: received, answered, or closed by an operator
// (nothing more to do, answered or not).
type InquiryStatus string

// The statuses.
const (
	InquiryOpen     InquiryStatus = "open"
	InquiryAnswered InquiryStatus = "answered"
	InquiryClosed   InquiryStatus = "closed"
)

// InquiryStatuses are the statuses in the order the console filters them.
var InquiryStatuses = []InquiryStatus{InquiryOpen, InquiryAnswered, InquiryClosed}

// Label is the status in Japanese ("" for an unknown one).
func (s InquiryStatus) Label() string {
	switch s {
	case InquiryOpen:
		return "受付"
	case InquiryAnswered:
		return "回答済み"
	case InquiryClosed:
		return "対応終了"
	}
	return ""
}

// Valid reports whether s is one of InquiryStatuses.
func (s InquiryStatus) Valid() bool { return s.Label() != "" }

// The inquiry form's limits, in characters as a person counts them. 4,000 characters is
// a long letter: enough for any question, small enough for a mail and the console.
const (
	MaxInquiryBody    = 4000
	MaxInquiryName    = 60
	MaxInquiryCompany = 100
)

// InquiryNumber is an inquiry's reference number, as the thanks page, the mails and the
// console show it (お問い合わせ番号).
func InquiryNumber(id int64) string { return fmt.Sprintf("Q-%08d", id) }

// InquiryInput is the inquiry form as typed. SignedIn leaves out the contact fields: a
// signed-in buyer's name and address come from their account.
type InquiryInput struct {
	SignedIn             bool
	Name, Email, Company string
	Category             string
	Body                 string
}

// CheckedInquiry is an inquiry that passed Check, tidied.
type CheckedInquiry struct {
	Name, Email, Company string
	Category             InquiryCategory
	Body                 string
}

// Check validates an inquiry; the messages are in the order of the form's fields
// (name, email_address, company, category, body).
func (in InquiryInput) Check() (CheckedInquiry, FieldErrors) {
	var out CheckedInquiry
	var errs FieldErrors
	if !in.SignedIn {
		out.Name = NormalizeSpaces(in.Name)
		errs.Add("name", checkInquiryLine("お名前", out.Name, true, MaxInquiryName))
		if e, msg := ValidateEmail(in.Email); msg != "" {
			errs.Add("email_address", msg)
		} else {
			out.Email = e
		}
		out.Company = NormalizeSpaces(in.Company)
		errs.Add("company", checkInquiryLine("会社名", out.Company, false, MaxInquiryCompany))
	}
	out.Category = InquiryCategory(strings.TrimSpace(in.Category))
	switch {
	case out.Category == "":
		errs.Add("category", "お問い合わせの種類を選択してください")
	case !out.Category.Valid():
		errs.Add("category", "お問い合わせの種類を一覧から選択してください")
	}
	out.Body = TidyInquiryText(in.Body)
	errs.Add("body", CheckInquiryText("お問い合わせ内容", out.Body))
	return out, errs
}

// TidyInquiryText keeps a text's lines as typed but with one kind of line break and no
// white space around the whole.
func TidyInquiryText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.TrimSpace(s)
}

// CheckInquiryText is the message for an inquiry's or an answer's text (tidied by
// TidyInquiryText), or "" when it is fine: required, readable, without control or
// invisible characters (line breaks and tabs are text), at most MaxInquiryBody.
func CheckInquiryText(label, s string) string {
	switch {
	case !utf8.ValidString(s):
		return label + "に読み取れない文字が含まれています。入力し直してください"
	case strings.ContainsFunc(s, IsForbiddenRune):
		return label + "に使用できない文字が含まれています"
	case s == "":
		return label + "を入力してください"
	}
	return CheckLength(label, s, MaxInquiryBody)
}

// checkInquiryLine checks a one-line contact field: no line breaks either, since it
// goes into a mail's greeting.
func checkInquiryLine(label, v string, required bool, max int) string {
	switch {
	case !utf8.ValidString(v):
		return label + "に読み取れない文字が含まれています。入力し直してください"
	case strings.ContainsFunc(v, IsForbiddenRune) || strings.ContainsAny(v, "\t\n\r"):
		return label + "に使用できない文字が含まれています"
	case v == "" && required:
		return label + "を入力してください"
	}
	return CheckLength(label, v, max)
}

// InquiryLink is a signed-in buyer's inquiry's page, where its answers show (the
// notification's link and the answer mail's).
func InquiryLink(id int64) string { return fmt.Sprintf("/inquiries/%d", id) }
