package handlers

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/cards"
	"cardpay/handlers/api"
	"cardpay/handlers/collections"
	"cardpay/handlers/consent"
	"cardpay/handlers/dev"
	"cardpay/handlers/info"
	"cardpay/handlers/inquiries"
	"cardpay/handlers/myaccount"
	"cardpay/handlers/notifications"
	"cardpay/handlers/ops"
	"cardpay/handlers/password"
	"cardpay/handlers/payments"
	"cardpay/handlers/receivedinvoices"
	"cardpay/handlers/signin"
	"cardpay/handlers/signup"
	"cardpay/handlers/suppliers"
	"cardpay/handlers/supplierupload"
	"cardpay/handlers/web"
	"cardpay/invoices"
	"cardpay/pay"
)

// routes is the one route table (DESIGN.md §2), grouped by area. Each path is declared
// once in the area that serves it: a page's path and title as a web.Page, any other
// path as a …Path constant (…Pattern when it has parameters) beside its handler. This
// table routes those names and spells no path itself (house_paths_test.go).
func routes(e *echo.Echo, a *web.App) {
	var (
		signinArea        = &signin.Handler{App: a}
		signupArea        = &signup.Handler{App: a}
		passwordArea      = &password.Handler{App: a}
		myaccountArea     = &myaccount.Handler{App: a}
		infoArea          = &info.Handler{App: a}
		suppliersArea     = &suppliers.Handler{App: a}
		paymentsArea      = &payments.Handler{App: a}
		collectionsArea   = &collections.Handler{App: a}
		receivedArea      = &receivedinvoices.Handler{App: a}
		notificationsArea = &notifications.Handler{App: a}
		opsArea           = &ops.Handler{App: a}
		supplierUpload    = &supplierupload.Handler{App: a}
		consentArea       = &consent.Handler{App: a}
		inquiriesArea     = &inquiries.Handler{App: a}
	)

	// Sign-in, sign-out and the one-time password (simple layout).
	e.GET("/", redirectTo(signin.SignInPage.Path))
	e.GET(signin.SignInPage.Path, signinArea.ShowSignInPage)
	e.POST(signin.SignInPage.Path, signinArea.SignIn)
	e.POST(signin.SignOutPath, signinArea.SignOut)
	e.GET(signin.OnetimePasswordPage.Path, signinArea.ShowOnetimePasswordPage)
	e.POST(signin.OnetimePasswordPage.Path, signinArea.VerifyOnetimePassword)
	e.POST(signin.ResendOnetimePasswordPath, signinArea.ResendOnetimePassword)

	// Sign-up and registration.
	e.GET(signup.SignupPage.Path, signupArea.ShowSignupPage)
	e.POST(signup.SignupPage.Path, signupArea.SignUp)
	e.GET(signup.SignupCodePath, signupArea.ShowSignupCodePage)
	e.POST(signup.SignupCodePath, signupArea.VerifySignupCode)
	e.POST(signup.ResendSignupCodePath, signupArea.ResendSignupCode)
	e.GET(signup.RegistrationPath, signupArea.ShowRegistrationPage)
	e.POST(signup.RegistrationPath, signupArea.SaveRegistration)
	e.GET(signup.RegistrationConfirmPath, signupArea.ShowRegistrationConfirmPage)
	e.POST(signup.RegistrationConfirmPath, signupArea.Register)
	e.GET(signup.RegistrationResultPath, signupArea.ShowRegistrationResultPage)

	// Password reset and re-registration (signed out).
	e.GET(password.ReregistrationPage.Path, passwordArea.ShowReregistrationPage)
	e.POST(password.ReregistrationPage.Path, passwordArea.Reregister)
	e.GET(password.SendEmailPage.Path, passwordArea.ShowSendEmailPage)
	e.POST(password.SendEmailPage.Path, passwordArea.SendResetEmail)
	e.GET(password.ResetPage.Path, passwordArea.ShowResetPage)
	e.POST(password.ResetPage.Path, passwordArea.ResetPassword)

	// Help and policy pages, the error view.
	e.GET(info.ManualPage.Path, infoArea.ShowManualPage)
	e.GET(info.FAQPage.Path, infoArea.ShowFAQPage)
	for _, p := range info.TextPages {
		e.GET(p.Path, infoArea.ShowInfoPage(p))
	}
	e.GET(info.ErrorPattern, infoArea.ShowErrorPage)

	// Inquiries: the form and its thanks page for anyone, signed in or not (rate-limited:
	// account.ActInquiry).
	e.GET(inquiries.FormPage.Path, inquiriesArea.ShowFormPage)
	e.POST(inquiries.FormPage.Path, inquiriesArea.Send)
	e.GET(inquiries.ThanksPath, inquiriesArea.ShowThanksPage)

	// A supplier's upload page, from the link the buyer mailed (signed out).
	e.GET(supplierupload.Pattern, supplierUpload.ShowUploadPage)
	e.POST(supplierupload.Pattern, supplierUpload.Upload)

	// Signed in: every group below leaves an unfinished create workflow when a page
	// outside it is opened.
	leave := a.LeaveWorkflows(suppliers.AddWizard.Workflow, payments.Journey.Workflow, payments.Edit.Workflow, collections.Journey.Workflow)
	// Entering the signed-in layout links a card-payment request's pending key (SPEC.md §2).
	signed := e.Group("", signinArea.RequireSignIn, infoArea.RequireCurrentTerms, paymentsArea.LinkPendingRequest, leave)
	signed.GET(info.TopPagePath, infoArea.ShowTopPage)
	signed.GET(info.TermsPage.Path, infoArea.ShowTermsPage)
	signed.POST(info.TermsPage.Path, infoArea.AcceptTerms)

	// My account. The end of an e-mail change is reached from the mail, signed out too.
	e.GET(myaccount.EmailChangeCompletePage.Path, myaccountArea.ShowEmailChangeCompletePage)
	signed.GET(myaccount.MyAccountPage.Path, myaccountArea.ShowMyAccountPage)
	signed.GET(myaccount.CompanyPage.Path, myaccountArea.ShowCompanyPage)
	signed.POST(myaccount.UserNamePath, myaccountArea.ChangeUserName)
	signed.POST(myaccount.TransferPersonNamePath, myaccountArea.ChangeTransferPersonName)
	signed.GET(myaccount.EditPasswordPage.Path, myaccountArea.ShowEditPasswordPage)
	signed.POST(myaccount.EditPasswordPage.Path, myaccountArea.ChangePassword)
	signed.GET(myaccount.EditEmailAddressPage.Path, myaccountArea.ShowEditEmailAddressPage)
	signed.POST(myaccount.EditEmailAddressPage.Path, myaccountArea.StartEmailChange)
	signed.GET(myaccount.EditEmailAuthPath, myaccountArea.ShowEditEmailAuthPage)
	signed.POST(myaccount.EditEmailAuthPath, myaccountArea.ConfirmEmailChange)
	signed.GET(myaccount.SecurityPage.Path, myaccountArea.ShowSecurityPage)
	signed.POST(myaccount.SecurityPage.Path, myaccountArea.ChooseTwoFactor)
	signed.GET(myaccount.TOTPSetupPath, myaccountArea.ShowTOTPSetupPage)
	signed.POST(myaccount.TOTPSetupPath, myaccountArea.EnableTOTP)
	signed.GET(myaccount.EmailTwoFactorPath, myaccountArea.ShowEmailTwoFactorPage)
	signed.POST(myaccount.EmailTwoFactorPath, myaccountArea.EnableEmailTwoFactor)
	signed.POST(myaccount.ResendEmailTwoFactorPath, myaccountArea.ResendEmailTwoFactorCode)
	signed.GET(myaccount.RecoveryCodesPath, myaccountArea.ShowRecoveryCodesPage)
	signed.POST(myaccount.EndSessionPattern, myaccountArea.EndSession)
	signed.POST(myaccount.EndOtherSessionsPath, myaccountArea.EndOtherSessions)
	signed.POST(myaccount.DisconnectAppPattern, myaccountArea.DisconnectApp)
	// Saved cards (お支払い方法). The PSP sends the buyer back to the two return pages
	// (cards.HostedReturnPath, cards.VerifyReturnPath) with a top-level GET.
	signed.GET(myaccount.CreditCardsPage.Path, myaccountArea.ShowCreditCardsPage)
	signed.GET(myaccount.AddCreditCardPage.Path, myaccountArea.ShowAddCreditCardPage)
	signed.POST(myaccount.AddCreditCardPage.Path, myaccountArea.AddCreditCard)
	signed.POST(myaccount.HostedCardEntryPath, myaccountArea.StartHostedCardEntry)
	signed.GET(cards.HostedReturnPath, myaccountArea.ReturnFromHostedCardEntry)
	signed.GET(cards.VerifyReturnPath, myaccountArea.ReturnFromCardVerification)
	signed.GET(myaccount.DeleteCreditCardPattern, myaccountArea.ShowDeleteCreditCardPage)
	signed.POST(myaccount.DeleteCreditCardPattern, myaccountArea.DeleteCreditCard)
	signed.POST(myaccount.DefaultCreditCardPattern, myaccountArea.SetDefaultCreditCard)
	signed.GET(myaccount.CardCyclePattern, myaccountArea.ShowCardCyclePage)
	signed.POST(myaccount.CardCyclePattern, myaccountArea.SaveCardCycle)

	// A partner application's request to act for the buyer (OAuth 2.0, issue 30).
	signed.GET(consent.AuthorizePath, consentArea.ShowConsentPage)
	signed.POST(consent.AuthorizePath, consentArea.Decide)

	// A signed-in buyer's inquiries with the operators' answers.
	signed.GET(inquiries.ListPage.Path, inquiriesArea.ShowListPage)
	signed.GET(inquiries.DetailPattern, inquiriesArea.ShowDetailPage)

	// Notifications.
	signed.GET(notifications.ListPage.Path, notificationsArea.ShowListPage)
	signed.GET(notifications.DetailPattern, notificationsArea.ShowDetailPage)

	// Paying a supplier's invoice by card: the invoice file first.
	signed.GET(payments.CreatePage.Path, paymentsArea.ShowCreatePage)
	signed.POST(payments.CreatePage.Path, paymentsArea.UploadInvoice)
	signed.GET(payments.FilePattern, paymentsArea.ShowFilePage)
	// A file's preview picture is not a page: it leaves no workflow (a wizard's page may
	// show it). The OCR adapter's pdftoppm draws a PDF's first page.
	pictures := e.Group("", signinArea.RequireSignIn, infoArea.RequireCurrentTerms)
	pictures.GET(payments.PreviewPattern, paymentsArea.ShowPreview)
	// The create journey (one question per page, answers in the session), its 3-D
	// Secure return and the complete page.
	signed.GET(payments.InvoiceInfoPage.Path, paymentsArea.ShowInvoiceInfoPage)
	signed.POST(payments.InvoiceInfoPage.Path, paymentsArea.ChooseSupplier)
	signed.GET(payments.NewSupplierPath, paymentsArea.ShowNewSupplierStep)
	signed.POST(payments.NewSupplierPath, paymentsArea.SaveNewSupplier)
	signed.GET(payments.NewAccountPath, paymentsArea.ShowNewAccountStep)
	signed.POST(payments.NewAccountPath, paymentsArea.SaveNewAccount)
	signed.GET(payments.AccountStepPath, paymentsArea.ShowAccountStep)
	signed.POST(payments.AccountStepPath, paymentsArea.ChooseAccount)
	signed.GET(payments.InvoiceStepPath, paymentsArea.ShowInvoiceStep)
	signed.POST(payments.InvoiceStepPath, paymentsArea.SaveInvoiceStep)
	signed.GET(payments.ConfirmPath, paymentsArea.ShowConfirmPage)
	signed.POST(payments.ConfirmPath, paymentsArea.Confirm)
	signed.GET(invoices.ReturnPath, paymentsArea.ChallengeReturned)
	// Card-payment requests received: the mailed link (signed out too: its key waits in
	// the session), and paying one by card.
	e.GET(payments.RequestLinkPattern, paymentsArea.OpenRequestLink)
	signed.GET(payments.RequestPayPattern, paymentsArea.ShowRequestPayPage)
	signed.POST(payments.RequestPayPattern, paymentsArea.PayRequest)
	signed.GET(payments.CompletePage.Path, paymentsArea.ShowCompletePage)
	// Correcting a payment that screening sent back.
	signed.GET(payments.EditInvoiceInfoPattern, paymentsArea.ShowEditPage)
	signed.POST(payments.EditInvoiceInfoPattern, paymentsArea.SaveEdit)
	signed.GET(payments.EditConfirmPattern, paymentsArea.ShowEditConfirmPage)
	signed.POST(payments.EditConfirmPattern, paymentsArea.Resubmit)
	signed.GET(payments.EditReturnPattern, paymentsArea.EditChallengeReturned)
	// Drafts, the lists and each payment, and a transferred payment's receipts.
	signed.GET(payments.ReceiptPattern, paymentsArea.DownloadReceipt)
	signed.GET(payments.DraftsPage.Path, paymentsArea.ShowDraftsPage)
	signed.POST(payments.DeleteDraftsPath, paymentsArea.DeleteDrafts)
	signed.GET(payments.DraftPattern, paymentsArea.ResumeDraft)
	signed.GET(payments.ExportPage.Path, paymentsArea.ShowExportPage)
	signed.POST(payments.ExportPage.Path, paymentsArea.Export)
	for _, l := range payments.Lists {
		signed.GET(l.Path, paymentsArea.ShowListPage(l))
		signed.GET(l.ItemPattern(), paymentsArea.ShowPaymentPage(l))
		signed.GET(l.CancelPattern(), paymentsArea.ShowCancelPage(l))
		signed.POST(l.CancelPattern(), paymentsArea.CancelPayment(l))
	}

	// Registered suppliers and their bank accounts.
	signed.GET(suppliers.ListPage.Path, suppliersArea.ShowListPage)
	signed.GET(suppliers.AddCompanyPage.Path, suppliersArea.ShowAddCompanyPage)
	signed.POST(suppliers.AddCompanyPage.Path, suppliersArea.SaveAddCompany)
	signed.GET(suppliers.AddBankPath, suppliersArea.ShowAddBankPage)
	signed.POST(suppliers.AddBankPath, suppliersArea.SaveAddBank)
	signed.GET(suppliers.AddConfirmPath, suppliersArea.ShowAddConfirmPage)
	signed.POST(suppliers.AddConfirmPath, suppliersArea.CreateSupplier)
	signed.GET(suppliers.SupplierPattern, suppliersArea.ShowSupplierPage)
	signed.GET(suppliers.DeletePattern, suppliersArea.ShowDeletePage)
	signed.POST(suppliers.DeletePattern, suppliersArea.DeleteSupplier)
	signed.GET(suppliers.NewBankAccountPattern, suppliersArea.ShowNewBankAccountPage)
	signed.POST(suppliers.NewBankAccountPattern, suppliersArea.CreateBankAccount)
	signed.GET(suppliers.EditBankAccountPattern, suppliersArea.ShowEditBankAccountPage)
	signed.POST(suppliers.EditBankAccountPattern, suppliersArea.UpdateBankAccount)
	signed.POST(suppliers.UploadLinkPattern, suppliersArea.SendUploadLink)
	signed.GET(suppliers.RevokeUploadLinkPattern, suppliersArea.ShowRevokeUploadLinkPage)
	signed.POST(suppliers.RevokeUploadLinkPattern, suppliersArea.RevokeUploadLink)
	signed.GET(suppliers.HistoryPattern, suppliersArea.ShowHistoryPage)
	signed.GET(suppliers.HistoryPaymentPattern, suppliersArea.ShowHistoryPaymentPage)
	signed.GET(suppliers.HistoryCollectionPattern, suppliersArea.ShowHistoryCollectionPage)

	// Received invoices (受取請求書): the lists by state, the search and its CSV index,
	// the buyer's own upload, the retention page, and each invoice with its file and
	// the forms it posts. Paying one is the payment journey, started from its file.
	for _, l := range receivedinvoices.Lists {
		signed.GET(l.Path, receivedArea.ShowListPage(l))
	}
	signed.GET(receivedinvoices.SearchPage.Path, receivedArea.ShowSearchPage)
	signed.GET(receivedinvoices.SearchCSVPath, receivedArea.DownloadIndex)
	signed.GET(receivedinvoices.SearchZIPPath, receivedArea.DownloadArchive)
	signed.GET(receivedinvoices.UploadPage.Path, receivedArea.ShowUploadPage)
	signed.POST(receivedinvoices.UploadPage.Path, receivedArea.Upload)
	signed.GET(receivedinvoices.RetentionPage.Path, receivedArea.ShowRetentionPage)
	signed.GET(receivedinvoices.AddressPage.Path, receivedArea.ShowAddressPage)
	signed.GET(receivedinvoices.RenewPage.Path, receivedArea.ShowRenewPage)
	signed.POST(receivedinvoices.RenewPage.Path, receivedArea.Renew)
	signed.GET(receivedinvoices.InvoicePattern, receivedArea.ShowInvoicePage)
	signed.GET(receivedinvoices.FilePattern, receivedArea.ServeFile)
	signed.POST(receivedinvoices.MarkPattern, receivedArea.Mark)
	signed.POST(receivedinvoices.CorrectPattern, receivedArea.Correct)

	// Card-payment requests: corporations only, unless excluded (SPEC.md §4, §6).
	// The journey keeps its answers in the session (collections.Journey); an uploaded
	// invoice starts it.
	// The pending request key is linked before the collections guard answers: a sole
	// proprietor whose first signed-in page is one of these is a customer paying a
	// request, and goes to pay it rather than to a refusal.
	requests := e.Group("", signinArea.RequireSignIn, infoArea.RequireCurrentTerms, paymentsArea.LinkPendingRequest, collectionsArea.RequireCollections, leave)
	requests.GET(collections.CreatePage.Path, collectionsArea.ShowCreatePage)
	requests.POST(collections.CreatePage.Path, collectionsArea.UploadInvoice)
	requests.GET(collections.FilePattern, collectionsArea.UseFile)
	requests.GET(collections.InvoiceStepPath, collectionsArea.ShowInvoiceStep)
	requests.POST(collections.InvoiceStepPath, collectionsArea.SaveInvoiceStep)
	requests.GET(collections.BankStepPath, collectionsArea.ShowBankStep)
	requests.POST(collections.BankStepPath, collectionsArea.ChooseBank)
	requests.GET(collections.NewBankPath, collectionsArea.ShowNewBank)
	requests.POST(collections.NewBankPath, collectionsArea.SaveNewBank)
	requests.GET(collections.ConfirmPath, collectionsArea.ShowConfirmPage)
	requests.POST(collections.ConfirmPath, collectionsArea.Send)
	requests.GET(collections.CompletePath, collectionsArea.ShowCompletePage)
	// Drafts, the three lists and each request with its cancel question.
	requests.GET(collections.DraftsPage.Path, collectionsArea.ShowDraftsPage)
	requests.POST(collections.DeleteDraftsPath, collectionsArea.DeleteDrafts)
	requests.GET(collections.DraftPattern, collectionsArea.ResumeDraft)
	for _, l := range collections.Lists {
		requests.GET(l.Path, collectionsArea.ShowListPage(l))
		requests.GET(l.ItemPattern(), collectionsArea.ShowRequestPage(l))
		requests.GET(l.CancelPattern(), collectionsArea.ShowCancelPage(l))
		requests.POST(l.CancelPattern(), collectionsArea.CancelRequest(l))
	}

	// The operator console: the operator's own session (ops.LoadOperator), never a
	// buyer's; each section asks for its role. The group adds no prefix: ops declares
	// its paths whole (/ops/…), as the links and redirects use them.
	console := e.Group("", opsArea.LoadOperator)
	console.GET(ops.SignInPage.Path, opsArea.ShowSignInPage)
	console.POST(ops.SignInPage.Path, opsArea.SignIn)
	console.POST(ops.SignOutPath, opsArea.SignOut)
	// An invitation's link: the invitee, not yet an operator, sets their own password
	// and authenticator.
	console.GET(ops.InvitePage.Path, opsArea.ShowInvitePage)
	console.POST(ops.InvitePage.Path, opsArea.AcceptInvite)
	operators := console.Group("", opsArea.RequireOperator())
	operators.GET(ops.HomePath, opsArea.ShowHome)
	operators.GET(ops.AuditPage.Path, opsArea.ShowAuditPage)
	// The books (the trial balance): every operator may read them.
	operators.GET(ops.LedgerPage.Path, opsArea.ShowLedgerPage)
	// Inquiries: every operator may answer (ops.InquiriesPage says why).
	operators.GET(ops.InquiriesPage.Path, opsArea.ShowInquiriesPage)
	operators.GET(ops.InquiryPattern, opsArea.ShowInquiryPage)
	operators.POST(ops.InquiryPattern, opsArea.AnswerInquiry)
	operators.POST(ops.CloseInquiryPattern, opsArea.CloseInquiry)
	screeners := console.Group("", opsArea.RequireOperator(pay.RoleScreening))
	screeners.GET(ops.QueuePage.Path, opsArea.ShowQueuePage)
	screeners.GET(ops.ScreeningPattern, opsArea.ShowScreeningPage)
	screeners.GET(ops.ScreeningFilePattern, opsArea.DownloadFile)
	screeners.GET(ops.ScreeningPreviewPattern, opsArea.ShowPreview)
	screeners.POST(ops.CheckPattern, opsArea.CheckPayment)
	screeners.POST(ops.CompletePattern, opsArea.CompleteScreening)
	screeners.POST(ops.SendBackPattern, opsArea.SendBack)
	screeners.POST(ops.CancelPattern, opsArea.CancelPayment)
	screeners.POST(ops.ApproveAccountPattern, opsArea.ApproveAccount)
	screeners.GET(ops.SuppliersPage.Path, opsArea.ShowSuppliersPage)
	screeners.GET(ops.SupplierPattern, opsArea.ShowSupplierPage)
	screeners.POST(ops.SupplierPattern, opsArea.ReviewSupplier)
	// Buyers locked out of adding cards after declined checks (ops.LocksPage says why
	// this is the screening role's).
	screeners.GET(ops.LocksPage.Path, opsArea.ShowLocksPage)
	screeners.POST(ops.UnlockPattern, opsArea.UnlockCardChecks)
	screeners.GET(ops.BuyersPage.Path, opsArea.ShowHeldBuyersPage)
	screeners.GET(ops.HeldBuyerPattern, opsArea.ShowHeldBuyerPage)
	screeners.POST(ops.HeldBuyerPattern, opsArea.ReviewHeldBuyer)

	admins := console.Group("", opsArea.RequireOperator(pay.RoleAdmin))
	admins.GET(ops.OperatorsPage.Path, opsArea.ShowOperatorsPage)
	admins.POST(ops.OperatorsPage.Path, opsArea.ProposeInvite)
	admins.POST(ops.ApproveProposalPattern, opsArea.DecideProposal(true))
	admins.POST(ops.RejectProposalPattern, opsArea.DecideProposal(false))
	admins.POST(ops.DisableOperatorPattern, opsArea.DisableOperator)
	admins.POST(ops.EnableOperatorPattern, opsArea.ProposeEnable)
	admins.POST(ops.OperatorRolesPattern, opsArea.ProposeRoles)
	admins.GET(ops.PartnersPage.Path, opsArea.ShowPartnersPage)
	admins.POST(ops.PartnersPage.Path, opsArea.RegisterPartner)
	admins.POST(ops.DisablePartnerPattern, opsArea.DisablePartner)
	movers := console.Group("", opsArea.RequireOperator(pay.RoleTransfers))
	movers.GET(ops.TransfersPage.Path, opsArea.ShowTransfersPage)
	movers.POST(ops.TransferFilesPath, opsArea.MakeTransferFile)
	movers.GET(ops.TransferFileDownloadPattern, opsArea.DownloadTransferFile)
	movers.POST(ops.TransferFileSentPattern, opsArea.MarkTransferFileSent)
	movers.POST(ops.TransferDonePattern, opsArea.CompleteTransfer)
	movers.POST(ops.TransferFailedPattern, opsArea.FailTransfer)
	movers.POST(ops.TransferRetryPattern, opsArea.RetryTransfer)
	movers.POST(ops.TransferCancelPattern, opsArea.CancelTransfer)
	movers.GET(ops.ReconcilePage.Path, opsArea.ShowReconcilePage)

	// Development only: the in-process mailbox (nil in production or with SMTP_URL).
	if a.DevMailbox != nil {
		devArea := &dev.Handler{App: a, Box: a.DevMailbox}
		e.GET(dev.MailboxPage.Path, devArea.ShowMailboxPage)
		e.GET(dev.MailPattern, devArea.ShowMailPage)
	}

	// JSON API (SPEC.md §7): its own route table in handlers/api, described by its openapi.json.
	api.Register(e, a)

	e.RouteNotFound("/*", web.ShowNotFoundPage)
}

