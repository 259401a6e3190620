// Package links declares the paths one area of the site sends a person to in another.
// Areas never import each other (the house), so such a path is declared here, once: the
// owning area declares its page or action with it (the route table routes that), and the
// areas that link or redirect to it use the same name. A page linked only from its own
// area is declared in its area, not here. Templates keep their literal hrefs (views
// import no handler). handlers/house_links_test.go checks that no other Go file under
// handlers spells these paths.
package links

// Signing in and out (handlers/signin), and where a signed-in buyer starts (handlers/info).
const (
	SignIn  = "/signin"
	SignOut = "/signout"
	TopPage = "/toppage"
)

// Sign-up's code page (handlers/signup): re-registration sends a returning address there.
const SignupCode = "/signup/code"

// Adding a card (handlers/myaccount), from the payment journeys, and the pages of
// handlers/payments a card added during a payment returns to (the journey's confirm
// step, a correction, a request's payment).
const (
	AddCreditCard   = "/myaccount/creditcards/new"
	PaymentEdit     = "/payments/edit/" // the payment's id and step follow
	PaymentsWaiting = "/payments/waiting"
)

// The payment lists (handlers/payments): a payment's page is its list's path and its id;
// the received invoices (handlers/receivedinvoices) link the payment made from one.
const (
	PaymentsReview   = "/payments/review"
	PaymentsReserved = "/payments/reserved"
	PaymentsHistory  = "/payments/history"
)

// The steps of the payment journey (handlers/payments) and of the request journey
// (handlers/collections): a draft saved through the API resumes on one of them.
const (
	PaymentInvoiceInfoStep = "/payments/add/invoiceinfo"
	PaymentSupplierStep    = "/payments/add/supplier"
	PaymentAccountStep     = "/payments/add/account"
	PaymentNewAccountStep  = "/payments/add/account/new"
	PaymentInvoiceStep     = "/payments/add/invoice"
	PaymentConfirm         = "/payments/add/confirm"

	RequestInvoiceStep = "/collections/add/invoice"
	RequestBankStep    = "/collections/add/bank"
	RequestNewBankStep = "/collections/add/bank/new"
	RequestConfirm     = "/collections/add/confirm"
)

// The JSON API (handlers/api) and the paths under it that the pages' islands call.
const (
	API               = "/api/v1"
	InvoiceFiles      = "/invoices/files" // under API: a file's id follows
	UploadInvoiceFile = InvoiceFiles + "/upload"
)

// A supplier's upload page (handlers/supplierupload), signed out: the link's token
// follows. handlers/suppliers mails it.
const SupplierUpload = "/supplier-upload/"

// The inquiry form (handlers/inquiries), signed out or in: the help and policy menus'
// default お問い合わせ link (info.DefaultLinks) names it.
const Inquiry = "/inquiry"
