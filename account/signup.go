package account

import (
	"context"
	"errors"
	"strconv"
	"time"

	"cardpay/auth"
	"cardpay/mail"
	"cardpay/pay"
	"cardpay/store"
)

// StartSignup validates the sign-up form and mails a confirmation code. When the address
// already has an account the owner gets a mail saying so instead of a code, and the
// visitor sees exactly the same next page: the answer never tells who has an account.
func (s *Service) StartSignup(ctx context.Context, email, password string, consent bool) (int64, pay.FieldErrors, error) {
	var errs pay.FieldErrors
	email, msg := pay.ValidateEmail(email)
	errs.Add("email_address", msg)
	errs.Add("password", ValidatePassword(password, email))
	if !consent {
		errs.Add("consent", "利用規約とプライバシーポリシーに同意してください")
	}
	if len(errs) > 0 {
		return 0, errs, nil
	}
	if err := s.LimitCaller(ctx, ActSignup, email); err != nil {
		return 0, nil, err
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return 0, nil, err
	}
	id, err := s.Store.CreateSignup(ctx, email, hash, TermsVersion)
	if err != nil {
		return 0, nil, err
	}
	su, err := s.Store.Signup(ctx, id)
	if err != nil {
		return 0, nil, err
	}
	return id, nil, s.sendSignupCode(ctx, su, true)
}

