package pay

// Stats are the counts behind the header badges and the landing choice
// (SPEC §3 user stats). JSON names are the camelCase the islands read.
type Stats struct {
	SuppliersEnableCount    int `json:"suppliersEnableCount"`
	SuppliersDisableCount   int `json:"suppliersDisableCount"`
	NotificationUnreadCount int `json:"notificationUnreadCount"`
	// ReceivedNewCount is how many received invoices are new (受取請求書の新着, issue 29).
	ReceivedNewCount int              `json:"receivedNewCount"`
	Collections      CollectionCounts `json:"collections"`
	Payments         PaymentCounts    `json:"payments"`
}

// CollectionCounts are the sizes of the collection lists.
type CollectionCounts struct {
	Request int `json:"request"`
	Decided int `json:"decided"`
	History int `json:"history"`
	Draft   int `json:"draft"`
}

// PaymentCounts are the sizes of the payment lists.
type PaymentCounts struct {
	ActionRequired int `json:"actionRequired"`
	Review         int `json:"review"`
	Reserved       int `json:"reserved"`
	History        int `json:"history"`
	Draft          int `json:"draft"`
	Waiting        int `json:"waiting"`
}

// Of is the size of bucket b.
func (p PaymentCounts) Of(b PaymentBucket) int {
	switch b {
	case BucketReviewAll:
		return p.Review + p.ActionRequired
	case BucketReview:
		return p.Review
	case BucketActionRequired:
		return p.ActionRequired
	case BucketReserved:
		return p.Reserved
	case BucketHistory:
		return p.History
	case BucketWaiting:
		return p.Waiting
	}
	return 0
}

// PaymentLanding is the payments page to open first (SPEC §2 landing
// rules): the first list with something in it, in order of urgency, or the
// create page when there is nothing at all. Action-required invoices are
// listed on the review page, so they lead there.
func PaymentLanding(p PaymentCounts) string {
	switch {
	case p.ActionRequired > 0 || p.Review > 0:
		return "/payments/review"
	case p.Waiting > 0:
		return "/payments/waiting"
	case p.Reserved > 0:
		return "/payments/reserved"
	case p.History > 0:
		return "/payments/history"
	case p.Draft > 0:
		return "/payments/draft"
	}
	return "/payments/create"
}

// CollectionLanding is the collections page to open first (SPEC §2); with
// nothing anywhere it is the (empty) history list, as the spec says.
func CollectionLanding(c CollectionCounts) string {
	switch {
	case c.Request > 0:
		return "/collections/request"
	case c.Decided > 0:
		return "/collections/decided"
	case c.History > 0:
		return "/collections/history"
	case c.Draft > 0:
		return "/collections/draft"
	}
	return "/collections/history"
}

// BusinessForm is the buyer's legal form (SPEC §3 business_form).
type BusinessForm int

const (
	Corporation    BusinessForm = 1
	SoleProprietor BusinessForm = 2
)

var businessFormLabels = map[BusinessForm]string{
	Corporation:    "法人",
	SoleProprietor: "個人事業主",
}

// Valid reports whether f is one of the two forms.
func (f BusinessForm) Valid() bool { return f == Corporation || f == SoleProprietor }

// Label is the form as shown to people.
func (f BusinessForm) Label() string { return labelOf(businessFormLabels, f) }

// CollectionMode says whether a user may send card-payment requests.
type CollectionMode string

const (
	CollectionBuyerOnly CollectionMode = "buyerOnly"
	CollectionEnabled   CollectionMode = "enabled"
)

// CollectionModeFor decides whether the collections feature is shown
// (SPEC §4, §6): only corporations may request payments, except those whose
// corporate number is on the exclusion list. An unknown form is treated as
// buyer-only, because showing a feature the user may not use is the worse
// mistake.
func CollectionModeFor(form BusinessForm, corporateNumber string, excluded map[string]bool) CollectionMode {
	if form != Corporation || excluded[NormalizeCode(corporateNumber)] {
		return CollectionBuyerOnly
	}
	return CollectionEnabled
}
