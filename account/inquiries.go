package account

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"

	"cardpay/mail"
	"cardpay/pay"
	"cardpay/store"
)

// Inquiries (お問い合わせ, issue 31): sent from the public form or by a signed-in buyer,
// acknowledged by mail, answered by the operators in the console. The answer is mailed
// to whoever asked and, for a buyer, told in their notifications and shown on the
// inquiry's page.

// Messages of the inquiry form and the console's answer form.
const (
	MsgInquiryPayment       = "関連するお支払いは、一覧から選択してください"
	MsgInquiryClosed        = "対応終了のお問い合わせには回答できません"
	MsgInquiryAlreadyClosed = "このお問い合わせは対応終了になっています"
)

// InquiryForm is the inquiry form as posted: the rules' input, the payment chosen (its
// id as the select sends it, "" for none) and the signed-in user (nil: the public form).
type InquiryForm struct {
	pay.InquiryInput
	InvoiceID string
	User      *store.User
}

// SendInquiry checks and stores an inquiry and queues its acknowledgement in the same
// transaction. Bad input comes back as field errors and changes nothing; the rate limit
// (ActInquiry, LimitInquiry) as a *Limited, counted only for an inquiry that would be
// sent, so that a person correcting a typo does not use up the allowance.
func (s *Service) SendInquiry(ctx context.Context, f InquiryForm) (int64, pay.FieldErrors, error) {
	f.SignedIn = f.User != nil
	in, errs := f.Check()
	var invoiceID int64
	if f.User != nil && strings.TrimSpace(f.InvoiceID) != "" {
		n, err := strconv.ParseInt(strings.TrimSpace(f.InvoiceID), 10, 64)
		if err != nil || n <= 0 {
			errs.Add("invoice_id", MsgInquiryPayment)
		}
		invoiceID = n
	}
	if len(errs) > 0 {
		return 0, inquiryFormOrder(errs), nil
	}
	n := store.NewInquiry{Name: in.Name, Email: in.Email, Company: in.Company, Category: in.Category, Body: in.Body}
	question := ""
	if u := f.User; u != nil {
		n.BuyerID, n.UserID, n.InvoiceID = u.BuyerID, u.ID, invoiceID
		n.Email, n.Company = u.EmailAddress, u.DisplayName()
		n.Name = strings.TrimSpace(u.LastName + " " + u.FirstName)
		if n.Name == "" {
			n.Name = u.DisplayName()
		}
		// The account's address was proved when it signed up: its own words may go back
		// to it (see mail.InquiryReceived).
		question = in.Body
	}
	if err := s.LimitInquiry(ctx, n.UserID, n.Email); err != nil {
		return 0, nil, err
	}
	now := s.now()
	addressee := ""
	if f.User != nil {
		addressee = n.Name
	}
	id, err := s.Store.CreateInquiry(ctx, n, now, func(id int64) (store.NewJob, error) {
		return s.notice(mail.InquiryReceived(n.Email, s.ServiceName, pay.InquiryNumber(id), addressee, in.Category.Label(), question, now))
	})
	if errors.Is(err, store.ErrNotBuyersPayment) {
		return 0, pay.FieldErrors{{Field: "invoice_id", Message: MsgInquiryPayment}}, nil
	}
	return id, nil, err
}

// inquiryFormOrder puts the payment's message where its field is: after the category,
// before the text.
func inquiryFormOrder(errs pay.FieldErrors) pay.FieldErrors {
	order := map[string]int{"name": 0, "email_address": 1, "company": 2, "category": 3, "invoice_id": 4, "body": 5}
	out := make(pay.FieldErrors, 0, len(errs))
	for rank := 0; rank <= 5; rank++ {
		for _, e := range errs {
			if order[e.Field] == rank {
				out = append(out, e)
			}
		}
	}
	return out
}

// LimitInquiry counts one inquiry against ActInquiry. Signed out (userID 0): against the
// caller's IP, then the address typed, to which the acknowledgement goes (so that many
// IPs cannot fill one mailbox either). Signed in: against the user only, so that
// colleagues behind one office address each have their own allowance.
func (s *Service) LimitInquiry(ctx context.Context, userID int64, email string) error {
	if userID == 0 {
		if err := s.hit(ctx, ActInquiry+".ip", CallerOf(ctx).Client.IP); err != nil {
			return err
		}
		return s.hit(ctx, ActInquiry+".target", "email:"+strings.ToLower(email))
	}
	return s.hit(ctx, ActInquiry+".target", "user:"+strconv.FormatInt(userID, 10))
}

// inquiryState is an inquiry's status in its audit rows (stateText shows the label).
type inquiryState struct {
	Status pay.InquiryStatus `json:"status"`
	Label  string            `json:"status_label"`
}

// AnswerInquiry records op's answer to inquiry id (any operator may answer: questions
// are about every part of the service, and each answer is audited). The answer is
// mailed to whoever asked; a buyer's inquiry also gets a notification (in the bell,
// not mailed again: the answer's own mail is the mail) linking to its page. Bad input
// or a closed inquiry comes back as pay.FieldErrors on "answer".
func (s *Service) AnswerInquiry(ctx context.Context, op store.Operator, id int64, answer string) error {
	answer = pay.TidyInquiryText(answer)
	if msg := pay.CheckInquiryText("回答", answer); msg != "" {
		return pay.FieldErrors{{Field: "answer", Message: msg}}
	}
	now := s.now()
	audit := store.NewAudit{OperatorID: op.ID, Action: "answer_inquiry",
		After: inquiryState{pay.InquiryAnswered, pay.InquiryAnswered.Label()}}
	err := s.Store.AnswerInquiry(ctx, id, op.ID, answer, audit, now, func(tx *sqlx.Tx, q store.Inquiry, answerID int64) error {
		number := pay.InquiryNumber(q.ID)
		link, name := "", ""
		if q.BuyerID != nil {
			link, name = strings.TrimSuffix(s.BaseURL, "/")+pay.InquiryLink(q.ID), q.Name
		}
		j, err := s.notice(mail.InquiryAnswered(q.Email, s.ServiceName, number, name, q.Category.Label(), q.Body, answer, link))
		if err != nil {
			return err
		}
		if _, err := s.Store.EnqueueJob(ctx, tx, j); err != nil {
			return err
		}
		if q.BuyerID == nil {
			return nil
		}
		return s.Store.Notify(ctx, tx, *q.BuyerID, store.NewNotification{EventKey: fmt.Sprintf("inquiry-answer-%d", answerID),
			Title: "お問い合わせに回答しました（" + number + "）",
			Body:  "お問い合わせ番号 " + number + "（" + q.Category.Label() + "）への回答をお送りしました。お問い合わせの画面で回答をご確認ください。",
			Link:  pay.InquiryLink(q.ID)}, nil, now)
	})
	if errors.Is(err, store.ErrStateChanged) {
		return pay.FieldErrors{{Field: "answer", Message: MsgInquiryClosed}}
	}
	return err
}

// CloseInquiry marks an inquiry 対応終了 (answered or not: a question answered by
// telephone, a duplicate, spam), audited. One closed already is a field error.
func (s *Service) CloseInquiry(ctx context.Context, op store.Operator, id int64) error {
	err := s.Store.CloseInquiry(ctx, id, store.NewAudit{OperatorID: op.ID, Action: "close_inquiry",
		After: inquiryState{pay.InquiryClosed, pay.InquiryClosed.Label()}}, s.now())
	if errors.Is(err, store.ErrStateChanged) {
		return pay.FieldErrors{{Field: "answer", Message: MsgInquiryAlreadyClosed}}
	}
	return err
}
