package payments

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/banks"
	"cardpay/handlers/web"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
	pages "cardpay/views/payments"
)

// journey is the payment create journey's answers (SPEC.md §3 payment flow data: the
// invoice file with its reading, formOne supplierId/isNewSupplier, formTwo
// accountId/isNewAccount, the invoice form, the confirm form, the draft's id). They live
// in the session while the buyer moves between the steps, and as a draft's data when the
// buyer saves one. Each *Done is set once that step validated.
type journey struct {
	FileID  int64 `json:"file_id,omitempty"`
	DraftID int64 `json:"draft_id,omitempty"`

	SupplierID      int64             `json:"supplier_id,omitempty"`
	IsNewSupplier   bool              `json:"is_new_supplier,omitempty"`
	NewSupplier     pay.SupplierInput `json:"new_supplier"`
	NewSupplierDone bool              `json:"new_supplier_done,omitempty"`

	AccountID      int64            `json:"account_id,omitempty"`
	IsNewAccount   bool             `json:"is_new_account,omitempty"`
	NewAccount     pay.AccountInput `json:"new_account"`
	NewAccountDone bool             `json:"new_account_done,omitempty"`

	Invoice     pay.InvoiceInput `json:"invoice"`
	InvoiceDone bool             `json:"invoice_done,omitempty"`
	// Prefilled names the invoice fields that were read from the file, for the page to
	// say so until the buyer changes them.
	Prefilled []string `json:"prefilled,omitempty"`

	CardID        int64    `json:"card_id,omitempty"`
	PromotionCode string   `json:"promotion_code,omitempty"`
	Acknowledged  []string `json:"acknowledged,omitempty"`
	// SubmitKey is the confirm page's one-time key (a new one after a decline).
	SubmitKey string `json:"submit_key,omitempty"`
}

// Journey keeps the create journey in the session; routes.go leaves it when a page
// outside the journey and the upload pages is opened (SPEC.md §2).
var Journey = web.Wizard[journey]{Workflow: web.Workflow{
	Prefix: "/payments/add/", SessionKey: "payment_journey", Also: []string{"/payments/create"},
}}

// Paths of the journey's steps.
const (
	supplierStepPath    = InvoiceInfoPath
	newSupplierPath     = "/payments/add/supplier"
	accountStepPath     = "/payments/add/account"
	newAccountPath      = "/payments/add/account/new"
	invoiceStepPath     = "/payments/add/invoice"
	ConfirmPath         = "/payments/add/confirm"
	CompletePath        = "/payments/complete"
	draftListPath       = "/payments/draft"
	journeyStepsLabel   = "支払申請の手順"
	supplierChoiceNew   = "new"
	maxSuppliersToShow  = 200
	maxSubmitKeyEntropy = 16
)

func newSubmitKey() string {
	b := make([]byte, maxSubmitKeyEntropy)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// missingStep is where the journey must go before path can be shown: the first step
// whose answer is missing, or "" when every step before it is done.
func (j journey) missingStep(path string) string {
	order := []string{supplierStepPath, newSupplierPath, accountStepPath, newAccountPath, invoiceStepPath, ConfirmPath}
	at := slices.Index(order, path)
	need := func(step string, done bool) bool { return slices.Index(order, step) < at && !done }
	switch {
	case need(supplierStepPath, j.SupplierID != 0 || j.IsNewSupplier):
		return supplierStepPath
	case j.IsNewSupplier && need(newSupplierPath, j.NewSupplierDone):
		return newSupplierPath
	case !j.IsNewSupplier && need(accountStepPath, j.AccountID != 0 || j.IsNewAccount):
		return accountStepPath
	case j.IsNewAccount && need(newAccountPath, j.NewAccountDone):
		return newAccountPath
	case need(invoiceStepPath, j.InvoiceDone):
		return invoiceStepPath
	}
	return ""
}

// load reads the journey and checks that the steps before path are done; redirect is
// where to go instead.
func (h *Handler) load(c *echo.Context, path string) (j journey, redirect string) {
	j = Journey.Load(h.Sessions, c)
	return j, j.missingStep(path)
}

func (h *Handler) save(c *echo.Context, j journey) error {
	return Journey.Save(h.Sessions, c, j)
}

// submission is the journey as the invoices service checks it.
func (j journey) submission(userID int64) invoices.Submission {
	sub := invoices.Submission{
		SubmitKey: j.SubmitKey, UserID: userID, SupplierID: j.SupplierID, AccountID: j.AccountID,
		Invoice: j.Invoice, CardID: j.CardID, PromotionCode: j.PromotionCode, Acknowledged: j.Acknowledged,
	}
	if j.IsNewSupplier {
		in := j.NewSupplier
		sub.NewSupplier, sub.SupplierID = &in, 0
	}
	if j.IsNewAccount || j.IsNewSupplier {
		if acct, errs := j.NewAccount.Check(banks.Directory{}); len(errs) == 0 {
			sub.NewAccount, sub.AccountID = &acct, 0
		}
	}
	if j.FileID != 0 {
		id := j.FileID
		sub.FileID = &id
	}
	return sub
}

// supplierName is the chosen or new supplier's name, for headings and the drafts list.
func (h *Handler) supplierName(ctx context.Context, buyerID int64, j journey) string {
	if j.IsNewSupplier {
		return j.NewSupplier.Name
	}
	if j.SupplierID == 0 {
		return ""
	}
	s, err := h.Store.Supplier(ctx, buyerID, j.SupplierID)
	if err != nil {
		return ""
	}
	return s.Name
}

// saveDraft keeps the journey as one of the buyer's drafts (下書き保存) at step, and goes
// to the drafts list. Nothing is validated: a draft may be half-typed.
func (h *Handler) saveDraft(c *echo.Context, j journey, step string) error {
	u := web.CurrentUser(c)
	ctx := c.Request().Context()
	j.SubmitKey, j.Acknowledged = "", nil
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	sum := store.DraftSummary{SupplierName: h.supplierName(ctx, u.BuyerID, j), Step: step}
	if n, ok := pay.ParseYen(j.Invoice.Amount); ok {
		sum.Amount = &n
	}
	if t, ok := pay.ParseDate(j.Invoice.DueDate); ok {
		sum.DueDate = &t
	}
	_, err = h.Store.SavePaymentDraft(ctx, u.BuyerID, j.DraftID, data, sum, h.Now())
	if errors.Is(err, store.ErrNotFound) {
		// The draft was deleted in another tab: keep the work as a new one.
		_, err = h.Store.SavePaymentDraft(ctx, u.BuyerID, 0, data, sum, h.Now())
	}
	if err != nil {
		return err
	}
	Journey.Clear(h.Sessions, c)
	h.SetFlash(c, flashDraftSaved())
	return c.Redirect(http.StatusSeeOther, draftListPath)
}

// wantsDraft says whether the step's form was sent with 下書き保存.
func wantsDraft(c *echo.Context) bool { return c.FormValue("action") == "draft" }

func idString(id int64) string { return strconv.FormatInt(id, 10) }

func journeySteps(current int) pages.Steps { return pages.Steps{Current: current} }
