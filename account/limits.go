package account

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"cardpay/auth"
	"cardpay/pay"
)

// The rate limiter: one for the pages and the API, its counters in PostgreSQL
// (rate_limit_hits), so that every server instance counts the same requests. Each
// action has two rules: per client IP ("<action>.ip") and per target ("<action>.target":
// the typed address, the account, the sign-up). An address without an account is
// counted exactly like one with an account, so a 429 tells nothing about who exists.

// Limited actions.
const (
	ActSignIn         = "signin"          // the sign-in page and the API's login (target: the address, unknown devices only)
	ActSignup         = "signup"          // sign-up and its code resend (target: the address)
	ActCode           = "code"            // a mailed one-time code entered (target: what the code is for)
	ActPasswordReset  = "password_reset"  // the reset mail and the reset itself (target: the address)
	ActReregistration = "reregistration"  // re-registration (target: the address)
	ActEmailChange    = "email_change"    // the e-mail change mail (target: the account)
	ActTwoFactor      = "twofactor"       // two-factor and recovery codes (target: the account)
	ActToken          = "token"           // the API's token refresh (target: the token family)
	ActRequestKey     = "request_key"     // a card-payment request's key checked or linked (target: the account)
	ActRequestMail    = "request_mail"    // a card-payment request sent, which mails its customer (target: the account)
	ActCardCheck      = "card_check"      // a card added: the PSP is asked to verify it (target: the buyer)
	ActCardDecline    = "card_decline"    // a card check the issuer declined (target: the buyer, whose declines lock in card_check_locks)
	ActUploadLink     = "upload_link"     // a supplier's upload link mailed (target: the buyer)
	ActSupplierUpload = "supplier_upload" // a file uploaded through a supplier's link, signed out (target: the link)
	ActInquiry        = "inquiry"         // an inquiry sent, which mails its acknowledgement (target: the address typed signed out, the user signed in; the IP signed out only)
)

// Limit allows N requests per Window (fixed windows).
type Limit struct {
	N      int
	Window time.Duration
}

// Limits maps "<action>.ip" and "<action>.target" to their limits; a rule missing from
// the map does not limit.
type Limits map[string]Limit

// DefaultLimits are generous for a person and tight for a script: a person signs in a
// few times a day; mail-sending actions allow a handful of mails per address an hour.
var DefaultLimits = Limits{
	ActSignIn + ".ip":             {N: 100, Window: 15 * time.Minute},
	ActSignIn + ".target":         {N: 30, Window: 15 * time.Minute},
	ActSignup + ".ip":             {N: 30, Window: time.Hour},
	ActSignup + ".target":         {N: 5, Window: time.Hour},
	ActCode + ".ip":               {N: 100, Window: 15 * time.Minute},
	ActCode + ".target":           {N: 15, Window: 15 * time.Minute},
	ActPasswordReset + ".ip":      {N: 30, Window: time.Hour},
	ActPasswordReset + ".target":  {N: 5, Window: time.Hour},
	ActReregistration + ".ip":     {N: 30, Window: time.Hour},
	ActReregistration + ".target": {N: 5, Window: time.Hour},
	ActEmailChange + ".ip":        {N: 30, Window: time.Hour},
	ActEmailChange + ".target":    {N: 5, Window: time.Hour},
	ActTwoFactor + ".ip":          {N: 100, Window: 15 * time.Minute},
	ActTwoFactor + ".target":      {N: 15, Window: 15 * time.Minute},
	ActToken + ".ip":              {N: 600, Window: 15 * time.Minute},
	ActToken + ".target":          {N: 60, Window: 15 * time.Minute},
	ActRequestKey + ".ip":         {N: 60, Window: time.Hour},
	ActRequestKey + ".target":     {N: 30, Window: time.Hour},
	// A business may send a request for each of its invoices at month end; a script
	// mailing strangers through us is stopped within the hour.
	ActRequestMail + ".ip":     {N: 300, Window: time.Hour},
	ActRequestMail + ".target": {N: 100, Window: time.Hour},
	// A buyer adds a card or two, now and then; someone trying stolen cards tries many.
	// The buyer's own declines lock adding cards after cards.DeclineLimit a day; these
	// cap the attempts, and the declines of one IP across buyers (many accounts, one
	// script).
	ActCardCheck + ".ip":     {N: 20, Window: time.Hour},
	ActCardCheck + ".target": {N: 10, Window: time.Hour},
	ActCardDecline + ".ip":   {N: 10, Window: 24 * time.Hour},
	// Upload links mail a supplier each; a supplier sends a month's invoices at once
	// through its link, a script trying links or filling one is stopped.
	ActUploadLink + ".ip":         {N: 100, Window: time.Hour},
	ActUploadLink + ".target":     {N: 30, Window: time.Hour},
	ActSupplierUpload + ".ip":     {N: 60, Window: time.Hour},
	ActSupplierUpload + ".target": {N: 30, Window: time.Hour},
	// A person asks a question or two; the public form mails any address typed, so a
	// script is stopped after a handful. Signed out, the IP and the address are counted;
	// signed in, the user only (LimitInquiry), so that an office behind one IP is not one
	// allowance.
	ActInquiry + ".ip":     {N: 5, Window: time.Hour},
	ActInquiry + ".target": {N: 5, Window: time.Hour},
	// The buyer's declines are counted in card_check_locks, by Japan day, so that an
	// operator can see and lift the lock: only N is read (CardDeclineLimit); the day is
	// always the Japan day.
	ActCardDecline + ".target": {N: 5, Window: 24 * time.Hour},
}

