package pay

import (
	"fmt"
	"time"
)

// DefaultFeeBasisPoints is the service fee, 3.0 % of the invoice amount (DESIGN.md §4);
// configuration may change it (FEE_BASIS_POINTS).
const DefaultFeeBasisPoints = 300

// Fee is the service fee on amount yen at rate basis points (1 bp = 0.01 %), rounded down
// to the yen: the buyer is never charged a fraction in the service's favour. A negative
// rate counts as zero.
func Fee(amount int64, basisPoints int) int64 {
	if basisPoints <= 0 || amount <= 0 {
		return 0
	}
	return amount * int64(basisPoints) / 10_000
}

// FeeRateLabel shows a rate in basis points as a percentage, "3.0%" or "2.75%".
func FeeRateLabel(basisPoints int) string {
	if basisPoints%10 == 0 {
		return fmt.Sprintf("%d.%d%%", basisPoints/100, basisPoints%100/10)
	}
	return fmt.Sprintf("%d.%02d%%", basisPoints/100, basisPoints%100)
}

// Limits are the service limits on one payment (DESIGN.md §4), from configuration.
type Limits struct {
	MinAmount, MaxAmount int64
	FeeBasisPoints       int
}

// DefaultLimits are the limits without configuration.
var DefaultLimits = Limits{MinAmount: MinPaymentAmount, MaxAmount: MaxPaymentAmount, FeeBasisPoints: DefaultFeeBasisPoints}

// AmountMessage says what is wrong with an invoice amount, or "".
func (l Limits) AmountMessage(amount int64) string {
	if amount < l.MinAmount || amount > l.MaxAmount {
		return fmt.Sprintf("請求金額は%sから%sまでの範囲で入力してください", Yen(l.MinAmount), Yen(l.MaxAmount))
	}
	return ""
}

// Promotion is a promotion code's terms: while it is valid, it lowers the fee rate by
// DiscountBasisPoints (never below zero). Each buyer may use a code once.
type Promotion struct {
	Code                string
	DiscountBasisPoints int
	ValidFrom, ValidTo  time.Time // ValidTo is exclusive
}

// Messages of the promotion-code rules.
const (
	MsgPromotionUnknown = "このプロモーションコードは見つかりません。入力内容をご確認ください"
	MsgPromotionPeriod  = "このプロモーションコードは有効期間外です"
	MsgPromotionUsed    = "このプロモーションコードは既にご利用済みです（お一人様1回限り）"
)

// PromotionMessage says why p cannot be used at now by a buyer who has (used) or has not
// used it, or "".
func PromotionMessage(p Promotion, now time.Time, used bool) string {
	switch {
	case now.Before(p.ValidFrom) || !now.Before(p.ValidTo):
		return MsgPromotionPeriod
	case used:
		return MsgPromotionUsed
	}
	return ""
}

// DiscountedRate is the fee rate after a promotion's discount.
func DiscountedRate(basisPoints int, p *Promotion) int {
	if p == nil {
		return basisPoints
	}
	return max(0, basisPoints-p.DiscountBasisPoints)
}
