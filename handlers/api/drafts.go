package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
	"cardpay/store"
)

// Drafts (SPEC.md §7): a journey's answers kept as they were typed, valid or not, shared
// with the pages' 下書き保存: a draft saved here resumes on the pages, and the other way
// round. Payment drafts (/drafts, payment_drafts.go) and card-payment request drafts
// (/invoice_request_drafts, request_drafts.go) answer the same five calls; a draftKind
// holds what differs between them.

// draftKind is one kind of drafts: F is its journey, B the body a client sends.
type draftKind[F any, B draftBody[F]] struct {
	kind store.DraftKind
	// field names the list in GET's answer and the ids in DELETE's body.
	field string
	// guard refuses the callers the kind is not for; nil lets every signed-in caller in.
	guard func(*server, *echo.Context) error
	// drafts is the kind's money service (invoices.Payments, invoices.Requests).
	drafts func(*server) drafts[F]
	// answer is a draft as GET {id} and PUT answer it: the flow beside the draft's fields.
	answer func(F, draftFields) any
	// summary is a draft in GET's list.
	summary func(store.Draft) any
	// idsBody is an empty DELETE body to decode into.
	idsBody func() draftIDs
}

// drafts is what a money service does with its journey's drafts.
type drafts[F any] interface {
	SaveDraft(ctx context.Context, buyerID, id int64, f F, step string) (int64, error)
	Draft(ctx context.Context, buyerID, id int64) (F, store.Draft, error)
}

// draftBody is a draft as a client sends it: the journey's answers and the page to resume
// on, checked as far as a half-typed journey can be.
type draftBody[F any] interface {
	check() pay.FieldErrors
	journey() (f F, step string)
}

// draftIDs is DELETE's body: {"<list>": [ids]}.
type draftIDs interface {
	ids() []json.Number
}

// draftFields are a draft's own fields in an answer, after the flow's.
type draftFields struct {
	ID        int64     `json:"id"`
	Step      string    `json:"step"`
	UpdatedAt time.Time `json:"updated_at"`
}

type draftCreated struct {
	ID int64 `json:"id"`
}

// draftList is GET's answer: {"<list>": [summaries], "count": total}.
type draftList struct {
	name   string
	drafts []any
	count  int
}

func (l draftList) MarshalJSON() ([]byte, error) {
	name, err := json.Marshal(l.name)
	if err != nil {
		return nil, err
	}
	drafts, err := json.Marshal(l.drafts)
	if err != nil {
		return nil, err
	}
	return fmt.Appendf(nil, `{%s:%s,"count":%d}`, name, drafts, l.count), nil
}

type draftsDeleted struct {
	Deleted int `json:"deleted"`
}

func (k draftKind[F, B]) guarded(s *server, c *echo.Context) error {
	if k.guard == nil {
		return nil
	}
	return k.guard(s, c)
}

func (k draftKind[F, B]) body(c *echo.Context) (B, error) {
	var b B
	if err := decode(c, &b); err != nil {
		return b, err
	}
	return b, asError(b.check(), nil)
}

// create is POST <list>.
func (k draftKind[F, B]) create(s *server, c *echo.Context) error {
	if err := k.guarded(s, c); err != nil {
		return err
	}
	b, err := k.body(c)
	if err != nil {
		return err
	}
	f, step := b.journey()
	id, err := k.drafts(s).SaveDraft(c.Request().Context(), caller(c).User.BuyerID, 0, f, step)
	if err != nil {
		return err
	}
	// A partner's draft says whose it is on the buyer's drafts list.
	if p := caller(c); p.Partner != nil {
		if err := s.Store.MarkDraftPartner(c.Request().Context(), p.User.BuyerID, k.kind, id, p.Partner.ClientID); err != nil {
			return err
		}
	}
	return c.JSON(http.StatusCreated, draftCreated{ID: id})
}

// update is PUT <list>/{id}: the draft replaced; another buyer's is 404.
func (k draftKind[F, B]) update(s *server, c *echo.Context) error {
	if err := k.guarded(s, c); err != nil {
		return err
	}
	id, err := pathID(c)
	if err != nil {
		return err
	}
	b, err := k.body(c)
	if err != nil {
		return err
	}
	u := caller(c).User
	ctx := c.Request().Context()
	_, d, err := k.drafts(s).Draft(ctx, u.BuyerID, id)
	if err != nil {
		return err
	}
	// A partner changes only the drafts it made; the buyer's own stay the buyer's.
	if p := caller(c); p.Partner != nil && d.PartnerClientID != p.Partner.ClientID {
		return errNotPartnersDraft
	}
	f, step := b.journey()
	if _, err := k.drafts(s).SaveDraft(ctx, u.BuyerID, id, f, step); err != nil {
		return err
	}
	return k.answerDraft(s, c, id)
}

// get is GET <list>/{id}.
func (k draftKind[F, B]) get(s *server, c *echo.Context) error {
	if err := k.guarded(s, c); err != nil {
		return err
	}
	id, err := pathID(c)
	if err != nil {
		return err
	}
	return k.answerDraft(s, c, id)
}

func (k draftKind[F, B]) answerDraft(s *server, c *echo.Context, id int64) error {
	f, d, err := k.drafts(s).Draft(c.Request().Context(), caller(c).User.BuyerID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, k.answer(f, draftFields{ID: d.ID, Step: d.Step, UpdatedAt: d.UpdatedAt.In(pay.Tokyo())}))
}

// list is GET <list>: the latest saved first, page from 0; count is the total.
func (k draftKind[F, B]) list(s *server, c *echo.Context) error {
	if err := k.guarded(s, c); err != nil {
		return err
	}
	var errs pay.FieldErrors
	page := queryInt(c, "page", 0, 0, 100_000, &errs)
	size := queryInt(c, "size", 20, 0, 100, &errs)
	if len(errs) > 0 {
		return validationError(errs)
	}
	list, total, err := s.Store.Drafts(c.Request().Context(), caller(c).User.BuyerID, k.kind, page, size)
	if err != nil {
		return err
	}
	a := draftList{name: k.field, drafts: make([]any, len(list)), count: total}
	for i, d := range list {
		a.drafts[i] = k.summary(d)
	}
	return c.JSON(http.StatusOK, a)
}

// delete is DELETE <list> with the body {"<list>": [ids]}: those of the caller's drafts;
// ids of other buyers are ignored.
func (k draftKind[F, B]) delete(s *server, c *echo.Context) error {
	if err := k.guarded(s, c); err != nil {
		return err
	}
	b := k.idsBody()
	if err := decode(c, b); err != nil {
		return err
	}
	if err := asError(checkDraftIDs(k.field, b.ids()), nil); err != nil {
		return err
	}
	ids := make([]int64, 0, len(b.ids()))
	for _, n := range b.ids() {
		id, _ := n.Int64()
		ids = append(ids, id)
	}
	n, err := s.Store.DeleteDrafts(c.Request().Context(), caller(c).User.BuyerID, k.kind, ids)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, draftsDeleted{Deleted: n})
}

// checkDraftIDs checks a list of draft ids sent as field.
func checkDraftIDs(field string, ids []json.Number) pay.FieldErrors {
	var errs pay.FieldErrors
	if len(ids) == 0 {
		errs.Add(field, "削除する下書きのIDを "+field+" に指定してください")
	}
	if len(ids) > 100 {
		errs.Add(field, "一度に削除できる下書きは100件までです")
	}
	for _, n := range ids {
		if id, err := n.Int64(); err != nil || id <= 0 {
			errs.Add(field, field+" には下書きのID（正の整数）を指定してください")
		}
	}
	return errs
}