// ParseLimits reads RATE_LIMITS over base: comma-separated "rule=N/window" such as
// "signin.ip=100/15m,signup.target=5/1h"; "*.ip" and "*.target" set every action's rule
// of that kind; N = 0 turns a rule off.
func ParseLimits(s string, base Limits) (Limits, error) {
	out := Limits{}
	for k, v := range base {
		out[k] = v
	}
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		rule, spec, ok := strings.Cut(part, "=")
		n, window, ok2 := strings.Cut(spec, "/")
		if !ok || !ok2 {
			return nil, fmt.Errorf("RATE_LIMITS: %q is not rule=N/window", part)
		}
		count, err := strconv.Atoi(strings.TrimSpace(n))
		if err != nil || count < 0 {
			return nil, fmt.Errorf("RATE_LIMITS: %q: N must be a whole number", part)
		}
		d, err := time.ParseDuration(strings.TrimSpace(window))
		if err != nil || d < time.Second {
			return nil, fmt.Errorf("RATE_LIMITS: %q: window must be a duration of at least 1s", part)
		}
		rule = strings.TrimSpace(rule)
		action, scope, _ := strings.Cut(rule, ".")
		if scope != "ip" && scope != "target" {
			return nil, fmt.Errorf("RATE_LIMITS: %q: a rule ends in .ip or .target", part)
		}
		if action == "*" {
			for _, a := range limitedActions {
				out[a+"."+scope] = Limit{N: count, Window: d}
			}
			continue
		}
		if !isLimitedAction(action) {
			return nil, fmt.Errorf("RATE_LIMITS: %q: unknown action %q", part, action)
		}
		out[rule] = Limit{N: count, Window: d}
	}
	return out, nil
}

var limitedActions = []string{ActSignIn, ActSignup, ActCode, ActPasswordReset, ActReregistration,
	ActEmailChange, ActTwoFactor, ActToken, ActRequestKey, ActRequestMail, ActCardCheck, ActCardDecline,
	ActUploadLink, ActSupplierUpload, ActInquiry}

func isLimitedAction(a string) bool {
	for _, x := range limitedActions {
		if x == a {
			return true
		}
	}
	return false
}

// Limited is the answer over a limit: try again at Until (429, Retry-After).
type Limited struct {
	Until      time.Time
	RetryAfter time.Duration
}

func (l *Limited) Error() string { return l.Message() }

// Message says in Japanese when to try again (Japan time, the minute rounded up so that
// trying at the time shown works).
func (l *Limited) Message() string {
	t := l.Until.In(pay.Tokyo())
	if r := t.Truncate(time.Minute); !r.Equal(t) {
		t = r.Add(time.Minute)
	}
	return "短時間に操作が繰り返されたため、受け付けを一時的に停止しています。" + t.Format("1月2日 15:04") + " 以降にもう一度お試しください。"
}

// RetryAfterSeconds is the Retry-After header's value: whole seconds, rounded up, ≥ 1.
func (l *Limited) RetryAfterSeconds() int {
	return auth.WaitSeconds(l.RetryAfter)
}

// AsLimited unwraps a Limited.
func AsLimited(err error) (*Limited, bool) {
	var l *Limited
	ok := errors.As(err, &l)
	return l, ok
}

