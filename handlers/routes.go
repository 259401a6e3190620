package handlers

import (
	"github.com/labstack/echo/v5"

	"cardpay/handlers/api"
)

// page is a screen that a later issue builds out; until then it renders the honest
// placeholder view under its real route and title.
type page struct {
	path, title string
}

// Screens still waiting for their issues (SPEC.md §2). Each moves to a handler file of
// its own, and out of these lists, when its capability lands.
var (
	signedInPlaceholders = []page{
		{"/notifications", "お知らせ"},
		{"/myaccount/creditcards", "お支払い方法"},
		{"/payments/draft", "下書き"},
		{"/payments/review", "審査中"},
		{"/payments/reserved", "支払予約"},
		{"/payments/history", "支払履歴"},
		{"/payments/waiting", "支払待ち"},
		{"/payments/create", "請求書の支払いを作成"},
		{"/payments/add/invoiceinfo", "請求書情報の入力"},
		{"/payments/add/confirm", "支払内容の確認"},
		{"/payments/complete", "支払申請の完了"},
	}
	collectionPlaceholders = []page{
		{"/collections/draft", "下書き"},
		{"/collections/request", "依頼中"},
		{"/collections/decided", "支払確定"},
		{"/collections/history", "依頼履歴"},
		{"/collections/create", "カード払い依頼を作成"},
		{"/collections/add/invoice", "請求書情報の入力"},
		{"/collections/add/bank", "入金先口座の選択"},
		{"/collections/add/confirm", "依頼内容の確認"},
		{"/collections/complete", "依頼の完了"},
	}
)

