package pay

// PaymentBucket is one of the buyer's payment lists (SPEC §4). Drafts are a
// separate table, not a bucket of invoices, so they have no bucket here.
type PaymentBucket string

const (
	BucketWaiting        PaymentBucket = "waiting"
	BucketReview         PaymentBucket = "review"
	BucketActionRequired PaymentBucket = "action_required"
	BucketReserved       PaymentBucket = "reserved"
	BucketHistory        PaymentBucket = "history"
	// BucketReviewAll is the 審査中 page's list: the review bucket with the
	// action-required payments first (SPEC §4 "review with action required").
	BucketReviewAll PaymentBucket = "review_all"
)

var paymentBucketLabels = map[PaymentBucket]string{
	BucketWaiting:        "支払待ち",
	BucketReview:         "審査中",
	BucketActionRequired: "要対応",
	BucketReserved:       "振込予定",
	BucketHistory:        "履歴",
	BucketReviewAll:      "審査中",
}

// Label is the bucket's tab name.
func (b PaymentBucket) Label() string { return labelOf(paymentBucketLabels, b) }

// PaymentBucketOf places an invoice in the buyer's payment lists as SPEC §4
// states, with one addition: SPEC §4's "review with action required" names
// InvoicePayment only, but screening sends back a request's customer-side
// payment (InvoiceRequestBuyer) too, and it then needs its customer just the
// same, so it is 要対応 as well. It answers false when no rule applies (for
// example a seller-side request, which is a collection, not a payment).
func PaymentBucketOf(s ExaminationStatus, t InvoiceType, actionRequired bool) (PaymentBucket, bool) {
	buyerSide := t == InvoicePayment || t == InvoiceRequestBuyer
	switch {
	case (s == WaitingForPayment || s == BuyerNotRegistered) && t == InvoiceRequestBuyer:
		return BucketWaiting, true
	case (s == InProgress || s == InProgressExaminationChecked) && buyerSide && !actionRequired:
		return BucketReview, true
	case (s == InProgress || s == InProgressExaminationChecked || s == InProgressExaminationCompleted) &&
		buyerSide && actionRequired:
		// A request's customer-side payment sent back by screening needs its customer
		// like a payment of their own does (else it would be in no list at all).
		return BucketActionRequired, true
	case s == InProgressExaminationCompleted && buyerSide && !actionRequired:
		return BucketReserved, true
	case (s == TransferCompleted || s == Cancel || s == Expired) && buyerSide:
		return BucketHistory, true
	}
	return "", false
}

// PaymentBucketStatuses lists the statuses a bucket can hold, for SQL
// filters; the caller still filters on PaymentBucketTypes and the
// action-required flag. A fresh slice each call, so callers may modify it.
func PaymentBucketStatuses(b PaymentBucket) []ExaminationStatus {
	switch b {
	case BucketWaiting:
		return []ExaminationStatus{BuyerNotRegistered, WaitingForPayment}
	case BucketReview:
		return []ExaminationStatus{InProgress, InProgressExaminationChecked}
	case BucketActionRequired:
		return []ExaminationStatus{InProgress, InProgressExaminationChecked, InProgressExaminationCompleted}
	case BucketReserved:
		return []ExaminationStatus{InProgressExaminationCompleted}
	case BucketHistory:
		return []ExaminationStatus{TransferCompleted, Cancel, Expired}
	}
	return nil
}

// PaymentBucketTypes lists the invoice types a bucket can hold, the other
// half of the SQL filter.
func PaymentBucketTypes(b PaymentBucket) []InvoiceType {
	switch b {
	case BucketWaiting:
		return []InvoiceType{InvoiceRequestBuyer}
	case BucketReview, BucketActionRequired, BucketReserved, BucketHistory:
		return []InvoiceType{InvoicePayment, InvoiceRequestBuyer}
	}
	return nil
}

// CollectionBucket is one of the requester's collection lists (SPEC §4).
// No collection needs action from the requester, so there is no such bucket.
type CollectionBucket string

const (
	CollectionRequest CollectionBucket = "request"
	CollectionDecided CollectionBucket = "decided"
	CollectionHistory CollectionBucket = "history"
)

var collectionBucketLabels = map[CollectionBucket]string{
	CollectionRequest: "依頼中",
	CollectionDecided: "支払確定",
	CollectionHistory: "履歴",
}

// Label is the bucket's tab name.
func (b CollectionBucket) Label() string { return labelOf(collectionBucketLabels, b) }

// CollectionBucketOf places a collection in its list; false for an
// undefined status.
func CollectionBucketOf(s CollectionStatus) (CollectionBucket, bool) {
	switch s {
	case CollectionNotRegistered, CollectionWaitingPayment, CollectionInProgress:
		return CollectionRequest, true
	case CollectionReviewCompleted:
		return CollectionDecided, true
	case CollectionDepositCompleted, CollectionExpired, CollectionCancel:
		return CollectionHistory, true
	}
	return "", false
}
