package api

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/pay"
	"cardpay/store"
)

// information is the user entity of SPEC.md §3 (GET users/information), snake_case:
// the person, the buyer's business fields of both forms (the other form's are empty
// strings) and the account's state.
type information struct {
	UserID        int64  `json:"user_id"`
	BuyerID       int64  `json:"buyer_id"`
	EmailAddress  string `json:"email_address"`
	UserLastName  string `json:"user_last_name"`
	UserFirstName string `json:"user_first_name"`
	PhoneNumber   string `json:"phone_number"`
	store.BuyerDetails
	// RepresentativeBirthday is YYYY-MM-DD or "" (it shadows BuyerDetails' time).
	RepresentativeBirthday string `json:"representative_birthday"`
	// ExternalIntegrationClientIDs are the partner applications the buyer connected
	// (OAuth, issue 30), by client id.
	ExternalIntegrationClientIDs []string `json:"external_integration_client_ids"`
	// CollectionMode is "enabled" when the buyer may send card-payment requests, else
	// "buyerOnly" (SPEC.md §4).
	CollectionMode      pay.CollectionMode `json:"collection_mode"`
	TwoFactorMethod     string             `json:"two_factor_method"`
	TermsVersion        int                `json:"terms_version"`
	CurrentTermsVersion int                `json:"current_terms_version"`
	LicenseAccepted     bool               `json:"license_accepted"`
}

func (s *server) informationOf(ctx context.Context, u store.User) (information, error) {
	b, err := s.Store.Buyer(ctx, u.BuyerID)
	if err != nil {
		return information{}, err
	}
	clients, err := s.Store.OAuthClientIDs(ctx, u.BuyerID)
	if err != nil {
		return information{}, err
	}
	info := information{
		UserID: u.ID, BuyerID: u.BuyerID, EmailAddress: u.EmailAddress,
		UserLastName: u.LastName, UserFirstName: u.FirstName, PhoneNumber: u.PhoneNumber,
		BuyerDetails:                 b.BuyerDetails,
		ExternalIntegrationClientIDs: clients,
		CollectionMode:               pay.CollectionModeFor(b.BusinessForm, b.CorporateNumber, s.CollectionExclusions),
		TwoFactorMethod:              u.TwoFactorMethod,
		TermsVersion:                 u.TermsVersion,
		CurrentTermsVersion:          account.TermsVersion,
		LicenseAccepted:              u.TermsVersion >= account.TermsVersion,
	}
	if b.RepresentativeBirthday != nil {
		// A DATE column: the calendar day as stored, whatever the zone it came back in.
		info.RepresentativeBirthday = b.RepresentativeBirthday.Format(time.DateOnly)
	}
	return info, nil
}

func (s *server) information(c *echo.Context) error {
	info, err := s.informationOf(c.Request().Context(), caller(c).User)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, info)
}

// reload answers the caller's information after a change.
func (s *server) reload(c *echo.Context) error {
	u := caller(c).User
	fresh, err := s.Store.User(c.Request().Context(), u.BuyerID, u.ID)
	if err != nil {
		return err
	}
	info, err := s.informationOf(c.Request().Context(), fresh)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, info)
}

// checkContact applies the registration form's rules for the contact fields to r and
// keeps the messages of the given fields. Registration.Validate without a business form
// checks exactly the contact fields, so the messages are the sign-up form's.
func (s *server) checkContact(r *account.Registration, fields ...string) pay.FieldErrors {
	r.BusinessForm = 0
	r.Normalise()
	var errs pay.FieldErrors
	for _, fe := range r.Validate(s.Now()) {
		if slices.Contains(fields, fe.Field) {
			errs = append(errs, fe)
		}
	}
	return errs
}

type userNameRequest struct {
	UserLastName  string `json:"user_last_name"`
	UserFirstName string `json:"user_first_name"`
}

// setUserName is PUT users/user_name: the contact person's name.
func (s *server) setUserName(c *echo.Context) error {
	var req userNameRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	r := account.Registration{UserLastName: req.UserLastName, UserFirstName: req.UserFirstName}
	if errs := s.checkContact(&r, "user_last_name", "user_first_name"); len(errs) > 0 {
		return validationError(errs)
	}
	u := caller(c).User
	if err := s.Store.SetUserName(c.Request().Context(), u.BuyerID, u.ID, r.UserLastName, r.UserFirstName); err != nil {
		return err
	}
	return s.reload(c)
}