// SendSignupCode mails a (new) confirmation code for a sign-up; when the address has an
// account meanwhile, its owner gets a mail saying so instead. A signupID of 0 (a
// re-registration that found nothing) mails nobody, after the same work. email is the
// address the visitor typed, which the rate limiter counts.
func (s *Service) SendSignupCode(ctx context.Context, signupID int64, email string) error {
	if err := s.LimitCaller(ctx, ActSignup, email); err != nil {
		return err
	}
	su, err := s.Store.Signup(ctx, signupID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return s.sendSignupCode(ctx, su, err == nil)
}

// sendSignupCode issues the code of a sign-up and queues its mail. Whether the address
// has an account is left to the mail job (mailUnlessRegistered), and a missing sign-up
// gets a code and a job that mail nobody: the request does the same work in every case.
func (s *Service) sendSignupCode(ctx context.Context, su store.Signup, found bool) error {
	subject, rule := strconv.FormatInt(su.ID, 10), mailUnlessRegistered
	if !found {
		subject, rule = noSubject, mailNowhere
	}
	return s.sendCode(ctx, store.PurposeSignup, subject, "", rule, func(code string) mail.Message {
		return mail.SignupCode(su.EmailAddress, s.ServiceName, code, auth.CodeTTL)
	})
}

// VerifySignupCode confirms the address of a sign-up.
func (s *Service) VerifySignupCode(ctx context.Context, signupID int64, input string) error {
	if err := s.LimitCaller(ctx, ActCode, "signup:"+strconv.FormatInt(signupID, 10)); err != nil {
		return err
	}
	if err := s.checkCode(ctx, store.PurposeSignup, strconv.FormatInt(signupID, 10), input, "code"); err != nil {
		return err
	}
	return s.Store.VerifySignup(ctx, signupID)
}

// Register validates the registration and creates the buyer and its user from a
// confirmed sign-up, in one transaction.
func (s *Service) Register(ctx context.Context, signupID int64, r Registration) (store.User, pay.FieldErrors, error) {
	r.Normalise()
	if errs := r.Validate(s.now()); len(errs) > 0 {
		return store.User{}, errs, nil
	}
	su, err := s.Store.Signup(ctx, signupID)
	if err != nil {
		return store.User{}, nil, err
	}
	if su.VerifiedAt == nil || su.CompletedAt != nil {
		return store.User{}, nil, &Refusal{Field: "business_form", Message: "登録の手続きが完了していないか、既に登録済みです。最初からやり直してください。"}
	}
	nb := newBuyer(su, r)
	if r.BusinessForm == pay.Corporation {
		var errs pay.FieldErrors
		nb.ReviewStatus, nb.ReviewReason, errs, err = s.checkRegistry(ctx, r)
		if err != nil || len(errs) > 0 {
			return store.User{}, errs, err
		}
	}
	u, err := s.Store.Register(ctx, signupID, nb, func(holders []string) ([]store.NewJob, error) {
		jobs := make([]store.NewJob, 0, len(holders))
		for _, to := range holders {
			j, err := s.notice(mail.CorporateNumberClaimed(to, s.ServiceName, r.CorporateNumber, r.CorporateName, s.now()))
			if err != nil {
				return nil, err
			}
			jobs = append(jobs, j)
		}
		return jobs, nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return store.User{}, nil, &Refusal{Field: "business_form", Message: "この登録は既に完了しています。ログインしてください。"}
	}
	if err != nil {
		// Two sign-ups for one address: the second to finish finds the address taken.
		if taken, terr := s.Store.EmailTaken(ctx, su.EmailAddress); terr == nil && taken {
			return store.User{}, nil, &Refusal{Field: "business_form", Message: "このメールアドレスは既に登録されています。ログインしてください。"}
		}
		return store.User{}, nil, err
	}
	return u, nil, nil
}

// checkRegistry confirms a corporation's number in the 法人番号 registry: a name or
// prefecture the registry contradicts is field errors (nothing is created), and a
// number it cannot confirm — unknown, or the registry did not answer — gives a buyer
// held for the operators, never one trusted silently.
func (s *Service) checkRegistry(ctx context.Context, r Registration) (pay.BuyerReview, string, pay.FieldErrors, error) {
	corps := s.Corporations
	if corps == nil {
		corps = &Corporations{Store: s.Store}
	}
	c, found, err := corps.Verify(ctx, r.CorporateNumber)
	if err != nil {
		return "", "", nil, err
	}
	switch found {
	case Unknown:
		return pay.BuyerHeld, pay.HoldRegistryUnknown, nil, nil
	case Unavailable:
		return pay.BuyerHeld, pay.HoldRegistryUnavailable, nil, nil
	}
	return pay.BuyerActive, "", MatchRegistry(r, c.Name, c.Address), nil
}

func newBuyer(su store.Signup, r Registration) store.NewBuyer {
	var birthday *time.Time
	if t, err := time.ParseInLocation("2006-01-02", r.RepresentativeBirthday, pay.Tokyo()); err == nil {
		birthday = &t
	}
	transfer := r.TransferPersonName
	if transfer == "" {
		transfer = r.CorporateNameKana
		if r.BusinessForm == pay.SoleProprietor {
			transfer = r.BusinessNameKana
		}
	}
	return store.NewBuyer{
		BusinessForm: r.BusinessForm, EmailAddress: su.EmailAddress, PasswordHash: su.PasswordHash,
		LastName: r.UserLastName, FirstName: r.UserFirstName, PhoneNumber: r.PhoneNumber, TermsVersion: su.TermsVersion,
		// The consent was given on the sign-up form, when the sign-up began.
		TermsAcceptedAt: su.CreatedAt,
		Details: store.BuyerDetails{
			CorporateName: r.CorporateName, CorporateNameKana: r.CorporateNameKana, CorporateNumber: r.CorporateNumber,
			RepresentativeLastName: r.RepresentativeLastName, RepresentativeFirstName: r.RepresentativeFirstName,
			RepresentativeLastNameKana: r.RepresentativeLastNameKana, RepresentativeFirstNameKana: r.RepresentativeFirstNameKana,
			RepresentativeBirthday: birthday, RepresentativePostalCode: r.RepresentativePostalCode,
			RepresentativeAddressState: r.RepresentativeAddressState, RepresentativeAddressCity: r.RepresentativeAddressCity,
			RepresentativeAddressStreet: r.RepresentativeAddressStreet, RepresentativeAddressBuildingName: r.RepresentativeAddressBuildingName,
			RepresentativePhoneNumber: r.RepresentativePhoneNumber, PostalCode: r.PostalCode, AddressState: r.AddressState,
			AddressCity: r.AddressCity, AddressStreet: r.AddressStreet, AddressBuildingName: r.AddressBuildingName,
			BusinessName: r.BusinessName, BusinessNameKana: r.BusinessNameKana, BusinessPostalCode: r.BusinessPostalCode,
			BusinessAddressState: r.BusinessAddressState, BusinessAddressCity: r.BusinessAddressCity,
			BusinessAddressStreet: r.BusinessAddressStreet, BusinessAddressBuildingName: r.BusinessAddressBuildingName,
			HomePostalCode: r.HomePostalCode, HomeAddressState: r.HomeAddressState, HomeAddressCity: r.HomeAddressCity,
			HomeAddressStreet: r.HomeAddressStreet, HomeAddressBuildingName: r.HomeAddressBuildingName,
			TransferPersonName: transfer, BusinessCategory: r.BusinessCategory,
		},
	}
}

// Resignup restarts an unfinished sign-up of email with a new code (POST
// users/resignup). The answer is the same whether or not such a sign-up exists; the
// returned id is 0 when there is none.
func (s *Service) Resignup(ctx context.Context, email string) (int64, pay.FieldErrors, error) {
	email, msg := pay.ValidateEmail(email)
	if msg != "" {
		var errs pay.FieldErrors
		errs.Add("email_address", msg)
		return 0, errs, nil
	}
	if err := s.LimitCaller(ctx, ActReregistration, email); err != nil {
		return 0, nil, err
	}
	su, err := s.Store.LatestOpenSignup(ctx, email)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return 0, nil, err
	}
	found := err == nil
	if !found {
		su = store.Signup{EmailAddress: email}
	}
	return su.ID, nil, s.sendSignupCode(ctx, su, found)
}
