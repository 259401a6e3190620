package payments

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/cards"
	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/invoices"
	pages "cardpay/views/payments"
)

// journey is the payment create journey's answers (invoices.Flow, SPEC.md §3 payment flow
// data) with the pages' own rules about which step comes next. They live in the session
// while the buyer moves between the steps, and as a draft's data when the buyer saves one.
type journey struct {
	invoices.Flow
}

// Journey keeps the create journey in the session; routes.go leaves it when a page
// outside the journey and the upload pages is opened (SPEC.md §2).
var Journey = web.Wizard[journey]{Workflow: web.Workflow{
	Prefix: "/payments/add/", SessionKey: "payment_journey",
	// The upload pages start the journey; a card added from the confirm page (the add
	// page and its 3-D Secure return) comes back to it.
	Also: []string{CreatePage.Path, links.AddCreditCard, cards.VerifyReturnPath},
}}

// Paths of the journey's steps.
const (
	supplierStepPath    = InvoiceInfoPath
	NewSupplierPath     = links.PaymentSupplierStep
	AccountStepPath     = links.PaymentAccountStep
	NewAccountPath      = links.PaymentNewAccountStep
	InvoiceStepPath     = links.PaymentInvoiceStep
	ConfirmPath         = links.PaymentConfirm
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
	order := []string{supplierStepPath, NewSupplierPath, AccountStepPath, NewAccountPath, InvoiceStepPath, ConfirmPath}
	at := slices.Index(order, path)
	need := func(step string, done bool) bool { return slices.Index(order, step) < at && !done }
	switch {
	case need(supplierStepPath, j.SupplierID != 0 || j.IsNewSupplier):
		return supplierStepPath
	case j.IsNewSupplier && need(NewSupplierPath, j.NewSupplierDone):
		return NewSupplierPath
	case !j.IsNewSupplier && need(AccountStepPath, j.AccountID != 0 || j.IsNewAccount):
		return AccountStepPath
	case j.IsNewAccount && need(NewAccountPath, j.NewAccountDone):
		return NewAccountPath
	case need(InvoiceStepPath, j.InvoiceDone):
		return InvoiceStepPath
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
func (j journey) submission(userID int64) invoices.Submission { return j.Flow.Submission(userID) }

// supplierName is the chosen or new supplier's name, for headings.
func (h *Handler) supplierName(ctx context.Context, buyerID int64, j journey) string {
	return h.Payments.SupplierName(ctx, buyerID, j.Flow)
}

// saveDraft keeps the journey as one of the buyer's drafts (下書き保存) at step, and goes
// to the drafts list. Nothing is validated: a draft may be half-typed.
func (h *Handler) saveDraft(c *echo.Context, j journey, step string) error {
	if _, err := h.Payments.SaveDraft(c.Request().Context(), web.CurrentUser(c).BuyerID, j.DraftID, j.Flow, step); err != nil {
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