type transferNameRequest struct {
	TransferPersonName string `json:"transfer_person_name"`
}

// setTransferPersonName is PUT users/transfer_person_name: the 振込依頼人名, in katakana
// (hiragana and half-width kana are converted).
func (s *server) setTransferPersonName(c *echo.Context) error {
	var req transferNameRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	r := account.Registration{TransferPersonName: req.TransferPersonName}
	errs := s.checkContact(&r, "transfer_person_name")
	if len(errs) == 0 && r.TransferPersonName == "" {
		errs.Add("transfer_person_name", "振込依頼人名（カナ）を入力してください")
	}
	if len(errs) > 0 {
		return validationError(errs)
	}
	u := caller(c).User
	if err := s.Store.SetTransferPersonName(c.Request().Context(), u.BuyerID, r.TransferPersonName); err != nil {
		return err
	}
	return s.reload(c)
}

// errTermsNotAccepted refuses a payment to a user who has not accepted the terms in
// force (a revision since they last accepted): nothing is charged or sent.
var errTermsNotAccepted = newError(http.StatusForbidden, "terms_not_accepted",
	fmt.Sprintf("利用規約が改定されました。最新の利用規約（第%d版）をご確認のうえ同意してから、もう一度お試しください（画面では「利用規約」のページ、APIでは PUT /api/v1/users/license で同意できます）。", account.TermsVersion))

// requireCurrentTerms lets through only a caller who accepted the terms in force;
// requireAuth runs first and sets the caller.
func requireCurrentTerms(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if account.NeedsTerms(caller(c).User) {
			return errTermsNotAccepted
		}
		return next(c)
	}
}

type licenseRequest struct {
	TermsVersion int `json:"terms_version"`
}

func (r *licenseRequest) check() (errs pay.FieldErrors) {
	if r.TermsVersion == 0 {
		errs.Add("terms_version", "同意する利用規約の版（terms_version）を指定してください")
	}
	return errs
}

type licenseAnswer struct {
	TermsVersion        int  `json:"terms_version"`
	CurrentTermsVersion int  `json:"current_terms_version"`
	LicenseAccepted     bool `json:"license_accepted"`
}

// acceptLicense is PUT users/license: the user accepts the terms of service. The body
// names the version the user read, so that accepting a page that was shown before the
// terms changed does not count as accepting the new ones.
func (s *server) acceptLicense(c *echo.Context) error {
	var req licenseRequest
	if err := decodeChecked(c, &req); err != nil {
		return err
	}
	if req.TermsVersion != account.TermsVersion {
		return newError(http.StatusConflict, "terms_outdated", "利用規約が更新されています。最新の利用規約をご確認のうえ、同意してください。")
	}
	if err := s.Account.AcceptTerms(c.Request().Context(), caller(c).User); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, licenseAnswer{TermsVersion: account.TermsVersion, CurrentTermsVersion: account.TermsVersion, LicenseAccepted: true})
}

// statsAnswer is SPEC.md §3's user stats in snake_case (pay.Stats is the islands'
// camelCase), with the landing pages they lead to (SPEC.md §2).
type statsAnswer struct {
	SuppliersEnableCount    int                `json:"suppliers_enable_count"`
	SuppliersDisableCount   int                `json:"suppliers_disable_count"`
	NotificationUnreadCount int                `json:"notification_unread_count"`
	ReceivedNewCount        int                `json:"received_new_count"`
	Collections             collectionCounts   `json:"collections"`
	Payments                paymentCounts      `json:"payments"`
	CollectionMode          pay.CollectionMode `json:"collection_mode"`
	PaymentLanding          string             `json:"payment_landing"`
	CollectionLanding       string             `json:"collection_landing"`
}

type collectionCounts struct {
	Request int `json:"request"`
	Decided int `json:"decided"`
	History int `json:"history"`
	Draft   int `json:"draft"`
}

