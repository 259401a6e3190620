-- +goose Up
-- Account security (issue 15).

-- The rate limiter's counters (account.Limiter): one row per rule, client and fixed
-- window. key_hash is the SHA-256 of what is counted (an IP, an e-mail address, an
-- account), so the table holds no address in clear. Shared by every server instance.
CREATE TABLE rate_limit_hits (
    rule         TEXT NOT NULL,
    key_hash     TEXT NOT NULL,
    window_start TIMESTAMPTZ NOT NULL,
    hits         INT NOT NULL,
    expires_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (rule, key_hash, window_start)
);
CREATE INDEX rate_limit_hits_expires_idx ON rate_limit_hits (expires_at);

-- Devices that signed in successfully (the OWASP "device cookie"): the cookie or the
-- API's device_token carries the user id, a nonce and an HMAC; only the nonce's SHA-256
-- is kept. A known device has failure counters of its own, so that a lock of the unknown
-- devices never locks out a device its owner already used.
CREATE TABLE devices (
    id           BIGSERIAL PRIMARY KEY,
    user_id      BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    nonce_hash   TEXT NOT NULL UNIQUE,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_used_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX devices_user_idx ON devices (user_id);
CREATE INDEX devices_expires_idx ON devices (expires_at);

-- Consecutive sign-in failures per throttle key: 'address:<sha256 of the address>' for
-- unknown devices (whether or not the address has an account, so that the answers are
-- the same), 'device:<id>' for a known device. locked_mailed_until is the lock the owner
-- was last mailed about (once per lock).
CREATE TABLE sign_in_throttles (
    key                 TEXT PRIMARY KEY,
    failures            INT NOT NULL DEFAULT 0,
    last_failed_at      TIMESTAMPTZ NOT NULL,
    locked_until        TIMESTAMPTZ
);
CREATE INDEX sign_in_throttles_last_idx ON sign_in_throttles (last_failed_at);

-- Every signed-in session, browser or API, for the security page: the browser's scs
-- session carries this row's id, an API token family points at it. ended_at ends it:
-- the next request of that browser is anonymous, the family's tokens stop working.
CREATE TABLE user_sessions (
    id           BIGSERIAL PRIMARY KEY,
    user_id      BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    buyer_id     BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    device_id    BIGINT REFERENCES devices (id) ON DELETE SET NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('browser', 'api')),
    ip_address   TEXT NOT NULL DEFAULT '',
    user_agent   TEXT NOT NULL DEFAULT '' CHECK (char_length(user_agent) <= 500),
    signed_in_at TIMESTAMPTZ NOT NULL,
    last_seen_at TIMESTAMPTZ NOT NULL,
    ended_at     TIMESTAMPTZ
);
CREATE INDEX user_sessions_user_idx ON user_sessions (user_id, ended_at);

ALTER TABLE api_token_families ADD COLUMN user_session_id BIGINT REFERENCES user_sessions (id) ON DELETE CASCADE;

-- The per-user counters are replaced by sign_in_throttles.
ALTER TABLE users DROP COLUMN failed_sign_ins, DROP COLUMN last_failed_at, DROP COLUMN locked_until;

-- +goose Down
ALTER TABLE users
    ADD COLUMN failed_sign_ins INT NOT NULL DEFAULT 0,
    ADD COLUMN last_failed_at  TIMESTAMPTZ,
    ADD COLUMN locked_until    TIMESTAMPTZ;
ALTER TABLE api_token_families DROP COLUMN user_session_id;
DROP TABLE user_sessions;
DROP TABLE sign_in_throttles;
DROP TABLE devices;
DROP TABLE rate_limit_hits;