// serverRoutes are the routes served beside echo, outside the sessions and the
// cross-origin check: only the PSP's webhook, which its signature authenticates.
func serverRoutes(mux *http.ServeMux, a *web.App) {
	mux.Handle("POST "+api.WebhookPath, api.Webhook(a))
	// Partners call the authorisation server's endpoints server to server: each checks
	// the client's credentials or PKCE instead of a session.
	if a.OAuth != nil {
		mux.Handle("POST "+consent.TokenPath, consent.TokenEndpoint(a.OAuth))
		mux.Handle("POST "+consent.RevokePath, consent.RevokeEndpoint(a.OAuth))
		mux.Handle("POST "+consent.IntrospectPath, consent.IntrospectEndpoint(a.OAuth))
	}
}

func redirectTo(path string) echo.HandlerFunc {
	return func(c *echo.Context) error { return c.Redirect(http.StatusSeeOther, path) }
}

// Pages lists every GET page that shows without a flow in progress or a path parameter,
// plus one example of each error view, for the browser tests and the page-weight script
// (`bin/server -pages`). The others (the code pages, the wizards' later steps, a
// supplier's pages) are visited by the journeys that reach them.
func Pages() []web.Page {
	ps := []web.Page{
		signin.SignInPage,
		{Path: "/error/" + "エラー" + "/" + "処理を続けられませんでした", Title: "エラー", Access: web.Public},
		{Path: "/no-such-page", Title: web.ErrNotFound.Heading, Access: web.Public},
		dev.MailboxPage,
		signup.SignupPage,
		password.ReregistrationPage,
		password.SendEmailPage,
		password.ResetPage,
		myaccount.EmailChangeCompletePage,
		info.TermsPage,
		myaccount.MyAccountPage,
		myaccount.CompanyPage,
		myaccount.EditPasswordPage,
		myaccount.EditEmailAddressPage,
		myaccount.SecurityPage,
		myaccount.CreditCardsPage,
		myaccount.AddCreditCardPage,
		withQuery(suppliers.ListPage, "?status=enable"),
		withQuery(suppliers.ListPage, "?status=disable"),
		suppliers.AddCompanyPage,
		payments.CreatePage,
		payments.DraftsPage,
		payments.ExportPage,
		ops.SignInPage,
	}
	for _, l := range payments.Lists {
		ps = append(ps, l.Page)
	}
	ps = append(ps, info.Pages...)
	ps = append(ps, inquiries.FormPage, inquiries.ListPage)
	ps = append(ps, notifications.ListPage)
	ps = append(ps, collections.Pages...)
	ps = append(ps, receivedinvoices.Pages...)
	return ps
}

func withQuery(p web.Page, query string) web.Page {
	p.Path += query
	return p
}
