package mail

import (
	"embed"
	"fmt"
	"strings"
	"text/template"
	"time"

	"cardpay/pay"
)

// Each template renders the subject on its first line, an empty line, then the body.
// footer.txt defines the closing every mail shares.
//
//go:embed templates/*.txt
var templateFiles embed.FS

var templates = template.Must(template.New("").Option("missingkey=error").ParseFS(templateFiles, "templates/*.txt"))

// templateData is everything a template may show; each mail fills what it needs.
type templateData struct {
	ServiceName  string
	Code         string
	ValidMinutes int
	At           string
	Until        string
	OldAddress   string
	NewAddress   string
	Title        string
	Body         string
	Link         string
	Request      RequestFacts
	// Refused are the attachments of a mail to a receiving address that were not taken.
	Refused  []RefusedFile
	Accepted int
	Subject  string
	// CorporateNumber and CorporateName are a new registration's claim.
	CorporateNumber string
	CorporateName   string
	Inquiry         InquiryFacts
}

// InquiryFacts are the parts of an inquiry's mails, formatted.
type InquiryFacts struct {
	Number    string
	Addressee string
	Category  string
	// Question is the inquiry's text; Answer an operator's answer.
	Question string
	Answer   string
}

// RequestFacts are the parts of a card-payment request's mail, formatted.
type RequestFacts struct {
	RequesterName            string
	RequesterCorporateNumber string
	Addressee                string
	Amount                   string
	Deadline                 string
	InvoiceNumber            string
	Message                  string
}

// CardPaymentRequest asks a requester's customer to pay by card: who asks (with the
// corporate number verified when they registered, so the customer can check it in the
// National Tax Agency's registry), how much, by when, and the link holding the request's
// key. The key lives only in this mail.
func CardPaymentRequest(to, serviceName string, f pay.RequestMailFacts) Message {
	addressee := f.CustomerName + " 御中"
	if f.CustomerContactName != "" {
		addressee = f.CustomerName + "\n" + f.CustomerContactName + " 様"
	}
	return render("card_payment_request.txt", to, templateData{ServiceName: serviceName, Link: f.Link, Request: RequestFacts{
		RequesterName: f.RequesterName, RequesterCorporateNumber: f.RequesterCorporateNumber, Addressee: addressee,
		Amount: pay.Yen(f.Amount), Deadline: pay.JapaneseDate(f.Deadline), InvoiceNumber: f.InvoiceNumber, Message: f.Message,
	}})
}

// RefusedFile is one refused attachment, or the whole mail when Name is "".
type RefusedFile struct {
	Name   string
	Reason string
}

// InboundRefused answers a mail sent to a buyer's receiving address whose files were
// not all taken: what was refused and why, so the sender can send them again in a form
// that is taken. It is an automatic reply (Auto-Submitted), sent only to a sender that
// the receiving MTA did not find forged.
func InboundRefused(to, serviceName, subject string, accepted int, refused []RefusedFile) Message {
	m := render("inbound_refused.txt", to, templateData{ServiceName: serviceName, Subject: subject, Accepted: accepted, Refused: refused})
	m.AutoReply = true
	return m
}

// SupplierUploadLink invites a buyer's supplier to upload its invoices to the buyer
// through link (the token lives only in this mail) until the expiry.
func SupplierUploadLink(to, serviceName, buyerName, supplierName, link string, expires time.Time) Message {
	return render("supplier_upload_link.txt", to, templateData{ServiceName: serviceName, Link: link, Until: pay.JapaneseDateTime(expires),
		Request: RequestFacts{RequesterName: buyerName, Addressee: supplierName}})
}

// Notification is the mail of a buyer's notification (お知らせ): its title, its text
// and the address of its page in the service.
func Notification(to, serviceName, title, body, link string) Message {
	return render("notification.txt", to, templateData{ServiceName: serviceName, Title: title, Body: body, Link: link})
}

// InquiryReceived acknowledges an inquiry: its number, its category and when it came.
// question is the inquiry's text for a signed-in buyer's and "" for the public form's:
// anyone may type any address there, and a mail that repeats what a stranger typed
// would let the form send their words to anyone; name is likewise the account's
// ("" for the public form, which addresses the reader without repeating the name typed).
func InquiryReceived(to, serviceName, number, name, category, question string, at time.Time) Message {
	return render("inquiry_received.txt", to, templateData{ServiceName: serviceName, At: pay.JapaneseDateTime(at),
		Inquiry: InquiryFacts{Number: number, Addressee: inquiryAddressee(name), Category: category, Question: question}})
}

// InquiryAnswered is an operator's answer to an inquiry, with the question it answers
// (which an operator has read by then) and, for a signed-in buyer's, the link to the
// inquiry's page ("" for none).
func InquiryAnswered(to, serviceName, number, name, category, question, answer, link string) Message {
	return render("inquiry_answered.txt", to, templateData{ServiceName: serviceName, Link: link,
		Inquiry: InquiryFacts{Number: number, Addressee: inquiryAddressee(name), Category: category, Question: question, Answer: answer}})
}

