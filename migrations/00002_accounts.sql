-- +goose Up
-- The buyer's business details (SPEC.md §3): a corporation fills the corporate and
-- representative columns, a sole proprietor the business and home ones. Building names
-- are optional, so every text column defaults to ''.
ALTER TABLE buyers
    ADD COLUMN corporate_name_kana                  TEXT NOT NULL DEFAULT '',
    ADD COLUMN representative_last_name             TEXT NOT NULL DEFAULT '',
    ADD COLUMN representative_first_name            TEXT NOT NULL DEFAULT '',
    ADD COLUMN representative_last_name_kana        TEXT NOT NULL DEFAULT '',
    ADD COLUMN representative_first_name_kana       TEXT NOT NULL DEFAULT '',
    ADD COLUMN representative_birthday              DATE,
    ADD COLUMN representative_postal_code           TEXT NOT NULL DEFAULT '',
    ADD COLUMN representative_address_state         TEXT NOT NULL DEFAULT '',
    ADD COLUMN representative_address_city          TEXT NOT NULL DEFAULT '',
    ADD COLUMN representative_address_street        TEXT NOT NULL DEFAULT '',
    ADD COLUMN representative_address_building_name TEXT NOT NULL DEFAULT '',
    ADD COLUMN representative_phone_number          TEXT NOT NULL DEFAULT '',
    ADD COLUMN postal_code                          TEXT NOT NULL DEFAULT '',
    ADD COLUMN address_state                        TEXT NOT NULL DEFAULT '',
    ADD COLUMN address_city                         TEXT NOT NULL DEFAULT '',
    ADD COLUMN address_street                       TEXT NOT NULL DEFAULT '',
    ADD COLUMN address_building_name                TEXT NOT NULL DEFAULT '',
    ADD COLUMN business_name_kana                   TEXT NOT NULL DEFAULT '',
    ADD COLUMN business_postal_code                 TEXT NOT NULL DEFAULT '',
    ADD COLUMN business_address_state               TEXT NOT NULL DEFAULT '',
    ADD COLUMN business_address_city                TEXT NOT NULL DEFAULT '',
    ADD COLUMN business_address_street              TEXT NOT NULL DEFAULT '',
    ADD COLUMN business_address_building_name       TEXT NOT NULL DEFAULT '',
    ADD COLUMN home_postal_code                     TEXT NOT NULL DEFAULT '',
    ADD COLUMN home_address_state                   TEXT NOT NULL DEFAULT '',
    ADD COLUMN home_address_city                    TEXT NOT NULL DEFAULT '',
    ADD COLUMN home_address_street                  TEXT NOT NULL DEFAULT '',
    ADD COLUMN home_address_building_name           TEXT NOT NULL DEFAULT '',
    ADD COLUMN transfer_person_name                 TEXT NOT NULL DEFAULT '',
    ADD COLUMN business_category                    TEXT NOT NULL DEFAULT '';

-- Credentials and their protections. session_epoch is copied into each session at
-- sign-in; raising it ends every other session (password reset, password change).
ALTER TABLE users
    ADD COLUMN two_factor_method  TEXT NOT NULL DEFAULT '' CHECK (two_factor_method IN ('', 'email', 'totp')),
    ADD COLUMN totp_secret_sealed TEXT NOT NULL DEFAULT '',
    ADD COLUMN totp_last_step     BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN failed_sign_ins    INT NOT NULL DEFAULT 0,
    ADD COLUMN last_failed_at     TIMESTAMPTZ,
    ADD COLUMN locked_until       TIMESTAMPTZ,
    ADD COLUMN session_epoch      INT NOT NULL DEFAULT 1,
    ADD COLUMN terms_version      INT NOT NULL DEFAULT 0;

-- A sign-up before the user exists: the address is confirmed by a mailed code, then
-- registration creates the buyer and user and marks the sign-up completed.
CREATE TABLE signups (
    id             BIGSERIAL PRIMARY KEY,
    email_address  TEXT NOT NULL,
    password_hash  TEXT NOT NULL,
    terms_version  INT NOT NULL,
    verified_at    TIMESTAMPTZ,
    completed_at   TIMESTAMPTZ,
    created_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX signups_email_idx ON signups (lower(email_address));

-- Mailed one-time codes. subject identifies what the code is for (a sign-up id, a user
-- id); payload carries what the code confirms (the new address of an e-mail change).
CREATE TABLE one_time_codes (
    id          BIGSERIAL PRIMARY KEY,
    purpose     TEXT NOT NULL CHECK (purpose IN ('signup', 'signin', 'password_reset', 'email_change')),
    subject     TEXT NOT NULL,
    code_hash   TEXT NOT NULL,
    payload     TEXT NOT NULL DEFAULT '',
    expires_at  TIMESTAMPTZ NOT NULL,
    attempts    INT NOT NULL DEFAULT 0,
    used_at     TIMESTAMPTZ,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX one_time_codes_subject_idx ON one_time_codes (purpose, subject, created_at DESC);

CREATE TABLE recovery_codes (
    id         BIGSERIAL PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash  TEXT NOT NULL,
    used_at    TIMESTAMPTZ
);
CREATE INDEX recovery_codes_user_idx ON recovery_codes (user_id);

-- Sign-in history for the security page; the user agent is cut to 500 characters.
CREATE TABLE sign_in_events (
    id          BIGSERIAL PRIMARY KEY,
    user_id     BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    succeeded   BOOLEAN NOT NULL,
    ip_address  TEXT NOT NULL DEFAULT '',
    user_agent  TEXT NOT NULL DEFAULT '' CHECK (char_length(user_agent) <= 500),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX sign_in_events_user_idx ON sign_in_events (user_id, created_at DESC);

-- +goose Down
DROP TABLE sign_in_events;
DROP TABLE recovery_codes;
DROP TABLE one_time_codes;
DROP TABLE signups;
ALTER TABLE users
    DROP COLUMN two_factor_method, DROP COLUMN totp_secret_sealed, DROP COLUMN totp_last_step,
    DROP COLUMN failed_sign_ins, DROP COLUMN last_failed_at, DROP COLUMN locked_until,
    DROP COLUMN session_epoch, DROP COLUMN terms_version;
ALTER TABLE buyers
    DROP COLUMN corporate_name_kana, DROP COLUMN representative_last_name, DROP COLUMN representative_first_name,
    DROP COLUMN representative_last_name_kana, DROP COLUMN representative_first_name_kana,
    DROP COLUMN representative_birthday, DROP COLUMN representative_postal_code,
    DROP COLUMN representative_address_state, DROP COLUMN representative_address_city,
    DROP COLUMN representative_address_street, DROP COLUMN representative_address_building_name,
    DROP COLUMN representative_phone_number, DROP COLUMN postal_code, DROP COLUMN address_state,
    DROP COLUMN address_city, DROP COLUMN address_street, DROP COLUMN address_building_name,
    DROP COLUMN business_name_kana, DROP COLUMN business_postal_code, DROP COLUMN business_address_state,
    DROP COLUMN business_address_city, DROP COLUMN business_address_street,
    DROP COLUMN business_address_building_name, DROP COLUMN home_postal_code, DROP COLUMN home_address_state,
    DROP COLUMN home_address_city, DROP COLUMN home_address_street, DROP COLUMN home_address_building_name,
    DROP COLUMN transfer_person_name, DROP COLUMN business_category;