// Limit counts one request of action from ip for target ("" counts the IP only) and
// returns a *Limited when either rule's window is full. The IP is counted first; a
// request refused for its IP does not use up the target's allowance.
func (s *Service) Limit(ctx context.Context, action, ip, target string) error {
	if err := s.hit(ctx, action+".ip", ip); err != nil {
		return err
	}
	if target == "" {
		return nil
	}
	return s.hit(ctx, action+".target", strings.ToLower(strings.TrimSpace(target)))
}

// LimitCaller is Limit for the caller on ctx (account.WithCaller): the pages' and the
// API's way to limit an action that is not the account rules' own (request keys and
// request mails).
func (s *Service) LimitCaller(ctx context.Context, action, target string) error {
	return s.Limit(ctx, action, CallerOf(ctx).Client.IP, target)
}

// LimitBuyer is LimitCaller with the buyer's account as the target (request keys and
// request mails: pages and API share one allowance).
func (s *Service) LimitBuyer(ctx context.Context, action string, buyerID int64) error {
	return s.LimitCaller(ctx, action, "buyer:"+strconv.FormatInt(buyerID, 10))
}

// LimitCardCheck comes before a card check of the buyer from the caller's IP: an IP
// whose declined checks filled card_decline.ip is refused, then the check is counted
// against card_check (the IP and the buyer).
func (s *Service) LimitCardCheck(ctx context.Context, buyerID int64) error {
	if ip := CallerOf(ctx).Client.IP; ip != "" {
		if l, ok := s.rule(ActCardDecline + ".ip"); ok {
			now := s.now()
			start := now.Truncate(l.Window)
			n, err := s.Store.RateLimitHits(ctx, ActCardDecline+".ip", ruleKey(ActCardDecline+".ip", ip), start)
			if err != nil {
				return err
			}
			if n >= l.N {
				end := start.Add(l.Window)
				return &Limited{Until: end, RetryAfter: end.Sub(now)}
			}
		}
	}
	return s.LimitBuyer(ctx, ActCardCheck, buyerID)
}

// CountCardDecline counts a declined card check against the caller's IP
// (card_decline.ip); the next LimitCardCheck from a full IP is refused.
func (s *Service) CountCardDecline(ctx context.Context) error {
	ip := CallerOf(ctx).Client.IP
	if ip == "" {
		return nil
	}
	if err := s.hit(ctx, ActCardDecline+".ip", ip); err != nil {
		if _, ok := AsLimited(err); !ok {
			return err
		}
	}
	return nil
}

// CardDeclineLimit is how many declined card checks in a Japan day lock adding cards for
// a buyer (card_decline.target's N); 0 when the rule is off.
func (s *Service) CardDeclineLimit() int {
	l, _ := s.rule(ActCardDecline + ".target")
	return l.N
}

func (s *Service) rule(rule string) (Limit, bool) {
	limits := s.Limits
	if limits == nil {
		limits = DefaultLimits
	}
	l, ok := limits[rule]
	return l, ok && l.N > 0
}

func ruleKey(rule, key string) string {
	sum := sha256.Sum256([]byte(rule + "\x00" + key))
	return hex.EncodeToString(sum[:])
}

func (s *Service) hit(ctx context.Context, rule, key string) error {
	l, ok := s.rule(rule)
	if !ok {
		return nil
	}
	now := s.now()
	start := now.Truncate(l.Window)
	end := start.Add(l.Window)
	n, err := s.Store.HitRateLimit(ctx, rule, ruleKey(rule, key), start, end)
	if err != nil {
		return err
	}
	if n > l.N {
		return &Limited{Until: end, RetryAfter: end.Sub(now)}
	}
	return nil
}

// CountDecoyAttempt counts an entry on a code page that has no code behind it (a sign-up
// of an address that has an account, or none to re-register) and says whether it is
// within auth.CodeMaxAttempts: the same one-statement count as a real code's
// (store.CountCodeAttempt), in rate_limit_hits, keyed by what the page is about and when
// its "code" was sent, so that even parallel entries meet the limit exactly where a real
// code's would and the answers do not tell the two apart.
func (s *Service) CountDecoyAttempt(ctx context.Context, key string, sent time.Time) (bool, error) {
	const rule = "code.decoy"
	sum := sha256.Sum256([]byte(rule + "\x00" + strings.ToLower(strings.TrimSpace(key)) + "\x00" + strconv.FormatInt(sent.Unix(), 10)))
	n, err := s.Store.HitRateLimit(ctx, rule, hex.EncodeToString(sum[:]), sent, sent.Add(auth.CodeTTL))
	if err != nil {
		return false, err
	}
	return n <= auth.CodeMaxAttempts, nil
}