// routes is the one route table (DESIGN.md §2), grouped by area.
func (a *App) routes() {
	e := a.echo
	// Public (simple layout).
	e.GET("/", redirectTo("/signin"))
	e.GET("/signin", a.showSignInPage)
	e.POST("/signin", a.signIn)
	e.POST("/signout", a.signOut)
	e.GET("/onetime-password", a.showOnetimePasswordPage)
	e.POST("/onetime-password", a.verifyOnetimePassword)
	e.POST("/onetime-password/resend", a.resendOnetimePassword)
	e.GET("/error/:title/:message", a.showErrorPage)

	// Sign-up and registration.
	e.GET("/signup", a.showSignupPage)
	e.POST("/signup", a.signUp)
	e.GET("/signup/code", a.showSignupCodePage)
	e.POST("/signup/code", a.verifySignupCode)
	e.POST("/signup/code/resend", a.resendSignupCode)
	e.GET("/password/reregistration", a.showReregistrationPage)
	e.POST("/password/reregistration", a.reregister)
	e.GET("/registration", a.showRegistrationPage)
	e.POST("/registration", a.saveRegistration)
	e.GET("/registration/confirm", a.showRegistrationConfirmPage)
	e.POST("/registration/confirm", a.register)
	e.GET("/registration/result", a.showRegistrationResultPage)
	// Postal-code lookup for the registration island (SPEC.md has no call for it).
	e.GET("/api/v1/postal_codes/:code", a.getPostalCodes)

	// Password reset and the end of an e-mail change.
	e.GET("/password/sendemail", a.showPasswordSendEmailPage)
	e.POST("/password/sendemail", a.sendPasswordResetEmail)
	e.GET("/password/reset", a.showPasswordResetPage)
	e.POST("/password/reset", a.resetPassword)
	e.GET("/myaccount/edit-email-complete", a.showEmailChangeCompletePage)

	for _, p := range infoPages {
		e.GET(p.path, a.showInfoPage(p))
	}

	// Signed in.
	signed := e.Group("", a.requireSignIn, a.requireCurrentTerms, a.leaveWorkflows)
	signed.GET("/toppage", a.showTopPage)
	for _, p := range signedInPlaceholders {
		signed.GET(p.path, a.showPlaceholderPage(p.title, true))
	}

	// My account and terms.
	signed.GET("/termsofservice", a.showTermsPage)
	signed.POST("/termsofservice", a.acceptTerms)
	signed.GET("/myaccount", a.showMyAccountPage)
	signed.GET("/myaccount/company", a.showCompanyPage)
	signed.POST("/myaccount/company/user-name", a.changeUserName)
	signed.POST("/myaccount/company/transfer-person-name", a.changeTransferPersonName)
	signed.GET("/myaccount/edit-password", a.showEditPasswordPage)
	signed.POST("/myaccount/edit-password", a.changePassword)
	signed.GET("/myaccount/edit-email-address", a.showEditEmailAddressPage)
	signed.POST("/myaccount/edit-email-address", a.startEmailChange)
	signed.GET("/myaccount/edit-email-auth", a.showEditEmailAuthPage)
	signed.POST("/myaccount/edit-email-auth", a.confirmEmailChange)
	signed.GET("/myaccount/security", a.showSecurityPage)
	signed.POST("/myaccount/security", a.chooseTwoFactor)
	signed.GET("/myaccount/security/totp", a.showTOTPSetupPage)
	signed.POST("/myaccount/security/totp", a.enableTOTP)
	signed.GET("/myaccount/security/email", a.showEmailTwoFactorPage)
	signed.POST("/myaccount/security/email", a.enableEmailTwoFactor)
	signed.POST("/myaccount/security/email/resend", a.resendEmailTwoFactorCode)
	signed.GET("/myaccount/security/recovery-codes", a.showRecoveryCodesPage)

	// Registered suppliers and their bank accounts.
	signed.GET("/suppliers", a.showSupplierListPage)
	signed.GET("/suppliers/add/company", a.showSupplierCompanyPage)
	signed.POST("/suppliers/add/company", a.saveSupplierCompany)
	signed.GET("/suppliers/add/bank", a.showSupplierBankPage)
	signed.POST("/suppliers/add/bank", a.saveSupplierBank)
	signed.GET("/suppliers/add/confirm", a.showSupplierConfirmPage)
	signed.POST("/suppliers/add/confirm", a.createSupplier)
	signed.GET("/suppliers/:id", a.showSupplierPage)
	signed.GET("/suppliers/:id/delete", a.showSupplierDeletePage)
	signed.POST("/suppliers/:id/delete", a.deleteSupplier)
	signed.GET("/suppliers/:id/accounts/new", a.showNewAccountPage)
	signed.POST("/suppliers/:id/accounts/new", a.createAccount)
	signed.GET("/suppliers/:id/accounts/:accountid/edit", a.showEditAccountPage)
	signed.POST("/suppliers/:id/accounts/:accountid/edit", a.updateAccount)
	signed.GET("/suppliers/:id/payment-history", a.showSupplierHistoryPage)
	signed.GET("/suppliers/:id/payment-history/:paymentid", a.showSupplierPaymentPage)
	signed.GET("/suppliers/:id/collection-history/:paymentid", a.showSupplierCollectionPage)

	// Collections: corporations only, unless excluded (SPEC.md §4, §6).
	collections := e.Group("/collections", a.requireSignIn, a.requireCurrentTerms, a.requireCollections, a.leaveWorkflows)
	for _, p := range collectionPlaceholders {
		collections.GET(p.path[len("/collections"):], a.showPlaceholderPage(p.title, true))
	}

	// Development only: the in-process mailbox (nil in production or with SMTP_URL).
	if a.DevMailbox != nil {
		e.GET("/dev/mailbox", showDevMailboxPage(a, a.DevMailbox))
		e.GET("/dev/mailbox/:id", showDevMailPage(a, a.DevMailbox))
	}

	// JSON API (SPEC.md §7): its own route table in handlers/api, described by its openapi.json.
	api.Register(e, api.Deps{
		Store: a.Store, Account: a.Account, Sessions: a.Sessions, Logger: a.Logger, Now: a.Now,
		SecretKey: a.SecretKey, AccessTokenTTL: a.APIAccessTokenTTL,
		CollectionExclusions: a.CollectionExclusions,
		SessionUser:          currentUser, RenewSession: a.startSession,
		SearchCorporations: a.searchCorporations,
	})

	e.RouteNotFound("/*", a.showNotFoundPage)
}

func redirectTo(path string) echo.HandlerFunc {
	return func(c *echo.Context) error { return c.Redirect(303, path) }
}
