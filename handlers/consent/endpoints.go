package consent

import (
	"net/http"

	"cardpay/oauth"
)

// TokenEndpoint exchanges a code (with its PKCE verifier) or a refresh token for tokens
// (RFC 6749 §3.2). Partners call it server to server: no session, no cross-origin check.
func TokenEndpoint(srv *oauth.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		ar, err := srv.NewAccessRequest(ctx, r, &oauth.Session{})
		if err != nil {
			srv.WriteAccessError(ctx, w, ar, err)
			return
		}
		resp, err := srv.NewAccessResponse(ctx, ar)
		if err != nil {
			srv.WriteAccessError(ctx, w, ar, err)
			return
		}
		srv.WriteAccessResponse(ctx, w, ar, resp)
	})
}

// RevokeEndpoint revokes a refresh token (and its grant's access tokens) or an access
// token (RFC 7009).
func RevokeEndpoint(srv *oauth.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		srv.WriteRevocationResponse(r.Context(), w, srv.NewRevocationRequest(r.Context(), r))
	})
}

// IntrospectEndpoint tells an authenticated client whether a token is active, and for
// whom and what (RFC 7662).
func IntrospectEndpoint(srv *oauth.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		ir, err := srv.NewIntrospectionRequest(ctx, r, &oauth.Session{})
		if err != nil {
			srv.WriteIntrospectionError(ctx, w, err)
			return
		}
		srv.WriteIntrospectionResponse(ctx, w, ir)
	})
}