type paymentCounts struct {
	ActionRequired int `json:"action_required"`
	Review         int `json:"review"`
	Reserved       int `json:"reserved"`
	History        int `json:"history"`
	Draft          int `json:"draft"`
	Waiting        int `json:"waiting"`
}

func (s *server) stats(c *echo.Context) error {
	u := caller(c).User
	st, err := s.Store.Stats(c.Request().Context(), u.BuyerID)
	if err != nil {
		return err
	}
	mode := pay.CollectionModeFor(u.BusinessForm, u.CorporateNumber, s.CollectionExclusions)
	a := statsAnswer{
		SuppliersEnableCount: st.SuppliersEnableCount, SuppliersDisableCount: st.SuppliersDisableCount,
		NotificationUnreadCount: st.NotificationUnreadCount, ReceivedNewCount: st.ReceivedNewCount,
		Collections: collectionCounts(st.Collections),
		Payments: paymentCounts{
			ActionRequired: st.Payments.ActionRequired, Review: st.Payments.Review, Reserved: st.Payments.Reserved,
			History: st.Payments.History, Draft: st.Payments.Draft, Waiting: st.Payments.Waiting,
		},
		CollectionMode: mode,
		PaymentLanding: pay.PaymentLanding(st.Payments),
	}
	if mode == pay.CollectionEnabled {
		a.CollectionLanding = pay.CollectionLanding(st.Collections)
	}
	return c.JSON(http.StatusOK, a)
}

type passwordRequest struct {
	CurrentPassword string `json:"current_password"`
	Password        string `json:"password"`
}

// changePassword is PUT users/password. Every other sign-in of the user ends (pages and
// API alike); the caller's own stays signed in.
func (s *server) changePassword(c *echo.Context) error {
	var req passwordRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if req.CurrentPassword == "" {
		var errs pay.FieldErrors
		errs.Add("current_password", "現在のパスワードを入力してください")
		errs.Add("password", account.ValidatePassword(req.Password, caller(c).User.EmailAddress))
		return validationError(errs)
	}
	ctx := c.Request().Context()
	p := caller(c)
	epoch, errs, err := s.Account.ChangePassword(ctx, p.User, req.CurrentPassword, req.Password)
	if err := asError(errs, err); err != nil {
		return err
	}
	switch p.Mode {
	case tokenMode:
		if err := s.Store.SetAPITokenFamilyEpoch(ctx, p.User.BuyerID, p.User.ID, p.FamilyID, epoch); err != nil {
			return err
		}
	case cookieMode:
		// The session carries the new epoch, or it would end at its next request.
		u, err := s.Store.User(ctx, p.User.BuyerID, p.User.ID)
		if err != nil {
			return err
		}
		if err := s.RenewSession(c, u); err != nil {
			return err
		}
	}
	return c.JSON(http.StatusOK, statusAnswer{Status: "password_changed", Message: "パスワードを変更しました。他の端末ではログアウトしました。"})
}

// signInEvent is one line of the sign-in history on the security settings.
type signInEvent struct {
	Succeeded bool      `json:"succeeded"`
	IPAddress string    `json:"ip_address"`
	UserAgent string    `json:"user_agent"`
	CreatedAt time.Time `json:"created_at"`
}

type securityAnswer struct {
	TwoFactorMethod string        `json:"two_factor_method"`
	RecentSignIns   []signInEvent `json:"recent_sign_ins"`
}

const recentSignIns = 10

func (s *server) securitySettings(c *echo.Context) error {
	u := caller(c).User
	return s.answerSecurity(c, u.BuyerID, u.ID)
}

func (s *server) answerSecurity(c *echo.Context, buyerID, userID int64) error {
	ctx := c.Request().Context()
	u, err := s.Store.User(ctx, buyerID, userID)
	if err != nil {
		return err
	}
	ev, err := s.Store.SignInEvents(ctx, buyerID, userID, recentSignIns)
	if err != nil {
		return err
	}
	a := securityAnswer{TwoFactorMethod: u.TwoFactorMethod, RecentSignIns: make([]signInEvent, len(ev))}
	for i, e := range ev {
		a.RecentSignIns[i] = signInEvent{Succeeded: e.Succeeded, IPAddress: e.IPAddress, UserAgent: e.UserAgent, CreatedAt: e.CreatedAt}
	}
	return c.JSON(http.StatusOK, a)
}

