-- +goose Up
-- OAuth 2.0 for partner applications (issue 30): accounting software that creates
-- payment and request drafts for a buyer who approved it.
--
-- oauth_clients: registered by operators. A confidential client keeps the bcrypt hash of
-- its secret (shown once); a public one has none and must use PKCE. Redirect URIs are
-- matched exactly.
CREATE TABLE oauth_clients (
    id            TEXT PRIMARY KEY CHECK (id ~ '^[a-z0-9-]{8,64}$'),
    name          TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
    logo_text     TEXT NOT NULL DEFAULT '' CHECK (length(logo_text) <= 4),
    secret_hash   BYTEA,
    redirect_uris TEXT[] NOT NULL CHECK (cardinality(redirect_uris) BETWEEN 1 AND 10),
    scopes        TEXT[] NOT NULL CHECK (cardinality(scopes) >= 1),
    -- Where the application hears of its payments' changes (signed webhooks): https
    -- (the loopback for tests and local development), '' for none.
    webhook_url   TEXT NOT NULL DEFAULT '' CHECK (webhook_url = '' OR webhook_url ~ '^(https://|http://127\.0\.0\.1:)'),
    created_by    BIGINT,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    disabled_at   TIMESTAMPTZ
);

-- oauth_tokens: what fosite stores per token signature (the HMAC part; the token itself
-- is never kept): authorisation codes, access and refresh tokens and PKCE challenges,
-- each with its request (id, client, scopes, form) and session (buyer, user, expiry).
-- A code used or a refresh token rotated stays, inactive, so that its reuse is known
-- (and revokes the whole grant: the tokens sharing its request_id).
CREATE TABLE oauth_tokens (
    signature      TEXT NOT NULL,
    kind           TEXT NOT NULL CHECK (kind IN ('code', 'access', 'refresh', 'pkce')),
    request_id     TEXT NOT NULL,
    client_id      TEXT NOT NULL REFERENCES oauth_clients (id),
    buyer_id       BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    user_id        BIGINT NOT NULL,
    requested_at   TIMESTAMPTZ NOT NULL,
    scopes         TEXT[] NOT NULL DEFAULT '{}',
    granted_scopes TEXT[] NOT NULL DEFAULT '{}',
    form           JSONB NOT NULL DEFAULT '{}',
    session        JSONB NOT NULL DEFAULT '{}',
    active         BOOLEAN NOT NULL DEFAULT true,
    expires_at     TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (kind, signature)
);
CREATE INDEX oauth_tokens_request_idx ON oauth_tokens (request_id);
CREATE INDEX oauth_tokens_grant_idx ON oauth_tokens (buyer_id, client_id) WHERE active;

-- oauth_consents: which applications a buyer connected, what each may do, and when it
-- last used its access; disconnecting revokes every token of the pair at once.
CREATE TABLE oauth_consents (
    buyer_id      BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    client_id     TEXT NOT NULL REFERENCES oauth_clients (id),
    scopes        TEXT[] NOT NULL,
    granted_by    BIGINT NOT NULL,
    granted_at    TIMESTAMPTZ NOT NULL,
    last_used_at  TIMESTAMPTZ,
    revoked_at    TIMESTAMPTZ,
    PRIMARY KEY (buyer_id, client_id)
);

-- A draft a partner application created through the API carries its client, so that the
-- buyer's drafts list says whose it is; only the buyer, signed in, ever submits it.
ALTER TABLE drafts ADD COLUMN partner_client_id TEXT REFERENCES oauth_clients (id);
-- The payment submitted from such a draft keeps it: the partner hears of its changes.
ALTER TABLE invoices ADD COLUMN partner_client_id TEXT REFERENCES oauth_clients (id);

-- +goose Down
ALTER TABLE invoices DROP COLUMN partner_client_id;
ALTER TABLE drafts DROP COLUMN partner_client_id;
DROP TABLE oauth_consents;
DROP TABLE oauth_tokens;
DROP TABLE oauth_clients;
