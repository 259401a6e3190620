package handlers

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/cards"
	"cardpay/handlers/api"
	"cardpay/handlers/collections"
	"cardpay/handlers/dev"
	"cardpay/handlers/info"
	"cardpay/handlers/myaccount"
	"cardpay/handlers/notifications"
	"cardpay/handlers/ops"
	"cardpay/handlers/password"
	"cardpay/handlers/payments"
	"cardpay/handlers/signin"
	"cardpay/handlers/signup"
	"cardpay/handlers/suppliers"
	"cardpay/handlers/web"
	"cardpay/invoices"
	"cardpay/ocr"
	"cardpay/pay"
)

// routes is the one route table (DESIGN.md §2), grouped by area. A page's path and
// title are declared once, as a web.Page in its area; this table routes the path.
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
		notificationsArea = &notifications.Handler{App: a}
		opsArea           = &ops.Handler{App: a}
	)

	// Sign-in, sign-out and the one-time password (simple layout).
	e.GET("/", redirectTo(signin.SignInPage.Path))
	e.GET(signin.SignInPage.Path, signinArea.ShowSignInPage)
	e.POST(signin.SignInPage.Path, signinArea.SignIn)
	e.POST("/signout", signinArea.SignOut)
	e.GET(signin.OnetimePasswordPage.Path, signinArea.ShowOnetimePasswordPage)
	e.POST(signin.OnetimePasswordPage.Path, signinArea.VerifyOnetimePassword)
	e.POST("/onetime-password/resend", signinArea.ResendOnetimePassword)

	// Sign-up and registration.
	e.GET(signup.SignupPage.Path, signupArea.ShowSignupPage)
	e.POST(signup.SignupPage.Path, signupArea.SignUp)
	e.GET("/signup/code", signupArea.ShowSignupCodePage)
	e.POST("/signup/code", signupArea.VerifySignupCode)
	e.POST("/signup/code/resend", signupArea.ResendSignupCode)
	e.GET("/registration", signupArea.ShowRegistrationPage)
	e.POST("/registration", signupArea.SaveRegistration)
	e.GET("/registration/confirm", signupArea.ShowRegistrationConfirmPage)
	e.POST("/registration/confirm", signupArea.Register)
	e.GET("/registration/result", signupArea.ShowRegistrationResultPage)

	// Password reset and re-registration (signed out).
	e.GET(password.ReregistrationPage.Path, passwordArea.ShowReregistrationPage)
	e.POST(password.ReregistrationPage.Path, passwordArea.Reregister)
	e.GET(password.SendEmailPage.Path, passwordArea.ShowSendEmailPage)
	e.POST(password.SendEmailPage.Path, passwordArea.SendResetEmail)
	e.GET(password.ResetPage.Path, passwordArea.ShowResetPage)
	e.POST(password.ResetPage.Path, passwordArea.ResetPassword)

	// Help and policy pages, the error view.
	for _, p := range info.Pages {
		e.GET(p.Path, infoArea.ShowInfoPage(p))
	}
	e.GET("/error/:title/:message", infoArea.ShowErrorPage)

	// Signed in: every group below leaves an unfinished create workflow when a page
	// outside it is opened.
	leave := a.LeaveWorkflows(suppliers.AddWizard.Workflow, payments.Journey.Workflow, payments.Edit.Workflow, collections.Journey.Workflow)
	// Entering the signed-in layout links a card-payment request's pending key (SPEC.md §2).
	signed := e.Group("", a.RequireSignIn, infoArea.RequireCurrentTerms, a.LinkPendingRequest, leave)
	signed.GET("/toppage", infoArea.ShowTopPage)
	signed.GET(info.TermsPage.Path, infoArea.ShowTermsPage)
	signed.POST(info.TermsPage.Path, infoArea.AcceptTerms)

	// My account. The end of an e-mail change is reached from the mail, signed out too.
	e.GET(myaccount.EmailChangeCompletePage.Path, myaccountArea.ShowEmailChangeCompletePage)
	signed.GET(myaccount.MyAccountPage.Path, myaccountArea.ShowMyAccountPage)
	signed.GET(myaccount.CompanyPage.Path, myaccountArea.ShowCompanyPage)
	signed.POST("/myaccount/company/user-name", myaccountArea.ChangeUserName)
	signed.POST("/myaccount/company/transfer-person-name", myaccountArea.ChangeTransferPersonName)
	signed.GET(myaccount.EditPasswordPage.Path, myaccountArea.ShowEditPasswordPage)
	signed.POST(myaccount.EditPasswordPage.Path, myaccountArea.ChangePassword)
	signed.GET(myaccount.EditEmailAddressPage.Path, myaccountArea.ShowEditEmailAddressPage)
	signed.POST(myaccount.EditEmailAddressPage.Path, myaccountArea.StartEmailChange)
	signed.GET("/myaccount/edit-email-auth", myaccountArea.ShowEditEmailAuthPage)
	signed.POST("/myaccount/edit-email-auth", myaccountArea.ConfirmEmailChange)
	signed.GET(myaccount.SecurityPage.Path, myaccountArea.ShowSecurityPage)
	signed.POST(myaccount.SecurityPage.Path, myaccountArea.ChooseTwoFactor)
	signed.GET("/myaccount/security/totp", myaccountArea.ShowTOTPSetupPage)
	signed.POST("/myaccount/security/totp", myaccountArea.EnableTOTP)
	signed.GET("/myaccount/security/email", myaccountArea.ShowEmailTwoFactorPage)
	signed.POST("/myaccount/security/email", myaccountArea.EnableEmailTwoFactor)
	signed.POST("/myaccount/security/email/resend", myaccountArea.ResendEmailTwoFactorCode)
	signed.GET("/myaccount/security/recovery-codes", myaccountArea.ShowRecoveryCodesPage)
	signed.POST("/myaccount/security/sessions/:id/end", myaccountArea.EndSession)
	signed.POST("/myaccount/security/sessions/end-others", myaccountArea.EndOtherSessions)
	// Saved cards (お支払い方法). The PSP sends the buyer back to the two return pages
	// (cards.HostedReturnPath, cards.VerifyReturnPath) with a top-level GET.
	signed.GET(myaccount.CreditCardsPage.Path, myaccountArea.ShowCreditCardsPage)
	signed.GET(myaccount.AddCreditCardPage.Path, myaccountArea.ShowAddCreditCardPage)
	signed.POST(myaccount.AddCreditCardPage.Path, myaccountArea.AddCreditCard)
	signed.POST("/myaccount/creditcards/new/hosted", myaccountArea.StartHostedCardEntry)
	signed.GET(cards.HostedReturnPath, myaccountArea.ReturnFromHostedCardEntry)
	signed.GET(cards.VerifyReturnPath, myaccountArea.ReturnFromCardVerification)
	signed.GET("/myaccount/creditcards/:id/delete", myaccountArea.ShowDeleteCreditCardPage)
	signed.POST("/myaccount/creditcards/:id/delete", myaccountArea.DeleteCreditCard)
	signed.POST("/myaccount/creditcards/:id/default", myaccountArea.SetDefaultCreditCard)
	signed.GET("/myaccount/creditcards/:id/cycle", myaccountArea.ShowCardCyclePage)
	signed.POST("/myaccount/creditcards/:id/cycle", myaccountArea.SaveCardCycle)

	// Notifications.
	signed.GET(notifications.ListPage.Path, notificationsArea.ShowListPage)
	signed.GET(notifications.ListPage.Path+"/:id", notificationsArea.ShowDetailPage)

	// Paying a supplier's invoice by card: the invoice file first.
	signed.GET(payments.CreatePage.Path, paymentsArea.ShowCreatePage)
	signed.POST(payments.CreatePage.Path, paymentsArea.UploadInvoice)
	signed.GET(payments.FilePath+":id", paymentsArea.ShowFilePage)
	// A file's preview picture is not a page: it leaves no workflow (a wizard's page may
	// show it). The OCR adapter's pdftoppm draws a PDF's first page.
	pictures := e.Group("", a.RequireSignIn, infoArea.RequireCurrentTerms)
	pictures.GET(payments.FilePath+":id/preview", paymentsArea.ShowPreview(&ocr.Reader{Timeout: payments.PreviewTimeout}))
	// The create journey (one question per page, answers in the session), its 3-D
	// Secure return and the complete page.
	signed.GET(payments.InvoiceInfoPage.Path, paymentsArea.ShowInvoiceInfoPage)
	signed.POST(payments.InvoiceInfoPage.Path, paymentsArea.ChooseSupplier)
	signed.GET("/payments/add/supplier", paymentsArea.ShowNewSupplierStep)
	signed.POST("/payments/add/supplier", paymentsArea.SaveNewSupplier)
	signed.GET("/payments/add/account/new", paymentsArea.ShowNewAccountStep)
	signed.POST("/payments/add/account/new", paymentsArea.SaveNewAccount)
	signed.GET("/payments/add/account", paymentsArea.ShowAccountStep)
	signed.POST("/payments/add/account", paymentsArea.ChooseAccount)
	signed.GET("/payments/add/invoice", paymentsArea.ShowInvoiceStep)
	signed.POST("/payments/add/invoice", paymentsArea.SaveInvoiceStep)
	signed.GET(payments.ConfirmPath, paymentsArea.ShowConfirmPage)
	signed.POST(payments.ConfirmPath, paymentsArea.Confirm)
	signed.GET(invoices.ReturnPath, paymentsArea.ChallengeReturned)
	// Card-payment requests received: the mailed link (signed out too: its key waits in
	// the session), and paying one by card.
	e.GET(payments.RequestLinkPath+":key", paymentsArea.OpenRequestLink)
	signed.GET("/payments/waiting/:id/creditcard", paymentsArea.ShowRequestPayPage)
	signed.POST("/payments/waiting/:id/creditcard", paymentsArea.PayRequest)
	signed.GET(payments.CompletePage.Path, paymentsArea.ShowCompletePage)
	// Correcting a payment that screening sent back.
	signed.GET("/payments/edit/:id/invoiceinfo", paymentsArea.ShowEditPage)
	signed.POST("/payments/edit/:id/invoiceinfo", paymentsArea.SaveEdit)
	signed.GET("/payments/edit/:id/confirm", paymentsArea.ShowEditConfirmPage)
	signed.POST("/payments/edit/:id/confirm", paymentsArea.Resubmit)
	signed.GET("/payments/edit/:id/confirm/return", paymentsArea.EditChallengeReturned)
	// Drafts, the lists and each payment, and a transferred payment's receipts.
	signed.GET(payments.ReceiptPath+":id/:kind", paymentsArea.DownloadReceipt)
	signed.GET(payments.DraftsPage.Path, paymentsArea.ShowDraftsPage)
	signed.POST(payments.DraftsPage.Path+"/delete", paymentsArea.DeleteDrafts)
	signed.GET(payments.DraftsPage.Path+"/:id", paymentsArea.ResumeDraft)
	for _, l := range payments.Lists {
		signed.GET(l.Path, paymentsArea.ShowListPage(l))
		signed.GET(l.Path+"/:id", paymentsArea.ShowPaymentPage(l))
		signed.GET(l.Path+"/:id/cancel", paymentsArea.ShowCancelPage(l))
		signed.POST(l.Path+"/:id/cancel", paymentsArea.CancelPayment(l))
	}

	// Registered suppliers and their bank accounts.
	signed.GET(suppliers.ListPage.Path, suppliersArea.ShowListPage)
	signed.GET(suppliers.AddCompanyPage.Path, suppliersArea.ShowAddCompanyPage)
	signed.POST(suppliers.AddCompanyPage.Path, suppliersArea.SaveAddCompany)
	signed.GET("/suppliers/add/bank", suppliersArea.ShowAddBankPage)
	signed.POST("/suppliers/add/bank", suppliersArea.SaveAddBank)
	signed.GET("/suppliers/add/confirm", suppliersArea.ShowAddConfirmPage)
	signed.POST("/suppliers/add/confirm", suppliersArea.CreateSupplier)
	signed.GET("/suppliers/:id", suppliersArea.ShowSupplierPage)
	signed.GET("/suppliers/:id/delete", suppliersArea.ShowDeletePage)
	signed.POST("/suppliers/:id/delete", suppliersArea.DeleteSupplier)
	signed.GET("/suppliers/:id/accounts/new", suppliersArea.ShowNewBankAccountPage)
	signed.POST("/suppliers/:id/accounts/new", suppliersArea.CreateBankAccount)
	signed.GET("/suppliers/:id/accounts/:accountid/edit", suppliersArea.ShowEditBankAccountPage)
	signed.POST("/suppliers/:id/accounts/:accountid/edit", suppliersArea.UpdateBankAccount)
	signed.GET("/suppliers/:id/payment-history", suppliersArea.ShowHistoryPage)
	signed.GET("/suppliers/:id/payment-history/:paymentid", suppliersArea.ShowHistoryPaymentPage)
	signed.GET("/suppliers/:id/collection-history/:paymentid", suppliersArea.ShowHistoryCollectionPage)

	// Card-payment requests: corporations only, unless excluded (SPEC.md §4, §6).
	// The journey keeps its answers in the session (collections.Journey); an uploaded
	// invoice starts it.
	requests := e.Group("", a.RequireSignIn, infoArea.RequireCurrentTerms, collectionsArea.RequireCollections, a.LinkPendingRequest, leave)
	requests.GET(collections.CreatePage.Path, collectionsArea.ShowCreatePage)
	requests.POST(collections.CreatePage.Path, collectionsArea.UploadInvoice)
	requests.GET(collections.FilePath+":id", collectionsArea.UseFile)
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
	requests.POST(collections.DraftsPage.Path+"/delete", collectionsArea.DeleteDrafts)
	requests.GET(collections.DraftsPage.Path+"/:id", collectionsArea.ResumeDraft)
	for _, l := range collections.Lists {
		requests.GET(l.Path, collectionsArea.ShowListPage(l))
		requests.GET(l.Path+"/:id", collectionsArea.ShowRequestPage(l))
		requests.GET(l.Path+"/:id/cancel", collectionsArea.ShowCancelPage(l))
		requests.POST(l.Path+"/:id/cancel", collectionsArea.CancelRequest(l))
	}

	// The operator console: the operator's own session (web.LoadOperator), never a
	// buyer's; each section asks for its role.
	console := e.Group(web.OpsPrefix, a.LoadOperator)
	console.GET("/signin", opsArea.ShowSignInPage)
	console.POST("/signin", opsArea.SignIn)
	console.POST("/signout", opsArea.SignOut)
	// An invitation's link: the invitee, not yet an operator, sets their own password
	// and authenticator.
	console.GET("/invite/:token", opsArea.ShowInvitePage)
	console.POST("/invite/:token", opsArea.AcceptInvite)
	operators := console.Group("", a.RequireOperator())
	operators.GET("", opsArea.ShowHome)
	operators.GET("/audit", opsArea.ShowAuditPage)
	// The books (the trial balance): every operator may read them.
	operators.GET("/ledger", opsArea.ShowLedgerPage)
	screeners := console.Group("", a.RequireOperator(pay.RoleScreening))
	screeners.GET("/screening", opsArea.ShowQueuePage)
	screeners.GET("/screening/:id", opsArea.ShowScreeningPage)
	screeners.GET("/screening/:id/file", opsArea.DownloadFile)
	screeners.GET("/screening/:id/preview", opsArea.ShowPreview(&ocr.Reader{Timeout: web.PreviewTimeout}))
	screeners.POST("/screening/:id/check", opsArea.CheckPayment)
	screeners.POST("/screening/:id/complete", opsArea.CompleteScreening)
	screeners.POST("/screening/:id/send-back", opsArea.SendBack)
	screeners.POST("/screening/:id/cancel", opsArea.CancelPayment)
	screeners.POST("/screening/:id/approve-account", opsArea.ApproveAccount)
	screeners.GET("/suppliers", opsArea.ShowSuppliersPage)
	screeners.GET("/suppliers/:id", opsArea.ShowSupplierPage)
	screeners.POST("/suppliers/:id", opsArea.ReviewSupplier)
	// Buyers locked out of adding cards after declined checks (ops.LocksPage says why
	// this is the screening role's).
	screeners.GET("/locks", opsArea.ShowLocksPage)
	screeners.POST("/locks/:id/unlock", opsArea.UnlockCardChecks)
	screeners.GET("/buyers", opsArea.ShowHeldBuyersPage)
	screeners.GET("/buyers/:id", opsArea.ShowHeldBuyerPage)
	screeners.POST("/buyers/:id", opsArea.ReviewHeldBuyer)

	admins := console.Group("", a.RequireOperator(pay.RoleAdmin))
	admins.GET("/operators", opsArea.ShowOperatorsPage)
	admins.POST("/operators", opsArea.ProposeInvite)
	admins.POST("/operators/proposals/:id/approve", opsArea.DecideProposal(true))
	admins.POST("/operators/proposals/:id/reject", opsArea.DecideProposal(false))
	admins.POST("/operators/:id/disable", opsArea.DisableOperator)
	admins.POST("/operators/:id/enable", opsArea.ProposeEnable)
	admins.POST("/operators/:id/roles", opsArea.ProposeRoles)
	movers := console.Group("", a.RequireOperator(pay.RoleTransfers))
	movers.GET("/transfers", opsArea.ShowTransfersPage)
	movers.POST("/transfers/files", opsArea.MakeTransferFile)
	movers.GET("/transfers/files/:id/download", opsArea.DownloadTransferFile)
	movers.POST("/transfers/files/:id/sent", opsArea.MarkTransferFileSent)
	movers.POST("/transfers/:id/done", opsArea.CompleteTransfer)
	movers.POST("/transfers/:id/failed", opsArea.FailTransfer)
	movers.POST("/transfers/:id/retry", opsArea.RetryTransfer)
	movers.POST("/transfers/:id/cancel", opsArea.CancelTransfer)
	movers.GET("/reconciliation", opsArea.ShowReconcilePage)

	// Development only: the in-process mailbox (nil in production or with SMTP_URL).
	if a.DevMailbox != nil {
		devArea := &dev.Handler{App: a, Box: a.DevMailbox}
		e.GET(dev.MailboxPage.Path, devArea.ShowMailboxPage)
		e.GET(dev.MailboxPage.Path+"/:id", devArea.ShowMailPage)
	}

	// JSON API (SPEC.md §7): its own route table in handlers/api, described by its openapi.json.
	api.Register(e, a)

	e.RouteNotFound("/*", web.ShowNotFoundPage)
}

// serverRoutes are the routes served beside echo, outside the sessions and the
// cross-origin check: only the PSP's webhook, which its signature authenticates.
func serverRoutes(mux *http.ServeMux, a *web.App) {
	mux.Handle("POST "+api.WebhookPath, api.Webhook(a))
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
		ops.SignInPage,
	}
	for _, l := range payments.Lists {
		ps = append(ps, l.Page)
	}
	ps = append(ps, info.Pages...)
	ps = append(ps, notifications.ListPage)
	ps = append(ps, collections.Pages...)
	return ps
}

func withQuery(p web.Page, query string) web.Page {
	p.Path += query
	return p
}
