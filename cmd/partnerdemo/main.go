// Command partnerdemo is an example partner application (issue 30): accounting software
// that connects to a buyer's account by OAuth 2.0 (the code flow with PKCE, as the
// partner API asks) and creates a payment draft from an invoice, which the buyer then
// confirms and pays, signed in, with 3-D Secure. It uses golang.org/x/oauth2.
//
//	go run ./cmd/partnerdemo -server http://localhost:8080 -file invoice.pdf -amount 110000
//
// It prints the authorisation URL; open it in the browser where the buyer is signed in
// and press 許可する. The demo data registers its client (demo-accounting, public, with
// the redirect URI http://127.0.0.1:8765/callback).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/oauth2"
)

// Config is what the example needs.
type Config struct {
	Server, ClientID, ClientSecret, Redirect string
	// File is an invoice to upload with the draft ("" for none); Amount its amount.
	File   string
	Amount int64
}

func main() {
	var c Config
	flag.StringVar(&c.Server, "server", "http://localhost:8080", "the service's origin")
	flag.StringVar(&c.ClientID, "client", "demo-accounting", "the registered client id")
	flag.StringVar(&c.ClientSecret, "secret", "", "the client secret (none for a public client)")
	flag.StringVar(&c.Redirect, "redirect", "http://127.0.0.1:8765/callback", "the registered redirect URI it listens on")
	flag.StringVar(&c.File, "file", "", "an invoice file (PDF, JPEG, PNG) to attach to the draft")
	flag.Int64Var(&c.Amount, "amount", 0, "the invoice's amount in yen")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	err := Run(ctx, c, os.Stdout, func(authURL string) {
		fmt.Printf("ブラウザで次のURLを開き、連携を許可してください:\n%s\n", authURL)
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "partnerdemo:", err)
		os.Exit(1)
	}
}

// Run connects (ask shows the buyer the authorisation URL), creates the draft and
// prints what it did to out.
func Run(ctx context.Context, c Config, out io.Writer, ask func(authURL string)) error {
	redirect, err := url.Parse(c.Redirect)
	if err != nil {
		return err
	}
	conf := &oauth2.Config{ClientID: c.ClientID, ClientSecret: c.ClientSecret, RedirectURL: c.Redirect,
		Scopes:   []string{"payments:read", "payments:draft", "suppliers:read"},
		Endpoint: oauth2.Endpoint{AuthURL: c.Server + "/oauth/authorize", TokenURL: c.Server + "/oauth/token"}}
	if c.ClientSecret == "" {
		conf.Endpoint.AuthStyle = oauth2.AuthStyleInParams
	} else {
		conf.Endpoint.AuthStyle = oauth2.AuthStyleInHeader
	}
	code, err := authorize(ctx, conf, redirect, ask)
	if err != nil {
		return err
	}
	tok, err := conf.Exchange(ctx, code.code, oauth2.VerifierOption(code.verifier))
	if err != nil {
		return fmt.Errorf("token: %w", err)
	}
	fmt.Fprintf(out, "connected: scopes %v, access token until %s\n", tok.Extra("scope"), tok.Expiry.Format(time.RFC3339))
	api := conf.Client(ctx, tok)

	draft := map[string]any{"step": "/payments/add/invoiceinfo", "invoice": map[string]any{}}
	if c.Amount > 0 {
		draft["invoice"] = map[string]any{"amount": fmt.Sprint(c.Amount)}
	}
	if c.File != "" {
		id, err := upload(api, c.Server, c.File)
		if err != nil {
			return err
		}
		draft["file_id"] = id
		fmt.Fprintf(out, "uploaded %s: file %d\n", filepath.Base(c.File), id)
	}
	var created struct {
		ID int64 `json:"id"`
	}
	if err := call(api, http.MethodPost, c.Server+"/api/v1/drafts", draft, &created); err != nil {
		return err
	}
	var got struct {
		Step      string    `json:"step"`
		UpdatedAt time.Time `json:"updated_at"`
	}
	if err := call(api, http.MethodGet, fmt.Sprintf("%s/api/v1/drafts/%d", c.Server, created.ID), nil, &got); err != nil {
		return err
	}
	fmt.Fprintf(out, "draft %d created (resumes at %s); the buyer confirms and pays it at %s/payments/draft\n",
		created.ID, got.Step, c.Server)
	return nil
}

type grant struct{ code, verifier string }

// authorize listens on the redirect URI's address, asks the buyer, and waits for the
// code (checking the state it sent).
func authorize(ctx context.Context, conf *oauth2.Config, redirect *url.URL, ask func(string)) (grant, error) {
	ln, err := net.Listen("tcp", redirect.Host)
	if err != nil {
		return grant{}, fmt.Errorf("listen on the redirect URI %s: %w", redirect.Host, err)
	}
	defer ln.Close()
	verifier, state := oauth2.GenerateVerifier(), oauth2.GenerateVerifier()
	got := make(chan url.Values, 1)
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != redirect.Path {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "連携の結果を受け取りました。この画面は閉じてかまいません。")
		select {
		case got <- r.URL.Query():
		default:
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	ask(conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier)))
	select {
	case <-ctx.Done():
		return grant{}, ctx.Err()
	case q := <-got:
		if e := q.Get("error"); e != "" {
			return grant{}, fmt.Errorf("not authorised: %s", e)
		}
		if q.Get("state") != state {
			return grant{}, errors.New("the state sent back is not ours")
		}
		return grant{code: q.Get("code"), verifier: verifier}, nil
	}
}

// upload sends the invoice file (POST /api/v1/invoices/files/upload).
func upload(api *http.Client, server, path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("invoice_file", filepath.Base(path))
	if err != nil {
		return 0, err
	}
	if _, err := fw.Write(b); err != nil {
		return 0, err
	}
	if err := mw.Close(); err != nil {
		return 0, err
	}
	req, err := http.NewRequest(http.MethodPost, server+"/api/v1/invoices/files/upload", &body)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	var out struct {
		ID int64 `json:"id"`
	}
	return out.ID, do(api, req, &out)
}

func call(api *http.Client, method, u string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return do(api, req, out)
}

func do(api *http.Client, req *http.Request, out any) error {
	res, err := api.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", req.Method, req.URL.Path, res.StatusCode, b)
	}
	return json.Unmarshal(b, out)
}
