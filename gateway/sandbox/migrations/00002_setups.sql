-- +goose Up
-- Card setups (issue 27): the hosted card page's sessions become setups, which both the
-- hosted page (buyers without JavaScript) and the card-fields page (an iframe on the
-- merchant's page) take a card for. The card never travels to the merchant: the setup
-- keeps the one-time token made from it (token_id), and the merchant's server finishes
-- the setup by id, which turns that token into a saved card once (card_id).
ALTER TABLE sandbox_hosted_sessions RENAME TO sandbox_setups;
ALTER TABLE sandbox_setups RENAME CONSTRAINT sandbox_hosted_sessions_pkey TO sandbox_setups_pkey;
ALTER TABLE sandbox_setups
    -- The merchant origin (return_url's): the only frame-ancestor of the fields page and
    -- the only targetOrigin of its postMessage.
    ADD COLUMN origin   TEXT NOT NULL DEFAULT '',
    -- The token of the card entered (used_at is when): one card per setup.
    ADD COLUMN token_id TEXT UNIQUE REFERENCES sandbox_tokens (id),
    -- The saved card the token became on finishing; finishing again answers it.
    ADD COLUMN card_id  TEXT UNIQUE REFERENCES sandbox_cards (id);
-- Sessions open at the time of the upgrade keep working: their origin is their return URL's.
UPDATE sandbox_setups SET origin = lower(substring(return_url FROM '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]+'));
ALTER TABLE sandbox_setups ALTER COLUMN origin DROP DEFAULT;
ALTER TABLE sandbox_setups ADD CONSTRAINT sandbox_setups_card_needs_token CHECK (card_id IS NULL OR token_id IS NOT NULL);

-- +goose Down
ALTER TABLE sandbox_setups DROP CONSTRAINT sandbox_setups_card_needs_token;
ALTER TABLE sandbox_setups DROP COLUMN card_id, DROP COLUMN token_id, DROP COLUMN origin;
ALTER TABLE sandbox_setups RENAME CONSTRAINT sandbox_setups_pkey TO sandbox_hosted_sessions_pkey;
ALTER TABLE sandbox_setups RENAME TO sandbox_hosted_sessions;