type securityRequest struct {
	TwoFactorMethod *string `json:"two_factor_method"`
	CurrentPassword string  `json:"current_password"`
	Code            string  `json:"code"`
}

func (r *securityRequest) check() (errs pay.FieldErrors) {
	if r.TwoFactorMethod == nil {
		errs.Add("two_factor_method", "two_factor_method を指定してください（\"email\" または \"\"）")
		return errs
	}
	switch strings.TrimSpace(*r.TwoFactorMethod) {
	case account.SecondFactorNone, account.SecondFactorEmail:
	case account.SecondFactorTOTP:
		errs.Add("two_factor_method", "認証アプリによる二段階認証は、セキュリティ設定画面で設定してください")
	default:
		errs.Add("two_factor_method", "two_factor_method は \"email\" または \"\"（無効）で指定してください")
	}
	return errs
}

// setSecuritySettings is PUT users/security_settings, with the security page's rules
// (account.DisableTwoFactor, StartEmailTwoFactor, EnableEmailTwoFactor):
//   - {"two_factor_method": "", "current_password"}: two-factor off;
//   - {"two_factor_method": "email", "current_password"}: mails a code to the user's
//     address and answers 202 code_sent; then {"two_factor_method": "email", "code"} turns
//     it on, so that it is never on for an address that does not receive the codes;
//   - the method already in use: nothing to do.
//
// An authenticator app (totp) needs its QR code scanned and a first code, so it is set
// up on the security settings page only.
func (s *server) setSecuritySettings(c *echo.Context) error {
	var req securityRequest
	if err := decodeChecked(c, &req); err != nil {
		return err
	}
	method := strings.TrimSpace(*req.TwoFactorMethod)
	ctx := c.Request().Context()
	u := caller(c).User
	current, err := s.Store.User(ctx, u.BuyerID, u.ID)
	if err != nil {
		return err
	}
	switch {
	case current.TwoFactorMethod == method:
	case method == account.SecondFactorNone:
		if err := asError(s.Account.DisableTwoFactor(ctx, current, req.CurrentPassword)); err != nil {
			return err
		}
	case strings.TrimSpace(req.Code) != "":
		err := s.Account.EnableEmailTwoFactor(ctx, current, req.Code)
		if r, ok := account.AsRefusal(err); ok {
			return fieldError(r.Field, r.Message)
		}
		if err != nil {
			return err
		}
	default:
		if err := asError(s.Account.StartEmailTwoFactor(ctx, current, req.CurrentPassword)); err != nil {
			return err
		}
		return c.JSON(http.StatusAccepted, statusAnswer{
			Status:  "code_sent",
			Message: "確認コードをメールで送信しました。code に入力して、もう一度送信してください。",
		})
	}
	return s.answerSecurity(c, u.BuyerID, u.ID)
}

type emailChangeRequest struct {
	EmailAddress    string `json:"email_address"`
	CurrentPassword string `json:"current_password"`
}

// startEmailChange is PUT users/email_address: checks the current password and mails a
// code to the new address (account.StartEmailChange). Nothing changes until
// POST users/verify_email_auth_code receives the code.
func (s *server) startEmailChange(c *echo.Context) error {
	var req emailChangeRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if err := asError(s.Account.StartEmailChange(c.Request().Context(), caller(c).User, req.EmailAddress, req.CurrentPassword)); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, statusAnswer{
		Status:  "code_sent",
		Message: "新しいメールアドレスに確認コードを送信しました。メールに記載の6桁のコードを入力してください。",
	})
}

type emailCodeRequest struct {
	Code string `json:"code"`
}

// confirmEmailChange is POST users/verify_email_auth_code: the code mailed to the new
// address makes it the sign-in address (the old address is told). The tokens stay
// valid; a new id_token carries the new address from the next refresh on.
func (s *server) confirmEmailChange(c *echo.Context) error {
	var req emailCodeRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	_, err := s.Account.ConfirmEmailChange(c.Request().Context(), caller(c).User, req.Code)
	if r, ok := account.AsRefusal(err); ok {
		return fieldError(r.Field, r.Message)
	}
	if err != nil {
		return err
	}
	return s.reload(c)
}
