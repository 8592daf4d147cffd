-- The jackpot pool: one row per pool, every round's post (its key is the game number, so a
-- retried post counts once) and every payout.
CREATE TABLE jackpot_pool (
    pool_id     text PRIMARY KEY,
    amount      bigint NOT NULL CHECK (amount >= 0),   -- minor units
    seed        bigint NOT NULL CHECK (seed >= 0)
);
CREATE TABLE jackpot_post (
    game_number text PRIMARY KEY,
    pool_id     text   NOT NULL REFERENCES jackpot_pool (pool_id),
    table_id    text   NOT NULL,
    window_id   bigint NOT NULL,
    bets        integer NOT NULL CHECK (bets >= 0),    -- how many Jackpot bets
    amount      bigint NOT NULL CHECK (amount >= 0),   -- their total, minor units
    contributed bigint NOT NULL,
    royal       boolean NOT NULL,
    settled     boolean NOT NULL DEFAULT false
);
CREATE INDEX jackpot_post_window ON jackpot_post (pool_id, window_id);
CREATE TABLE jackpot_payout (
    game_number text PRIMARY KEY REFERENCES jackpot_post (game_number),
    amount      bigint NOT NULL,
    paid_at     timestamptz NOT NULL DEFAULT now()
);
