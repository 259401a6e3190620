package account

import (
	"context"
	"time"

	"cardpay/store"
)

// Caller is the signed-in session a request comes from: its user_sessions row, its
// device, and the client. The site's session middleware and the API's authentication
// put it on the request's context, so that the rules here (a wrong current password
// counts against this device; a credential change ends every other session) need no
// extra argument on every call.
type Caller struct {
	SessionID int64
	DeviceID  int64
	Client    Client
}

type callerKey struct{}

// WithCaller returns ctx carrying c.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerOf is the caller on ctx (zero when none).
func CallerOf(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey{}).(Caller)
	return c
}

// Session timeouts of browser sessions (ASVS 7.3): 30 minutes without a request, 12
// hours after signing in whatever happens.
const (
	IdleTimeout     = 30 * time.Minute
	AbsoluteTimeout = 12 * time.Hour
)

// StartSession records a browser or API sign-in of u from deviceID for the security page.
func (s *Service) StartSession(ctx context.Context, u store.User, kind string, deviceID int64, cl Client) (int64, error) {
	us := store.UserSession{UserID: u.ID, BuyerID: u.BuyerID, Kind: kind, IPAddress: cl.IP, UserAgent: cl.UserAgent, SignedInAt: s.now()}
	if deviceID != 0 {
		us.DeviceID = &deviceID
	}
	return s.Store.StartUserSession(ctx, us)
}

// Sessions are u's live sessions, newest first.
func (s *Service) Sessions(ctx context.Context, u store.User) ([]store.UserSession, error) {
	now := s.now()
	return s.Store.LiveUserSessions(ctx, u.BuyerID, u.ID, now.Add(-IdleTimeout), now.Add(-AbsoluteTimeout))
}

// EndSession ends one of u's sessions (a browser's next request is anonymous; an API
// client's tokens stop working).
func (s *Service) EndSession(ctx context.Context, u store.User, id int64) error {
	return s.Store.EndUserSession(ctx, u.BuyerID, u.ID, id, s.now())
}

// EndOtherSessions ends every session of u but the caller's own, and revokes their API
// tokens: after "end the others" on the security page, and after every change of how
// the account signs in (e-mail address, two-factor, password).
func (s *Service) EndOtherSessions(ctx context.Context, u store.User) error {
	return s.Store.EndOtherUserSessions(ctx, u.BuyerID, u.ID, CallerOf(ctx).SessionID, s.now())
}