func inquiryAddressee(name string) string {
	if name == "" {
		return "お問い合わせいただいたお客さま"
	}
	return name + " 様"
}

// SignupCode is the code that confirms a new sign-up's e-mail address.
func SignupCode(to, serviceName, code string, validFor time.Duration) Message {
	return render("signup_code.txt", to, templateData{ServiceName: serviceName, Code: code, ValidMinutes: minutes(validFor)})
}

// AlreadyRegistered answers a sign-up for an address that has an account: the owner
// learns of it by mail, while the sign-up page looks the same as for a new address.
func AlreadyRegistered(to, serviceName string) Message {
	return render("already_registered.txt", to, templateData{ServiceName: serviceName})
}

// EmailInUse answers a request to change another account's sign-in address to this
// one, which is taken: no code is sent, and the requester's page looks the same as for
// a free address, so that only the mailbox's owner learns the address is registered.
func EmailInUse(to, serviceName string) Message {
	return render("email_in_use.txt", to, templateData{ServiceName: serviceName})
}

// SignInCode is the two-factor one-time code asked for after the password.
func SignInCode(to, serviceName, code string, validFor time.Duration) Message {
	return render("sign_in_code.txt", to, templateData{ServiceName: serviceName, Code: code, ValidMinutes: minutes(validFor)})
}

// StepUpCode is the code that confirms adding or changing a supplier's bank account
// (the step-up of a buyer whose second factor is mail, or who has none).
func StepUpCode(to, serviceName, code string, validFor time.Duration) Message {
	return render("step_up_code.txt", to, templateData{ServiceName: serviceName, Code: code, ValidMinutes: minutes(validFor)})
}

// PasswordResetCode is the code that lets someone who forgot the password set a new one.
func PasswordResetCode(to, serviceName, code string, validFor time.Duration) Message {
	return render("password_reset_code.txt", to, templateData{ServiceName: serviceName, Code: code, ValidMinutes: minutes(validFor)})
}

// EmailChangeCode goes to the new address and proves the user can read it.
func EmailChangeCode(to, serviceName, code string, validFor time.Duration) Message {
	return render("email_change_code.txt", to, templateData{ServiceName: serviceName, Code: code, ValidMinutes: minutes(validFor)})
}

// PasswordChanged tells the user the password changed, so that someone else's change
// does not go unnoticed.
func PasswordChanged(to, serviceName string, at time.Time) Message {
	return render("password_changed.txt", to, templateData{ServiceName: serviceName, At: pay.JapaneseDateTime(at)})
}

// EmailChanged goes to the old address: if someone else changed it, the owner still
// hears about it.
func EmailChanged(oldAddress, newAddress, serviceName string, at time.Time) Message {
	return render("email_changed.txt", oldAddress, templateData{
		ServiceName: serviceName, At: pay.JapaneseDateTime(at), OldAddress: oldAddress, NewAddress: newAddress,
	})
}

// AccountLocked tells the user that sign-in is blocked until the given time.
// resetURL is the password reset page: the way back in at once.
func AccountLocked(to, serviceName string, until time.Time, resetURL string) Message {
	return render("account_locked.txt", to, templateData{ServiceName: serviceName, Until: pay.JapaneseDateTime(until), Link: resetURL})
}

// OperatorInvite invites name to the operator console: the single-use link where they
// set their own password and enrol their own authenticator, valid until until.
func OperatorInvite(to, serviceName, name, link string, until time.Time) Message {
	return render("operator_invite.txt", to, templateData{ServiceName: serviceName, Title: name, Link: link, Until: pay.JapaneseDateTime(until)})
}

// CorporateNumberClaimed tells the users of a corporation's account that someone
// registered another account with its corporate number, and that the new account waits
// for the operators: an impostor's claim does not go unnoticed by the real company.
func CorporateNumberClaimed(to, serviceName, number, claimedName string, at time.Time) Message {
	return render("corporate_number_claimed.txt", to, templateData{ServiceName: serviceName, CorporateNumber: number,
		CorporateName: claimedName, At: pay.JapaneseDateTime(at)})
}

// minutes rounds up, so that a mail never promises more time than the code has.
func minutes(d time.Duration) int {
	m := int((d + time.Minute - 1) / time.Minute)
	return max(m, 1)
}

// render panics only on a broken template, which the package's tests would catch:
// the data are plain strings and numbers.
func render(name, to string, data templateData) Message {
	var b strings.Builder
	if err := templates.ExecuteTemplate(&b, name, data); err != nil {
		panic(fmt.Sprintf("mail: template %s: %v", name, err))
	}
	subject, body, ok := strings.Cut(b.String(), "\n\n")
	if !ok || strings.Contains(subject, "\n") {
		panic(fmt.Sprintf("mail: template %s must start with a one-line subject and an empty line", name))
	}
	return Message{To: to, Subject: strings.TrimSpace(subject), Text: strings.TrimSpace(body)}
}
