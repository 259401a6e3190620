-- +goose Up
-- Credentials of the JSON API's token mode (DESIGN.md §4 "API auth"). Every token is
-- 256 random bits handed out once; only its SHA-256 is stored (auth.HashToken), so a
-- database dump yields no usable token.
--
-- A family is one sign-in: its access and refresh tokens all descend from one
-- POST /api/v1/login. Refreshing rotates the refresh token inside the family; presenting
-- a refresh token a second time means it was copied, so the whole family is revoked.
-- session_epoch is the user's epoch at sign-in: a password change or reset raises the
-- user's epoch and so ends every family, like every browser session.
CREATE TABLE api_token_families (
    id            BIGSERIAL PRIMARY KEY,
    user_id       BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    buyer_id      BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    session_epoch INT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    revoked_at    TIMESTAMPTZ
);
CREATE INDEX api_token_families_user_idx ON api_token_families (user_id);

-- Access tokens live 15 minutes, refresh tokens 30 days. used_at marks a refresh token
-- that was rotated; it is kept until it expires so that its reuse is recognised.
CREATE TABLE api_tokens (
    id          BIGSERIAL PRIMARY KEY,
    family_id   BIGINT NOT NULL REFERENCES api_token_families (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
    token_hash  TEXT NOT NULL UNIQUE,
    expires_at  TIMESTAMPTZ NOT NULL,
    used_at     TIMESTAMPTZ,
    revoked_at  TIMESTAMPTZ,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX api_tokens_family_idx ON api_tokens (family_id, expires_at);

-- A sign-in that passed the password and waits for its second factor
-- (POST /api/v1/login → POST /api/v1/login_2auth): short-lived and single-use.
CREATE TABLE api_login_challenges (
    id          BIGSERIAL PRIMARY KEY,
    user_id     BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    buyer_id    BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    token_hash  TEXT NOT NULL UNIQUE,
    expires_at  TIMESTAMPTZ NOT NULL,
    used_at     TIMESTAMPTZ,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The API's handle on a sign-up (POST /api/v1/users → signup_token). verified_at is set
-- when this token's holder entered the mailed code, so that only the one who proved the
-- address can register with it, even if someone else asks for a new code.
CREATE TABLE api_signup_tokens (
    id          BIGSERIAL PRIMARY KEY,
    signup_id   BIGINT NOT NULL REFERENCES signups (id) ON DELETE CASCADE,
    token_hash  TEXT NOT NULL UNIQUE,
    expires_at  TIMESTAMPTZ NOT NULL,
    verified_at TIMESTAMPTZ,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX api_signup_tokens_signup_idx ON api_signup_tokens (signup_id);

-- +goose Down
DROP TABLE api_signup_tokens;
DROP TABLE api_login_challenges;
DROP TABLE api_tokens;
DROP TABLE api_token_families;
